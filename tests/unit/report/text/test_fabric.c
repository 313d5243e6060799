/* Unit tests for report/text/fabric.c: a made-up 4-host mesh (two leaves
 * as LLDP names them, the pairs between them at a tenth of the others)
 * printed as a fabric, and a mesh that says no more than its matrix not
 * drawn. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"

static struct ix_host hostv[4] = {
	{ "h1", 5301, 0, "" }, { "h2", 5301, 0, "" }, { "h3", 5301, 0, "" }, { "h4", 5301, 0, "" }
};
static struct ix_hostlist hosts = { hostv, 4, 4 };

/* Every pair both ways at 10 Gbit/s, those between the leaves at slow. */
static void two_leaves(struct ix_mesh_result *r, struct ix_cell *cells, struct ix_link_limit *links,
		       struct ix_mesh_node *nodes, bool lldp, double slow)
{
	memset(r, 0, sizeof(*r));
	memset(nodes, 0, 4 * sizeof(*nodes));
	memset(links, 0, 4 * sizeof(*links));
	r->n = 4;
	r->hosts = &hosts;
	r->nodes = nodes;
	r->links = links;
	r->params.tests = IX_MESH_BW;
	r->params.both_directions = true;
	r->params.rules.bw_fraction = 0.7;
	for (uint32_t a = 0; a < 4; a++) {
		for (uint32_t b = 0; b < 4; b++) {
			struct ix_cell *c = &cells[a * 4 + b];

			memset(c, 0, sizeof(*c));
			c->state = a == b ? IX_CELL_NONE : IX_CELL_OK;
			if (a != b)
				c->bw_bps = (float)(a / 2 == b / 2 ? 10e9 : slow);
		}
		if (lldp) {
			struct ix_neighbor *nb = &nodes[a].link.neighbor;

			snprintf(nb->source, sizeof(nb->source), "lldp");
			snprintf(nb->chassis, sizeof(nb->chassis), "02:00:00:00:00:0%u", a / 2);
			snprintf(nb->name, sizeof(nb->name), "leaf-%c", 'a' + a / 2);
			snprintf(nb->port, sizeof(nb->port), "swp%u", a + 1);
		}
	}
	cr_assert_eq(ix_cells_load(&r->cells, cells, 4, IX_CELLS_FULL), 0);
}

/* What the mesh's text prints of it (ix_text_mesh prints the same when
 * the fabric is worth drawing); NULL when it is not. */
static char *text_of(const struct ix_mesh_result *r)
{
	struct ix_unit_choice u = { 0 };
	struct ix_fabric fab;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(ix_fabric_of_mesh(r, &fab), 0);
	if (!ix_fabric_worth_drawing(&fab)) {
		ix_fabric_free(&fab);
		return NULL;
	}
	f = open_memstream(&buf, &len);
	ix_text_fabric(f, &fab, r->hosts, &u);
	fclose(f);
	ix_fabric_free(&fab);
	return buf;
}

Test(fabric, under_the_mesh_text)
{
	struct ix_mesh_result r;
	struct ix_cell cells[16];
	struct ix_link_limit links[4];
	struct ix_mesh_node nodes[4];
	char *buf;

	two_leaves(&r, cells, links, nodes, true, 1e9);
	buf = text_of(&r);
	cr_assert_not_null(strstr(buf, "\nFabric: 4 hosts under 2 switches (LLDP); bandwidth "
				       "against 10.0 Gbit/s, the median within switches\n"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "  leaf-a (2 hosts)  uplink: out 1.00 Gbit/s, in 1.00 "
				       "Gbit/s, lat -, 8/8 bad  BAD: 8 of 8 pairs across it "
				       "bad, at every host below it\n"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "    | h1:5301"), "%s", buf);
	cr_assert_not_null(strstr(buf, " swp1       out 10.0 Gbit/s, in 10.0 Gbit/s, lat -, 0/2 "
				       "bad  ok: 4 more bad across a bad uplink\n"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "  2 edges marked BAD.\n"), "%s", buf);
	free(buf);
}

Test(fabric, none_when_it_says_nothing_more)
{
	struct ix_mesh_result r;
	struct ix_cell cells[16];
	struct ix_link_limit links[4];
	struct ix_mesh_node nodes[4];
	char *buf;

	/* No neighbour and an even mesh: one group, the matrix says it all. */
	two_leaves(&r, cells, links, nodes, false, 10e9);
	cr_assert_null(text_of(&r));
	/* Without neighbours a slow pair of groups is inferred and drawn. */
	two_leaves(&r, cells, links, nodes, false, 1e9);
	buf = text_of(&r);
	cr_assert_not_null(strstr(buf, "Fabric: 4 hosts under 2 switches (inferred from the mesh)"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "  group 1 [inferred] (2 hosts)"), "%s", buf);
	free(buf);
}
