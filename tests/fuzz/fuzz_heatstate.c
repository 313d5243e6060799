/*
 * The documents 'ixperf top' reads back, the input as one JSON document
 * given to both loaders: --mesh FILE's (report/tui/heat_state.c,
 * ix_heat_src_load: a mesh's state file or result, or a gpu result), whose
 * snapshot is then laid out and described as the screen shows it; and
 * --measured FILE's (report/model/topotree.c, ix_tree_measured_doc: a gpu
 * result's host<->GPU copies) on the tree of a server with three GPUs.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report/model/topotree.h"
#include "report/tui/heat_state.h"
#include "report/tui/heatmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s\n", what);
		abort();
	}
}

/* Three GPUs right below one host bridge, sorted by address. */
static const struct ix_topo *server(void)
{
	static const char *const bdfs[] = { "0000:18:00.0", "0000:3b:00.0", "0000:86:00.0" };
	static struct ix_pci_dev devs[3];
	static struct ix_topo t;

	if (t.pci.n)
		return &t;
	for (size_t i = 0; i < 3; i++) {
		struct ix_pci_dev *d = &devs[i];

		snprintf(d->bdf, sizeof(d->bdf), "%s", bdfs[i]);
		must(ix_pci_parse_bdf(d->bdf, &d->addr), "a fixed address does not parse");
		d->type = IX_PCI_GPU;
		d->vendor = 0x10de;
		d->numa_node = -1;
		d->parent = -1;
		d->sw = -1;
		d->below_host_bridge = true;
		snprintf(d->host_bridge, sizeof(d->host_bridge), "pci0000:00");
	}
	t.pci.v = devs;
	t.pci.n = 3;
	return &t;
}

static void mesh(json_t *doc)
{
	struct ix_heat_src s = { 0 };
	struct ix_heat_view v = { 0 };
	struct ix_err err;
	char buf[512];

	if (ix_heat_src_load(&s, doc, &err) == 0) {
		must(s.n >= 1 && s.names && s.cells.v && s.cells.n == s.n,
		     "a loaded mesh without hosts");
		v.metric = s.tests == IX_MESH_LAT ? IX_HEAT_LAT : IX_HEAT_BW;
		v.levels = 8;
		for (int pass = 0; pass < 2; pass++) {
			ix_heat_layout(&v, &s, 120, 40);
			for (uint32_t r = 0; r < v.rows; r++)
				for (uint32_t c = 0; c < v.cols; c++)
					(void)ix_heat_block(&v, &s, r, c);
			for (uint32_t r = 0; r < v.rows; r++)
				ix_heat_row_label(&v, &s, r, buf, sizeof(buf));
			ix_heat_status(&v, &s, false, buf, sizeof(buf));
			ix_heat_cursor_text(&v, &s, buf, sizeof(buf));
			/* The other metric, a page further. */
			ix_heat_act(&v, &s,
				    v.metric == IX_HEAT_LAT ? IX_HEAT_SHOW_BW : IX_HEAT_SHOW_LAT);
			ix_heat_act(&v, &s, IX_HEAT_PGDOWN);
			ix_heat_act(&v, &s, IX_HEAT_RIGHT);
		}
	} else {
		must(err.msg[0] != '\0', "a refused document without a reason");
	}
	ix_heat_src_free(&s);
}

static void measured(json_t *doc)
{
	const struct ix_topo *t = server();
	struct ix_tree tr;

	if (ix_tree_build(t, &tr) < 0)
		return;
	(void)ix_tree_measured_doc(&tr, t, doc);
	for (size_t i = 0; i < tr.n; i++)
		must(!tr.v[i].measured || tr.v[i].load_bps > 0, "a measured link without a figure");
	ix_tree_free(&tr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);

	if (!doc)
		return 0;
	mesh(doc);
	measured(doc);
	json_decref(doc);
	return 0;
}
