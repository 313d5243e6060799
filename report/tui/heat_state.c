/* A mesh document (a state file of a running mesh, or a saved --json
 * result) read back into the heatmap's snapshot. Every field is checked:
 * the file may be half-written by an older version or damaged. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/core/link.h"
#include "report/tui/heat_state.h"

static json_t *find_mesh(json_t *doc)
{
	json_t *results = json_object_get(doc, "results"), *r;
	size_t i;

	if (json_is_object(doc) && json_is_string(json_object_get(doc, "kind")))
		return doc; /* a bare mesh result */
	json_array_foreach(results, i, r)
	{
		const char *kind = json_string_value(json_object_get(r, "kind"));
		if (kind && strcmp(kind, "mesh") == 0)
			return r;
	}
	return NULL;
}

static uint8_t state_of(const char *s)
{
	if (!s || strcmp(s, "pending") == 0)
		return IX_CELL_PENDING;
	if (strcmp(s, "ok") == 0)
		return IX_CELL_OK;
	if (strcmp(s, "failed") == 0)
		return IX_CELL_FAILED;
	return IX_CELL_NONE;
}

static uint8_t state_at(void *arg, uint32_t a, uint32_t b)
{
	return state_of(json_string_value(json_array_get(json_array_get(arg, a), b)));
}

static int host_index(const struct ix_heat_src *s, const char *name)
{
	for (uint32_t i = 0; name && i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return (int)i;
	return -1;
}

/* One n x n matrix: rows of numbers or null; fills via set(). */
static int read_matrix(json_t *m, const char *key, struct ix_heat_src *s, int which,
		       struct ix_err *err)
{
	json_t *rows = json_object_get(m, key), *row;
	size_t a;

	if (!json_is_array(rows) || json_array_size(rows) != s->n)
		return ix_fail(err, IX_EXIT_FAIL, "matrix.%s is not a %u x %u matrix", key, s->n,
			       s->n);
	json_array_foreach(rows, a, row)
	{
		if (!json_is_array(row) || json_array_size(row) != s->n)
			return ix_fail(err, IX_EXIT_FAIL, "matrix.%s row %zu has not %u entries",
				       key, a, s->n);
		for (size_t b = 0; b < s->n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, (uint32_t)a, (uint32_t)b);
			json_t *x = json_array_get(row, b);

			if (which == 3)
				c.state = state_of(json_string_value(x));
			else if (json_is_number(x) && json_number_value(x) > 0)
				*(which == 0   ? &c.bw_bps
				  : which == 1 ? &c.lat_p50_ns
					       : &c.lat_p99_ns) = (float)json_number_value(x);
			else if (which == 0 && json_is_number(x))
				c.bw_zero = 1; /* measured at 0 */
			else
				continue;
			ix_cells_set(&s->cells, (uint32_t)a, (uint32_t)b, &c);
		}
	}
	return 0;
}

/* A GPU x GPU test of a gpu document: square, measured, with GPU labels. */
static json_t *gpu_square(json_t *gpu, const char *unit)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(gpu, "tests"), i, t)
	{
		json_t *rows = json_object_get(t, "rows"), *cols = json_object_get(t, "columns");
		const char *u = json_string_value(json_object_get(t, "unit"));
		const char *st = json_string_value(json_object_get(t, "status"));
		const char *r0 = json_string_value(json_array_get(rows, 0));

		if (u && strcmp(u, unit) == 0 && st && strcmp(st, "ok") == 0 &&
		    json_array_size(rows) >= 2 && json_equal(rows, cols) && r0 &&
		    strncmp(r0, "GPU", 3) == 0)
			return t;
	}
	return NULL;
}

/* One GPU test's value matrix into the cells: bandwidth in bytes/s shown
 * as bit/s like every other matrix, latency in ns. */
static int gpu_matrix(struct ix_heat_src *s, json_t *t, bool bw, struct ix_err *err)
{
	json_t *m = json_object_get(t, "matrix"), *v = json_object_get(m, "value");
	json_t *st = json_object_get(m, "state");

	if (json_array_size(v) != s->n || json_array_size(st) != s->n)
		return ix_fail(err, IX_EXIT_FAIL, "gpu test %s: not a %u x %u matrix",
			       json_string_value(json_object_get(t, "name")), s->n, s->n);
	for (uint32_t a = 0; a < s->n; a++)
		for (uint32_t b = 0; b < s->n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, a, b);
			json_t *x = json_array_get(json_array_get(v, a), b);
			uint8_t state = state_of(
				json_string_value(json_array_get(json_array_get(st, a), b)));

			if (a == b)
				state = IX_CELL_NONE; /* within one GPU: not a pair */
			if (bw || c.state == IX_CELL_PENDING)
				c.state = state;
			if (json_is_number(x) && json_number_value(x) > 0 && bw)
				c.bw_bps = (float)(json_number_value(x) * 8);
			else if (json_is_number(x) && json_number_value(x) > 0)
				c.lat_p50_ns = c.lat_p99_ns = (float)json_number_value(x);
			ix_cells_set(&s->cells, a, b, &c);
		}
	return 0;
}

/* A gpu document (ixperf gpu -J): its first measured GPU x GPU bandwidth
 * test and its GPU x GPU latency, as a mesh of GPUs. The gpu command
 * judges no pair, so none is shown bad and no GPU suspect: the mesh's
 * rules for slow pairs are the mesh's, not the GPUs'. */
static int load_gpu(struct ix_heat_src *s, json_t *gpu, struct ix_err *err)
{
	json_t *bw = gpu_square(gpu, "bytes_per_second"), *lat = gpu_square(gpu, "ns"), *t;
	json_t *labels;
	size_t i;

	if (!bw && !lat)
		return ix_fail(err, IX_EXIT_FAIL,
			       "gpu document without a measured GPU x GPU matrix (it needs two "
			       "GPUs and a device_to_device test)");
	t = bw ? bw : lat;
	labels = json_object_get(t, "rows");
	ix_heat_src_free(s);
	if (ix_heat_src_alloc(s, (uint32_t)json_array_size(labels), IX_CELLS_FULL) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(labels, i, t)
	{
		s->names[i] = strdup(json_string_value(t) ? json_string_value(t) : "?");
		if (!s->names[i])
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if ((bw && gpu_matrix(s, bw, true, err) < 0) || (lat && gpu_matrix(s, lat, false, err) < 0))
		return -1;
	s->tests = (bw ? IX_MESH_BW : 0) | (lat ? IX_MESH_LAT : 0);
	s->both = true;
	snprintf(s->title, sizeof(s->title), "gpu %.60s%s%.40s",
		 bw ? json_string_value(json_object_get(bw, "name")) : "", bw && lat ? " + " : "",
		 lat ? json_string_value(json_object_get(lat, "name")) : "");
	/* A finished run with the document's own findings: none. */
	s->bad_pairs = 0;
	s->done = s->complete = true;
	ix_heat_src_analyze(s);
	return 0;
}

/* A coll document (ixperf coll -J): its pair scan as a mesh of ranks, each
 * link of the ring (r, r + 1) one cell each way, its bandwidth as bit/s;
 * the links the scan found slow are bad, the rank it named a suspect. */
static int load_coll(struct ix_heat_src *s, json_t *coll, struct ix_err *err)
{
	json_t *ranks = json_object_get(coll, "ranks"), *v = json_object_get(coll, "verdict");
	json_t *pairs = json_object_get(v, "pairs"), *p, *k;
	const char *culprit = json_string_value(json_object_get(v, "culprit"));
	size_t i, n = json_array_size(ranks);

	if (n < 2 || !json_array_size(pairs))
		return ix_fail(err, IX_EXIT_FAIL,
			       "coll document without a pair scan (it needs two ranks, without "
			       "--no-pairs)");
	ix_heat_src_free(s);
	if (ix_heat_src_alloc(s, (uint32_t)n, IX_CELLS_FULL) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(ranks, i, k)
	{
		char name[160];

		snprintf(name, sizeof(name), "%zu %.100s GPU%lld", i,
			 json_string_value(json_object_get(k, "node")) ?: "?",
			 (long long)json_integer_value(json_object_get(k, "device")));
		if (!(s->names[i] = strdup(name)))
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (uint32_t a = 0; a < n; a++) /* only the ring's links are measured */
		for (uint32_t b = 0; b < n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, a, b);

			c.state = IX_CELL_NONE;
			ix_cells_set(&s->cells, a, b, &c);
		}
	s->bad_pairs = 0;
	json_array_foreach(pairs, i, p)
	{
		json_int_t a = json_integer_value(json_object_get(p, "a"));
		json_int_t b = json_integer_value(json_object_get(p, "b"));
		json_t *bps = json_object_get(p, "Bps");

		if (a < 0 || b < 0 || (size_t)a >= n || (size_t)b >= n || a == b)
			return ix_fail(err, IX_EXIT_FAIL, "coll pair %zu: ranks %lld and %lld", i,
				       (long long)a, (long long)b);
		for (int dir = 0; dir < 2; dir++) { /* the sendrecv ran each way at once */
			uint32_t x = (uint32_t)(dir ? b : a), y = (uint32_t)(dir ? a : b);
			struct ix_cell c = ix_cells_get(&s->cells, x, y);

			c.state = json_is_number(bps) ? IX_CELL_OK : IX_CELL_FAILED;
			if (json_is_number(bps))
				c.bw_bps = (float)(json_number_value(bps) * 8);
			ix_cells_set(&s->cells, x, y, &c);
			if (json_is_true(json_object_get(p, "slow"))) {
				ix_cells_set_bad(&s->cells, x, y, IX_BAD_BW);
				s->bad_pairs++;
			}
		}
	}
	if (culprit && !strcmp(culprit, "rank")) {
		json_int_t r = json_integer_value(json_object_get(v, "rank"));
		if (r >= 0 && (size_t)r < n)
			s->suspect[r] = true;
	}
	s->tests = IX_MESH_BW;
	s->both = true;
	snprintf(s->title, sizeof(s->title), "coll %.32s: the ring's links one by one (pair scan)",
		 json_string_value(json_object_get(json_object_get(coll, "params"), "op")) ?: "?");
	s->done = true;
	s->complete = json_is_true(json_object_get(coll, "complete"));
	ix_heat_src_analyze(s);
	return 0;
}

static json_t *find_kind(json_t *doc, const char *kind)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		const char *k = json_string_value(json_object_get(r, "kind"));
		if (k && strcmp(k, kind) == 0)
			return r;
	}
	return NULL;
}

int ix_heat_src_load(struct ix_heat_src *s, json_t *doc, struct ix_err *err)
{
	json_t *mesh = find_mesh(doc), *hosts, *h, *params, *m, *x, *prog, *gpu;
	enum ix_cells_mode mode;
	size_t i;

	if (!mesh && (gpu = find_kind(doc, "gpu")))
		return load_gpu(s, gpu, err);
	if (!mesh && (gpu = find_kind(doc, "coll")))
		return load_coll(s, gpu, err);
	if (!mesh)
		return ix_fail(err, IX_EXIT_FAIL,
			       "not a mesh document (no result of kind mesh, gpu or coll)");
	hosts = json_object_get(mesh, "hosts");
	m = json_object_get(mesh, "matrix");
	params = json_object_get(mesh, "params");
	if (!json_is_array(hosts) || json_array_size(hosts) < 1 ||
	    json_array_size(hosts) > IX_HOSTLIST_MAX || !json_is_object(m))
		return ix_fail(err, IX_EXIT_FAIL, "mesh document without hosts or matrix");
	ix_heat_src_free(s);
	/* One test per pair drawn on both sides, unless a pair has two. */
	mode = json_is_true(json_object_get(params, "both_directions"))
		       ? IX_CELLS_FULL
		       : ix_cells_mode_for((uint32_t)json_array_size(hosts), IX_CELLS_MIRROR,
					   state_at, json_object_get(m, "state"));
	if (ix_heat_src_alloc(s, (uint32_t)json_array_size(hosts), mode) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	json_array_foreach(hosts, i, h)
	{
		const char *name = json_string_value(h);
		s->names[i] = strdup(name ? name : "?");
		if (!s->names[i])
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (read_matrix(m, "state", s, 3, err) < 0 || read_matrix(m, "bw_bps", s, 0, err) < 0 ||
	    read_matrix(m, "lat_p50_ns", s, 1, err) < 0 ||
	    read_matrix(m, "lat_p99_ns", s, 2, err) < 0)
		return -1;
	s->rules.bw_fraction = 0.7;
	s->rules.lat_factor = 2.0;
	x = json_object_get(json_object_get(params, "rules"), "bw_fraction");
	if (json_is_number(x) && json_number_value(x) > 0)
		s->rules.bw_fraction = json_number_value(x);
	x = json_object_get(json_object_get(params, "rules"), "lat_factor");
	if (json_is_number(x) && json_number_value(x) >= 1)
		s->rules.lat_factor = json_number_value(x);
	s->rules.lat_percentile = 50; /* a document from before the rule: the median */
	x = json_object_get(json_object_get(params, "rules"), "lat_percentile");
	if (json_is_number(x) && json_number_value(x) > 0 && json_number_value(x) <= 100)
		s->rules.lat_percentile = json_number_value(x);
	s->both = json_is_true(json_object_get(params, "both_directions"));
	s->tests = 0;
	json_array_foreach(json_object_get(params, "tests"), i, x)
	{
		const char *t = json_string_value(x);
		s->tests |= t && strcmp(t, "bw") == 0    ? IX_MESH_BW
			    : t && strcmp(t, "lat") == 0 ? IX_MESH_LAT
							 : 0;
	}
	/* the floors, and a measured pair with no latency: none came back */
	x = json_object_get(json_object_get(params, "rules"), "min_bw_bps");
	s->rules.min_bw_bps = json_is_number(x) ? json_number_value(x) : 0;
	x = json_object_get(json_object_get(params, "rules"), "max_lat_ns");
	s->rules.max_lat_ns = json_is_number(x) ? json_number_value(x) : 0;
	for (uint32_t a = 0; (s->tests & IX_MESH_LAT) && a < s->n; a++)
		for (uint32_t b = 0; b < s->n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, a, b);

			if (c.state == IX_CELL_OK && !c.mirrored && !(c.lat_p50_ns > 0)) {
				c.lat_lost = 1;
				ix_cells_set(&s->cells, a, b, &c);
			}
		}
	prog = json_object_get(doc, "progress");
	s->done = !json_is_object(prog) || json_is_true(json_object_get(prog, "done"));
	s->complete = json_is_true(json_object_get(mesh, "complete"));
	s->batches = (uint32_t)json_integer_value(json_object_get(prog, "batches"));
	s->total = (uint32_t)json_integer_value(json_object_get(prog, "total"));
	s->elapsed_s = json_number_value(json_object_get(prog, "elapsed_s"));
	if (!json_is_object(prog)) {
		x = json_object_get(mesh, "rounds");
		s->batches = s->total = (uint32_t)json_integer_value(x) * (s->both ? 2 : 1);
		s->elapsed_s = json_number_value(json_object_get(mesh, "wall_s"));
	}
	if (s->done) {
		/* The run's own findings, after its retests. */
		s->bad_pairs = 0;
		json_array_foreach(json_object_get(mesh, "bad_pairs"), i, x)
		{
			int a = host_index(s, json_string_value(json_object_get(x, "from")));
			int b = host_index(s, json_string_value(json_object_get(x, "to")));
			if (a >= 0 && b >= 0) {
				ix_cells_set_bad(&s->cells, (uint32_t)a, (uint32_t)b, IX_BAD_BW);
				s->bad_pairs++;
			}
		}
		json_array_foreach(json_object_get(mesh, "nodes"), i, x) if (i < s->n)
			s->suspect[i] = json_is_true(json_object_get(x, "suspect"));
	}
	/* The switch ports the agents reported: a malformed one is left out. */
	json_array_foreach(json_object_get(mesh, "nodes"), i, x) if (i < s->n)
	{
		struct ix_link_limit l;

		if (ix_link_parse(json_object_get(x, "link"), &l, NULL) == 0)
			s->nbrs[i] = l.neighbor;
	}
	ix_heat_src_analyze(s);
	return 0;
}
