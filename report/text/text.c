#include "config.h"

#include <string.h>

#include "probes/core/link.h"
#include "report/fmt/safe.h"
#include "report/text/text.h"

static const char *unit_note(const struct ix_unit_choice *u)
{
	if (u->kind == IX_UNITS_FIXED)
		return "";
	return " (SI prefixes: K = 10^3, M = 10^6, G = 10^9)";
}

void ix_text_bw_begin(FILE *f, const struct ix_bw_params *p, const char *server,
		      const struct ix_unit_choice *u)
{
	fprintf(f, "ixperf bw: %s to %s, %s, %u stream(s), %llu-byte messages", p->path, server,
		ix_mode_name(p->mode), p->streams, (unsigned long long)p->msg_size);
	if (p->bytes)
		fprintf(f, ", %llu bytes", (unsigned long long)p->bytes);
	else
		fprintf(f, ", %.1f s", p->duration_s);
	if (p->warmup_s > 0)
		fprintf(f, " after %.1f s warm-up", p->warmup_s);
	fprintf(f, "%s\n", unit_note(u));
}

void ix_text_bw_interval(FILE *f, const struct ix_bw_result *r, size_t k,
			 const struct ix_unit_choice *u)
{
	const struct ix_interval *iv = &r->intervals[k];
	double len = iv->end_s - iv->start_s;
	uint64_t bytes[2] = { 0, 0 }, retr[2] = { 0, 0 };
	bool have_retr = false;
	char rate[32], amount[32];

	if (k == 0)
		fprintf(f, "%-15s %-7s %12s %16s %8s\n", "Interval", "Dir", "Transfer", "Goodput",
			"Retr");
	for (uint32_t i = 0; i < iv->nstreams; i++) {
		bytes[r->streams[i].dir] += iv->streams[i].rx_bytes;
		if (iv->streams[i].retransmits.valid) {
			retr[r->streams[i].dir] += iv->streams[i].retransmits.v;
			have_retr = true;
		}
	}
	for (int d = 0; d < 2; d++) {
		char when[32], retrs[16] = "-";
		if ((d == 0 && r->params.mode == IX_MODE_REVERSE) ||
		    (d == 1 && r->params.mode == IX_MODE_FORWARD))
			continue;
		snprintf(when, sizeof(when), "%.2f-%.2f s", iv->start_s, iv->end_s);
		ix_fmt_bytes((double)bytes[d], u, amount, sizeof(amount));
		ix_fmt_rate((double)bytes[d] * 8.0 / len, u, rate, sizeof(rate));
		if (have_retr)
			snprintf(retrs, sizeof(retrs), "%llu", (unsigned long long)retr[d]);
		fprintf(f, "%-15s %-7s %12s %16s %8s%s\n", when, ix_dir_name((enum ix_dir)d),
			amount, rate, retrs, iv->warmup ? "  (warm-up)" : "");
	}
	fflush(f);
}

void ix_text_link_share(const struct ix_link_limit *l, const char *who, double bps, bool long_form,
			const struct ix_unit_choice *u, char *buf, size_t len)
{
	bool pcie = l && strcmp(l->bottleneck, "pcie") == 0;
	bool gpu = l && strcmp(l->bottleneck, "gpu") == 0;
	double ceil = ix_link_ceiling(l);
	char rate[32];

	buf[0] = '\0';
	if (ceil <= 0)
		return;
	if (!long_form) {
		snprintf(buf, len, "%.1f%% of %s%s", 100.0 * bps / ceil, who[0] ? "server's " : "",
			 gpu    ? "GPU PCIe"
			 : pcie ? "PCIe"
				: "link");
		return;
	}
	ix_fmt_rate(ceil, u, rate, sizeof(rate));
	if (gpu)
		snprintf(buf, len,
			 "%.1f%% of the PCIe Gen%d x%d link (%s) of %sGPU %s, its buffers'",
			 100.0 * bps / ceil, l->gpu.gen, l->gpu.width, rate, who, l->gpu.bdf);
	else if (pcie)
		snprintf(buf, len, "%.1f%% of the PCIe Gen%d x%d link (%s) of %s%s's NIC",
			 100.0 * bps / ceil, l->pcie.gen, l->pcie.width, rate, who, l->iface);
	else
		snprintf(buf, len, "%.1f%% of the %s link on %s%s", 100.0 * bps / ceil, rate, who,
			 l->iface);
}

/* The end of a bw test whose link is the lower ceiling, and whose it is. */
static const struct ix_link_limit *path_link(const struct ix_bw_result *r, const char **who)
{
	const struct ix_link_limit *l = ix_link_lower(&r->link, &r->link_remote);

	*who = l == &r->link_remote ? "the server's " : "";
	return l;
}

void ix_text_ceiling_line(FILE *f, const char *indent, const struct ix_link_limit *l,
			  const char *who, double bps, const struct ix_unit_choice *u)
{
	bool gpu = l && strcmp(l->bottleneck, "gpu") == 0;
	const struct ix_link_pcie *p = l ? (gpu ? &l->gpu : &l->pcie) : NULL;
	char rate[32], line[32];

	if (!l || (!gpu && strcmp(l->bottleneck, "pcie") != 0) || !(l->ceiling_bps > 0))
		return;
	ix_fmt_rate(l->ceiling_bps, u, rate, sizeof(rate));
	if (l->bps > 0)
		ix_fmt_rate(l->bps, u, line, sizeof(line));
	if (gpu)
		fprintf(f,
			"%sCeiling: %sGPU %s, which holds the buffers, is on a PCIe Gen%d x%d "
			"link, "
			"%s, below %s%s%s",
			indent, who, p->bdf, p->gen, p->width, rate,
			l->bps > 0 ? "the line rate of " : "the line rate", l->bps > 0 ? line : "",
			bps >= IX_AT_CEILING * l->ceiling_bps ? "; the goodput sits at it" : "");
	else
		fprintf(f,
			"%sCeiling: %s%s's NIC (%s) is on a PCIe Gen%d x%d link, %s, below %s%s%s",
			indent, who, l->iface, p->bdf, p->gen, p->width, rate,
			l->bps > 0 ? "the line rate of " : "its line rate", l->bps > 0 ? line : "",
			bps >= IX_AT_CEILING * l->ceiling_bps ? "; the goodput sits at it" : "");
	if (p->downtrained)
		fprintf(f, "; the link trained below its Gen%d x%d capability", p->expected_gen,
			p->expected_width);
	fputs("\n", f);
}

static void summary_line(FILE *f, const char *label, const struct ix_dir_summary *s,
			 const struct ix_link_limit *l, const char *who,
			 const struct ix_unit_choice *u)
{
	char amount[32], rate[32], srate[32], extra[160] = "", share[160];

	ix_fmt_bytes((double)s->bytes, u, amount, sizeof(amount));
	ix_fmt_rate(s->bits_per_second, u, rate, sizeof(rate));
	ix_fmt_rate(s->sender_bits_per_second, u, srate, sizeof(srate));
	if (s->retransmits.valid)
		snprintf(extra, sizeof(extra), "%llu retransmits",
			 (unsigned long long)s->retransmits.v);
	if (s->lost.valid)
		snprintf(extra, sizeof(extra),
			 "lost %llu/%llu (%.3g%%), jitter %.3f ms, %llu out of order",
			 (unsigned long long)s->lost.v,
			 (unsigned long long)(s->lost.v + (s->packets_received.valid
								   ? s->packets_received.v
								   : 0)),
			 s->loss_percent.valid ? s->loss_percent.v : 0.0,
			 s->jitter_ns.valid ? s->jitter_ns.v / 1e6 : 0.0,
			 (unsigned long long)(s->out_of_order.valid ? s->out_of_order.v : 0));
	if (s->lost.valid && s->duplicates.valid && s->duplicates.v)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), ", %llu duplicates",
			 (unsigned long long)s->duplicates.v);
	ix_text_link_share(l, who, s->bits_per_second, true, u, share, sizeof(share));
	fprintf(f, "%-9s %8.2f s %12s %16s %16s  %s%s%s%s%s\n", label, s->seconds, amount, rate,
		srate, extra, share[0] && extra[0] ? "  " : "", share[0] ? "(" : "", share,
		share[0] ? ")" : "");
}

void ix_text_counters(FILE *f, const char *indent, const struct ix_ctr_set *local,
		      const struct ix_ctr_set *remote, bool quiet_too)
{
	char l[1024] = "", rm[1024] = "";

	if (!local->valid && !remote->valid)
		return;
	ix_ctr_sentence(local, l, sizeof(l));
	ix_ctr_sentence(remote, rm, sizeof(rm));
	if (l[0] || rm[0])
		fprintf(f, "%sFabric counters: local %s; remote %s\n", indent,
			l[0]           ? l
			: local->valid ? "none moved"
				       : "not read",
			rm[0]           ? rm
			: remote->valid ? "none moved"
					: "not read");
	else if (quiet_too)
		fprintf(f, "%sFabric counters: none moved (local %s, remote %s)\n", indent,
			local->valid ? local->iface : "not read",
			remote->valid ? remote->iface : "not read");
}

/* How the UDP datagrams went through the kernel at each end, from the
 * first stream that says. */
static void udp_io_line(FILE *f, const struct ix_bw_result *r)
{
	for (uint32_t i = 0; i < r->nstreams; i++) {
		const struct ix_stream_end *tx = &r->streams[i].sender,
					   *rx = &r->streams[i].receiver;

		if (!tx->io[0] && !rx->io[0])
			continue;
		fprintf(f,
			"UDP I/O: sent by %s (up to %u datagrams a call), received by %s (up to %u "
			"a call)%s\n",
			tx->io[0] ? tx->io : "?", tx->io_batch, rx->io[0] ? rx->io : "?",
			rx->io_batch, r->params.no_offload ? ", --no-offload" : "");
		return;
	}
}

/* What MSG_ZEROCOPY did for each direction's senders, summed over its
 * streams; nothing without --zerocopy. */
static void zerocopy_lines(FILE *f, const struct ix_bw_result *r)
{
	for (int d = IX_DIR_FORWARD; d <= IX_DIR_REVERSE; d++) {
		struct ix_zerocopy t = { 0 };
		uint32_t streams = 0, unused = 0;
		const char *why = "";

		for (uint32_t i = 0; i < r->nstreams; i++) {
			const struct ix_zerocopy *z = &r->streams[i].sender.zerocopy;

			if (r->streams[i].dir != (enum ix_dir)d || !z->asked)
				continue;
			streams++;
			unused += !z->used;
			if (z->why[0] && !why[0])
				why = z->why;
			t.sends += z->sends;
			t.completed += z->completed;
			t.copied += z->copied;
			t.waits += z->waits;
		}
		if (!streams)
			continue;
		fprintf(f, "Zero-copy (%s): ",
			d == IX_DIR_FORWARD ? "sent here" : "sent by the server");
		if (!t.sends) {
			fprintf(f, "not used%s%s\n", why[0] ? ": " : "", why);
			continue;
		}
		fprintf(f, "%llu sends, %llu completed", (unsigned long long)t.sends,
			(unsigned long long)t.completed);
		if (t.completed)
			fprintf(f, ", %llu (%.0f%%) copied by the kernel",
				(unsigned long long)t.copied,
				100.0 * (double)t.copied / (double)t.completed);
		if (t.waits)
			fprintf(f, ", %llu waits for pinned pages", (unsigned long long)t.waits);
		if (unused)
			fprintf(f, "; %u of %u streams without it (%s)", unused, streams, why);
		fputc('\n', f);
		if (t.completed && t.copied == t.completed)
			fprintf(f, "  every send was copied after all: this path cannot send "
				   "from user pages (loopback and veth deliver by copy)\n");
	}
}

void ix_text_bw_summary(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u)
{
	struct ix_dir_summary s;
	char cpu[128] = "";
	const char *who;
	const struct ix_link_limit *l = path_link(r, &who);

	fprintf(f, "%-9s %10s %12s %16s %16s\n", "Summary", "Time", "Transfer", "Goodput (recv)",
		"Sent rate");
	double best = 0;

	for (int d = 0; d < 2; d++) {
		ix_bw_summarize(r, (enum ix_dir)d, &s);
		if (s.present)
			summary_line(f, ix_dir_name((enum ix_dir)d), &s, l, who, u);
		if (s.present && s.bits_per_second > best)
			best = s.bits_per_second;
	}
	ix_text_ceiling_line(f, "", l, who, best, u);
	if (r->cpu_local.valid && r->cpu_local.wall_s > 0)
		snprintf(cpu, sizeof(cpu), "CPU: local %.1f%%",
			 100.0 * (r->cpu_local.user_s + r->cpu_local.system_s) /
				 r->cpu_local.wall_s);
	if (r->cpu_remote.valid && r->cpu_remote.wall_s > 0)
		snprintf(cpu + strlen(cpu), sizeof(cpu) - strlen(cpu), ", remote %.1f%%",
			 100.0 * (r->cpu_remote.user_s + r->cpu_remote.system_s) /
				 r->cpu_remote.wall_s);
	if (cpu[0]) {
		double lo = ix_bw_cpu_per_gb(r, &r->cpu_local);
		double re = ix_bw_cpu_per_gb(r, &r->cpu_remote);
		char per[96] = "", a[24] = "-", b[24] = "-";

		if (lo >= 0)
			snprintf(a, sizeof(a), "%.3f s", lo);
		if (re >= 0)
			snprintf(b, sizeof(b), "%.3f s", re);
		if (lo >= 0 || re >= 0)
			snprintf(per, sizeof(per), "; per GB moved: local %s, remote %s", a, b);
		fprintf(f, "%s (of one core)%s%s%s\n", cpu, per,
			r->congestion_used[0] ? ", congestion control " : "", r->congestion_used);
	}
	/* Streams that shared threads: say so, the CPU figures are theirs. */
	if ((r->cpu_local.threads && r->cpu_local.threads < r->nstreams) ||
	    (r->cpu_remote.threads && r->cpu_remote.threads < r->nstreams)) {
		char a[16] = "-", b[16] = "-";

		if (r->cpu_local.threads)
			snprintf(a, sizeof(a), "%u", r->cpu_local.threads);
		if (r->cpu_remote.threads)
			snprintf(b, sizeof(b), "%u", r->cpu_remote.threads);
		fprintf(f, "Data threads: local %s, remote %s, for %u stream(s)%s\n", a, b,
			r->nstreams, r->params.threads ? " (--threads)" : "");
	}
	if (r->params.window) {
		struct ix_opt_u64 g = ix_bw_window_granted(r);
		if (g.valid)
			fprintf(f,
				"Socket buffer: %llu bytes asked, %llu granted (as the kernel "
				"reports it: Linux doubles it, capped by net.core.[rw]mem_max)\n",
				(unsigned long long)r->params.window, (unsigned long long)g.v);
		else
			fprintf(f, "Socket buffer: %llu bytes asked\n",
				(unsigned long long)r->params.window);
	}
	udp_io_line(f, r);
	zerocopy_lines(f, r);
	ix_text_counters(f, "", &r->ctr_local, &r->ctr_remote, true);
	ix_text_wire(f, &r->wire);
	if (!r->complete)
		ix_text_why(f, "INCOMPLETE", r->error);
}

void ix_text_why(FILE *f, const char *prefix, const char *why)
{
	char safe[IX_ERR_MAX];

	ix_text_safe(why, safe, sizeof(safe));
	fprintf(f, "%s: %s\n", prefix, safe);
}

void ix_text_bw_sweep_header(FILE *f, const struct ix_unit_choice *u)
{
	fprintf(f, "%12s %10s %16s %12s %10s%s\n", "Size (B)", "Time", "Goodput", "Retr/Lost",
		"CPU local", unit_note(u));
}

void ix_text_bw_sweep_row(FILE *f, const struct ix_bw_result *r, const struct ix_unit_choice *u)
{
	for (int d = 0; d < 2; d++) {
		struct ix_dir_summary s;
		char rate[32], extra[32] = "-", share[64];
		const char *who;
		const struct ix_link_limit *l = path_link(r, &who);

		ix_bw_summarize(r, (enum ix_dir)d, &s);
		if (!s.present)
			continue;
		ix_fmt_rate(s.bits_per_second, u, rate, sizeof(rate));
		if (s.retransmits.valid)
			snprintf(extra, sizeof(extra), "%llu", (unsigned long long)s.retransmits.v);
		else if (s.lost.valid)
			snprintf(extra, sizeof(extra), "%llu", (unsigned long long)s.lost.v);
		ix_text_link_share(l, who, s.bits_per_second, false, u, share, sizeof(share));
		fprintf(f, "%12llu %8.2f s %16s %12s %9.1f%%%s%s%s\n",
			(unsigned long long)r->params.msg_size, s.seconds, rate, extra,
			r->cpu_local.wall_s > 0
				? 100.0 * (r->cpu_local.user_s + r->cpu_local.system_s) /
					  r->cpu_local.wall_s
				: 0.0,
			share[0] ? "  " : "", share,
			r->params.mode == IX_MODE_BIDIR ? (d ? "  reverse" : "  forward") : "");
	}
	ix_text_counters(f, "  ", &r->ctr_local, &r->ctr_remote, false);
	ix_text_wire(f, &r->wire);
}

void ix_text_lat_header(FILE *f, const struct ix_lat_params *p, const char *server)
{
	fprintf(f,
		"ixperf lat: %s ping-pong with %s%s; latency is one-way = RTT/2 (as perftest "
		"and sockperf report it), in microseconds\n",
		p->path, server, p->busy_poll ? ", busy polling" : "");
	fprintf(f, "%10s %10s %9s %9s %9s %9s %9s %9s %9s %9s %9s %6s\n", "Size (B)", "Samples",
		"min", "p50", "mean", "stdev", "p90", "p99", "p99.9", "p99.99", "max", "lost");
}

void ix_text_lat_row(FILE *f, const struct ix_lat_result *r)
{
	const struct ix_lat_stats *s = &r->stats;

	if (!s->valid) {
		char why[IX_ERR_MAX];

		ix_text_safe(r->complete ? "" : r->error, why, sizeof(why));
		fprintf(f, "%10llu %10s  no samples%s%s\n", (unsigned long long)r->params.msg_size,
			"0", r->complete ? "" : ": ", why);
		ix_text_wire(f, &r->wire);
		return;
	}
	fprintf(f, "%10llu %10llu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %6llu%s\n",
		(unsigned long long)r->params.msg_size, (unsigned long long)s->count, s->min / 1e3,
		s->p50 / 1e3, s->mean / 1e3, s->stdev / 1e3, s->p90 / 1e3, s->p99 / 1e3,
		s->p999 / 1e3, s->p9999 / 1e3, s->max / 1e3, (unsigned long long)r->lost,
		r->complete ? "" : "  INCOMPLETE");
	ix_text_counters(f, "  ", &r->ctr_local, &r->ctr_remote, false);
	ix_text_wire(f, &r->wire);
	fflush(f);
}
