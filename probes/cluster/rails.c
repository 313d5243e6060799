/* Rails from the agents' inventories: the spec, and each node's address on
 * each rail. See rails.h. */
#define _GNU_SOURCE /* strverscmp */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/rails.h"

int ix_rail_spec_parse(const char *s, struct ix_rail_spec *out, struct ix_err *err)
{
	char buf[IX_RAILS_MAX * 64 + 64], *save = NULL, *tok;
	int subnets = 0, names = 0;

	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return ix_fail(err, IX_EXIT_USAGE, "empty (auto, or a comma list)");
	if (strcmp(s, "auto") == 0)
		return (out->discover = true), 0;
	if (strlen(s) >= sizeof(buf))
		return ix_fail(err, IX_EXIT_USAGE, "the list is too long");
	if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
		return ix_fail(err, IX_EXIT_USAGE, "an empty item in '%s'", s);
	memcpy(buf, s, strlen(s) + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char net[64], *slash;
		unsigned char a[16];
		unsigned long prefix = 0;
		int family;

		if (out->n == IX_RAILS_MAX)
			return ix_fail(err, IX_EXIT_USAGE, "more than %d rails", IX_RAILS_MAX);
		if (!*tok || strlen(tok) >= sizeof(out->item[0]) || strspn(tok, " \t"))
			return ix_fail(err, IX_EXIT_USAGE,
				       "item %u: '%s' is not a subnet or "
				       "an interface name",
				       out->n + 1, tok);
		for (uint32_t i = 0; i < out->n; i++)
			if (strcmp(out->item[i], tok) == 0)
				return ix_fail(err, IX_EXIT_USAGE, "'%s' is named twice", tok);
		slash = strchr(tok, '/');
		if (slash) {
			char *end;

			snprintf(net, sizeof(net), "%.*s", (int)(slash - tok), tok);
			family = strchr(net, ':') ? AF_INET6 : AF_INET;
			prefix = strtoul(slash + 1, &end, 10);
			if (inet_pton(family, net, a) != 1 || *end || end == slash + 1 ||
			    prefix > (family == AF_INET ? 32u : 128u))
				return ix_fail(err, IX_EXIT_USAGE,
					       "item %u: '%s' is not a subnet (ADDRESS/PREFIX)",
					       out->n + 1, tok);
			subnets++;
		} else {
			if (strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_.-@:") != strlen(tok))
				return ix_fail(err, IX_EXIT_USAGE,
					       "item %u: '%s' is not a subnet or an "
					       "interface name",
					       out->n + 1, tok);
			names++;
		}
		memcpy(out->item[out->n++], tok, strlen(tok) + 1);
	}
	if (!out->n)
		return ix_fail(err, IX_EXIT_USAGE, "empty (auto, or a comma list)");
	if (subnets && names)
		return ix_fail(err, IX_EXIT_USAGE,
			       "subnets and interface names in one list: name rails one "
			       "way");
	return 0;
}

void ix_rails_free(struct ix_rails *r)
{
	for (uint32_t i = 0; i < r->n; i++) {
		ix_hostlist_free(&r->rail[i].hosts);
		free(r->rail[i].node);
		free(r->rail[i].missing);
	}
	memset(r, 0, sizeof(*r));
}

/* An address that may carry a rail: a node's interfaces' IPv4 addresses,
 * and the IPv6 ones of interfaces that have none. */
struct cand {
	uint32_t node;
	const struct ix_ifaddr *a;
	char subnet[64];
	char key[96]; /* what it is grouped by */
	bool taken;
};

static bool has_ipv4(const struct ix_node_inv *inv, const char *iface)
{
	for (uint32_t i = 0; i < inv->naddrs; i++)
		if (inv->addrs[i].family == AF_INET && strcmp(inv->addrs[i].iface, iface) == 0)
			return true;
	return false;
}

static size_t candidates(const struct ix_fleet_result *fleet, bool rdma_only, struct cand *out)
{
	size_t n = 0;

	for (uint32_t i = 0; i < fleet->n; i++) {
		const struct ix_node_inv *inv = &fleet->nodes[i].inv;

		for (uint32_t k = 0; fleet->nodes[i].ok && k < inv->naddrs; k++) {
			const struct ix_ifaddr *a = &inv->addrs[k];

			if ((rdma_only && !a->rdma[0]) ||
			    (a->family == AF_INET6 && has_ipv4(inv, a->iface)))
				continue;
			out[n] = (struct cand){ .node = i, .a = a };
			ix_ifaddr_subnet(a, out[n].subnet, sizeof(out[n].subnet));
			snprintf(out[n].key, sizeof(out[n].key), "%s", out[n].subnet);
			n++;
		}
	}
	return n;
}

static int add_host(struct ix_rail *rl, const struct ix_hostlist *nodes, uint32_t node,
		    const struct ix_ifaddr *a, struct ix_err *err)
{
	char spec[IX_HOST_NAME_MAX + 16];
	uint32_t *v;

	/* The address with the node's agent's port, parsed as any host is. */
	snprintf(spec, sizeof(spec), a->family == AF_INET6 ? "[%s]:%u" : "%s:%u", a->addr,
		 nodes->v[node].port);
	if (ix_hostlist_parse(spec, nodes->v[node].port, &rl->hosts, err) < 0)
		return -1;
	v = realloc(rl->node, rl->hosts.n * sizeof(*v));
	if (!v)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rl->node = v;
	rl->node[rl->hosts.n - 1] = node;
	return 0;
}

/* The nodes with no address on the rail; its interface and RDMA device
 * where every node's address is on the same one. */
static int finish_rail(struct ix_rail *rl, const struct ix_hostlist *nodes,
		       const struct ix_ifaddr *first, bool same_iface, bool same_rdma,
		       struct ix_err *err)
{
	rl->missing = calloc(nodes->n ? nodes->n : 1, sizeof(*rl->missing));
	if (!rl->missing)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (uint32_t i = 0; i < nodes->n; i++) {
		bool on = false;

		for (size_t h = 0; h < rl->hosts.n && !on; h++)
			on = rl->node[h] == i;
		if (!on)
			rl->missing[rl->nmissing++] = i;
	}
	if (first && same_iface)
		snprintf(rl->iface, sizeof(rl->iface), "%s", first->iface);
	if (first && same_rdma)
		snprintf(rl->rdma, sizeof(rl->rdma), "%s", first->rdma);
	return 0;
}

/* A rail of the candidates whose key is key, one per node (the first),
 * when two nodes or more have one. */
static int rail_of_key(struct cand *c, size_t n, const char *key, const char *name,
		       const struct ix_hostlist *nodes, struct ix_rails *out, struct ix_err *err)
{
	struct ix_rail *rl = &out->rail[out->n];
	const struct ix_ifaddr *first = NULL;
	bool same_iface = true, same_rdma = true;
	uint8_t *seen = calloc(nodes->n ? nodes->n : 1, 1);

	if (!seen)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	memset(rl, 0, sizeof(*rl));
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].key, key) != 0)
			continue;
		c[i].taken = true;
		if (seen[c[i].node])
			continue;
		seen[c[i].node] = 1;
		if (add_host(rl, nodes, c[i].node, c[i].a, err) < 0) {
			free(seen);
			ix_hostlist_free(&rl->hosts);
			free(rl->node);
			return -1;
		}
		if (!first)
			first = c[i].a;
		same_iface = same_iface && strcmp(first->iface, c[i].a->iface) == 0;
		same_rdma = same_rdma && strcmp(first->rdma, c[i].a->rdma) == 0;
	}
	free(seen);
	if (out->n == IX_RAILS_MAX || rl->hosts.n < 2) {
		ix_hostlist_free(&rl->hosts);
		free(rl->node);
		memset(rl, 0, sizeof(*rl));
		return 0;
	}
	snprintf(rl->name, sizeof(rl->name), "%s", name);
	out->n++;
	return finish_rail(rl, nodes, first, same_iface, same_rdma, err);
}

/* A subnet where a node has two addresses holds several rails: split it
 * by LLDP leaf where every address has one, else by interface name. */
static const char *split_subnet(struct cand *c, size_t n, size_t at, uint32_t nnodes)
{
	uint8_t *seen = calloc(nnodes ? nnodes : 1, 1);
	bool dup = false, leaves = true;

	for (size_t i = at; seen && i < n; i++) {
		if (strcmp(c[i].subnet, c[at].subnet) != 0)
			continue;
		dup = dup || seen[c[i].node];
		seen[c[i].node] = 1;
		leaves = leaves && c[i].a->leaf[0];
	}
	free(seen);
	if (!dup)
		return NULL;
	for (size_t i = at; i < n; i++)
		if (strcmp(c[i].subnet, c[at].subnet) == 0)
			snprintf(c[i].key, sizeof(c[i].key), "%s %s", c[i].subnet,
				 leaves ? c[i].a->leaf : c[i].a->iface);
	return leaves ? "leaf" : "interface";
}

static int rail_cmp(const void *x, const void *y)
{
	return strverscmp(((const struct ix_rail *)x)->name, ((const struct ix_rail *)y)->name);
}

static int find_auto(struct cand *c, size_t n, const struct ix_hostlist *nodes,
		     struct ix_rails *out, struct ix_err *err)
{
	snprintf(out->how, sizeof(out->how), "subnet");
	for (size_t i = 0; i < n; i++) {
		const char *how;

		if (c[i].taken || strcmp(c[i].key, c[i].subnet) != 0)
			continue;
		how = split_subnet(c, n, i, (uint32_t)nodes->n);
		if (how)
			snprintf(out->how, sizeof(out->how), "%s", how);
		for (size_t k = i; k < n; k++) {
			const char *key = c[k].key;

			if (c[k].taken || strcmp(c[k].subnet, c[i].subnet) != 0)
				continue;
			/* split: the rail is named by its leaf or interface */
			if (rail_of_key(c, n, key, how ? strchr(key, ' ') + 1 : key, nodes, out,
					err) < 0)
				return -1;
		}
	}
	qsort(out->rail, out->n, sizeof(out->rail[0]), rail_cmp);
	return 0;
}

/* Named rails: the address of each node in the subnet, or on the
 * interface (IPv4 first). */
static int find_named(const struct ix_rail_spec *spec, struct cand *c, size_t n,
		      const struct ix_hostlist *nodes, struct ix_rails *out, struct ix_err *err)
{
	bool subnets = strchr(spec->item[0], '/') != NULL;

	snprintf(out->how, sizeof(out->how), subnets ? "subnet" : "interface");
	for (uint32_t k = 0; k < spec->n; k++) {
		const char *it = spec->item[k];
		char net[64];
		unsigned prefix = 0;

		if (subnets) {
			snprintf(net, sizeof(net), "%.*s", (int)(strchr(it, '/') - it), it);
			prefix = (unsigned)strtoul(strchr(it, '/') + 1, NULL, 10);
		}
		for (size_t i = 0; i < n; i++) {
			const struct ix_ifaddr *a = c[i].a;
			bool on = subnets ? ix_ifaddr_in_subnet(a->family, a->addr, net, prefix)
					  : !strcmp(a->iface, it) || !strcmp(a->rdma, it);

			if (!on)
				continue;
			for (size_t j = 0; subnets && j < i; j++)
				if (c[j].node == c[i].node && !strcmp(c[j].key, it))
					return ix_fail(err, IX_EXIT_USAGE,
						       "rails: %s has two addresses in %s (%s, "
						       "%s): name the rails by interface",
						       nodes->v[c[i].node].name, it, c[j].a->addr,
						       a->addr);
			snprintf(c[i].key, sizeof(c[i].key), "%s", it);
		}
		if (rail_of_key(c, n, it, it, nodes, out, err) < 0)
			return -1;
		if (out->n != k + 1)
			return ix_fail(err, IX_EXIT_USAGE,
				       "rails: fewer than two nodes have an address %s %s",
				       subnets ? "in" : "on", it);
	}
	return 0;
}

int ix_rails_find(const struct ix_rail_spec *spec, const struct ix_fleet_result *fleet,
		  const struct ix_hostlist *nodes, struct ix_rails *out, struct ix_err *err)
{
	size_t cap = 0, n;
	bool rdma = false;
	struct cand *c;
	int rc;

	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < fleet->n; i++)
		for (uint32_t k = 0; fleet->nodes[i].ok && k < fleet->nodes[i].inv.naddrs; k++) {
			cap++;
			rdma = rdma || fleet->nodes[i].inv.addrs[k].rdma[0];
		}
	c = calloc(cap ? cap : 1, sizeof(*c));
	if (!c)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	/* Auto: the NICs with an RDMA device where there are any (the
	 * management network is not a rail); named: every address. */
	n = candidates(fleet, spec->discover && rdma, c);
	rc = spec->discover ? find_auto(c, n, nodes, out, err)
			    : find_named(spec, c, n, nodes, out, err);
	free(c);
	if (rc == 0 && out->n == 0)
		rc = ix_fail(err, IX_EXIT_FAIL,
			     "rails: no subnet%s holds an address of two nodes or more (%u of %zu "
			     "agents answered the inventory)",
			     rdma ? " of an RDMA interface" : "", fleet->answered, nodes->n);
	if (rc < 0)
		ix_rails_free(out);
	return rc;
}
