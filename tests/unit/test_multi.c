/* Unit tests for report/json_multi.c and report/text_multi.c: mesh and
 * incast results rendered from hand-built structs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/multi.h"

static struct ix_host hostv[3] = { { "n1", 5301 }, { "n2", 5301 }, { "n3", 6000 } };
static struct ix_hostlist hosts = { hostv, 3, 3 };

/* n1 <-> n2 fast, everything with n3 slow; n3 suspect; one pair failed. */
static void mesh(struct ix_mesh_result *r, struct ix_cell *cells, struct ix_mesh_node *nodes,
		 char **errs, uint32_t *suspects)
{
	memset(r, 0, sizeof(*r));
	memset(cells, 0, 9 * sizeof(*cells));
	memset(nodes, 0, 3 * sizeof(*nodes));
	r->params.tests = IX_MESH_BW | IX_MESH_LAT;
	r->params.bw.path = "tcp";
	r->params.lat.path = "tcp";
	r->params.rules = (struct ix_mesh_rules){ 0.7, 2.0 };
	r->hosts = &hosts;
	r->n = 3;
	r->cells = cells;
	r->nodes = nodes;
	r->node_error = errs;
	for (int i = 0; i < 9; i++)
		cells[i].state = i % 4 == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
	cells[0 * 3 + 1] = (struct ix_cell){ 9e9, 5000, 6000, IX_CELL_OK, 0, 0, 0 };
	cells[0 * 3 + 2] = (struct ix_cell){ 1e9, 5000, 6000, IX_CELL_OK, 1, 1, 0 };
	cells[1 * 3 + 2] = (struct ix_cell){ 0, 0, 0, IX_CELL_FAILED, 0, 0, 0 };
	r->findings = (struct ix_mesh_findings){ 1, 5e9, 5000, suspects, 1 };
	suspects[0] = 2;
	nodes[2].suspect = true;
	nodes[2].bad = 1;
	nodes[2].measured = 1;
	r->rounds = 3;
	r->pairs_planned = 3;
	r->pairs_measured = 2;
	r->pairs_failed = 1;
}

Test(mesh, json_fields)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	json_t *j, *m;

	mesh(&r, cells, nodes, errs, sus);
	j = ix_json_mesh(&r);
	cr_assert_not_null(j);
	cr_assert_str_eq(json_string_value(json_object_get(j, "kind")), "mesh");
	cr_assert(json_is_false(json_object_get(j, "complete")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "hosts"), 2)),
			 "n3:6000");
	m = json_object_get(j, "matrix");
	cr_assert_float_eq(json_number_value(json_array_get(
				   json_array_get(json_object_get(m, "bw_bps"), 0), 1)),
			   (double)(float)9e9, 1); /* cells hold floats */
	cr_assert(json_is_null(json_array_get(json_array_get(json_object_get(m, "bw_bps"), 1), 2)),
		  "a failed cell has no figure");
	cr_assert_str_eq(json_string_value(
				 json_array_get(json_array_get(json_object_get(m, "state"), 1), 2)),
			 "failed");
	cr_assert_eq(json_array_size(json_object_get(j, "bad_pairs")), 1);
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "suspects"), 0)),
			 "n3:6000");
	cr_assert(json_is_true(
		json_object_get(json_array_get(json_object_get(j, "nodes"), 2), "suspect")));
	json_decref(j);
}

Test(mesh, text_names_the_suspect)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	mesh(&r, cells, nodes, errs, sus);
	ix_text_mesh(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "SUSPECT: n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "1 bad pair(s)"), "%s", buf);
	cr_assert_not_null(strstr(buf, "n1:5301 -> n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "INCOMPLETE: 1 pair(s) not measured"), "%s", buf);
	free(buf);
}

Test(incast, json_and_text_of_a_stream_sweep)
{
	struct ix_incast_flow flows[2] = { { 1, true, 6e9, { true, 3 }, { false, 0 }, "" },
					   { 2, true, 2e9, { true, 9 }, { false, 0 }, "" } };
	struct ix_incast_step step = {
		.point = { 2, 8e9, 0, 0, 12 }, .ok = true, .jain = 0.8, .flows = flows, .nflows = 2
	};
	struct ix_incast_result r = { .hosts = &hosts, .steps = &step, .nsteps = 1 };
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j, *s;

	r.params.mode = IX_INCAST_STREAM;
	r.params.bw.path = "tcp";
	r.params.read.path = "tcp";
	r.complete = true;
	snprintf(r.diagnosis, sizeof(r.diagnosis), "goodput holds");
	j = ix_json_incast(&r);
	cr_assert_str_eq(json_string_value(json_object_get(j, "mode")), "stream");
	cr_assert_str_eq(json_string_value(json_object_get(j, "receiver")), "n1:5301");
	s = json_array_get(json_object_get(j, "steps"), 0);
	cr_assert_float_eq(json_number_value(json_object_get(s, "jain")), 0.8, 1e-9);
	cr_assert_eq(json_array_size(json_object_get(s, "flows")), 2);
	cr_assert_null(json_object_get(s, "read"), "no read figures in stream mode");
	json_decref(j);
	f = open_memstream(&buf, &len);
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "8.00 Gbit/s"), "%s", buf);
	cr_assert_not_null(strstr(buf, "Diagnosis: goodput holds"), "%s", buf);
	free(buf);
}
