/* ixperf mem as text: the nodes, each pair's figures with the firmware's
 * beside, the loaded-latency curves, and what is slower than advertised. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/text/text.h"

static void node_line(FILE *f, const struct ix_mem_node *n)
{
	fprintf(f, "  node %-3d %-18s", n->id, n->ncpus ? n->cpus : "(no CPUs)");
	if (n->mem_known)
		fprintf(f, " %9.1f GiB", (double)n->mem_bytes / (1u << 30));
	else
		fprintf(f, " %13s", "?");
	for (int k = 0; k < 2; k++) {
		const struct ix_hmat *h = &n->access[k];
		bool first = true;

		if (!h->present)
			continue;
		fprintf(f, "  HMAT class %d:", k);
		if (h->read_ns)
			fprintf(f, " read %llu ns", (unsigned long long)h->read_ns);
		if (h->read_mbps)
			fprintf(f, " %.1f GB/s", (double)h->read_mbps / 1e3);
		if (h->write_mbps)
			fprintf(f, ", write %.1f GB/s", (double)h->write_mbps / 1e3);
		fprintf(f, " from node");
		for (int i = 0; i < IX_MEM_MAX_NODES; i++)
			if (h->initiators >> i & 1) {
				fprintf(f, "%s%d", first ? " " : ",", i);
				first = false;
			}
		if (first)
			fprintf(f, " (none listed)");
	}
	fputc('\n', f);
}

/* "12.34" GB/s, or "-" when not run. */
static const char *gbps(double Bps, char *buf, size_t len)
{
	if (Bps < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", Bps / 1e9);
	return buf;
}

static void cell_line(FILE *f, const struct ix_mem_result *r, const struct ix_mem_cell *c)
{
	char b[IX_MEM_NKINDS][16], lat[16];

	fprintf(f, "  %3d -> %-3d %7u", c->initiator, c->target, c->threads);
	if (!c->measured) {
		fprintf(f, "  not measured: %s\n", c->why);
		return;
	}
	for (int k = 0; k < IX_MEM_NKINDS; k++)
		fprintf(f, " %9s", gbps(c->bw[k], b[k], sizeof(b[k])));
	if (c->lat_ns >= 0)
		snprintf(lat, sizeof(lat), "%.1f", c->lat_ns);
	else
		snprintf(lat, sizeof(lat), "-");
	fprintf(f, " %9s", lat);
	if (c->hmat_class >= 0) {
		const struct ix_hmat *h = &ix_mem_node(r, c->target)->access[c->hmat_class];

		fprintf(f, "   HMAT %.1f GB/s, %llu ns:", (double)h->read_mbps / 1e3,
			(unsigned long long)h->read_ns);
		if (c->ratio_read >= 0)
			fprintf(f, " read x%.2f", c->ratio_read);
		if (c->ratio_write >= 0)
			fprintf(f, " write x%.2f", c->ratio_write);
		if (c->ratio_lat >= 0)
			fprintf(f, " latency x%.2f", c->ratio_lat);
		if (c->slow)
			fprintf(f, "  SLOW");
	}
	if (c->placed >= 0 && c->placed < 1)
		fprintf(f, "   only %.0f%% of its pages on node %d", 100 * c->placed, c->target);
	fputc('\n', f);
}

static void pages_line(FILE *f, const struct ix_mem_cell *c)
{
	double huge = c->lat_bytes ? (double)c->pages.huge_bytes / (double)c->lat_bytes : 0;

	fprintf(f, "  %3d -> %-3d chase over %llu MiB: ", c->initiator, c->target,
		(unsigned long long)(c->lat_bytes >> 20));
	if (huge >= 0.5)
		fprintf(f, "%.0f%% in 2 MiB pages (transparent huge pages): few TLB misses\n",
			100 * huge);
	else
		fprintf(f,
			"%llu KiB pages%s: nearly every load also misses the TLB, its page walk "
			"counted in the latency\n",
			(unsigned long long)(c->pages.page_bytes >> 10),
			!c->pages.huge_asked             ? " (--no-hugepages)"
			: !strcmp(c->pages.thp, "never") ? " (transparent huge pages are off)"
							 : " (no huge page was given)");
}

static void curve(FILE *f, const struct ix_mem_cell *c)
{
	fprintf(f, "  %3d -> %-3d", c->initiator, c->target);
	for (uint32_t i = 0; i < c->ncurve; i++) {
		if (!i) {
			fprintf(f, " idle %.0f ns", c->curve[i].lat_ns);
			continue;
		}
		if (c->curve[i].load_Bps < 1e9)
			fprintf(f, ", %.0f MB/s %.0f ns", c->curve[i].load_Bps / 1e6,
				c->curve[i].lat_ns);
		else
			fprintf(f, ", %.1f GB/s %.0f ns", c->curve[i].load_Bps / 1e9,
				c->curve[i].lat_ns);
	}
	fputc('\n', f);
}

void ix_text_mem(FILE *f, const struct ix_mem_result *r)
{
	uint32_t slow = 0, curves = 0;
	char llc[32] = "unknown";

	if (r->llc_bytes)
		snprintf(llc, sizeof(llc), "%llu KiB", (unsigned long long)(r->llc_bytes >> 10));
	fprintf(f, "NUMA nodes%s%s:\n", r->sysfs[0] ? " under " : "", r->sysfs);
	for (uint32_t i = 0; i < r->nnodes; i++)
		node_line(f, &r->nodes[i]);
	fprintf(f,
		"\nFrom initiator to memory node (GB/s, latency in ns; %.2f s a measurement, "
		"largest cache %s):\n",
		r->params.time_s, llc);
	fprintf(f, "  %-10s %7s %9s %9s %9s %9s %9s\n", "pair", "threads", "read", "write",
		"nt-write", "copy", "latency");
	for (uint32_t i = 0; i < r->ncells; i++) {
		cell_line(f, r, &r->cells[i]);
		slow += r->cells[i].slow;
		curves += r->cells[i].ncurve > 1;
	}
	if (!r->nt_stores)
		fprintf(f, "  nt-write: this CPU has no non-temporal stores this build uses\n");
	for (uint32_t i = 0; i < r->ncells; i++)
		if (r->cells[i].measured && r->cells[i].lat_ns >= 0)
			pages_line(f, &r->cells[i]);
	if (curves) {
		fprintf(f, "\nLoaded latency (what the other threads read, and the chase's "
			   "latency meanwhile):\n");
		for (uint32_t i = 0; i < r->ncells; i++)
			if (r->cells[i].ncurve > 1)
				curve(f, &r->cells[i]);
	}
	for (uint32_t i = 0; i < r->ncells; i++)
		if (r->cells[i].measured && r->cells[i].why[0])
			fprintf(f, "  %d -> %d: %s\n", r->cells[i].initiator, r->cells[i].target,
				r->cells[i].why);
	if (slow)
		fprintf(f,
			"\n%u pair(s) slower than HMAT advertises by more than %.0f%% (SLOW "
			"above)\n",
			slow, 100 * r->params.slack);
	if (!r->complete)
		fprintf(f, "\nINCOMPLETE: %s\n", r->error);
}
