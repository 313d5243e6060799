#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt/units.h"
#include "report/tui/heatmap.h"

int ix_heat_src_alloc(struct ix_heat_src *s, uint32_t n, enum ix_cells_mode mode)
{
	if (s->cells.v && s->n == n && s->cells.mode == mode)
		return 0;
	ix_heat_src_free(s);
	s->n = n;
	s->names = calloc(n ? n : 1, sizeof(*s->names));
	s->suspect = calloc(n ? n : 1, sizeof(*s->suspect));
	s->nbrs = calloc(n ? n : 1, sizeof(*s->nbrs));
	if (ix_cells_init(&s->cells, n, mode) < 0 || !s->names || !s->suspect || !s->nbrs) {
		ix_heat_src_free(s);
		return -1;
	}
	return 0;
}

void ix_heat_src_free(struct ix_heat_src *s)
{
	for (uint32_t i = 0; s->names && i < s->n; i++)
		free(s->names[i]);
	free(s->names);
	ix_cells_free(&s->cells);
	free(s->suspect);
	free(s->nbrs);
	s->nbrs = NULL;
	s->names = NULL;
	s->suspect = NULL;
	s->n = 0;
}

void ix_heat_src_analyze(struct ix_heat_src *s)
{
	struct ix_mesh_findings f = { 0 };

	if (!s->done) {
		memset(s->suspect, 0, s->n * sizeof(*s->suspect));
		if (ix_mesh_analyze(&s->cells, &s->rules, &f) == 0) {
			s->bad_pairs = f.bad_pairs;
			for (size_t i = 0; i < f.nsuspects; i++)
				s->suspect[f.suspects[i]] = true;
		}
		free(f.suspects);
	}
}

int ix_heat_src_copy(struct ix_heat_src *s, const struct ix_mesh_result *r)
{
	/* One test per pair: the measured direction on both sides, the copy
	 * marked (the fabric counts each pair once). */
	if (ix_heat_src_alloc(s, r->n,
			      r->params.both_directions ? IX_CELLS_FULL : IX_CELLS_MIRROR) < 0 ||
	    ix_cells_copy(&s->cells, &r->cells, s->cells.mode) < 0)
		return -1;
	for (uint32_t i = 0; i < r->n; i++) {
		char buf[IX_HOST_NAME_MAX + 16];

		if (s->names[i])
			continue;
		ix_host_format(&r->hosts->v[i], buf, sizeof(buf));
		s->names[i] = strdup(buf);
		if (!s->names[i])
			return -1;
	}
	s->rules = r->params.rules;
	s->tests = r->params.tests;
	s->both = r->params.both_directions;
	s->bad_pairs = r->findings.bad_pairs;
	for (uint32_t i = 0; r->nodes && i < r->n; i++)
		s->suspect[i] = r->nodes[i].suspect;
	for (uint32_t i = 0; r->links && i < r->n; i++)
		s->nbrs[i] = r->links[i].neighbor;
	ix_heat_src_analyze(s);
	return 0;
}

/* The figure a cell shows; false when it has none for this metric. */
static bool cell_value(const struct ix_heat_view *v, const struct ix_cell *c, double *out)
{
	double x = v->metric == IX_HEAT_BW ? c->bw_bps : c->lat_p50_ns;
	bool have = v->metric == IX_HEAT_BW ? ix_cell_has_bw(c) : x > 0 || c->lat_lost;

	if (c->state != IX_CELL_OK || !have)
		return false;
	/* measured at 0, or no round trip back: the worst of the scale */
	*out = v->metric == IX_HEAT_LAT && c->lat_lost ? INFINITY : x;
	return true;
}

static void scale(struct ix_heat_view *v, const struct ix_heat_src *s)
{
	double best = 0;

	for (uint32_t a = 0; a < s->n; a++)
		for (uint32_t b = 0; b < s->n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, a, b);
			double x;

			if (!cell_value(v, &c, &x) || !isfinite(x))
				continue;
			if (best == 0 || (v->metric == IX_HEAT_BW ? x > best : x < best))
				best = x;
		}
	v->scale_max = best;
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

static uint32_t clamp_origin(uint32_t origin, uint32_t cursor, uint32_t shown, uint32_t block,
			     uint32_t n)
{
	uint32_t span = shown * block;

	if (cursor < origin)
		origin = cursor / block * block;
	else if (cursor >= origin + span)
		origin = (cursor / block + 1) * block > span ? (cursor / block + 1) * block - span
							     : 0;
	if (origin + span > n)
		origin = n > span ? div_up(n - span, block) * block : 0;
	return origin / block * block;
}

void ix_heat_layout(struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t w, uint32_t h)
{
	uint32_t n = s->n ? s->n : 1, avail_w, avail_h, fit = 1, longest = 0;

	if (v->levels < 2)
		v->levels = 2;
	for (uint32_t i = 0; i < s->n; i++) {
		size_t l = s->names && s->names[i] ? strlen(s->names[i]) : 0;
		if (l > longest)
			longest = (uint32_t)l;
	}
	v->label_w = longest < 4 ? 4 : longest > IX_HEAT_LABEL_MAX ? IX_HEAT_LABEL_MAX : longest;
	if (v->label_w + 2 > w / 3)
		v->label_w = w / 3 > 6 ? w / 3 - 2 : 4;
	avail_w = w > v->label_w + 2 ? (w - v->label_w - 2) / IX_HEAT_CELL_W : 1;
	avail_h = h > IX_HEAT_ROWS_ABOVE + IX_HEAT_ROWS_BELOW
			  ? h - IX_HEAT_ROWS_ABOVE - IX_HEAT_ROWS_BELOW
			  : 1;
	if (avail_w < 1)
		avail_w = 1;
	while (div_up(n, fit) > avail_w || div_up(n, fit) > avail_h)
		fit++;
	v->block = v->zoom ? (v->zoom > fit * 64 ? fit : v->zoom) : fit;
	if (v->block > n)
		v->block = n;
	v->rows = div_up(n, v->block) < avail_h ? div_up(n, v->block) : avail_h;
	v->cols = div_up(n, v->block) < avail_w ? div_up(n, v->block) : avail_w;
	if (v->cur_row >= n)
		v->cur_row = n - 1;
	if (v->cur_col >= n)
		v->cur_col = n - 1;
	v->top = clamp_origin(v->top, v->cur_row, v->rows, v->block, n);
	v->left = clamp_origin(v->left, v->cur_col, v->cols, v->block, n);
	scale(v, s);
}

static uint32_t step_add(uint32_t x, uint32_t d, uint32_t n)
{
	return x + d < n ? x + d : n - 1;
}

/* The fabric's rows scroll; its renderer keeps fab_top in range. */
static void fabric_scroll(struct ix_heat_view *v, enum ix_heat_action a)
{
	uint32_t page = v->fab_rows > 1 ? v->fab_rows - 1 : 1;

	if (a == IX_HEAT_UP || a == IX_HEAT_LEFT)
		v->fab_top = v->fab_top ? v->fab_top - 1 : 0;
	else if (a == IX_HEAT_DOWN || a == IX_HEAT_RIGHT)
		v->fab_top++;
	else if (a == IX_HEAT_PGUP)
		v->fab_top = v->fab_top > page ? v->fab_top - page : 0;
	else if (a == IX_HEAT_PGDOWN)
		v->fab_top += page;
	else
		v->fab_top = 0;
}

void ix_heat_act(struct ix_heat_view *v, const struct ix_heat_src *s, enum ix_heat_action a)
{
	uint32_t b = v->block ? v->block : 1, n = s->n ? s->n : 1,
		 page = b * (v->rows ? v->rows : 1);

	if (v->fabric && a <= IX_HEAT_HOME) {
		fabric_scroll(v, a);
		return;
	}
	switch (a) {
	case IX_HEAT_FABRIC:
		v->fabric = !v->fabric;
		break;
	case IX_HEAT_UP:
		v->cur_row = v->cur_row >= b ? v->cur_row - b : 0;
		break;
	case IX_HEAT_DOWN:
		v->cur_row = step_add(v->cur_row, b, n);
		break;
	case IX_HEAT_LEFT:
		v->cur_col = v->cur_col >= b ? v->cur_col - b : 0;
		break;
	case IX_HEAT_RIGHT:
		v->cur_col = step_add(v->cur_col, b, n);
		break;
	case IX_HEAT_PGUP:
		v->cur_row = v->cur_row >= page ? v->cur_row - page : 0;
		break;
	case IX_HEAT_PGDOWN:
		v->cur_row = step_add(v->cur_row, page, n);
		break;
	case IX_HEAT_HOME:
		v->cur_row = v->cur_col = 0;
		break;
	case IX_HEAT_ZOOM_IN:
		v->zoom = b > 1 ? b / 2 : 1;
		break;
	case IX_HEAT_ZOOM_OUT:
		v->zoom = b * 2 < n ? b * 2 : n;
		break;
	case IX_HEAT_SHOW_BW:
		v->metric = IX_HEAT_BW;
		break;
	case IX_HEAT_SHOW_LAT:
		v->metric = IX_HEAT_LAT;
		break;
	}
}

uint32_t ix_heat_level(const struct ix_heat_view *v, double value)
{
	double t;
	uint32_t k;

	if (!(v->scale_max > 0) || !(value > 0))
		return 0;
	t = v->metric == IX_HEAT_BW ? value / v->scale_max : v->scale_max / value;
	if (t >= 1)
		return v->levels - 1;
	k = (uint32_t)(t * v->levels);
	return k < v->levels ? k : v->levels - 1;
}

double ix_heat_level_floor(const struct ix_heat_view *v, uint32_t k)
{
	double t = (double)k / v->levels;

	if (v->metric == IX_HEAT_BW)
		return t * v->scale_max;
	return k ? v->scale_max / t : INFINITY;
}

struct ix_heat_px ix_heat_block(const struct ix_heat_view *v, const struct ix_heat_src *s,
				uint32_t row, uint32_t col)
{
	struct ix_heat_px px = { .kind = IX_HEAT_NONE };
	uint32_t r0 = v->top + row * v->block, c0 = v->left + col * v->block;
	bool any_value = false, any_failed = false, any_pending = false;
	double worst = 0;

	for (uint32_t a = r0; a < r0 + v->block && a < s->n; a++)
		for (uint32_t b = c0; b < c0 + v->block && b < s->n; b++) {
			struct ix_cell c = ix_cells_get(&s->cells, a, b);
			double x;

			px.bad |= c.bad != 0;
			if (c.state == IX_CELL_FAILED) {
				any_failed = true;
			} else if (c.state == IX_CELL_PENDING) {
				any_pending = true;
			} else if (cell_value(v, &c, &x)) {
				if (!any_value || (v->metric == IX_HEAT_BW ? x < worst : x > worst))
					worst = x;
				any_value = true;
			}
		}
	if (any_failed)
		px.kind = IX_HEAT_FAILED;
	else if (any_value)
		px.kind = IX_HEAT_VALUE;
	else if (any_pending)
		px.kind = IX_HEAT_PENDING;
	if (any_value)
		px.level = (uint8_t)ix_heat_level(v, worst);
	px.cursor = v->cur_row >= r0 && v->cur_row < r0 + v->block && v->cur_col >= c0 &&
		    v->cur_col < c0 + v->block;
	return px;
}

void ix_heat_fmt(const struct ix_heat_view *v, double value, char *buf, size_t len)
{
	static const struct ix_unit_choice bits = { .kind = IX_UNITS_BITS };

	if (!isfinite(value))
		snprintf(buf, len, "inf");
	else if (v->metric == IX_HEAT_BW)
		ix_fmt_rate(value, &bits, buf, len);
	else
		ix_fmt_ns(value, buf, len);
}

static void fmt_clock(double s, char *buf, size_t len)
{
	long t = s > 0 && s < 1e8 ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

const char *ix_heat_status(const struct ix_heat_view *v, const struct ix_heat_src *s, bool paused,
			   char *buf, size_t len)
{
	char el[32], left[48] = "", nsus[32] = "";
	size_t sus = 0;

	if (s->title[0]) {
		snprintf(buf, len, "%s  %u hosts  %s", s->title, s->n,
			 v->metric == IX_HEAT_BW ? "bandwidth" : "latency p50");
		return buf;
	}
	for (uint32_t i = 0; i < s->n; i++)
		sus += s->suspect[i];
	fmt_clock(s->elapsed_s, el, sizeof(el));
	if (!s->done && s->batches && s->total > s->batches) {
		char t[32];

		fmt_clock(s->elapsed_s / s->batches * (s->total - s->batches), t, sizeof(t));
		snprintf(left, sizeof(left), "  ~%s left", t);
	}
	if (sus)
		snprintf(nsus, sizeof(nsus), "  %zu suspect", sus);
	snprintf(buf, len, "ixperf mesh  %u hosts  %s  %s %u/%u  %s elapsed%s  %zu bad%s%s%s", s->n,
		 v->metric == IX_HEAT_BW ? "bandwidth" : "latency p50",
		 s->done ? "done, rounds" : "round", s->batches, s->total, el, left, s->bad_pairs,
		 nsus, s->done && !s->complete ? "  INCOMPLETE" : "", paused ? "  PAUSED" : "");
	return buf;
}

const char *ix_heat_cursor_text(const struct ix_heat_view *v, const struct ix_heat_src *s,
				char *buf, size_t len)
{
	uint32_t a = v->cur_row, b = v->cur_col;
	struct ix_cell c;
	char bw[32], p50[32], p99[32], span[64] = "";

	if (!s->n || a >= s->n || b >= s->n) {
		snprintf(buf, len, "no hosts");
		return buf;
	}
	if (v->block > 1) {
		struct ix_heat_px px;

		px = ix_heat_block(v, s, (a - v->top) / v->block, (b - v->left) / v->block);
		snprintf(span, sizeof(span), "block of %u x %u%s: ", v->block, v->block,
			 px.bad ? ", holds bad pairs" : "");
	}
	c = ix_cells_get(&s->cells, a, b);
	switch (c.state) {
	case IX_CELL_PENDING:
		snprintf(buf, len, "%s%s -> %s: not measured yet", span, s->names[a], s->names[b]);
		break;
	case IX_CELL_FAILED:
		snprintf(buf, len, "%s%s -> %s: FAILED", span, s->names[a], s->names[b]);
		break;
	case IX_CELL_NONE:
		snprintf(buf, len, "%s%s -> %s: -", span, s->names[a], s->names[b]);
		break;
	default:
		snprintf(bw, sizeof(bw), "-");
		snprintf(p50, sizeof(p50), "-");
		snprintf(p99, sizeof(p99), "-");
		if (ix_cell_has_bw(&c)) {
			struct ix_heat_view bv = *v;
			bv.metric = IX_HEAT_BW;
			ix_heat_fmt(&bv, c.bw_bps, bw, sizeof(bw));
		}
		if (c.lat_p50_ns > 0)
			ix_fmt_ns(c.lat_p50_ns, p50, sizeof(p50));
		else if (c.lat_lost)
			snprintf(p50, sizeof(p50), "lost");
		if (c.lat_p99_ns > 0)
			ix_fmt_ns(c.lat_p99_ns, p99, sizeof(p99));
		snprintf(buf, len, "%s%s -> %s: %s  p50 %s  p99 %s%s%s", span, s->names[a],
			 s->names[b], bw, p50, p99, c.bad ? "  BAD" : "",
			 c.retested ? " (retested)" : "");
	}
	return buf;
}

const char *ix_heat_row_label(const struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t k,
			      char *buf, size_t len)
{
	uint32_t i = v->top + k * v->block;
	const char *name = i < s->n && s->names[i] ? s->names[i] : "";
	size_t l = strlen(name), w = v->label_w < len - 1 ? v->label_w : len - 1;

	/* Keep the end of long names: node numbers differ there. */
	snprintf(buf, len, "%*s", (int)w, l > w ? name + (l - w) : name);
	if (l > w && w > 1)
		buf[0] = '~';
	return buf;
}

bool ix_heat_row_suspect(const struct ix_heat_view *v, const struct ix_heat_src *s, uint32_t k)
{
	uint32_t r0 = v->top + k * v->block;

	for (uint32_t i = r0; i < r0 + v->block && i < s->n; i++)
		if (s->suspect[i])
			return true;
	return false;
}
