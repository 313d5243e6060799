/* An InfiniBand subnet as text (report/text/text.h): each cable once with
 * its width, speed, rate and state, the counters that moved, then the
 * findings. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "probes/ibfab/ibfab.h"
#include "report/fmt/safe.h"
#include "report/model/ibblame.h"
#include "report/text/text.h"

/* A port's label, with what a peer put in its node description made safe. */
static const char *label(const struct ix_ibfab *f, int32_t n, uint32_t p, char *buf, size_t len)
{
	char raw[96];

	ix_ibfab_port_label(f, n, p, raw, sizeof(raw));
	ix_text_safe(raw, buf, len);
	return buf;
}

/* The counters that moved at a port, error ones and PortXmitWait. */
static void moved_line(FILE *out, const struct ix_ibfab *f, int32_t n,
		       const struct ix_ibfab_port *p)
{
	char l[128];
	int shown = 0;

	for (int k = 0; k < IX_IBC_N; k++) {
		uint64_t d = ix_ibfab_moved(p, (enum ix_ibfab_ctr)k);

		if (!d || (!ix_ibfab_ctr_is_error((enum ix_ibfab_ctr)k) && k != IX_IBC_XMIT_WAIT))
			continue;
		fprintf(out, "%s%s +%" PRIu64, shown++ ? ", " : "  ",
			ix_ibfab_ctr_name((enum ix_ibfab_ctr)k), d);
	}
	if (shown)
		fprintf(out, "  at %s\n", label(f, n, p->num, l, sizeof(l)));
}

void ix_text_ibfab(FILE *out, const struct ix_ibfab *f, const struct ix_ibfab_findings *fs,
		   int reads, const char *between)
{
	uint32_t sw, links;
	char a[128], b[128];

	ix_ibfab_counts(f, &sw, &links);
	fprintf(out, "ixperf fabric: %u switches, %u adapters, %u cables", sw, f->n - sw, links);
	if (f->via[0])
		fprintf(out, " (through %s)", f->via);
	fputc('\n', out);
	fprintf(out, "  %-28s %-28s %-5s %-4s %9s  %s\n", "port", "cabled to", "width", "speed",
		"Gbit/s", "state");
	for (uint32_t i = 0; i < f->n; i++)
		for (uint32_t p = 1; p <= f->nodes[i].nports; p++) {
			const struct ix_ibfab_port *pt = &f->nodes[i].ports[p];

			if (!ix_ibfab_cable_here(f, i, p))
				continue;
			fprintf(out, "  %-28s %-28s %-5s %-4s %9.2f  %s\n",
				label(f, (int32_t)i, p, a, sizeof(a)),
				label(f, pt->peer_node, pt->peer_port, b, sizeof(b)),
				ix_ibfab_width_name(pt->width_active),
				ix_ibfab_speed_name(pt->speed_active, pt->ext_active),
				ix_ibfab_port_gbps(pt), ix_ibfab_state_name(pt->state));
		}
	if (reads > 1) {
		fprintf(out, "Counters that moved %s:\n", between && between[0] ? between : "");
		for (uint32_t i = 0; i < f->n; i++)
			for (uint32_t p = 1; p <= f->nodes[i].nports; p++)
				if (f->nodes[i].ports[p].peer_node >= 0)
					moved_line(out, f, (int32_t)i, &f->nodes[i].ports[p]);
	} else {
		fprintf(out,
			"Counters read once: give --interval or a command to see them move.\n");
	}
	if (!fs || !fs->n) {
		fprintf(out, "No findings.\n");
		return;
	}
	fprintf(out, "FINDINGS (%zu):\n", fs->n);
	for (size_t i = 0; i < fs->n; i++) {
		char t[sizeof(fs->v[i].text)];

		ix_text_safe(fs->v[i].text, t, sizeof(t));
		fprintf(out, "  %-11s %s\n", ix_ibfab_kind_name(fs->v[i].kind), t);
	}
}

/* Text made safe for a terminal (node descriptions and host names are the
 * subnet's and the mesh document's), printed after prefix. */
static void safe_line(FILE *out, const char *prefix, const char *s)
{
	char t[1024];

	ix_text_safe(s, t, sizeof(t));
	fprintf(out, "%s%s\n", prefix, t);
}

void ix_text_ibblame(FILE *out, const struct ix_ibblame *b, const struct ix_mesh_result *r,
		     const char *mesh_path)
{
	char t[300];

	ix_text_safe(mesh_path ? mesh_path : "", t, sizeof(t));
	fprintf(out,
		"The mesh %s on the subnet: %u of %u hosts tied, %" PRIu64 " bad and %" PRIu64
		" good pairs followed through %u forwarding tables",
		t, b->tied, b->hosts, b->pairs_bad, b->pairs_good, b->switches_routed);
	if (b->unplaced)
		fprintf(out, ", %" PRIu64 " not placed", b->unplaced);
	fprintf(out, ".\n");
	if (b->unplaced_why[0])
		safe_line(out, "  not placed: ", b->unplaced_why);
	for (uint32_t i = 0; i < b->hosts; i++)
		if (b->ties[i].node < 0) {
			snprintf(t, sizeof(t), "%.64s: %s", r->hosts->v[i].name, b->ties[i].why);
			safe_line(out, "  not tied: ", t);
		}
	if (!b->counters)
		safe_line(out, "  counters not joined: ", b->counters_why);
	if (b->caveat[0])
		safe_line(out, "  CAVEAT: ", b->caveat);
	if (!b->n && !b->pairs_bad) {
		fprintf(out, "No bad pairs to blame.\n");
		return;
	}
	if (b->n)
		fprintf(out, "BLAME (%u):\n", b->n);
	for (uint32_t i = 0; i < b->n; i++) {
		fprintf(out, "  %-10s ", ix_ibb_kind_name(b->v[i].kind));
		safe_line(out, "", b->v[i].what);
		safe_line(out, "             ", b->v[i].evidence);
	}
	if (b->unexplained)
		fprintf(out, "%" PRIu64 " bad pair(s) no cable explains%s.\n", b->unexplained,
			b->n ? " beside these"
			     : " (no cable most of whose pairs are bad carries two of them)");
}
