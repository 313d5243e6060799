/* The Prometheus exposition's metric families and the buffers it is
 * built in (expo.h). Builders only: no I/O. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/post/expo.h"
#include "report/prom/prom.h"

/* Shortest decimal that reads back as v. */
static void fmt_value(char *buf, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Base units per Prometheus conventions, as promtool checks them: seconds,
 * ratios, and bandwidth in bytes per second (the documents' bit/s / 8; x 8
 * against a line rate). Statistics of a distribution carry a stat label
 * (min, p50 ... max): a quantile label is for summaries, which have a sum
 * and a count that a test's statistics do not give. */
static const struct {
	const char *name, *type, *help;
} fams[NFAM] = {
	{ "ixperf_run_info", "gauge",
	  "Always 1; labels name the run (plan or command) and ixperf version." },
	{ "ixperf_run_pass", "gauge", "1 when the run's verdict is PASS, else 0." },
	{ "ixperf_run_verdict", "gauge",
	  "1 for the run's verdict (PASS, FAIL, ERROR or INFO), 0 for the others." },
	{ "ixperf_run_complete", "gauge", "1 when the run or command finished without an error." },
	{ "ixperf_run_duration_seconds", "gauge", "Wall time of the run." },
	{ "ixperf_run_timestamp_seconds", "gauge", "When the run finished, Unix time." },
	{ "ixperf_check_pass", "gauge",
	  "1 when the check's verdict is PASS, else 0 (none for a check that expects nothing or "
	  "was skipped)." },
	{ "ixperf_bandwidth_bytes_per_second", "gauge",
	  "Goodput from src to dst (an incast step: into dst from senders hosts), payload bytes "
	  "per second." },
	{ "ixperf_latency_seconds", "gauge",
	  "One-way latency (RTT/2) from src to dst: stat min, p50, p90, p99, p99.9, p99.99, max." },
	{ "ixperf_retransmits_total", "counter",
	  "TCP retransmitted segments during the measurement." },
	{ "ixperf_packet_loss_ratio", "gauge",
	  "UDP datagrams lost from src to dst, fraction of those sent." },
	{ "ixperf_incast_round_seconds", "gauge",
	  "Synchronised-read round time into dst from senders hosts: stat p50, p99." },
	{ "ixperf_fabric_events_total", "counter",
	  "Fabric counters that moved during the check's tests, by class, summed over every host "
	  "(pause_time: in the driver's units)." },
	{ "ixperf_mesh_pairs", "gauge",
	  "Pairs of a mesh by state: planned, measured, failed (no figure), retested, zero "
	  "(measured at 0), lost." },
	{ "ixperf_mesh_bad_pairs", "gauge", "Pairs of a mesh flagged bad (after the retest)." },
	{ "ixperf_mesh_suspect_nodes", "gauge",
	  "Hosts of a mesh named as suspects: most of their pairs are bad." },
	{ "ixperf_mesh_median_bandwidth_bytes_per_second", "gauge",
	  "Median pair bandwidth of a mesh, the reference bad pairs are judged against." },
	{ "ixperf_fleet_odd_nodes", "gauge",
	  "Hosts whose inventory differs from the majority's in some field." },
	{ "ixperf_node_bandwidth_bytes_per_second", "gauge",
	  "Median bandwidth of a host's mesh pairs, sending (direction out) or receiving (in)." },
	{ "ixperf_node_latency_seconds", "gauge",
	  "Median one-way p50 latency of a host's mesh pairs." },
	{ "ixperf_node_bad_pairs", "gauge", "Bad mesh pairs a host is in." },
	{ "ixperf_node_suspect", "gauge", "1 when the mesh names the host a suspect, else 0." },
	{ "ixperf_node_failed", "gauge",
	  "1 when the host's agent could not be reached or failed, else 0." },
	{ "ixperf_node_odd", "gauge",
	  "1 when the host's inventory differs from the majority's, else 0." },
	{ "ixperf_node_fabric_events_total", "counter",
	  "Fabric counters that moved on the host during the mesh, by class." },
	{ "ixperf_pattern_nodes", "gauge", "Hosts of a traffic pattern (mesh --pattern)." },
	{ "ixperf_pattern_bad_nodes", "gauge",
	  "Hosts of a traffic pattern below bad_fraction x their reference." },
	{ "ixperf_pattern_tests", "gauge",
	  "Tests of a traffic pattern by state: planned, failed (no figure)." },
	{ "ixperf_pattern_median_bandwidth_bytes_per_second", "gauge",
	  "Median of a traffic pattern's per-host figures." },
	{ "ixperf_pattern_cut_bandwidth_bytes_per_second", "gauge",
	  "Bisection: what crossed the cut between the halves, summed over its pairs." },
	{ "ixperf_pattern_oversubscription_ratio", "gauge",
	  "Bisection: the hosts' line rates summed over what they sent across the cut (about 1 "
	  "when the cut holds nobody back); only when every host's line rate is known." },
	{ "ixperf_pattern_node_bandwidth_bytes_per_second", "gauge",
	  "A host's figure in a traffic pattern: the lower of what it sent and received." },
	{ "ixperf_pattern_node_reference_bandwidth_bytes_per_second", "gauge",
	  "What a host's pattern figure is judged against: against line_rate (its link's) or "
	  "median (the pattern's)." },
	{ "ixperf_pattern_node_bad", "gauge",
	  "1 when the host's pattern figure is below bad_fraction x its reference, else 0." },
	{ "ixperf_rails_found", "gauge", "Rails of a rail-aligned mesh (mesh --rails)." },
	{ "ixperf_rails_bad", "gauge", "Rails named bad: far below the others." },
	{ "ixperf_rails_reference_bandwidth_bytes_per_second", "gauge",
	  "What each rail's median pair bandwidth is held to: the rails' upper median." },
	{ "ixperf_rails_reference_latency_seconds", "gauge",
	  "What each rail's p50 one-way latency is held to: the rails' lower median." },
	{ "ixperf_rail_bad", "gauge", "1 when the rail is named bad, else 0." },
	{ "ixperf_rail_median_bandwidth_bytes_per_second", "gauge",
	  "Median pair bandwidth of a rail's mesh." },
	{ "ixperf_rail_latency_seconds", "gauge",
	  "Median one-way latency of a rail's mesh pairs: stat p50." },
	{ "ixperf_rail_pairs", "gauge", "Pairs of a rail's mesh by state: measured, failed, bad." },
	{ "ixperf_rails_node_bandwidth_bytes_per_second", "gauge",
	  "A host's throughput over every rail at once (each rail's median, summed), sending "
	  "(direction out) or receiving (in)." },
	{ "ixperf_rails_node_rails", "gauge", "Rails a host was measured on." },
};

/* ',name="value"' (or '{' first); nothing for an empty or absent value. */
static void label(FILE *f, bool *first, const char *name, const char *value)
{
	if (!value || !value[0])
		return;
	fprintf(f, "%c%s=\"", *first ? '{' : ',', name);
	ix_prom_write_escaped(f, value, false);
	fputc('"', f);
	*first = false;
}

void ix_expo_put(struct ix_expo *x, enum ix_expo_fam fam, double v, const char *const *kv)
{
	char *line = NULL, val[40];
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	bool first = true;

	if (!f)
		return;
	fputs(fams[fam].name, f);
	for (size_t i = 0; kv && kv[i]; i += 2)
		label(f, &first, kv[i], kv[i + 1]);
	label(f, &first, "rail", x->rail);
	if (!first)
		fputc('}', f);
	if (fclose(f) == 0 && line && !json_object_get(x->seen, line)) {
		json_object_set_new(x->seen, line, json_true());
		fmt_value(val, sizeof(val), v);
		fprintf(x->f[fam], "%s %s\n", line, val);
	}
	free(line);
}

int ix_expo_open(struct ix_expo *x)
{
	memset(x, 0, sizeof(*x));
	x->seen = json_object();
	for (int i = 0; i < NFAM; i++)
		x->f[i] = open_memstream(&x->buf[i], &x->len[i]);
	for (int i = 0; i < NFAM; i++)
		if (!x->f[i])
			return -1;
	return x->seen ? 0 : -1;
}

int ix_expo_close(struct ix_expo *x, char **body, size_t *len, struct ix_err *err)
{
	FILE *out = open_memstream(body, len);
	int rc = 0;

	/* A family's samples stay together, after its HELP and TYPE. */
	for (int i = 0; i < NFAM; i++) {
		if (x->f[i] && fclose(x->f[i]) != 0)
			rc = -1;
		if (out && x->len[i])
			fprintf(out, "# HELP %s %s\n# TYPE %s %s\n%s", fams[i].name, fams[i].help,
				fams[i].name, fams[i].type, x->buf[i]);
		free(x->buf[i]);
	}
	json_decref(x->seen);
	memset(x, 0, sizeof(*x));
	if (!out || fclose(out) != 0 || rc < 0) {
		if (out)
			free(*body);
		*body = NULL;
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	return 0;
}
