/* The figures of GPU results ("gpu") and collectives ("coll"). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/doc/figures.h"

static const char *label_at(json_t *labels, size_t i)
{
	const char *s = json_string_value(json_array_get(labels, i));

	return s ? s : "?";
}

/*
 * The figures of one "gpu" result, in document order. Every test with
 * status "ok" gives one figure per cell with a value, named
 * "TEST@ROW->COLUMN" with the matrix's labels ("host_to_device_memcpy_ce@
 * host->GPU0", "device_to_device_latency_sm@GPU0->GPU1"), then, a bandwidth
 * test with more than one such cell, "TEST@sum". Bandwidths are in "B/s",
 * higher is better; latencies in "ns", lower is better. A test skipped or
 * failed, or of a unit this build does not know, gives none.
 */
void ix_figs_gpu(struct ix_figs *l, const char *check, json_t *r)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(r, "tests"), i, t)
	{
		const char *name = json_string_value(json_object_get(t, "name"));
		const char *status = json_string_value(json_object_get(t, "status"));
		const char *unit = json_string_value(json_object_get(t, "unit"));
		json_t *rows = json_object_get(t, "rows"), *cols = json_object_get(t, "columns");
		json_t *val = json_object_get(json_object_get(t, "matrix"), "value");
		bool lat = unit && strcmp(unit, "ns") == 0;
		size_t cells = 0;
		char fig[128];

		if (!name || !status || strcmp(status, "ok") != 0 || !unit ||
		    (!lat && strcmp(unit, "bytes_per_second") != 0))
			continue;
		for (size_t a = 0; a < json_array_size(rows); a++)
			for (size_t b = 0; b < json_array_size(cols); b++) {
				json_t *v = json_array_get(json_array_get(val, a), b);

				if (!json_is_number(v))
					continue;
				snprintf(fig, sizeof(fig), "%s@%s->%s", name, label_at(rows, a),
					 label_at(cols, b));
				ix_figs_add(l, check, fig, v,
					    lat ? IX_LOWER_BETTER : IX_HIGHER_BETTER,
					    lat ? "ns" : "B/s");
				cells++;
			}
		if (!lat && cells > 1 && json_is_number(json_object_get(t, "sum"))) {
			snprintf(fig, sizeof(fig), "%s@sum", name);
			ix_figs_add(l, check, fig, json_object_get(t, "sum"), IX_HIGHER_BETTER,
				    "B/s");
		}
	}
}

/*
 * The figures of one "coll" result: every measured cell's bus bandwidth,
 * named "busbw@BYTES/out-of-place" (or in-place), in "B/s", higher is
 * better; the mean of them, "avg_busbw"; and the elements the check found
 * wrong, "wrong", a count (any is a change worth seeing; none when not
 * checked).
 */
void ix_figs_coll(struct ix_figs *l, const char *check, json_t *r)
{
	static const char *const places[] = { "out_of_place", "in_place" };
	static const char *const names[] = { "out-of-place", "in-place" };
	json_t *row;
	size_t i;

	json_array_foreach(json_object_get(r, "rows"), i, row)
	{
		for (int p = 0; p < 2; p++) {
			json_t *c = json_object_get(row, places[p]);
			char fig[96];

			if (!json_is_true(json_object_get(c, "measured")))
				continue;
			snprintf(fig, sizeof(fig), "busbw@%lld/%s",
				 (long long)json_integer_value(json_object_get(row, "bytes")),
				 names[p]);
			ix_figs_add(l, check, fig, json_object_get(c, "busbw_Bps"),
				    IX_HIGHER_BETTER, "B/s");
		}
	}
	ix_figs_add(l, check, "avg_busbw", json_object_get(r, "avg_busbw_Bps"), IX_HIGHER_BETTER,
		    "B/s");
	if (json_is_integer(json_object_get(r, "wrong")))
		ix_figs_count(l, check, "wrong", json_object_get(r, "wrong"), 0, "");
}
