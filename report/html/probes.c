#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html/html.h"

/* Figures and charts of each probe's results: bw, lat, incast. */

/* <dt>key</dt><dd>value</dd>; optional facts are left out when absent. */
static void fact(FILE *f, const char *k, json_t *o, const char *path, enum ix_hfmt fmt,
		 const char *suffix, bool optional)
{
	double v;

	if (optional && !ix_html_num(o, path, &v))
		return;
	fprintf(f, "<dt>%s</dt><dd>", k);
	ix_html_numf(f, o, path, fmt);
	if (suffix && ix_html_num(o, path, &v))
		fputs(suffix, f);
	fputs("</dd>", f);
}

static void fact_str(FILE *f, const char *k, json_t *o, const char *path)
{
	json_t *j = ix_html_get(o, path);

	fprintf(f, "<dt>%s</dt><dd>", k);
	if (json_is_boolean(j))
		fputs(json_is_true(j) ? "yes" : "no", f);
	else
		ix_html_esc(f, json_string_value(j));
	fputs("</dd>", f);
}

static void errbox(FILE *f, json_t *r)
{
	const char *e = ix_html_str(r, "error");

	if (!e)
		return;
	fputs("<p class=\"errbox\">", f);
	ix_html_esc(f, e);
	fputs("</p>\n", f);
}

static double goodput(json_t *r)
{
	double a, b;
	bool fa = ix_html_num(r, "summary.forward.bits_per_second", &a);
	bool fb = ix_html_num(r, "summary.reverse.bits_per_second", &b);

	return fa || fb ? (fa ? a : 0) + (fb ? b : 0) : NAN;
}

bool ix_html_bw_sweep(FILE *f, json_t *results)
{
	size_t n = json_array_size(results);
	struct ix_hchart c = { .title = "Bandwidth vs message size",
			       .xlabel = "message size (log2 scale)",
			       .ylabel = "goodput",
			       .xf = IX_HF_SIZE,
			       .yf = IX_HF_RATE,
			       .xlog2 = true };
	struct ix_hseries s = { "goodput", NULL, NULL, n };
	double *x, *y, lo = INFINITY, hi = -INFINITY;
	char buf[64];

	for (size_t i = 0; i < n; i++) {
		double v;

		if (ix_html_num(json_array_get(results, i), "params.msg_size", &v)) {
			lo = fmin(lo, v);
			hi = fmax(hi, v);
		}
	}
	if (n < 2 || !(hi > lo))
		return false;
	x = calloc(n, sizeof(*x));
	y = calloc(n, sizeof(*y));
	if (!x || !y) {
		free(x);
		free(y);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(results, i);
		size_t j = i;

		if (!ix_html_num(r, "params.msg_size", &x[i]))
			x[i] = NAN;
		y[i] = goodput(r);
		for (; j > 0 && !(x[j - 1] <= x[j]); j--) { /* insertion sort by size */
			double tx = x[j], ty = y[j];

			x[j] = x[j - 1], y[j] = y[j - 1];
			x[j - 1] = tx, y[j - 1] = ty;
		}
	}
	s.x = x;
	s.y = y;
	ix_html_chart(f, &c, &s, 1);
	fputs("<details><summary>per message size</summary><table><thead><tr><th>Size</th>"
	      "<th>Goodput</th><th>Retransmits</th><th>Error</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		json_t *r = json_array_get(results, i);

		fputs("<tr><td class=\"n\">", f);
		ix_html_numf(f, r, "params.msg_size", IX_HF_SIZE);
		fputs("</td><td class=\"n\">", f);
		ix_html_fmt(IX_HF_RATE, goodput(r), buf, sizeof(buf));
		ix_html_esc(f, buf);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, r, "summary.forward.retransmits", IX_HF_PLAIN);
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(r, "error"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></details>\n", f);
	free(x);
	free(y);
	return true;
}

static void bw_one(FILE *f, json_t *r)
{
	json_t *iv = json_object_get(r, "intervals");
	size_t n = json_array_size(iv);
	struct ix_hchart c = { .title = "Goodput per interval",
			       .xlabel = "time since start (end of each interval)",
			       .ylabel = "goodput",
			       .xf = IX_HF_SECONDS,
			       .yf = IX_HF_RATE };
	struct ix_hseries s[3];
	double *x = calloc(n + 1, sizeof(*x)), *y = calloc(3 * (n + 1), sizeof(*y));
	bool rev = false, warm = false;

	errbox(f, r);
	fputs("<dl class=\"facts\">", f);
	fact_str(f, "server", r, "server");
	fact(f, "message size", r, "params.msg_size", IX_HF_SIZE, NULL, false);
	fact(f, "streams", r, "params.streams", IX_HF_PLAIN, NULL, false);
	fact_str(f, "mode", r, "params.mode");
	fact(f, "duration", r, "params.duration_s", IX_HF_SECONDS, NULL, false);
	fact_str(f, "congestion control", r, "params.congestion");
	fact(f, "rate limit", r, "params.rate_bps", IX_HF_RATE, NULL, true);
	fact(f, "goodput forward", r, "summary.forward.bits_per_second", IX_HF_RATE, NULL, false);
	fact(f, "goodput reverse", r, "summary.reverse.bits_per_second", IX_HF_RATE, NULL, true);
	fact(f, "retransmits", r, "summary.forward.retransmits", IX_HF_PLAIN, NULL, true);
	fact(f, "loss", r, "summary.forward.loss_percent", IX_HF_PLAIN, " %", true);
	fact(f, "lost packets", r, "summary.forward.lost", IX_HF_PLAIN, NULL, true);
	fact(f, "jitter", r, "summary.forward.jitter_ns", IX_HF_NS, NULL, true);
	fact(f, "CPU local", r, "cpu.local.percent", IX_HF_PLAIN, " %", true);
	fact(f, "CPU remote", r, "cpu.remote.percent", IX_HF_PLAIN, " %", true);
	fputs("</dl>\n", f);
	if (!n || !x || !y)
		goto out;
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(iv, i);
		bool w = json_is_true(json_object_get(e, "warmup"));
		double fw = NAN, rv = NAN;

		if (!ix_html_num(e, "end", &x[i]))
			x[i] = NAN;
		ix_html_num(e, "forward_bits_per_second", &fw);
		ix_html_num(e, "reverse_bits_per_second", &rv);
		y[i] = w ? NAN : fw;
		y[n + 1 + i] = w ? NAN : rv;
		y[2 * (n + 1) + i] = w ? fw : NAN;
		rev |= rv > 0;
		warm |= w;
	}
	s[0] = (struct ix_hseries){ "forward", x, y, n };
	s[1] = (struct ix_hseries){ "reverse", x, y + n + 1, rev ? n : 0 };
	s[2] = (struct ix_hseries){ "warm-up (not counted)", x, y + 2 * (n + 1), warm ? n : 0 };
	ix_html_chart(f, &c, s, 3);
out:
	free(x);
	free(y);
}

void ix_html_bw(FILE *f, json_t *results)
{
	if (ix_html_bw_sweep(f, results))
		return;
	for (size_t i = 0; i < json_array_size(results); i++)
		bw_one(f, json_array_get(results, i));
}

void ix_html_lat(FILE *f, json_t *r)
{
	static const char *const cats[] = { "min",   "p50",    "p90", "p99",
					    "p99.9", "p99.99", "max", NULL };
	static const char *const keys[] = { "min_ns",   "p50_ns",    "p90_ns", "p99_ns",
					    "p99_9_ns", "p99_99_ns", "max_ns" };
	struct ix_hchart c = { .title = "One-way latency percentiles (one-way = RTT/2)",
			       .xlabel = "percentile",
			       .ylabel = "one-way latency (us)",
			       .xf = IX_HF_PLAIN,
			       .yf = IX_HF_US,
			       .cats = cats };
	double x[7], y[7], lo = INFINITY, hi = 0;
	struct ix_hseries s = { "one-way latency", x, y, 7 };
	json_t *st = json_object_get(r, "stats");

	errbox(f, r);
	fputs("<dl class=\"facts\">", f);
	fact_str(f, "server", r, "server");
	fact(f, "message size", r, "params.msg_size", IX_HF_SIZE, NULL, false);
	fact(f, "samples", r, "samples", IX_HF_PLAIN, NULL, false);
	fact(f, "lost", r, "lost", IX_HF_PLAIN, NULL, false);
	fact(f, "measured for", r, "seconds", IX_HF_SECONDS, NULL, false);
	fact_str(f, "busy polling", r, "params.busy_poll");
	fact(f, "mean (one-way)", st, "mean_ns", IX_HF_NS, NULL, false);
	fact(f, "stdev", st, "stdev_ns", IX_HF_NS, NULL, false);
	fact(f, "CPU local", r, "cpu.local.percent", IX_HF_PLAIN, " %", true);
	fact(f, "CPU remote", r, "cpu.remote.percent", IX_HF_PLAIN, " %", true);
	fputs("</dl>\n", f);
	if (!json_is_object(st)) {
		fputs("<p class=\"muted\">no latency statistics (no samples)</p>\n", f);
		return;
	}
	for (size_t i = 0; i < 7; i++) {
		x[i] = (double)i;
		y[i] = ix_html_num(st, keys[i], &y[i]) ? y[i] / 1e3 : NAN;
		if (isfinite(y[i]) && y[i] > 0) {
			lo = fmin(lo, y[i]);
			hi = fmax(hi, y[i]);
		}
	}
	c.ylog = hi > 0 && hi / lo > 30;
	ix_html_chart(f, &c, &s, 1);
	ix_html_histogram(f, json_object_get(r, "histogram"));
}

static void incast_table(FILE *f, json_t *steps, bool read)
{
	fputs("<table><thead><tr><th>Senders</th><th>Goodput</th>", f);
	fputs(read ? "<th>Rounds</th><th>Round p50</th><th>Round p99</th><th>Round max</th>"
		     "<th>Stalled rounds</th><th>RTO rounds</th><th>Slow rounds</th>"
		   : "<th>Jain fairness</th>",
	      f);
	fputs("<th>Retransmits</th><th>% of receiver's ceiling</th><th>Error</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (size_t i = 0; i < json_array_size(steps); i++) {
		json_t *s = json_array_get(steps, i);

		fputs("<tr><td class=\"n\">", f);
		ix_html_numf(f, s, "senders", IX_HF_PLAIN);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, s, "goodput_bps", IX_HF_RATE);
		if (read) {
			static const char *const k[] = { "read.rounds",       "read.round_ns.p50",
							 "read.round_ns.p99", "read.round_ns.max",
							 "stalled_rounds",    "read.rto_rounds",
							 "read.slow_rounds" };

			for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
				fputs("</td><td class=\"n\">", f);
				ix_html_numf(f, s, k[j], j >= 1 && j <= 3 ? IX_HF_NS : IX_HF_PLAIN);
			}
		} else {
			fputs("</td><td class=\"n\">", f);
			ix_html_numf(f, s, "jain", IX_HF_PLAIN);
		}
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, s, "retransmits", IX_HF_PLAIN);
		fputs("</td><td class=\"n\">", f);
		ix_html_numf(f, s, "percent_of_ceiling", IX_HF_PLAIN);
		fputs("</td><td>", f);
		ix_html_esc(f, ix_html_str(s, "error"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void ix_html_incast(FILE *f, json_t *r)
{
	json_t *steps = json_object_get(r, "steps");
	size_t n = json_array_size(steps);
	const char *mode = ix_html_str(r, "mode");
	bool read = mode && !strcmp(mode, "read");
	struct ix_hchart c = { .title = "Goodput vs senders",
			       .xlabel = "senders (fan-in)",
			       .ylabel = "aggregate goodput",
			       .xf = IX_HF_PLAIN,
			       .yf = IX_HF_RATE,
			       .xint = true };
	struct ix_hchart rc = { .title = "Round time vs senders (synchronised reads)",
				.xlabel = "senders (fan-in)",
				.ylabel = "round time",
				.xf = IX_HF_PLAIN,
				.yf = IX_HF_NS,
				.xint = true };
	double *x = calloc(n + 1, sizeof(*x)), *y = calloc(4 * (n + 1), sizeof(*y));
	struct ix_hseries s[3];

	errbox(f, r);
	fputs("<dl class=\"facts\">", f);
	fact_str(f, "mode", r, "mode");
	fact_str(f, "receiver", r, "receiver");
	fact(f, read ? "block size (SRU)" : "message size", r,
	     read ? "params.sru" : "params.msg_size", IX_HF_SIZE, NULL, false);
	if (read)
		fact(f, "rounds per step", r, "params.rounds", IX_HF_PLAIN, NULL, false);
	else
		fact(f, "duration per step", r, "params.duration_s", IX_HF_SECONDS, NULL, false);
	fputs("</dl>\n<p class=\"diag\"><b>Diagnosis:</b> ", f);
	ix_html_esc(f, ix_html_str(r, "diagnosis"));
	fputs("</p>\n", f);
	if (!n || !x || !y)
		goto out;
	for (size_t i = 0; i < n; i++) {
		json_t *st = json_array_get(steps, i);
		static const char *const k[] = { "goodput_bps", "read.round_ns.p50",
						 "read.round_ns.p99", "read.round_ns.max" };

		if (!ix_html_num(st, "senders", &x[i]))
			x[i] = NAN;
		for (size_t j = 0; j < 4; j++)
			if (!ix_html_num(st, k[j], &y[j * (n + 1) + i]))
				y[j * (n + 1) + i] = NAN;
	}
	s[0] = (struct ix_hseries){ "goodput", x, y, n };
	ix_html_chart(f, &c, s, 1);
	if (read) {
		s[0] = (struct ix_hseries){ "p50", x, y + (n + 1), n };
		s[1] = (struct ix_hseries){ "p99", x, y + 2 * (n + 1), n };
		s[2] = (struct ix_hseries){ "max", x, y + 3 * (n + 1), n };
		ix_html_chart(f, &rc, s, 3);
	}
	incast_table(f, steps, read);
out:
	free(x);
	free(y);
}

bool ix_html_rdma(FILE *f, json_t *results)
{
	static const struct {
		const char *head, *path;
		int fmt; /* enum ix_hfmt, or -1: text */
	} cols[] = {
		{ "Size", "params.msg_size", IX_HF_SIZE },
		{ "Op", "params.op", -1 },
		{ "QPs", "params.qps", IX_HF_PLAIN },
		{ "Bandwidth", "rdma.bits_per_second", IX_HF_RATE },
		{ "Peak", "rdma.peak_bits_per_second", IX_HF_RATE },
		{ "Messages/s", "rdma.message_rate", IX_HF_PLAIN },
		{ "% of ceiling", "rdma.percent_of_ceiling", IX_HF_PLAIN },
		{ "MTU", "path_mtu", IX_HF_PLAIN },
		{ "Device", "local.device", -1 },
		{ "GID", "local.gid_reason", -1 },
	};
	const char *kind = ix_html_str(json_array_get(results, 0), "kind");
	json_t *r;
	size_t i;

	if (!kind || strcmp(kind, "rdma_bw") != 0)
		return false;
	fputs("<table><thead><tr>", f);
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++)
		fprintf(f, "<th>%s</th>", cols[k].head);
	fputs("</tr></thead><tbody>\n", f);
	json_array_foreach(results, i, r)
	{
		fputs("<tr>", f);
		for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
			fputs(cols[k].fmt < 0 ? "<td>" : "<td class=\"n\">", f);
			if (cols[k].fmt < 0)
				ix_html_esc(f, ix_html_str(r, cols[k].path));
			else
				ix_html_numf(f, r, cols[k].path, (enum ix_hfmt)cols[k].fmt);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	for (i = 0; i < json_array_size(results); i++)
		errbox(f, json_array_get(results, i));
	return true;
}
