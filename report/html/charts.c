#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/fmt/units.h"
#include "report/html/html.h"

/* SVG charts, and the escaping, formatting and JSON access helpers of the
 * HTML report. */

/* Chart geometry (SVG user units; the SVG scales to the page width). */
#define CW 680
#define CH 300
#define ML 90
#define MR 20
#define MT 42
#define MB 44

/* Series styles: colour, dash pattern and marker shape differ, so the lines
 * stay apart in greyscale too. */
static const struct {
	const char *color, *dash;
} styles[] = {
	{ "#1f4e99", "none" },
	{ "#c0560b", "6 3" },
	{ "#2a7a3b", "2 3" },
	{ "#6b3fa0", "9 3 2 3" },
};
#define NSTYLES (sizeof(styles) / sizeof(styles[0]))

/* Data range in axis space (after log2/log10) mapped onto pixels [p0, p1]. */
struct axis {
	double lo, hi, p0, p1;
	int log;    /* 0, 2 or 10 */
	bool whole; /* ticks on whole numbers */
};

static double ax_t(const struct axis *a, double v)
{
	return a->log == 2 ? log2(v) : a->log == 10 ? log10(v) : v;
}

static double ax_px(const struct axis *a, double v)
{
	return a->p0 + (ax_t(a, v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static double nice_step(double span, int want)
{
	double raw = span / want, mag = pow(10, floor(log10(raw))), r = raw / mag;

	return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Fit an axis around [min, max] (data space). */
static void ax_fit(struct axis *a, double min, double max, bool zero, bool pad)
{
	double step;

	if (a->log) {
		a->lo = floor(ax_t(a, min));
		a->hi = ceil(ax_t(a, max));
		if (a->hi <= a->lo)
			a->hi = a->lo + 1;
		return;
	}
	if (zero && min > 0)
		min = 0;
	if (max <= min) {
		double d = fabs(min) > 0 ? fabs(min) * 0.1 : 1;

		min -= zero && min >= 0 ? 0 : d;
		max += d;
	}
	if (pad) {
		a->lo = min - (max - min) * 0.04;
		a->hi = max + (max - min) * 0.04;
		return;
	}
	step = nice_step(max - min, 5);
	a->lo = floor(min / step) * step;
	a->hi = ceil(max / step) * step;
}

/* Tick positions in data space. */
static size_t ax_ticks(const struct axis *a, double *t, size_t max)
{
	static const double m125[] = { 1, 2, 5 };
	size_t n = 0;

	if (a->log == 2) {
		int stride = (int)ceil((a->hi - a->lo + 1) / 9);

		for (double e = a->lo; e <= a->hi + 1e-9 && n < max; e += stride)
			t[n++] = exp2(e);
	} else if (a->log == 10) {
		bool fine = a->hi - a->lo <= 3.5;

		for (double e = floor(a->lo); e <= a->hi + 1e-9; e++)
			for (size_t k = 0; k < (fine ? 3u : 1u) && n < max; k++) {
				double l = log10(m125[k]) + e;

				if (l >= a->lo - 1e-9 && l <= a->hi + 1e-9)
					t[n++] = m125[k] * pow(10, e);
			}
	} else {
		double step = nice_step(a->hi - a->lo, 5);

		if (a->whole && step < 1)
			step = 1;
		for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-6 && n < max;
		     v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

static void put_text(FILE *f, double x, double y, const char *anchor, const char *s)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	ix_html_esc(f, s);
	fputs("</text>", f);
}

/* The SVG opening, title, frame, grid, ticks and axis labels. */
static void frame(FILE *f, const struct ix_hchart *c, const struct axis *ax, const struct axis *ay,
		  size_t ncats)
{
	double t[64];
	char buf[64];
	size_t n;

	fputs("<svg class=\"chart\" viewBox=\"0 0 680 300\" role=\"img\" aria-label=\"", f);
	ix_html_esc(f, c->title);
	fputs("\">", f);
	fputs("<text x=\"340\" y=\"15\" text-anchor=\"middle\" font-weight=\"bold\">", f);
	ix_html_esc(f, c->title);
	fputs("</text>\n", f);
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#888\"/>\n",
		ML, MT, CW - ML - MR, CH - MT - MB);
	n = ax_ticks(ay, t, 64);
	for (size_t i = 0; i < n; i++) {
		double y = ax_px(ay, t[i]);

		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e2e2e2\"/>",
			ML, CW - MR, y, y);
		ix_html_fmt(c->yf, t[i], buf, sizeof(buf));
		put_text(f, ML - 5, y + 4, "end", buf);
	}
	if (ncats) {
		for (size_t i = 0; i < ncats; i++)
			put_text(f, ax_px(ax, (double)i), CH - MB + 15, "middle", c->cats[i]);
	} else {
		n = ax_ticks(ax, t, 64);
		for (size_t i = 0; i < n; i++) {
			double x = ax_px(ax, t[i]);

			fprintf(f,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" "
				"stroke=\"#eeeeee\"/>",
				x, x, MT, CH - MB);
			ix_html_fmt(c->xf, t[i], buf, sizeof(buf));
			put_text(f, x, CH - MB + 15, "middle", buf);
		}
	}
	fputc('\n', f);
	put_text(f, (ML + CW - MR) / 2.0, CH - 8, "middle", c->xlabel);
	fprintf(f, "<text transform=\"rotate(-90)\" x=\"%.1f\" y=\"13\" text-anchor=\"middle\">",
		-(MT + CH - MB) / 2.0);
	ix_html_esc(f, c->ylabel);
	fputs("</text>\n", f);
}

static void marker(FILE *f, size_t k, double x, double y)
{
	const double r = 3.5;

	fprintf(f, "<path fill=\"%s\" d=\"", styles[k % NSTYLES].color);
	switch (k % NSTYLES) {
	case 0:
		fprintf(f, "M%.1f,%.1fa%.1f,%.1f 0 1 0 %.1f,0a%.1f,%.1f 0 1 0 %.1f,0z", x - r, y, r,
			r, 2 * r, r, r, -2 * r);
		break;
	case 1:
		fprintf(f, "M%.1f,%.1fh%.1fv%.1fh%.1fz", x - r, y - r, 2 * r, 2 * r, -2 * r);
		break;
	case 2:
		fprintf(f, "M%.1f,%.1fl%.1f,%.1fh%.1fz", x, y - r - 1, r + 1, 2 * r + 1,
			-2 * r - 2);
		break;
	default:
		fprintf(f, "M%.1f,%.1fl%.1f,%.1fl%.1f,%.1fl%.1f,%.1fz", x, y - r - 1, r + 1, r + 1,
			-r - 1, r + 1, -r - 1, -r - 1);
	}
	fputs("\">", f);
}

static void legend(FILE *f, const struct ix_hseries *s, size_t ns)
{
	double x = ML;

	for (size_t k = 0; k < ns; k++) {
		if (!s[k].n)
			continue;
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"31\" y2=\"31\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"%s\"/>",
			x, x + 24, styles[k % NSTYLES].color, styles[k % NSTYLES].dash);
		marker(f, k, x + 12, 31);
		fputs("</path>", f);
		put_text(f, x + 29, 35, "start", s[k].name);
		x += 40 + 6.5 * (double)strlen(s[k].name ? s[k].name : "-");
	}
	fputc('\n', f);
}

static void tip(FILE *f, const struct ix_hchart *c, const char *name, const char *xs, double y)
{
	char ybuf[64];

	ix_html_fmt(c->yf, y, ybuf, sizeof(ybuf));
	fputs("<title>", f);
	ix_html_esc(f, name);
	fputs(": ", f);
	ix_html_esc(f, xs);
	fputs(" &#8594; ", f);
	ix_html_esc(f, ybuf);
	fputs("</title></path>", f);
}

static bool usable(const struct ix_hchart *c, double x, double y)
{
	if (!isfinite(y) || (c->ylog && y <= 0))
		return false;
	return c->cats || (isfinite(x) && (!c->xlog2 || x > 0));
}

void ix_html_chart(FILE *f, const struct ix_hchart *c, const struct ix_hseries *s, size_t ns)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	struct axis ax = { 0, 0, ML, CW - MR, c->xlog2 ? 2 : 0, c->xint };
	struct axis ay = { 0, 0, CH - MB, MT, c->ylog ? 10 : 0, false };
	size_t ncats = 0, pts = 0;
	char xbuf[64];

	while (c->cats && c->cats[ncats])
		ncats++;
	for (size_t k = 0; k < ns; k++)
		for (size_t i = 0; i < s[k].n; i++) {
			if (!usable(c, s[k].x[i], s[k].y[i]))
				continue;
			xmin = fmin(xmin, s[k].x[i]);
			xmax = fmax(xmax, s[k].x[i]);
			ymin = fmin(ymin, s[k].y[i]);
			ymax = fmax(ymax, s[k].y[i]);
			pts++;
		}
	if (!pts) {
		fputs("<p class=\"muted\">", f);
		ix_html_esc(f, c->title);
		fputs(": no data</p>\n", f);
		return;
	}
	if (ncats) {
		ax.lo = -0.5;
		ax.hi = (double)ncats - 0.5;
	} else {
		ax_fit(&ax, xmin, xmax, false, !c->xlog2);
	}
	ax_fit(&ay, ymin, ymax, true, false);
	frame(f, c, &ax, &ay, ncats);
	for (size_t k = 0; k < ns; k++) {
		const char *col = styles[k % NSTYLES].color;
		bool pen = false;

		if (ncats) {
			double band = (CW - ML - MR) / (double)ncats * 0.7 / (double)ns;

			for (size_t i = 0; i < s[k].n; i++) {
				double x, y, base = CH - MB;

				if (!usable(c, 0, s[k].y[i]) || s[k].x[i] < 0 ||
				    s[k].x[i] >= (double)ncats)
					continue;
				x = ax_px(&ax, s[k].x[i]) - band * (double)ns / 2 +
				    band * (double)k;
				y = ax_px(&ay, s[k].y[i]);
				fprintf(f,
					"<path fill=\"%s\" fill-opacity=\"0.8\" stroke=\"#222\" "
					"d=\"M%.1f,%.1fh%.1fV%.1fh%.1fz\">",
					col, x, base, band, fmin(y, base - 1), -band);
				tip(f, c, s[k].name, c->cats[(size_t)s[k].x[i]], s[k].y[i]);
				ix_html_fmt(c->yf, s[k].y[i], xbuf, sizeof(xbuf));
				put_text(f, x + band / 2, fmin(y, base - 1) - 3, "middle", xbuf);
			}
			fputc('\n', f);
			continue;
		}
		fprintf(f,
			"<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"%s\" d=\"",
			col, styles[k % NSTYLES].dash);
		for (size_t i = 0; i < s[k].n; i++) {
			if (!usable(c, s[k].x[i], s[k].y[i])) {
				pen = false;
				continue;
			}
			fprintf(f, "%c%.1f,%.1f", pen ? 'L' : 'M', ax_px(&ax, s[k].x[i]),
				ax_px(&ay, s[k].y[i]));
			pen = true;
		}
		fputs("\"/>\n", f);
		for (size_t i = 0; i < s[k].n; i++) {
			if (!usable(c, s[k].x[i], s[k].y[i]))
				continue;
			marker(f, k, ax_px(&ax, s[k].x[i]), ax_px(&ay, s[k].y[i]));
			ix_html_fmt(c->xf, s[k].x[i], xbuf, sizeof(xbuf));
			tip(f, c, s[k].name, xbuf, s[k].y[i]);
		}
		fputc('\n', f);
	}
	legend(f, s, ns);
	fputs("</svg>\n", f);
}

void ix_html_histogram(FILE *f, json_t *hist)
{
	json_t *b = json_object_get(hist, "buckets");
	struct ix_hchart c = { .title = "Latency histogram (one-way)",
			       .xlabel = "one-way latency (log scale)",
			       .ylabel = "samples",
			       .xf = IX_HF_NS,
			       .yf = IX_HF_PLAIN };
	struct axis ax = { 0, 0, ML, CW - MR, 10, false }, ay = { 0, 0, CH - MB, MT, 0, false };
	double lo = INFINITY, hi = 0, cmax = 0, l, h, n;
	char a[32], z[32];

	for (size_t i = 0; i < json_array_size(b); i++) {
		json_t *e = json_array_get(b, i);

		if (!ix_html_num(e, "lo_ns", &l) || !ix_html_num(e, "hi_ns", &h) ||
		    !ix_html_num(e, "count", &n) || h <= 0)
			continue;
		lo = fmin(lo, fmax(l, 1));
		hi = fmax(hi, h);
		cmax = fmax(cmax, n);
	}
	if (hi <= 0 || cmax <= 0)
		return;
	ax.lo = log10(lo) - 0.05;
	ax.hi = log10(hi) + 0.05;
	ax_fit(&ay, 0, cmax, true, false);
	frame(f, &c, &ax, &ay, 0);
	for (size_t i = 0; i < json_array_size(b); i++) {
		json_t *e = json_array_get(b, i);
		double x0, x1, y;

		if (!ix_html_num(e, "lo_ns", &l) || !ix_html_num(e, "hi_ns", &h) ||
		    !ix_html_num(e, "count", &n) || h <= 0)
			continue;
		x0 = ax_px(&ax, fmax(l, 1));
		x1 = ax_px(&ax, h);
		y = fmin(ax_px(&ay, n), CH - MB - 1);
		fprintf(f, "<path fill=\"%s\" d=\"M%.2f,%dh%.2fV%.1fh%.2fz\"><title>",
			styles[0].color, x0, CH - MB, fmax(x1 - x0, 0.6), y, -fmax(x1 - x0, 0.6));
		ix_html_fmt(IX_HF_NS, l, a, sizeof(a));
		ix_html_fmt(IX_HF_NS, h, z, sizeof(z));
		fprintf(f, "%s &#8211; %s: %.0f samples</title></path>", a, z, n);
	}
	fputs("\n</svg>\n", f);
}

void ix_html_esc(FILE *f, const char *s)
{
	if (!s) {
		fputc('-', f);
		return;
	}
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '&')
			fputs("&amp;", f);
		else if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '"')
			fputs("&quot;", f);
		else if (ch == '\'')
			fputs("&#39;", f);
		else if (ch < 0x20 && ch != '\n' && ch != '\t')
			fputs("&#xFFFD;", f);
		else
			fputc(ch, f);
	}
}

void ix_html_js_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || strchr("<>&/'", *p))
			fprintf(f, "\\u%04x", *p);
		else if (p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
			fprintf(f, "\\u%04x", p[2] == 0xA8 ? 0x2028 : 0x2029);
			p += 2;
		} else
			fputc(*p, f);
	}
	fputc('"', f);
}

void ix_html_fmt(enum ix_hfmt fmt, double v, char *buf, size_t len)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	time_t t;
	struct tm tm;
	int i = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	switch (fmt) {
	case IX_HF_RATE:
		if (v == 0)
			snprintf(buf, len, "0");
		else
			ix_fmt_rate(v, NULL, buf, len);
		break;
	case IX_HF_NS:
		ix_fmt_ns(v, buf, len);
		break;
	case IX_HF_US:
		snprintf(buf, len, "%.*f us", fabs(v) < 9.995 ? 2 : fabs(v) < 99.95 ? 1 : 0, v);
		break;
	case IX_HF_SIZE: /* whole binary units only: 128 KiB, but 1472 B */
		while (fabs(v) >= 1024 && fmod(v, 1024) == 0 && i < 4) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.0f %s", v, bin[i]);
		break;
	case IX_HF_SECONDS:
		snprintf(buf, len, fabs(v) >= 100 ? "%.0f s" : "%.3g s", v);
		break;
	case IX_HF_TIME:
		t = (time_t)v;
		if (gmtime_r(&t, &tm) && strftime(buf, len, "%m-%d %H:%M", &tm) > 0)
			break;
		snprintf(buf, len, "%.0f", v);
		break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%.4g", v);
	}
}

json_t *ix_html_get(json_t *o, const char *path)
{
	char key[64];

	while (o && *path) {
		size_t l = strcspn(path, ".");

		if (l >= sizeof(key))
			return NULL;
		memcpy(key, path, l);
		key[l] = '\0';
		o = json_object_get(o, key);
		path += l;
		if (*path == '.')
			path++;
	}
	return o;
}

bool ix_html_num(json_t *o, const char *path, double *v)
{
	json_t *j = ix_html_get(o, path);

	if (!json_is_number(j) || !isfinite(json_number_value(j)))
		return false;
	*v = json_number_value(j);
	return true;
}

const char *ix_html_str(json_t *o, const char *path)
{
	return json_string_value(ix_html_get(o, path));
}

void ix_html_numf(FILE *f, json_t *o, const char *path, enum ix_hfmt fmt)
{
	char buf[64];
	double v;

	if (!ix_html_num(o, path, &v)) {
		fputc('-', f);
		return;
	}
	ix_html_fmt(fmt, v, buf, sizeof(buf));
	ix_html_esc(f, buf);
}
