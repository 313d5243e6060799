/* A result's capture (its "wire" object) in the HTML report: the counts
 * as facts, then for RDMA the transport analysis: the capture's total,
 * a row per connection (requester and responder), a row per host pair
 * when there are several. Rows with retransmissions, gaps or NAKs are
 * marked. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/html/html.h"

static void fact(FILE *f, const char *k, json_t *o, const char *path, enum ix_hfmt fmt)
{
	fprintf(f, "<dt>%s</dt><dd>", k);
	ix_html_numf(f, o, path, fmt);
	fputs("</dd>", f);
}

static double num(json_t *o, const char *path)
{
	double v;

	return ix_html_num(o, path, &v) ? v : 0;
}

static double naks(json_t *o)
{
	json_t *n = json_object_get(o, "naks"), *v;
	const char *k;
	double sum = 0;

	json_object_foreach(n, k, v) sum += json_is_number(v) ? json_number_value(v) : 0;
	return sum;
}

/* The cells every row has, from a set of counts (a direction, a pair,
 * the total, or a connection's two directions). */
static void cells(FILE *f, json_t *const *c, size_t n)
{
	static const char *const keys[] = { "packets",  "requests",        "retransmitted",
					    "retries",  "out_of_sequence", "acks",
					    "rnr_naks", "ecn_ce",          "cnp" };
	double lat_n = 0, lat_sum = 0, lat_max = 0, wait_max = 0, gap = 0, nak = 0;
	char buf[48];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double v = 0;

		for (size_t k = 0; k < n; k++)
			v += num(c[k], keys[i]);
		ix_html_fmt(IX_HF_PLAIN, v, buf, sizeof(buf));
		fprintf(f, "<td>%s</td>", buf);
		if (i == 5) { /* NAKs after the ACKs */
			for (size_t k = 0; k < n; k++)
				nak += naks(c[k]);
			ix_html_fmt(IX_HF_PLAIN, nak, buf, sizeof(buf));
			fprintf(f, "<td>%s</td>", buf);
		}
	}
	for (size_t k = 0; k < n; k++) {
		double v;

		lat_n += num(c[k], "ack_latency.count");
		lat_sum += num(c[k], "ack_latency.count") * num(c[k], "ack_latency.mean_ns");
		if (ix_html_num(c[k], "ack_latency.max_ns", &v) && v > lat_max)
			lat_max = v;
		if (ix_html_num(c[k], "retry_wait.max_ns", &v) && v > wait_max)
			wait_max = v;
		if (num(c[k], "gap_max_ns") > gap)
			gap = num(c[k], "gap_max_ns");
	}
	fputs("<td>", f);
	if (lat_n) {
		ix_html_fmt(IX_HF_NS, lat_sum / lat_n, buf, sizeof(buf));
		fprintf(f, "%s / ", buf);
		ix_html_fmt(IX_HF_NS, lat_max, buf, sizeof(buf));
		fputs(buf, f);
	} else {
		fputs("-", f);
	}
	fputs("</td><td>", f);
	if (wait_max > 0) {
		ix_html_fmt(IX_HF_NS, wait_max, buf, sizeof(buf));
		fputs(buf, f);
	} else {
		fputs("-", f);
	}
	ix_html_fmt(IX_HF_NS, gap, buf, sizeof(buf));
	fprintf(f, "</td><td>%s</td></tr>\n", buf);
}

static bool troubled(json_t *const *c, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (num(c[k], "retransmitted") || num(c[k], "out_of_sequence") || naks(c[k]) ||
		    num(c[k], "rnr_naks"))
			return true;
	return false;
}

static void row_start(FILE *f, json_t *const *c, size_t n)
{
	fputs(troubled(c, n) ? "<tr class=\"warn\"><td>" : "<tr><td>", f);
}

static void ops(FILE *f, json_t *flow)
{
	json_t *op;
	size_t i;

	json_array_foreach(json_object_get(flow, "ops"), i, op)
	{
		const char *name = ix_html_str(op, "name");
		char buf[48];

		fputs(i ? ", " : "<br><span class=\"muted\">", f);
		if (name)
			ix_html_esc(f, name);
		else
			fprintf(f, "opcode %g", num(op, "opcode"));
		ix_html_fmt(IX_HF_PLAIN, num(op, "packets"), buf, sizeof(buf));
		fprintf(f, " %s", buf);
	}
	if (i)
		fputs("</span>", f);
}

static void rdma(FILE *f, json_t *r)
{
	json_t *flows = json_object_get(r, "flows"), *x, *total = json_object_get(r, "total");
	json_t *pairs = json_object_get(r, "host_pairs");
	size_t i;

	fputs("<h4>RDMA transport</h4>\n<table class=\"rdma\"><thead><tr><th>Connection</th>"
	      "<th>Packets</th><th>Requests</th><th>Retransmitted</th><th>Retries</th>"
	      "<th>Out of sequence</th><th>ACKs</th><th>NAKs</th><th>RNR NAKs</th>"
	      "<th>ECN-CE</th><th>CNPs</th><th>ACK latency mean / max</th>"
	      "<th>Longest retry wait</th><th>Longest silence</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach(json_object_get(r, "connections"), i, x)
	{
		json_t *q = json_array_get(flows, (size_t)num(x, "requester")), *c[2] = { q, NULL };
		json_t *resp = json_object_get(x, "responder");
		size_t n = 1;

		if (!json_is_object(q))
			continue;
		if (json_is_integer(resp) &&
		    json_is_object(json_array_get(flows, (size_t)json_integer_value(resp))))
			c[n++] = json_array_get(flows, (size_t)json_integer_value(resp));
		row_start(f, c, n);
		ix_html_esc(f, ix_html_str(q, "src"));
		if (n == 2)
			fprintf(f, " QP 0x%06x", (unsigned)num(c[1], "dest_qp"));
		fputs(" &rarr; ", f);
		ix_html_esc(f, ix_html_str(q, "dst"));
		fprintf(f, " QP 0x%06x%s", (unsigned)num(q, "dest_qp"),
			n == 2 ? "" : " <span class=\"muted\">(no answer seen)</span>");
		ops(f, q);
		fputs("</td>", f);
		cells(f, c, n);
	}
	for (i = 0; json_array_size(pairs) > 1 && i < json_array_size(pairs); i++) {
		json_t *p = json_array_get(pairs, i);

		row_start(f, &p, 1);
		fputs("between ", f);
		ix_html_esc(f, ix_html_str(p, "a"));
		fputs(" and ", f);
		ix_html_esc(f, ix_html_str(p, "b"));
		fputs("</td>", f);
		cells(f, &p, 1);
	}
	if (json_is_object(total)) {
		row_start(f, &total, 1);
		fputs("<b>the capture</b></td>", f);
		cells(f, &total, 1);
	}
	fputs("</tbody></table>\n", f);
	if (num(r, "flows_other"))
		fprintf(f,
			"<p class=\"muted\">and %g packets of directions beyond the first 32</p>\n",
			num(r, "flows_other"));
}

void ix_html_wire(FILE *f, json_t *w)
{
	if (!json_is_object(w))
		return;
	fputs("<h3>Capture on ", f);
	ix_html_esc(f, ix_html_str(w, "iface"));
	if (ix_html_str(w, "filter")) {
		fputs(" <span class=\"muted\">(", f);
		ix_html_esc(f, ix_html_str(w, "filter"));
		fputs(")</span>", f);
	}
	fputs("</h3>\n<dl class=\"facts\">", f);
	fact(f, "packets", w, "packets", IX_HF_PLAIN);
	fact(f, "dropped", w, "dropped", IX_HF_PLAIN);
	fact(f, "malformed", w, "malformed", IX_HF_PLAIN);
	fact(f, "TCP retransmissions", w, "tcp_retransmissions", IX_HF_PLAIN);
	fact(f, "TCP dup ACKs", w, "tcp_dup_acks", IX_HF_PLAIN);
	fact(f, "TCP out of order", w, "tcp_out_of_order", IX_HF_PLAIN);
	fact(f, "ECN-CE", w, "ecn_ce", IX_HF_PLAIN);
	fact(f, "RoCE packets", w, "roce_packets", IX_HF_PLAIN);
	if (num(w, "ib_packets"))
		fact(f, "InfiniBand packets", w, "ib_packets", IX_HF_PLAIN);
	if (num(w, "overlay_packets"))
		fact(f, "overlay (VXLAN, Geneve, GRE, ERSPAN) packets", w, "overlay_packets",
		     IX_HF_PLAIN);
	fputs("</dl>\n", f);
	if (json_is_object(json_object_get(w, "rdma")))
		rdma(f, json_object_get(w, "rdma"));
}
