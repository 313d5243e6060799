/* A traffic pattern's result: its verdict and a table of its hosts, each
 * against its line rate (or the median), from the saved document. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

/* One cell: a figure in its format, "-" where it is null. */
static void cell(FILE *f, json_t *o, const char *path, enum ix_hfmt fmt)
{
	fputs("<td class=\"n\">", f);
	ix_html_numf(f, o, path, fmt);
	fputs("</td>", f);
}

/* open, s escaped (NULL: "-"), close. */
static void text(FILE *f, const char *open, const char *s, const char *close)
{
	fputs(open, f);
	ix_html_esc(f, s ? s : "-");
	fputs(close, f);
}

static void host_row(FILE *f, json_t *nd)
{
	const char *against = ix_html_str(nd, "against");
	const char *err = ix_html_str(nd, "error");
	double pct;

	text(f, "<tr><td>", ix_html_str(nd, "host"), "</td>");
	cell(f, nd, "sent_bps", IX_HF_RATE);
	cell(f, nd, "received_bps", IX_HF_RATE);
	cell(f, nd, "figure_bps", IX_HF_RATE);
	text(f, "<td>",
	     !against                        ? "-"
	     : !strcmp(against, "line_rate") ? "line rate"
					     : "median",
	     "</td>");
	cell(f, nd, "against_bps", IX_HF_RATE);
	fputs("<td class=\"n\">", f);
	if (ix_html_num(nd, "percent", &pct))
		fprintf(f, "%.0f%%", pct);
	else
		fputs("-", f);
	fputs("</td><td>", f);
	fputs(json_is_true(json_object_get(nd, "sat_out")) ? "sat out"
	      : !against                                   ? "not measured"
	      : json_is_true(json_object_get(nd, "bad"))   ? "&#9650; BAD"
							   : "ok",
	      f);
	fputs("</td><td>", f);
	ix_html_esc(f, err ? err : "");
	fputs("</td></tr>\n", f);
}

void ix_html_pattern(FILE *f, json_t *r)
{
	json_t *nodes = json_object_get(r, "nodes"), *nd;
	const char *halves = ix_html_str(r, "halves.split");
	size_t i;

	text(f, "<dl class=\"facts\"><dt>pattern</dt><dd>", ix_html_str(r, "pattern"),
	     "</dd><dt>rounds</dt><dd>");
	ix_html_numf(f, r, "rounds", IX_HF_PLAIN);
	if (json_is_integer(json_object_get(r, "seed"))) {
		fputs("</dd><dt>seed</dt><dd>", f);
		ix_html_numf(f, r, "seed", IX_HF_PLAIN);
	}
	fputs("</dd><dt>time per test</dt><dd>", f);
	ix_html_numf(f, r, "params.duration_s", IX_HF_SECONDS);
	if (halves) {
		text(f, "</dd><dt>halves</dt><dd>", ix_html_str(r, "halves.a"), " | ");
		text(f, "", ix_html_str(r, "halves.b"), " (");
		text(f, "", halves, ")</dd><dt>across the cut</dt><dd>");
		ix_html_numf(f, r, "halves.cut_bps", IX_HF_RATE);
	}
	fputs("</dd></dl>\n<p class=\"diag\"><b>Verdict:</b> ", f);
	ix_html_esc(f, ix_html_str(r, "verdict"));
	fputs("</p>\n<table class=\"pattern\"><thead><tr><th>Host</th><th>Sent</th>"
	      "<th>Received</th><th>Figure</th><th>Against</th><th>Of</th><th>Share</th>"
	      "<th>Verdict</th><th>Error</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(nodes, i, nd)
	{
		host_row(f, nd);
	}
	fputs("</tbody></table>\n", f);
}
