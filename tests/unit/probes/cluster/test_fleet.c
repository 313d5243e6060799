/* Unit tests for probes/cluster/fleet.c: the odd ones out among node
 * inventories, without agents (the gathering is in
 * tests/integration/fleet_netns.sh). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/cluster/fleet.h"

/* n healthy, identical nodes with one NIC each. */
static void fleet(struct ix_fleet_result *r, uint32_t n)
{
	struct ix_hostlist hl = { 0 };
	struct ix_err err = { 0 };
	char spec[64];

	snprintf(spec, sizeof(spec), "node[1-%u]", n);
	cr_assert_eq(ix_hostlist_parse(spec, 5301, &hl, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_fleet_init(r, &hl), 0);
	ix_hostlist_free(&hl);
	for (uint32_t i = 0; i < n; i++) {
		struct ix_fleet_node *nd = &r->nodes[i];
		struct ix_inv_nic *c = &nd->inv.nics[0];

		nd->ok = true;
		nd->error[0] = '\0';
		snprintf(nd->inv.kernel, sizeof(nd->inv.kernel), "6.1.0-18-amd64");
		nd->inv.nnics = 1;
		snprintf(c->name, sizeof(c->name), "ibp1s0");
		snprintf(c->model, sizeof(c->model), "MT4129");
		snprintf(c->fw, sizeof(c->fw), "28.39.1002");
		snprintf(c->driver, sizeof(c->driver), "mlx5_core");
		c->mtu_known = true;
		c->mtu = 4092;
		c->pcie = (struct ix_inv_pcie){ true, 5, 16, 5, 16, false };
	}
}

Test(fleet, identical_nodes_have_no_odd_one)
{
	struct ix_fleet_result r;

	fleet(&r, 4);
	cr_assert_eq(ix_fleet_analyze(&r), 0);
	cr_expect_eq(r.nodd, 0);
	cr_expect_eq(r.odd_nodes, 0);
	cr_expect_eq(r.answered, 4);
	ix_fleet_free(&r);
}

Test(fleet, names_the_firmware_and_the_link_that_differ)
{
	struct ix_fleet_result r;
	const struct ix_fleet_odd *fw = NULL, *pcie = NULL;

	fleet(&r, 4);
	snprintf(r.nodes[1].inv.nics[0].fw, sizeof(r.nodes[1].inv.nics[0].fw), "28.36.1010");
	r.nodes[2].inv.nics[0].pcie = (struct ix_inv_pcie){ true, 4, 8, 5, 16, true };
	cr_assert_eq(ix_fleet_analyze(&r), 0);
	cr_assert_eq(r.nodd, 2);
	for (uint32_t k = 0; k < r.nodd; k++) {
		if (strcmp(r.odd[k].field, "fw") == 0)
			fw = &r.odd[k];
		if (strcmp(r.odd[k].field, "pcie") == 0)
			pcie = &r.odd[k];
	}
	cr_assert_not_null(fw);
	cr_expect_eq(fw->node, 1);
	cr_expect_str_eq(fw->device, "ibp1s0");
	cr_expect_str_eq(fw->value, "28.36.1010");
	cr_expect_str_eq(fw->majority, "28.39.1002");
	cr_expect_eq(fw->agree, 3);
	cr_expect_eq(fw->of, 4);
	cr_assert_not_null(pcie);
	cr_expect_eq(pcie->node, 2);
	cr_expect_str_eq(pcie->value, "Gen4 x8");
	cr_expect_str_eq(pcie->majority, "Gen5 x16");
	cr_expect_eq(r.odd_nodes, 2);
	cr_expect(ix_fleet_node_odd(&r, 1));
	cr_expect(ix_fleet_node_odd(&r, 2));
	cr_expect_not(ix_fleet_node_odd(&r, 0));
	ix_fleet_free(&r);
}

Test(fleet, kernel_driver_and_mtu)
{
	struct ix_fleet_result r;

	fleet(&r, 5);
	snprintf(r.nodes[4].inv.kernel, sizeof(r.nodes[4].inv.kernel), "6.1.0-13-amd64");
	snprintf(r.nodes[3].inv.nics[0].driver_version,
		 sizeof(r.nodes[3].inv.nics[0].driver_version), "23.10-1.1.9");
	r.nodes[0].inv.nics[0].mtu = 2044;
	cr_assert_eq(ix_fleet_analyze(&r), 0);
	cr_assert_eq(r.nodd, 3);
	cr_expect_str_eq(r.odd[0].field, "kernel");
	cr_expect_eq(r.odd[0].node, 4);
	cr_expect_str_eq(r.odd[0].device, "");
	cr_expect_str_eq(r.odd[1].field, "driver");
	cr_expect_str_eq(r.odd[1].value, "mlx5_core 23.10-1.1.9");
	cr_expect_str_eq(r.odd[2].field, "mtu");
	cr_expect_eq(r.odd[2].node, 0);
	cr_expect_str_eq(r.odd[2].value, "2044");
	cr_expect_str_eq(r.odd[2].majority, "4092");
	ix_fleet_free(&r);
}

Test(fleet, no_majority_names_no_one)
{
	struct ix_fleet_result r;

	fleet(&r, 4);
	snprintf(r.nodes[0].inv.nics[0].fw, sizeof(r.nodes[0].inv.nics[0].fw), "1");
	snprintf(r.nodes[1].inv.nics[0].fw, sizeof(r.nodes[1].inv.nics[0].fw), "1");
	cr_assert_eq(ix_fleet_analyze(&r), 0);
	cr_expect_eq(r.nodd, 0, "2 against 2 is no majority");
	ix_fleet_free(&r);
}

Test(fleet, failed_nodes_and_missing_nics_are_left_out)
{
	struct ix_fleet_result r;

	fleet(&r, 4);
	r.nodes[0].ok = false;
	snprintf(r.nodes[0].error, sizeof(r.nodes[0].error), "no answer");
	snprintf(r.nodes[0].inv.kernel, sizeof(r.nodes[0].inv.kernel), "junk");
	/* node 2's NIC is named otherwise: compared with no one. */
	snprintf(r.nodes[2].inv.nics[0].name, sizeof(r.nodes[2].inv.nics[0].name), "eth9");
	r.nodes[2].inv.nics[0].mtu = 1500;
	r.nodes[3].inv.nfindings = 2;
	cr_assert_eq(ix_fleet_analyze(&r), 0);
	cr_expect_eq(r.nodd, 0);
	cr_expect_eq(r.answered, 3);
	cr_expect_eq(r.findings, 2);
	cr_expect_str_eq(r.nodes[0].host, "node1:5301");
	ix_fleet_free(&r);
}
