/* Unit tests for report/model/topotree.c on the saved trees of
 * tests/topo/mkfixture.py: NUMA nodes over host bridges over the PCI
 * functions, a downtrained link marked and its ancestors knowing it,
 * folding to a screen's height (the large layout's 466 functions too),
 * and a NIC's counters loading its link and every link above it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/model/topotree.h"
#include "tests/unit/common.h"

/* The layout's tree, scanned (its directory is gone again). */
static void fixture(const char *layout, struct ix_topo *t)
{
	ix_test_topo_fixture(layout, t);
}

Test(topotree, levels_and_the_downtrained_link)
{
	struct ix_topo t;
	struct ix_tree tr;
	int bad = -1;

	fixture("downtrained", &t);
	cr_assert_eq(ix_tree_build(&t, &tr), 0);
	cr_assert_gt(tr.n, 2);
	cr_assert_eq(tr.v[0].kind, IX_TREE_NUMA);
	cr_assert_eq(tr.v[1].kind, IX_TREE_BRIDGE);
	cr_assert_eq(tr.v[1].parent, 0);
	for (size_t i = 0; i < tr.n; i++) {
		const struct ix_tree_node *n = &tr.v[i];

		/* Drawing order: a parent comes before its children, one level up. */
		if (n->parent >= 0) {
			cr_assert_lt(n->parent, (int)i);
			cr_assert_eq(tr.v[n->parent].depth + 1, n->depth);
		}
		if (n->health == IX_TREE_BAD && strstr(n->issue, "downtrained"))
			bad = (int)i;
	}
	cr_assert_geq(bad, 0, "no downtrained link marked");
	cr_assert_str_eq(tr.v[bad].name, "0000:01:00.0");
	cr_assert_not_null(strstr(tr.v[bad].issue, "Gen4 x8 of Gen"), "%s", tr.v[bad].issue);
	for (int p = bad; p >= 0; p = tr.v[p].parent)
		cr_assert_eq(tr.v[p].worst, IX_TREE_BAD, "%s does not know", tr.v[p].name);
	ix_tree_free(&tr);
	ix_topo_free(&t);
}

/* Folding: the deepest first, healthy before troubled; a folded node
 * hides exactly its subtree. */
Test(topotree, folds_the_large_host_to_a_screen)
{
	struct ix_topo t;
	struct ix_tree tr;
	size_t all, rows[1024], n;

	fixture("large", &t);
	cr_assert_eq(ix_tree_build(&t, &tr), 0);
	all = ix_tree_visible(&tr, NULL, 0);
	cr_assert_eq(all, tr.n, "nothing is folded at first");
	cr_assert_gt(all, 100);
	ix_tree_fit(&tr, 21);
	n = ix_tree_visible(&tr, rows, 1024);
	cr_assert_leq(n, 21, "%zu rows", n);
	cr_assert_gt(n, 1);
	/* Unfolding a visible folded node shows its children right below it. */
	for (size_t r = 0; r < n; r++) {
		size_t i = rows[r], m;

		if (!tr.v[i].folded)
			continue;
		ix_tree_toggle(&tr, i);
		m = ix_tree_visible(&tr, rows, 1024);
		/* Deeper levels were folded first: its children are folded or
		 * leaves, one row each. */
		cr_assert_eq(m, n + (size_t)tr.v[i].nchildren, "unfolding %s: %zu rows, was %zu",
			     tr.v[i].name, m, n);
		cr_assert_eq(tr.v[rows[r + 1]].parent, (int)i);
		break;
	}
	ix_tree_free(&tr);
	ix_topo_free(&t);
}

/* A NIC carrying 50 Gbit/s: its link shows that share, and so does every
 * link above it, against its own bandwidth. */
Test(topotree, a_nics_counters_load_the_links_above_it)
{
	struct ix_topo t;
	struct ix_tree tr;
	struct ix_top_model m = { 0 };
	struct ix_link l = { .kind = IX_LINK_NET };
	struct ix_link_rate r = { .known = IX_LINK_RX_BYTES | IX_LINK_TX_BYTES,
				  .rx_bps = 50e9,
				  .tx_bps = 10e9 };
	int nic = -1;

	fixture("dgx-h100", &t);
	cr_assert_eq(ix_tree_build(&t, &tr), 0);
	for (size_t i = 0; i < tr.n && nic < 0; i++)
		if (tr.v[i].pci >= 0 && t.pci.v[tr.v[i].pci].nnetdevs && tr.v[i].has_link)
			nic = (int)i;
	cr_assert_geq(nic, 0, "no NIC with a netdev and a link");
	snprintf(l.name, sizeof(l.name), "%s", t.pci.v[tr.v[nic].pci].netdevs[0]);
	snprintf(l.dev, sizeof(l.dev), "%s", l.name);
	m.cur.v = &l;
	m.cur.n = 1;
	m.rates = &r;
	ix_tree_load(&tr, &t, &m);
	cr_assert(tr.v[nic].load_known);
	cr_assert_float_eq(tr.v[nic].load_bps, 50e9, 1, "the busier direction");
	cr_assert_float_eq(tr.v[nic].load, 50e9 / tr.v[nic].link_bps, 1e-9);
	for (int p = tr.v[nic].parent; p >= 0; p = tr.v[p].parent) {
		cr_assert(tr.v[p].load_known, "%s", tr.v[p].name);
		cr_assert_float_eq(tr.v[p].load_bps, 50e9, 1, "%s", tr.v[p].name);
	}
	for (size_t i = 0; i < tr.n; i++)
		if (tr.v[i].kind == IX_TREE_PCI && t.pci.v[tr.v[i].pci].type == IX_PCI_GPU)
			cr_assert_not(tr.v[i].load_known, "a GPU has no counters here");
	/* A measured figure stays through later loads, and is not summed up. */
	cr_assert_eq(ix_tree_measured(&tr, &t, "0000:18:00.0", 400e9), 0);
	cr_assert_eq(ix_tree_measured(&tr, &t, "0000:ff:00.0", 400e9), -1);
	ix_tree_load(&tr, &t, &m);
	for (size_t i = 0; i < tr.n; i++)
		if (tr.v[i].pci >= 0 && strcmp(t.pci.v[tr.v[i].pci].bdf, "0000:18:00.0") == 0) {
			cr_assert(tr.v[i].measured && tr.v[i].load_known);
			cr_assert_float_eq(tr.v[i].load_bps, 400e9, 1);
			cr_assert_float_eq(tr.v[i].load, 400e9 / tr.v[i].link_bps, 1e-9);
			cr_assert_float_eq(tr.v[tr.v[i].parent].load_bps, 0, 1,
					   "its switch port carries no live traffic");
		}
	ix_tree_free(&tr);
	ix_topo_free(&t);
}

/* 'ixperf gpu --json' read back: a GPU's best copy against its PCIe link
 * (a "host" row or column), in bit/s; other tests, kinds and GPUs of
 * another host are passed over. */
Test(topotree, a_gpu_documents_copies_are_measured)
{
	struct ix_topo t;
	struct ix_tree tr;
	json_t *doc;

	fixture("dgx-h100", &t);
	cr_assert_eq(ix_tree_build(&t, &tr), 0);
	doc = json_loads(
		"{\"results\":[{\"kind\":\"bw\"},{\"kind\":\"gpu\","
		"\"devices\":[{\"pci_bus_id\":\"00000000:18:00.0\"},{\"pci_bus_id\":\"0000:ff:00."
		"0\"}],"
		"\"tests\":[{\"reference\":\"pcie_link\",\"rows\":[\"host\"],\"columns\":[0,1],"
		"\"matrix\":{\"value\":[[50e9,40e9]]}},"
		"{\"reference\":\"pcie_link\",\"rows\":[0,1],\"columns\":[\"host\"],"
		"\"matrix\":{\"value\":[[52e9],[41e9]]}},"
		"{\"reference\":\"nvlink\",\"rows\":[\"host\"],\"columns\":[0,1],"
		"\"matrix\":{\"value\":[[90e9,90e9]]}}]}]}",
		0, NULL);
	cr_assert_not_null(doc);
	cr_assert_eq(ix_tree_measured_doc(&tr, &t, doc), 1, "the other GPU is not here");
	for (size_t i = 0; i < tr.n; i++)
		if (tr.v[i].pci >= 0 && strcmp(t.pci.v[tr.v[i].pci].bdf, "0000:18:00.0") == 0)
			cr_assert_float_eq(tr.v[i].load_bps, 52e9 * 8, 1);
	json_decref(doc);
	doc = json_loads("{\"results\":{\"kind\":\"gpu\"}}", 0, NULL);
	cr_assert_eq(ix_tree_measured_doc(&tr, &t, doc), 0);
	json_decref(doc);
	ix_tree_free(&tr);
	ix_topo_free(&t);
}
