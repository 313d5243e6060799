/* Unit tests for report/model/topotree.c on the saved trees of
 * tests/topo/mkfixture.py: NUMA nodes over host bridges over the PCI
 * functions, a downtrained link marked and its ancestors knowing it,
 * folding to a screen's height (the large layout's 466 functions too;
 * the GPU servers' GPUs and NICs kept in sight or named by their fold),
 * a NIC's counters loading its link and every link above it, and links
 * with retimers marked in their labels; a CXL memory device's row. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/model/topotree.h"
#include "tests/unit/common.h"
#include "tests/unit/report/fixtures.h"

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
		/* Its children show right below it, each on a row. */
		cr_assert_gt(m, n, "unfolding %s: %zu rows, was %zu", tr.v[i].name, m, n);
		cr_assert_eq(tr.v[rows[r + 1]].parent, (int)i);
		for (size_t k = i + 1; k < tr.n && tr.v[k].depth > tr.v[i].depth; k++)
			if (tr.v[k].parent == (int)i)
				cr_assert(ix_tree_seen(&tr, k), "%s", tr.v[k].name);
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

/* An endpoint's class word in a fold's summary. */
static const char *endpoint_word(const struct ix_tree_node *n)
{
	if (n->kind != IX_TREE_PCI)
		return NULL;
	return n->type == IX_PCI_GPU   ? "GPU"
	       : n->type == IX_PCI_NIC ? "NIC"
	       : n->type == IX_PCI_IB  ? "HCA"
				       : NULL;
}

/* The nearest visible folded ancestor of node i, -1 when none. */
static int shown_above(const struct ix_tree *tr, size_t i)
{
	int a = tr->v[i].parent;

	while (a >= 0 && !(tr->v[a].folded && ix_tree_seen(tr, (size_t)a)))
		a = tr->v[a].parent;
	return a;
}

/* Every GPU, NIC and HCA is a visible row, or the fold it is hidden in
 * (its nearest visible folded ancestor) names as many of its class as it hides. */
static void endpoints_in_sight(const struct ix_tree *tr, const char *what)
{
	for (size_t i = 0; i < tr->n; i++) {
		const char *word = endpoint_word(&tr->v[i]);
		char held[96], want[32];
		size_t hidden = 0;
		int a;

		if (!word || ix_tree_seen(tr, i))
			continue;
		a = shown_above(tr, i);
		cr_assert_geq(a, 0, "%s: %s has no visible ancestor", what, tr->v[i].name);
		cr_assert(tr->v[a].folded, "%s: %s is hidden under an open %s", what, tr->v[i].name,
			  tr->v[a].name);
		for (size_t k = (size_t)a + 1; k < tr->n && tr->v[k].depth > tr->v[a].depth; k++)
			if (!ix_tree_seen(tr, k) && endpoint_word(&tr->v[k]) &&
			    strcmp(endpoint_word(&tr->v[k]), word) == 0 && shown_above(tr, k) == a)
				hidden++;
		ix_tree_summary(tr, (size_t)a, held, sizeof(held));
		snprintf(want, sizeof(want), "%zu %s", hidden, word);
		cr_assert_not_null(strstr(held, want), "%s: %s folds %s but says \"%s\"", what,
				   tr->v[a].name, want, held);
	}
}

/* The GPU servers at 80x24 and 160x50 (21 and 47 rows of tree). */
Test(topotree, gpus_and_nics_stay_in_sight_on_the_gpu_servers)
{
	static const char *layouts[] = { "dgx-h100", "amd-mi300x" };
	static const size_t budgets[] = { 21, 47 };

	for (size_t l = 0; l < 2; l++) {
		struct ix_topo t;
		struct ix_tree tr;

		fixture(layouts[l], &t);
		cr_assert_eq(ix_tree_build(&t, &tr), 0);
		for (size_t b = 0; b < 2; b++) {
			char what[64];
			size_t n;

			ix_tree_fit(&tr, budgets[b]);
			n = ix_tree_visible(&tr, NULL, 0);
			snprintf(what, sizeof(what), "%s in %zu rows", layouts[l], budgets[b]);
			cr_assert_leq(n, budgets[b], "%s: %zu rows", what, n);
			cr_assert_gt(n, budgets[b] / 2, "%s: only %zu rows used", what, n);
			endpoints_in_sight(&tr, what);
		}
		ix_tree_free(&tr);
		ix_topo_free(&t);
	}
}

/* A hand-made host: a storage switch (a second switch below it, one of
 * whose ports is downtrained, and four NVMe drives), a GPU and a NIC. */
static void storage_host(struct ix_tree *tr)
{
	static const struct {
		int parent;
		enum ix_pci_type type;
	} shape[] = {
		{ -1, IX_PCI_OTHER },      /* 0 NUMA 0 */
		{ 0, IX_PCI_OTHER },       /* 1 host bridge */
		{ 1, IX_PCI_ROOT_PORT },   /* 2 */
		{ 2, IX_PCI_SWITCH_UP },   /* 3 the storage switch */
		{ 3, IX_PCI_SWITCH_DOWN }, /* 4 */
		{ 4, IX_PCI_NVME },        /* 5 */
		{ 3, IX_PCI_SWITCH_DOWN }, /* 6 */
		{ 6, IX_PCI_NVME },        /* 7 */
		{ 3, IX_PCI_SWITCH_DOWN }, /* 8 */
		{ 8, IX_PCI_SWITCH_UP },   /* 9 a switch below */
		{ 9, IX_PCI_SWITCH_DOWN }, /* 10 downtrained */
		{ 10, IX_PCI_NVME },       /* 11 */
		{ 3, IX_PCI_SWITCH_DOWN }, /* 12 */
		{ 12, IX_PCI_NVME },       /* 13 */
		{ 1, IX_PCI_ROOT_PORT },   /* 14 */
		{ 14, IX_PCI_GPU },        /* 15 */
		{ 1, IX_PCI_ROOT_PORT },   /* 16 */
		{ 16, IX_PCI_NIC },        /* 17 */
	};
	size_t n = sizeof(shape) / sizeof(shape[0]);

	memset(tr, 0, sizeof(*tr));
	tr->v = calloc(n, sizeof(*tr->v));
	cr_assert_not_null(tr->v);
	tr->n = n;
	for (size_t i = 0; i < n; i++) {
		struct ix_tree_node *v = &tr->v[i];
		int p = shape[i].parent;

		v->kind = i == 0 ? IX_TREE_NUMA : i == 1 ? IX_TREE_BRIDGE : IX_TREE_PCI;
		v->type = shape[i].type;
		v->parent = p;
		v->depth = p < 0 ? 0 : tr->v[p].depth + 1;
		v->pci = (int)i - 2;
		snprintf(v->name, sizeof(v->name), "node %zu", i);
		tr->max_depth = v->depth > tr->max_depth ? v->depth : tr->max_depth;
		if (p >= 0)
			tr->v[p].nchildren++;
	}
	tr->v[10].health = IX_TREE_BAD;
	snprintf(tr->v[10].tag, sizeof(tr->v[10].tag), "DOWNTRAINED");
	for (size_t i = n; i-- > 0;) {
		struct ix_tree_node *v = &tr->v[i];

		v->worst = v->health > v->worst ? v->health : v->worst;
		if (v->parent >= 0) {
			struct ix_tree_node *p = &tr->v[v->parent];

			p->worst = v->worst > p->worst ? v->worst : p->worst;
			p->endpoints += v->endpoints + (endpoint_word(v) != NULL);
		}
	}
}

Test(topotree, a_bad_link_under_a_folded_storage_switch_stays_in_sight)
{
	struct ix_tree tr;
	char held[96];
	size_t n;

	storage_host(&tr);
	cr_assert_eq(ix_tree_visible(&tr, NULL, 0), 18);
	ix_tree_fit(&tr, 11);
	n = ix_tree_visible(&tr, NULL, 0);
	cr_assert_leq(n, 11, "%zu rows", n);
	cr_assert(tr.v[3].folded, "the storage switch folds first");
	cr_assert(ix_tree_seen(&tr, 10), "the downtrained port stays in sight");
	cr_assert(ix_tree_seen(&tr, 8) && ix_tree_seen(&tr, 9), "and the way down to it");
	cr_assert(ix_tree_seen(&tr, 15) && ix_tree_seen(&tr, 17), "the GPU and NIC stay open");
	cr_assert_not(ix_tree_seen(&tr, 11), "the drive below the bad port is folded");
	ix_tree_summary(&tr, 3, held, sizeof(held));
	cr_assert_str_eq(held, "4 NVMe");
	/* The last visible child draws the corner: node 8, not node 12. */
	cr_assert(ix_tree_last_seen(&tr, 8));
	/* Too few rows even for that: the problem hides behind a tag. */
	ix_tree_fit(&tr, 4);
	n = ix_tree_visible(&tr, NULL, 0);
	cr_assert_leq(n, 4, "%zu rows", n);
	free(tr.v);
}

Test(topotree, a_fold_says_what_it_holds)
{
	struct ix_tree tr;
	char held[96];

	storage_host(&tr);
	cr_assert_eq(ix_tree_summary(&tr, 14, held, sizeof(held)), 0, "not folded");
	cr_assert_str_eq(held, "");
	ix_tree_toggle(&tr, 14);
	ix_tree_summary(&tr, 14, held, sizeof(held));
	cr_assert_str_eq(held, "1 GPU");
	ix_tree_unfold(&tr);
	ix_tree_toggle(&tr, 0);
	ix_tree_summary(&tr, 0, held, sizeof(held));
	/* The way to the bad port stays, so its switches are not counted. */
	cr_assert_str_eq(held, "1 GPU, 1 NIC, 4 NVMe");
	cr_assert_eq(ix_tree_visible(&tr, NULL, 0), 7, "NUMA 0 and the way down to node 10");
	ix_tree_unfold(&tr);
	ix_tree_toggle(&tr, 9);
	ix_tree_summary(&tr, 9, held, sizeof(held));
	cr_assert_str_eq(held, "1 NVMe");
	ix_tree_unfold(&tr);
	tr.v[12].folded = true;
	tr.v[12].hides_issues = true;
	ix_tree_summary(&tr, 12, held, sizeof(held));
	cr_assert_str_eq(held, "1 NVMe");
	/* Only ports hidden: counted as such. */
	ix_tree_unfold(&tr);
	tr.v[13].type = IX_PCI_SWITCH_DOWN;
	ix_tree_toggle(&tr, 12);
	ix_tree_summary(&tr, 12, held, sizeof(held));
	cr_assert_str_eq(held, "1 port");
	free(tr.v);
}

Test(topotree, links_with_retimers_say_so_in_their_labels)
{
	static const struct {
		const char *name, *link;
		int retimers;
	} want[] = {
		{ "0000:00:01.0", "Gen5 x16 +R", 1 },  { "0000:01:00.0", "Gen5 x16 +R", 1 },
		{ "0000:00:03.0", "Gen5 x16 +2R", 2 }, { "0000:02:00.0", "Gen5 x16 +2R", 2 },
		{ "0000:03:00.0", "Gen4 x4", 0 },      { "0000:04:00.0", "Gen4 x16", 0 },
	};
	struct ix_topo t;
	struct ix_tree tr;
	size_t seen = 0;

	fixture("retimer", &t);
	cr_assert_eq(ix_tree_build(&t, &tr), 0);
	for (size_t i = 0; i < tr.n; i++) {
		if (!tr.v[i].has_link)
			cr_assert_str_eq(tr.v[i].link, "", "%s", tr.v[i].name);
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (strcmp(tr.v[i].name, want[k].name) == 0) {
				cr_assert_str_eq(tr.v[i].link, want[k].link);
				cr_assert_eq(tr.v[i].retimers, want[k].retimers, "%s",
					     tr.v[i].name);
				seen++;
			}
	}
	cr_assert_eq(seen, sizeof(want) / sizeof(want[0]));
	ix_tree_free(&tr);
	ix_topo_free(&t);
}

/* A CXL memory device's row: its memdev, the protocols its link runs and
 * its firmware; with CXL.mem off, the row is a problem saying so. */
Test(topotree, cxl_memdev_row)
{
	for (int off = 0; off < 2; off++) {
		struct ix_topo t;
		struct ix_tree tr;
		const struct ix_tree_node *n = NULL;

		ix_test_cxl_topo(&t, off);
		cr_assert_eq(ix_tree_build(&t, &tr), 0);
		for (size_t i = 0; i < tr.n; i++)
			if (tr.v[i].pci == 1)
				n = &tr.v[i];
		cr_assert_not_null(n);
		cr_assert_str_eq(n->what, off ? "cxl mem0 CXL.io fw BWFW VERSION 00"
					      : "cxl mem0 CXL.mem+io fw BWFW VERSION 00");
		if (off) {
			cr_assert_eq(n->health, IX_TREE_BAD);
			cr_assert_str_eq(n->tag, "CXL LINK");
			cr_assert(!strncmp(n->issue, "CXL.mem is not enabled on its link", 34),
				  "%s", n->issue);
			cr_assert_eq(tr.v[0].worst, IX_TREE_BAD, "its ancestors know");
		} else {
			cr_assert_eq(n->health, IX_TREE_OK, "%s", n->issue);
		}
		ix_tree_free(&tr);
		ix_topo_free(&t);
	}
}
