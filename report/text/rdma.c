/* RDMA results as perftest-style text tables. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probes/core/link.h"
#include "report/text/text.h"

static void port_line(FILE *f, const char *who, const struct ix_rdma_port_info *p)
{
	fprintf(f, "  %-6s %s port %u, %s", who, p->dev[0] ? p->dev : "?", p->port,
		p->infiniband ? "InfiniBand" : "RoCE");
	if (p->infiniband)
		fprintf(f, " LID %u", p->lid);
	if (p->rate_bps > 0)
		fprintf(f, ", %.0f Gbit/s", p->rate_bps / 1e9);
	if (p->active_mtu > 0)
		fprintf(f, ", active MTU %d", ix_rdma_mtu_bytes(p->active_mtu));
	fprintf(f, "\n");
	if (p->gid.text[0])
		fprintf(f, "         GID %d %s: %s\n", p->gid.index, p->gid.text,
			p->gid.reason[0] ? p->gid.reason : "");
	if (p->placement[0])
		fprintf(f, "         %s\n", p->placement);
	if (p->threads > 1)
		fprintf(f, "         %u polling threads, each with its own QPs and CQ\n",
			p->threads);
	if (p->buffer[0] && strcmp(p->buffer, "host memory") != 0)
		fprintf(f, "         buffer in %s\n", p->buffer);
}

void ix_text_rdma_begin(FILE *f, const struct ix_rdma_result *r, const char *server)
{
	const struct ix_rdma_params *p = &r->params;

	fprintf(f, "RDMA %s %s to %s: RC, %u QP%s", ix_rdma_op_name(p->op),
		r->latency         ? "latency"
		: p->bidirectional ? "bandwidth, both ways"
				   : "bandwidth",
		server, p->qps, p->qps == 1 ? "" : "s");
	if (p->iterations)
		fprintf(f, ", %" PRIu64 " iterations", p->iterations);
	else
		fprintf(f, ", %.3g s (warm-up %.3g s)", p->duration_s, p->warmup_s);
	fprintf(f, "\n  tx depth %u, ", p->tx_depth);
	if (p->rx_depth)
		fprintf(f, "rx depth %u, ", p->rx_depth);
	fprintf(f, "CQ moderation %u, inline %d B", p->cq_mod, (int)p->inline_size);
	if (p->op == IX_RDMA_OP_READ)
		fprintf(f, ", %u reads in flight", p->rd_atom);
	if (p->traffic_class || p->service_level)
		fprintf(f, ", traffic class %u, SL %u", p->traffic_class, p->service_level);
	fprintf(f, "\n");
	port_line(f, "local", &r->local);
	port_line(f, "remote", &r->remote);
	if (r->path_mtu > 0)
		fprintf(f, "  path MTU %d (the smaller active MTU of both ports%s)\n",
			ix_rdma_mtu_bytes(r->path_mtu), p->mtu_cap ? ", capped by --mtu" : "");
}

void ix_text_rdma_header(FILE *f, const struct ix_rdma_result *r)
{
	if (r->latency)
		fprintf(f, " %-10s %-12s %-11s %-11s %-15s %-11s %-13s %-11s %-11s\n", "#bytes",
			"#iterations", "t_min[us]", "t_max[us]", "t_typical[us]", "t_avg[us]",
			"t_stdev[us]", "99%[us]", "99.9%[us]");
	else
		fprintf(f, " %-10s %-12s %-16s %-19s %-14s\n", "#bytes", "#iterations",
			"BW peak[Gb/s]", "BW average[Gb/s]", "MsgRate[Mpps]");
}

void ix_text_rdma_row(FILE *f, const struct ix_rdma_result *r)
{
	if (r->latency) {
		const struct ix_lat_stats *s = &r->lat.stats;

		if (!s->valid) {
			fprintf(f, " %-10" PRIu64 " %-12s (no samples)\n", r->params.msg_size, "0");
			return;
		}
		fprintf(f,
			" %-10" PRIu64 " %-12" PRIu64
			" %-11.2f %-11.2f %-15.2f %-11.2f %-13.2f %-11.2f %-11.2f\n",
			r->params.msg_size, r->lat.iters, (double)s->min / 1e3,
			(double)s->max / 1e3, (double)s->p50 / 1e3, s->mean / 1e3, s->stdev / 1e3,
			(double)s->p99 / 1e3, (double)s->p999 / 1e3);
	} else {
		struct ix_rdma_summary s;
		char peak[32] = "-";

		ix_rdma_summarize(r, &s);
		if (s.peak_bits_per_second.valid)
			snprintf(peak, sizeof(peak), "%.2f", s.peak_bits_per_second.v / 1e9);
		fprintf(f, " %-10" PRIu64 " %-12" PRIu64 " %-16s %-19.2f %-14.6f\n",
			r->params.msg_size, s.messages, peak, s.bits_per_second / 1e9, s.mpps);
	}
}

/* The average against the lower end's ceiling. */
static void ceiling(FILE *f, const struct ix_rdma_result *r)
{
	const struct ix_link_limit *l = ix_link_lower(&r->local.link, &r->remote.link);
	const char *who = l == &r->remote.link ? "the agent's " : "";
	struct ix_unit_choice u = { 0 };
	struct ix_rdma_summary s;
	char share[200];

	ix_rdma_summarize(r, &s);
	if (!l || !s.valid || !(s.bits_per_second > 0))
		return;
	ix_text_link_share(l, who, s.bits_per_second, true, &u, share, sizeof(share));
	fprintf(f, "  the average is %s\n", share);
	ix_text_ceiling_line(f, "  ", l, who, s.bits_per_second, &u);
}

void ix_text_rdma_end(FILE *f, const struct ix_rdma_result *r)
{
	if (!r->latency)
		ceiling(f, r);
	ix_text_counters(f, "  ", &r->ctr_local, &r->ctr_remote, true);
	if (!r->latency && r->remote_rx.valid)
		fprintf(f, "  the agent received %" PRIu64 " messages, %.2f Gbit/s\n",
			r->remote_rx.messages, r->remote_rx.bits_per_second / 1e9);
	if (r->latency)
		fprintf(f, "  latency is %s; percentiles are nearest-rank over every sample\n",
			r->lat.one_way ? "one-way (round trip / 2)"
				       : "the whole round trip (read)");
	if (!r->complete)
		ix_text_why(f, "INCOMPLETE", r->error);
}
