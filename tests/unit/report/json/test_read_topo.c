/* Unit tests for report/json/read_topo.c: a fixture's topology
 * (tests/topo/mkfixture.py) as 'ixperf topo --json' writes it, read back
 * with what the server's tree needs intact, the tree drawn from it equal
 * to the one drawn from sysfs (the links' retimers and a CXL memory
 * device's row too), and malformed members refused by name. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "report/model/topotree.h"
#include "tests/unit/common.h"

static void scan(const char *layout, struct ix_topo *t)
{
	ix_test_topo_fixture(layout, t);
}

Test(read_topo, round_trip_draws_the_same_tree)
{
	static const char *layouts[] = { "downtrained", "dgx-h100", "large", "retimer", "cxl" };

	for (size_t k = 0; k < sizeof(layouts) / sizeof(layouts[0]); k++) {
		struct ix_topo a, b;
		struct ix_tree ta, tb;
		struct ix_err err = { 0 };
		json_t *j;

		scan(layouts[k], &a);
		j = ix_json_topo(&a);
		cr_assert_eq(ix_json_read_topo(j, &b, &err), 0, "%s: %s", layouts[k], err.msg);
		cr_assert_eq(b.pci.n, a.pci.n);
		cr_assert_eq(b.nnuma, a.nnuma);
		cr_assert_eq(b.nifaces, a.nifaces);
		cr_assert_eq(b.nports, a.nports);
		cr_assert_eq(ix_tree_build(&a, &ta), 0);
		cr_assert_eq(ix_tree_build(&b, &tb), 0);
		cr_assert_eq(ta.n, tb.n, "%s: %zu rows from sysfs, %zu read back", layouts[k], ta.n,
			     tb.n);
		for (size_t i = 0; i < ta.n; i++) {
			cr_assert_str_eq(ta.v[i].name, tb.v[i].name);
			cr_assert_str_eq(ta.v[i].what, tb.v[i].what);
			cr_assert_eq(ta.v[i].parent, tb.v[i].parent);
			cr_assert_eq(ta.v[i].gen, tb.v[i].gen);
			cr_assert_eq(ta.v[i].width, tb.v[i].width);
			cr_assert_eq(ta.v[i].retimers, tb.v[i].retimers);
			cr_assert_str_eq(ta.v[i].link, tb.v[i].link);
			cr_assert_eq(ta.v[i].health, tb.v[i].health, "%s %s", layouts[k],
				     ta.v[i].name);
			cr_assert_str_eq(ta.v[i].issue, tb.v[i].issue);
		}
		ix_tree_free(&ta);
		ix_tree_free(&tb);
		ix_topo_free(&a);
		ix_topo_free(&b);
		json_decref(j);
	}
}

/* Each change to the document (list[index].sub.member = value, list and
 * sub left out where NULL), and the member its error must name. */
Test(read_topo, malformed_members_are_named)
{
	static const struct {
		const char *list;
		size_t index;
		const char *sub, *member, *value, *named;
	} bad[] = {
		{ NULL, 0, NULL, "pci", "3", "topology.pci is" },
		{ "pci", 0, NULL, "bdf", "7", "topology.pci[0].bdf" },
		{ "pci", 0, NULL, "bdf", "\"zz:zz\"",
		  "topology.pci[0].bdf: 'zz:zz' is not a PCI address" },
		{ "pci", 0, NULL, "vendor", "\"15b3\"", "topology.pci[0].vendor" },
		{ "pci", 0, NULL, "type", "\"toaster\"", "topology.pci[0].type: 'toaster'" },
		{ "pci", 1, NULL, "parent", "\"0000:ff:00.0\"",
		  "topology.pci[1].parent: '0000:ff:00.0'" },
		{ "pci", 1, "link", "gen", "-1", "topology.pci[1].link.gen" },
		{ "pci", 1, "link", "retimers", "3", "topology.pci[1].link.retimers is 3" },
		{ "pci", 1, "link", "retimers", "1.5", "topology.pci[1].link.retimers is 1.5" },
		{ "pci", 1, "link", "retimers", "\"one\"", "topology.pci[1].link.retimers is" },
		{ "numa", 0, NULL, "node", "\"zero\"", "topology.numa[0].node" },
		{ "interfaces", 0, NULL, "pci", "\"0000:ff:00.0\"", "topology.interfaces[0].pci" },
	};
	struct ix_topo a;

	scan("downtrained", &a);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		json_t *j = ix_json_topo(&a), *o = j;
		struct ix_topo b;
		struct ix_err err = { 0 };

		if (bad[k].list)
			o = json_array_get(json_object_get(o, bad[k].list), bad[k].index);
		if (bad[k].sub)
			o = json_object_get(o, bad[k].sub);
		cr_assert_not_null(o, "case %zu", k);
		json_object_set_new(o, bad[k].member,
				    json_loads(bad[k].value, JSON_DECODE_ANY, NULL));
		cr_assert_eq(ix_json_read_topo(j, &b, &err), -1, "accepted case %zu", k);
		cr_assert(strstr(err.msg, bad[k].named), "case %zu: %s", k, err.msg);
		cr_assert_eq(b.pci.n, 0);
		json_decref(j);
	}
	ix_topo_free(&a);
}

/* A document from before the links' retimers: not known, as null says. */
Test(read_topo, a_link_without_retimers_knows_none)
{
	struct ix_topo a, b;
	struct ix_err err = { 0 };
	json_t *j, *link;
	int k;

	scan("retimer", &a);
	k = ix_pci_find(&a.pci, "0000:02:00.0");
	cr_assert(a.pci.v[k].link.retimers_known);
	cr_assert_eq(a.pci.v[k].link.retimers, 2);
	j = ix_json_topo(&a);
	link = json_object_get(json_array_get(json_object_get(j, "pci"), (size_t)k), "link");
	cr_assert_eq(json_object_del(link, "retimers"), 0);
	cr_assert_eq(ix_json_read_topo(j, &b, &err), 0, "%s", err.msg);
	cr_assert(b.pci.v[k].link.present);
	cr_assert_not(b.pci.v[k].link.retimers_known);
	cr_assert(b.pci.v[ix_pci_find(&b.pci, "0000:01:00.0")].link.retimers_known);
	ix_topo_free(&b);
	json_decref(j);
	ix_topo_free(&a);
}
