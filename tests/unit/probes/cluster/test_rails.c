/* Unit tests for probes/cluster/rails.c: the rails spec, and the rails
 * found in node inventories (the meshes over them are in
 * tests/integration/rails_netns.sh). */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/rails.h"

static struct ix_hostlist nodes;
static struct ix_fleet_result fleet;

/* n nodes, none with an address yet. */
static void setup_nodes(uint32_t n)
{
	struct ix_err err = { 0 };
	char spec[64];

	memset(&nodes, 0, sizeof(nodes));
	snprintf(spec, sizeof(spec), "node[1-%u]", n);
	cr_assert_eq(ix_hostlist_parse(spec, 5301, &nodes, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_fleet_init(&fleet, &nodes), 0);
	for (uint32_t i = 0; i < n; i++)
		fleet.nodes[i].ok = true;
	fleet.answered = n;
}

static void teardown(void)
{
	ix_fleet_free(&fleet);
	ix_hostlist_free(&nodes);
}

/* Node i (0-based) has the address BASE followed by i + 1, /prefix, on
 * iface, over RDMA device rdma, cabled to leaf. */
static void addr(uint32_t i, const char *iface, const char *base, unsigned prefix, const char *rdma,
		 const char *leaf)
{
	struct ix_node_inv *inv = &fleet.nodes[i].inv;
	struct ix_ifaddr *x = &inv->addrs[inv->naddrs++];

	memset(x, 0, sizeof(*x));
	snprintf(x->iface, sizeof(x->iface), "%s", iface);
	x->family = strchr(base, ':') ? AF_INET6 : AF_INET;
	snprintf(x->addr, sizeof(x->addr), "%s%u", base, i + 1);
	x->prefix = (uint8_t)prefix;
	snprintf(x->rdma, sizeof(x->rdma), "%s", rdma);
	snprintf(x->leaf, sizeof(x->leaf), "%s", leaf);
}

static const char *host(const struct ix_rails *r, uint32_t k, size_t h)
{
	return r->rail[k].hosts.v[h].name;
}

Test(rails, spec_forms)
{
	struct ix_rail_spec s;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_rail_spec_parse("auto", &s, &err), 0);
	cr_assert(s.discover);
	cr_assert_eq(ix_rail_spec_parse("10.1.0.0/24,10.2.0.0/24,fd00::/64", &s, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(s.n, 3);
	cr_assert_str_eq(s.item[2], "fd00::/64");
	cr_assert_eq(ix_rail_spec_parse("mlx5_0,mlx5_1", &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.n, 2);
}

Test(rails, spec_refusals_name_the_item)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
		{ "", "empty" },
		{ "10.1.0.0/33", "'10.1.0.0/33' is not a subnet" },
		{ "10.1.0/24", "'10.1.0/24' is not a subnet" },
		{ "10.1.0.0/", "is not a subnet" },
		{ "eth0,,eth1", "an empty item in 'eth0,,eth1'" },
		{ "eth0,", "an empty item" },
		{ "eth0,eth0", "'eth0' is named twice" },
		{ "eth0,10.1.0.0/24", "subnets and interface names in one list" },
		{ "eth 0", "is not a subnet or an interface name" },
		{ "a;b", "is not a subnet or an interface name" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_rail_spec s;
		struct ix_err err = { 0 };

		cr_assert_eq(ix_rail_spec_parse(bad[i].spec, &s, &err), -1, "%s", bad[i].spec);
		cr_assert_eq(err.code, IX_EXIT_USAGE);
		cr_assert(strstr(err.msg, bad[i].says), "'%s': %s", bad[i].spec, err.msg);
	}
	/* 17 rails */
	{
		char many[512] = "";
		struct ix_rail_spec s;
		struct ix_err err = { 0 };

		for (int i = 0; i <= IX_RAILS_MAX; i++)
			snprintf(many + strlen(many), sizeof(many) - strlen(many), "%se%d",
				 i ? "," : "", i);
		cr_assert_eq(ix_rail_spec_parse(many, &s, &err), -1);
		cr_assert(strstr(err.msg, "more than 16"), "%s", err.msg);
	}
}

Test(rails, auto_by_subnet_sorted_with_missing_nodes, .fini = teardown)
{
	struct ix_rail_spec s = { .discover = true };
	struct ix_rails r;
	struct ix_err err = { 0 };

	setup_nodes(3);
	for (uint32_t i = 0; i < 3; i++) {
		addr(i, "eth2", "10.10.0.", 24, "", ""); /* listed first, sorts last */
		if (i != 1)                              /* node2 has no NIC on this rail */
			addr(i, "eth1", "10.2.0.", 24, "", "");
		addr(i, "mgmt", "192.168.0.", 32, "", ""); /* a subnet of its own: no rail */
	}
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(r.how, "subnet");
	cr_assert_eq(r.n, 2);
	cr_assert_str_eq(r.rail[0].name, "10.2.0.0/24");
	cr_assert_str_eq(r.rail[0].iface, "eth1");
	cr_assert_eq(r.rail[0].hosts.n, 2);
	cr_assert_str_eq(host(&r, 0, 1), "10.2.0.3");
	cr_assert_eq(r.rail[0].hosts.v[1].port, 5301);
	cr_assert_eq(r.rail[0].node[1], 2);
	cr_assert_eq(r.rail[0].nmissing, 1);
	cr_assert_eq(r.rail[0].missing[0], 1);
	cr_assert_str_eq(r.rail[1].name, "10.10.0.0/24");
	cr_assert_eq(r.rail[1].hosts.n, 3);
	cr_assert_eq(r.rail[1].nmissing, 0);
	ix_rails_free(&r);
}

Test(rails, auto_takes_rdma_nics_only_where_there_are_any, .fini = teardown)
{
	struct ix_rail_spec s = { .discover = true };
	struct ix_rails r;
	struct ix_err err = { 0 };

	setup_nodes(2);
	for (uint32_t i = 0; i < 2; i++) {
		addr(i, "eno1", "172.16.0.", 16, "", ""); /* management, shared */
		addr(i, "ens1f0", "10.1.0.", 24, "mlx5_0", "");
		addr(i, "ens1f0", "fd01::", 64, "mlx5_0", ""); /* its IPv6: not a rail */
		addr(i, "ens2f0", "fd02::", 64, "mlx5_1", ""); /* IPv6 only: a rail */
	}
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.n, 2);
	cr_assert_str_eq(r.rail[0].name, "10.1.0.0/24");
	cr_assert_str_eq(r.rail[0].rdma, "mlx5_0");
	cr_assert_str_eq(r.rail[1].name, "fd02::/64");
	cr_assert_str_eq(host(&r, 1, 0), "fd02::1");
	ix_rails_free(&r);
}

Test(rails, one_subnet_split_by_leaf_else_by_interface, .fini = teardown)
{
	struct ix_rail_spec s = { .discover = true };
	struct ix_rails r;
	struct ix_err err = { 0 };

	setup_nodes(2);
	for (uint32_t i = 0; i < 2; i++) {
		addr(i, "eth1", "10.0.1.", 16, "", "leaf-a");
		addr(i, "eth2", "10.0.2.", 16, "", "leaf-b");
	}
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(r.how, "leaf");
	cr_assert_eq(r.n, 2);
	cr_assert_str_eq(r.rail[0].name, "leaf-a");
	cr_assert_str_eq(host(&r, 0, 1), "10.0.1.2");
	cr_assert_str_eq(r.rail[1].name, "leaf-b");
	ix_rails_free(&r);
	/* no leaf known on one NIC: by interface */
	fleet.nodes[1].inv.addrs[1].leaf[0] = '\0';
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(r.how, "interface");
	cr_assert_str_eq(r.rail[0].name, "eth1");
	cr_assert_str_eq(r.rail[1].name, "eth2");
	cr_assert_str_eq(host(&r, 1, 0), "10.0.2.1");
	ix_rails_free(&r);
}

Test(rails, named_subnets_and_interfaces, .fini = teardown)
{
	struct ix_rail_spec s;
	struct ix_rails r;
	struct ix_err err = { 0 };

	setup_nodes(3);
	for (uint32_t i = 0; i < 3; i++) {
		addr(i, "eth1", "10.1.0.", 24, "", "");
		addr(i, "eth2", "10.2.0.", 24, "rxe1", "");
	}
	fleet.nodes[2].ok = false; /* its inventory was not read: missing */
	cr_assert_eq(ix_rail_spec_parse("10.2.0.0/16,10.1.0.0/24", &s, &err), 0);
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_eq(r.n, 2);
	cr_assert_str_eq(r.rail[0].name, "10.2.0.0/16"); /* in the order named */
	cr_assert_str_eq(host(&r, 0, 0), "10.2.0.1");
	cr_assert_eq(r.rail[0].nmissing, 1);
	cr_assert_eq(r.rail[0].missing[0], 2);
	ix_rails_free(&r);
	cr_assert_eq(ix_rail_spec_parse("rxe1", &s, &err), 0);
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), 0, "%s", err.msg);
	cr_assert_str_eq(r.how, "interface");
	cr_assert_str_eq(host(&r, 0, 1), "10.2.0.2");
	ix_rails_free(&r);
	/* a subnet no two nodes are in, and a node with two addresses in one */
	cr_assert_eq(ix_rail_spec_parse("10.9.0.0/24", &s, &err), 0);
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), -1);
	cr_assert(strstr(err.msg, "fewer than two nodes have an address in 10.9.0.0/24"), "%s",
		  err.msg);
	cr_assert_eq(ix_rail_spec_parse("10.0.0.0/8", &s, &err), 0);
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), -1);
	cr_assert(strstr(err.msg, "node1 has two addresses in 10.0.0.0/8 (10.1.0.1, 10.2.0.1)"),
		  "%s", err.msg);
}

Test(rails, no_rail_is_an_error_saying_what_answered, .fini = teardown)
{
	struct ix_rail_spec s = { .discover = true };
	struct ix_rails r;
	struct ix_err err = { 0 };

	setup_nodes(2);
	addr(0, "eth0", "10.1.0.", 24, "", "");
	addr(1, "eth0", "10.2.0.", 24, "", "");
	cr_assert_eq(ix_rails_find(&s, &fleet, &nodes, &r, &err), -1);
	cr_assert(strstr(err.msg, "no subnet holds an address of two nodes or more (2 of 2"), "%s",
		  err.msg);
}
