/* The bodies of ixperf ecmp --path rdma's jobs (phasewire.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/cluster/phasewire.h"
#include "probes/core/clock.h"

#define MAX_SCHEDULE_S 86400.0

json_t *ix_phasewire_phases(const struct ix_rdma_phases *ph)
{
	return json_pack("{s:f,s:f,s:f}", "lead", ph->lead_s, "alone", ph->alone_s, "gap",
			 ph->gap_s);
}

static int number(json_t *o, const char *k, double lo, double hi, double *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi))
		return ix_fail(err, IX_EXIT_USAGE, "'%s' must be a number from %g to %g", k, lo,
			       hi);
	*out = json_number_value(v);
	return 0;
}

int ix_phasewire_parse_phases(json_t *j, struct ix_rdma_phases *ph, struct ix_err *err)
{
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_USAGE, "'phases' is not an object");
	if (number(j, "lead", 0.1, 600, &ph->lead_s, err) < 0 ||
	    number(j, "alone", 0.1, 600, &ph->alone_s, err) < 0 ||
	    number(j, "gap", 0.01, 600, &ph->gap_s, err) < 0)
		return ix_fail_prefix(err, "RUN: rdma.phases");
	return 0;
}

static json_t *fig_json(const struct ix_rdma_phase_fig *f)
{
	return json_pack("{s:b,s:f,s:f,s:I}", "ran", f->ran, "start", f->start_s, "end", f->end_s,
			 "bytes", (json_int_t)f->bytes);
}

json_t *ix_phasewire_phased(const struct ix_rdma_phased *o)
{
	json_t *qps = json_array();

	for (uint32_t i = 0; i < o->nqps; i++)
		json_array_append_new(
			qps, json_pack("{s:I,s:I,s:I,s:i,s:o,s:I}", "qpn", (json_int_t)o->qpn[i],
				       "remote_qpn", (json_int_t)o->remote_qpn[i], "flow_label",
				       (json_int_t)o->flow_label[i], "sport", (int)o->sport[i],
				       "alone", fig_json(&o->alone[i]), "bytes",
				       (json_int_t)o->together_bytes[i]));
	return json_pack("{s:f,s:s,s:o,s:o}", "ready", o->ready_s, "how",
			 ix_rdma_sport_how_name(o->how), "qps", qps, "together",
			 fig_json(&o->together));
}

static int fig_parse(json_t *j, struct ix_rdma_phase_fig *f)
{
	json_t *b = json_object_get(j, "bytes");
	double s, e;

	if (!json_is_object(j) || !json_is_boolean(json_object_get(j, "ran")) ||
	    !json_is_integer(b) || json_integer_value(b) < 0 ||
	    number(j, "start", -1, MAX_SCHEDULE_S, &s, NULL) < 0 ||
	    number(j, "end", -1, MAX_SCHEDULE_S, &e, NULL) < 0)
		return -1;
	*f = (struct ix_rdma_phase_fig){ json_is_true(json_object_get(j, "ran")), s, e,
					 (uint64_t)json_integer_value(b) };
	return 0;
}

static bool uint_in(json_t *o, const char *k, json_int_t hi, uint32_t *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > hi)
		return false;
	*out = (uint32_t)json_integer_value(v);
	return true;
}

int ix_phasewire_parse_phased(json_t *j, struct ix_rdma_phased *o, struct ix_err *err)
{
	json_t *qps = json_object_get(j, "qps"), *q;
	const char *how = json_string_value(json_object_get(j, "how"));
	size_t i;

	memset(o, 0, sizeof(*o));
	if (!json_is_object(j) || !json_is_array(qps) ||
	    json_array_size(qps) > IX_RDMA_PHASED_MAX_QPS || !how ||
	    number(j, "ready", -1, MAX_SCHEDULE_S, &o->ready_s, NULL) < 0 ||
	    fig_parse(json_object_get(j, "together"), &o->together) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "REPORT: 'phased' is malformed");
	o->how = strcmp(how, "flow_label") == 0 ? IX_RDMA_SPORT_FLOW_LABEL
		 : strcmp(how, "qpn") == 0      ? IX_RDMA_SPORT_QPN
						: IX_RDMA_SPORT_UNKNOWN;
	json_array_foreach(qps, i, q)
	{
		uint32_t sport;
		json_t *bytes = json_object_get(q, "bytes");

		if (!uint_in(q, "qpn", 0xffffff, &o->qpn[i]) ||
		    !uint_in(q, "remote_qpn", 0xffffff, &o->remote_qpn[i]) ||
		    !uint_in(q, "flow_label", 0xfffff, &o->flow_label[i]) ||
		    !uint_in(q, "sport", 65535, &sport) || !json_is_integer(bytes) ||
		    json_integer_value(bytes) < 0 ||
		    fig_parse(json_object_get(q, "alone"), &o->alone[i]) < 0)
			return ix_fail(err, IX_EXIT_FAIL, "REPORT: phased QP %zu is malformed", i);
		o->sport[i] = (uint16_t)sport;
		o->together_bytes[i] = (uint64_t)json_integer_value(bytes);
	}
	o->nqps = (uint32_t)json_array_size(qps);
	return 0;
}

json_t *ix_phasewire_series_request(const struct ix_series *s)
{
	json_t *at = json_array(), *names = json_array();

	for (uint32_t k = 0; k < s->nreads; k++)
		json_array_append_new(at, json_real(s->at_s[k]));
	for (uint32_t i = 0; i < s->nifs; i++)
		json_array_append_new(names, json_string(s->names[i]));
	return json_pack("{s:o,s:o}", "at", at, "names", names);
}

int ix_phasewire_parse_series_request(json_t *j, struct ix_series *s, struct ix_err *err)
{
	json_t *at = json_object_get(j, "at"), *names = json_object_get(j, "names"), *v;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_array(at) || !json_is_array(names) || json_array_size(at) == 0 ||
	    json_array_size(at) > IX_SERIES_MAX_READS || json_array_size(names) == 0 ||
	    json_array_size(names) > IX_SERIES_MAX_IFS)
		return ix_fail(err, IX_EXIT_USAGE,
			       "RUN: 'ifseries' needs 'at' (1 to %d times) and 'names' (1 to %d "
			       "interfaces)",
			       IX_SERIES_MAX_READS, IX_SERIES_MAX_IFS);
	json_array_foreach(at, i, v)
	{
		if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
		    json_number_value(v) > MAX_SCHEDULE_S ||
		    (i > 0 && json_number_value(v) < s->at_s[i - 1]))
			return ix_fail(err, IX_EXIT_USAGE,
				       "RUN: 'ifseries.at' must be increasing times from 0 to %g s",
				       MAX_SCHEDULE_S);
		s->at_s[i] = json_number_value(v);
	}
	json_array_foreach(names, i, v)
	{
		const char *n = json_string_value(v);

		if (!n || !*n || strlen(n) >= IX_IFNAME_SIZE)
			return ix_fail(err, IX_EXIT_USAGE,
				       "RUN: 'ifseries.names' must be interface names");
		snprintf(s->names[i], IX_IFNAME_SIZE, "%s", n);
	}
	s->nreads = (uint32_t)json_array_size(at);
	s->nifs = (uint32_t)json_array_size(names);
	return 0;
}

static void sleep_until(int64_t t, atomic_int *stop)
{
	for (;;) {
		int64_t now = ix_now_ns(), step = now + 100 * 1000000LL;
		struct timespec ts;

		if (now >= t || (stop && atomic_load(stop)))
			return;
		if (step > t)
			step = t;
		ts = (struct timespec){ step / IX_NSEC_PER_SEC, step % IX_NSEC_PER_SEC };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static json_t *row(const uint64_t *v, uint32_t n)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

json_t *ix_phasewire_series_run(struct ix_series *s, int64_t start_ns, atomic_int *stop)
{
	struct ix_ifstat *v = calloc(IX_IFSTAT_MAX, sizeof(*v));
	json_t *at = json_array(), *rx = json_array(), *tx = json_array();
	bool trunc;

	for (uint32_t i = 0; i < s->nifs; i++)
		s->found[i] = true;
	for (uint32_t k = 0; v && k < s->nreads && !(stop && atomic_load(stop)); k++) {
		uint32_t n;

		sleep_until(start_ns + ix_seconds_to_ns(s->at_s[k]), stop);
		n = ix_ifstats_read(v, IX_IFSTAT_MAX, NULL, &trunc);
		s->at_s[k] = (double)(ix_now_ns() - start_ns) / 1e9;
		for (uint32_t i = 0; i < s->nifs; i++) {
			const struct ix_ifstat *st = ix_ifstats_find(v, n, s->names[i]);

			s->found[i] &= st != NULL;
			s->rx[k][i] = st ? st->rx_bytes : 0;
			s->tx[k][i] = st ? st->tx_bytes : 0;
		}
		json_array_append_new(at, json_real(s->at_s[k]));
		json_array_append_new(rx, row(s->rx[k], s->nifs));
		json_array_append_new(tx, row(s->tx[k], s->nifs));
	}
	free(v);
	return json_pack("{s:o,s:o,s:o}", "at", at, "rx", rx, "tx", tx);
}

static int counts(json_t *a, uint32_t n, uint64_t *out)
{
	json_t *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != n)
		return -1;
	json_array_foreach(a, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -1;
		out[i] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

int ix_phasewire_parse_series(json_t *j, struct ix_series *s, struct ix_err *err)
{
	json_t *at = json_object_get(j, "at"), *rx = json_object_get(j, "rx"),
	       *tx = json_object_get(j, "tx"), *v;
	size_t k;

	if (!json_is_array(at) || json_array_size(at) != s->nreads || !json_is_array(rx) ||
	    !json_is_array(tx) || json_array_size(rx) != s->nreads ||
	    json_array_size(tx) != s->nreads)
		return ix_fail(err, IX_EXIT_FAIL,
			       "REPORT: 'ifseries' does not have the %u reads asked", s->nreads);
	json_array_foreach(at, k, v)
	{
		if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
		    json_number_value(v) > MAX_SCHEDULE_S ||
		    counts(json_array_get(rx, k), s->nifs, s->rx[k]) < 0 ||
		    counts(json_array_get(tx, k), s->nifs, s->tx[k]) < 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "REPORT: 'ifseries' read %zu is malformed", k);
		s->at_s[k] = json_number_value(v);
	}
	return 0;
}

uint32_t ix_series_read(const struct ix_series *s, uint32_t k, struct ix_ifstat *out)
{
	for (uint32_t i = 0; i < s->nifs; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		snprintf(out[i].name, IX_IFNAME_SIZE, "%s", s->names[i]);
		out[i].up = true;
		out[i].rx_bytes = s->rx[k][i];
		out[i].tx_bytes = s->tx[k][i];
	}
	return s->nifs;
}
