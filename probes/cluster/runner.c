#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/cluster/blockread.h"
#include "probes/cluster/phasewire.h"
#include "probes/cluster/runner.h"
#include "probes/core/clock.h"
#include "probes/core/link.h"
#include "probes/ctl/client.h"
#include "probes/net/transport.h"
#include "probes/rdma/session.h"

#define MAX_DELAY_US 60000000
#define JOB_GRACE_S  30.0 /* connecting and the exchange of results */

static const char *const kind_names[] = { "bw", "lat", "read", "ifseries" };

json_t *ix_runner_request(const struct ix_run_job *job)
{
	json_t *targets = json_array(), *run;

	for (uint32_t i = 0; i < job->ntargets; i++)
		json_array_append_new(targets, json_pack("{s:s,s:i}", "host", job->targets[i].name,
							 "port", (int)job->targets[i].port));
	run = json_pack("{s:s,s:o,s:I}", "kind", kind_names[job->kind], "targets", targets,
			"delay_us", (json_int_t)0); /* set by the coordinator */
	if (job->kind == IX_RUN_BW)
		json_object_set_new(run, "bw", ix_wire_bw_params(job->bw));
	else if (job->kind == IX_RUN_LAT)
		json_object_set_new(run, "lat", ix_wire_lat_params(job->lat));
	else if (job->kind == IX_RUN_READ)
		json_object_set_new(run, "block", ix_wire_read_params(job->read));
	else
		json_object_set_new(run, "ifseries", ix_phasewire_series_request(job->series));
	if (job->rdma && (job->kind == IX_RUN_BW || job->kind == IX_RUN_LAT) &&
	    strcmp(job->kind == IX_RUN_BW ? job->bw->path : job->lat->path, "rdma") == 0)
		json_object_set_new(run, "rdma",
				    json_pack("{s:s,s:i,s:i,s:i}", "op",
					      ix_rdma_op_name(job->rdma->op), "qps",
					      (int)(job->rdma->qps ? job->rdma->qps : 1),
					      "traffic_class", job->rdma->traffic_class,
					      "service_level", job->rdma->service_level));
	if (job->source)
		json_object_set_new(run, "source", json_string(job->source));
	if (job->gpu && json_object_get(run, "rdma"))
		json_object_set_new(json_object_get(run, "rdma"), "gpu", json_string(job->gpu));
	if (job->phases && json_object_get(run, "rdma")) {
		json_object_set_new(json_object_get(run, "rdma"), "phases",
				    ix_phasewire_phases(job->phases));
		json_object_set_new(json_object_get(run, "rdma"), "sport",
				    json_integer(job->sport));
	}
	return run;
}

const char *ix_runner_describe(json_t *run)
{
	const char *k = json_string_value(json_object_get(run, "kind"));

	if (!k)
		return "(malformed)";
	return strcmp(k, "bw") == 0         ? "bandwidth test towards a peer"
	       : strcmp(k, "lat") == 0      ? "latency test towards a peer"
	       : strcmp(k, "read") == 0     ? "synchronised reads from the senders"
	       : strcmp(k, "ifseries") == 0 ? "interface counters on a schedule"
					    : "(unknown kind)";
}

/* The address to send from, when the request names one: numeric only
 * (an agent resolves no name a coordinator sends), and one of the agent's
 * own (bind refuses any other: EADDRNOTAVAIL). */
static int check_source(json_t *run, struct ix_err *err)
{
	json_t *s = json_object_get(run, "source");
	struct in6_addr a;

	if (!s)
		return 0;
	if (!json_is_string(s) || (inet_pton(AF_INET, json_string_value(s), &a) != 1 &&
				   inet_pton(AF_INET6, json_string_value(s), &a) != 1))
		return ix_fail(err, IX_EXIT_USAGE, "RUN: 'source' must be a numeric address");
	return 0;
}

/* Targets from the request: host names and ports, checked. */
static int parse_targets(json_t *arr, struct ix_host *out, uint32_t cap, uint32_t *n,
			 struct ix_err *err)
{
	size_t i;
	json_t *o;

	if (!json_is_array(arr) || json_array_size(arr) == 0 || json_array_size(arr) > cap)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: 'targets' must list 1 to %u hosts", cap);
	json_array_foreach(arr, i, o)
	{
		const char *h = json_string_value(json_object_get(o, "host"));
		json_int_t port = json_integer_value(json_object_get(o, "port"));

		if (!h || !*h || strlen(h) >= IX_HOST_NAME_MAX || port < 1 || port > 65535)
			return ix_fail(err, IX_EXIT_USAGE, "RUN: target %zu is malformed", i);
		memcpy(out[i].name, h, strlen(h) + 1);
		out[i].port = (uint16_t)port;
	}
	*n = (uint32_t)json_array_size(arr);
	return 0;
}

/* Until t, or until the agent stops (checked every 100 ms). */
static void sleep_until(const struct ix_runner_ctx *ctx, int64_t t)
{
	for (;;) {
		int64_t now = ix_now_ns(), step = now + 100 * 1000000LL;
		struct timespec ts;

		if (now >= t || (ctx->stop && atomic_load(ctx->stop)))
			return;
		if (step > t)
			step = t;
		ts = (struct timespec){ step / IX_NSEC_PER_SEC, step % IX_NSEC_PER_SEC };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* A job's end: this agent's duration limit past its start, and a grace for
 * the connection and the exchange of results. */
static int64_t job_deadline(const struct ix_runner_ctx *ctx, int64_t start)
{
	double max = ctx->limits->max_duration_s > 0 ? ctx->limits->max_duration_s : 86400;

	return start + ix_seconds_to_ns(max + JOB_GRACE_S);
}

/* Each forward stream: its ports and what its receiver counted. */
static json_t *report_streams(const struct ix_bw_result *r)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < r->nstreams; i++) {
		const struct ix_stream_result *s = &r->streams[i];
		const struct ix_stream_end *e = &s->receiver;

		if (s->dir != IX_DIR_FORWARD)
			continue;
		json_array_append_new(a, json_pack("{s:i,s:i,s:I,s:f}", "sport", (int)s->local_port,
						   "dport", (int)s->remote_port, "bytes",
						   (json_int_t)(e->valid ? e->bytes : 0), "seconds",
						   e->valid ? e->seconds : 0.0));
	}
	return a;
}

static json_t *report_bw(const struct ix_bw_result *r)
{
	struct ix_dir_summary s;
	json_t *o;

	ix_bw_summarize(r, IX_DIR_FORWARD, &s);
	o = json_pack("{s:f,s:I,s:f}", "bps", s.bits_per_second, "bytes", (json_int_t)s.bytes,
		      "seconds", s.seconds);
	if (s.retransmits.valid)
		json_object_set_new(o, "retransmits", json_integer((json_int_t)s.retransmits.v));
	if (s.lost.valid)
		json_object_set_new(o, "lost", json_integer((json_int_t)s.lost.v));
	if (s.loss_percent.valid)
		json_object_set_new(o, "loss_percent", json_real(s.loss_percent.v));
	json_object_set_new(o, "streams", report_streams(r));
	return o;
}

static json_t *report_lat(const struct ix_lat_result *r)
{
	const struct ix_lat_stats *s = &r->stats;

	if (!s->valid)
		return json_pack("{s:I,s:I}", "samples", (json_int_t)0, "lost",
				 (json_int_t)r->lost);
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "samples", (json_int_t)s->count, "lost",
			 (json_int_t)r->lost, "min", (json_int_t)s->min, "p50", (json_int_t)s->p50,
			 "p99", (json_int_t)s->p99, "max", (json_int_t)s->max, "mean", s->mean);
}

#define REFUSED (-2) /* the request itself is refused: err says why */

/* The counters that moved at both ends, as the REPORT carries them. */
static json_t *report_counters(const struct ix_ctr_set *local, const struct ix_ctr_set *remote)
{
	return json_pack("{s:o,s:o}", "local", ix_ctr_json(local), "remote", ix_ctr_json(remote));
}

/* The links both ends' traffic left by, as the REPORT carries them. */
static json_t *report_links(const struct ix_link_limit *local, const struct ix_link_limit *remote)
{
	return json_pack("{s:o,s:o}", "local", ix_link_json(local), "remote", ix_link_json(remote));
}

/* The link a connected socket of this agent leaves by, from its cache;
 * none when the job has no cache or the socket is closed. */
static void local_link(const struct ix_runner_ctx *ctx, int fd, struct ix_link_limit *out)
{
	memset(out, 0, sizeof(*out));
	if (ctx->links && fd >= 0)
		ix_link_cache_socket(ctx->links, fd, out);
}

/* The job's client towards t, held to the agent's stop and limit. */
static struct ix_client job_client(const struct ix_runner_ctx *ctx, json_t *run,
				   const struct ix_host *t, int64_t start)
{
	const char *source = json_string_value(json_object_get(run, "source"));

	return (struct ix_client){ .host = t->name,
				   .port = t->port,
				   .bind_addr = source ? source : ctx->bind_addr,
				   .token = ctx->token,
				   .fd = -1,
				   .stop = ctx->stop,
				   .deadline_ns = job_deadline(ctx, start) };
}

/* Charge the job's memory to the agent's limit. */
static int charge(const struct ix_runner_ctx *ctx, uint64_t bytes, struct ix_err *err)
{
	return ctx->claim ? ctx->claim(ctx->claim_arg, bytes, err) : 0;
}

/* The most samples a latency test keeps: its count, or one a microsecond. */
static uint64_t lat_samples(uint64_t iters, double seconds)
{
	return iters ? iters : (uint64_t)(seconds * 1e6);
}

/* A socket latency test's end: its stream's buffer and the samples. */
static uint64_t lat_mem(const struct ix_lat_params *p)
{
	return ix_stream_buf_bytes(p->msg_size) +
	       ix_samples_bytes(lat_samples(p->iters, p->warmup_s + p->duration_s));
}

/* A bw or lat test towards one peer. 0 ok, -1 failed (terr), REFUSED. */
static int run_pair(const struct ix_runner_ctx *ctx, json_t *run, bool bw, const struct ix_host *t,
		    uint32_t n, int64_t start, json_t *rep, struct ix_err *terr, struct ix_err *err)
{
	struct ix_client c = job_client(ctx, run, t, start);
	struct ix_link_limit link;
	struct ix_bw_params bp;
	struct ix_lat_params lp;
	int rc;

	rc = bw ? ix_wire_parse_bw(json_object_get(run, "bw"), ctx->limits, &bp, err)
		: ix_wire_parse_lat(json_object_get(run, "lat"), ctx->limits, &lp, err);
	if (rc < 0)
		return REFUSED;
	if (n != 1)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: a %s job takes one target",
			       bw ? "bw" : "lat"),
		       REFUSED;
	if (charge(ctx, bw ? ix_bw_mem(&bp, ix_transport_find(bp.path)) : lat_mem(&lp), err) < 0)
		return REFUSED;
	sleep_until(ctx, start);
	rc = ix_client_connect(&c, terr);
	if (bw) {
		struct ix_bw_result r;

		if (rc == 0)
			rc = ix_bw_run(&c, &bp, &r, NULL, terr);
		else
			ix_bw_result_init(&r, &bp);
		local_link(ctx, c.fd, &link);
		json_object_set_new(rep, "bw", report_bw(&r));
		json_object_set_new(rep, "counters", report_counters(&r.ctr_local, &r.ctr_remote));
		json_object_set_new(rep, "link", report_links(&link, &r.link_remote));
		ix_bw_result_free(&r);
	} else {
		struct ix_lat_result r;

		if (rc == 0)
			rc = ix_lat_run(&c, &lp, &r, terr);
		else
			ix_lat_result_init(&r, &lp);
		json_object_set_new(rep, "lat", report_lat(&r));
		json_object_set_new(rep, "counters", report_counters(&r.ctr_local, &r.ctr_remote));
		ix_lat_result_free(&r);
	}
	ix_client_close(&c);
	return rc;
}

/* A number in [lo, hi] from a RUN member; missing is 0 when optional. */
static int rnum(json_t *o, const char *k, double lo, double hi, bool optional, double *out,
		struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	if (!v && optional) {
		*out = 0;
		return 0;
	}
	if (!json_is_number(v) || json_number_value(v) < lo || json_number_value(v) > hi)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: '%s' is missing or outside [%g, %g]", k,
			       lo, hi);
	*out = json_number_value(v);
	return 0;
}

/* The RDMA test of a bw or lat job on path "rdma". */
static int rdma_params(const struct ix_runner_ctx *ctx, json_t *run, bool bw,
		       struct ix_rdma_params *p, struct ix_err *err)
{
	json_t *t = json_object_get(run, bw ? "bw" : "lat"), *r = json_object_get(run, "rdma");
	double size, dur, warm, iters = 0, qps, tc, sl;
	double max = ctx->limits->max_duration_s > 0 ? ctx->limits->max_duration_s : 86400;
	int op = ix_rdma_op_parse(json_string_value(json_object_get(r, "op")) ?: "");

	if (!json_is_object(t) || !json_is_object(r) || op < 0)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: an rdma job needs '%s' and 'rdma.op'",
			       bw ? "bw" : "lat");
	if (rnum(t, "msg_size", 1, (double)IX_RDMA_MAX_MSG, false, &size, err) < 0 ||
	    rnum(t, "duration", 0, max, false, &dur, err) < 0 ||
	    rnum(t, "warmup", 0, 3600, false, &warm, err) < 0 ||
	    (!bw && rnum(t, "iters", 0, 1e12, true, &iters, err) < 0) ||
	    rnum(r, "qps", 1, IX_RDMA_MAX_QPS, false, &qps, err) < 0 ||
	    rnum(r, "traffic_class", 0, 255, true, &tc, err) < 0 ||
	    rnum(r, "service_level", 0, 15, true, &sl, err) < 0)
		return -1;
	if (dur + warm > max)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: longer than this agent's limit of %.0f s",
			       max);
	/* A round trip takes a microsecond at least: more than a million per
	 * second of the limit could outlast it. */
	if (iters > max * 1e6)
		return ix_fail(err, IX_EXIT_USAGE,
			       "RUN: %.0f round trips could outlast this agent's limit of %.0f s",
			       iters, max);
	ix_rdma_params_init(p, bw ? IX_RDMA_MESH : IX_RDMA_LAT, (enum ix_rdma_op)op);
	p->msg_size = (uint64_t)size;
	p->iterations = (uint64_t)iters;
	p->duration_s = iters > 0 ? 0 : dur;
	p->warmup_s = warm;
	p->qps = bw ? (uint32_t)qps : 1;
	p->traffic_class = (uint8_t)tc;
	p->service_level = (uint8_t)sl;
	return 0;
}

/* The GPU of an rdma job's buffers: "rdma.gpu" absent is host memory
 * (-1), "auto" the GPU nearest the NIC, else an index 0 to 63. */
static int rdma_gpu(json_t *run, int *gpu, struct ix_err *err)
{
	const char *g = json_string_value(json_object_get(json_object_get(run, "rdma"), "gpu"));
	char *end;
	long v;

	*gpu = -1;
	if (!json_object_get(json_object_get(run, "rdma"), "gpu"))
		return 0;
	if (g && strcmp(g, "auto") == 0)
		return (*gpu = IX_RDMA_GPU_AUTO), 0;
	v = g ? strtol(g, &end, 10) : -1;
	if (!g || !*g || *end || v < 0 || v > 63)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: 'rdma.gpu' must be \"auto\" or 0 to 63");
	*gpu = (int)v;
	return 0;
}

/* A phased test's schedule (rdma.phases) and source ports (rdma.sport)
 * into p and ph; 0 without one (*on false). */
static int rdma_phases(const struct ix_runner_ctx *ctx, json_t *run, struct ix_rdma_params *p,
		       struct ix_rdma_phases *ph, bool *on, struct ix_err *err)
{
	json_t *r = json_object_get(run, "rdma"), *j = json_object_get(r, "phases");
	double max = ctx->limits->max_duration_s > 0 ? ctx->limits->max_duration_s : 86400,
	       sport = 0;

	*on = j != NULL;
	if (!j)
		return 0;
	if (ix_phasewire_parse_phases(j, ph, err) < 0 ||
	    rnum(r, "sport", 0, 65535, true, &sport, err) < 0)
		return -1;
	if (p->op != IX_RDMA_OP_WRITE || p->qps > IX_RDMA_PHASED_MAX_QPS ||
	    (sport != 0 && sport <= 0xc000))
		return ix_fail(
			err, IX_EXIT_USAGE,
			"RUN: a phased rdma job is a write test of 1 to %d QPs, rdma.sport 0 "
			"or above 49152",
			IX_RDMA_PHASED_MAX_QPS);
	ph->warmup_s = p->warmup_s;
	ph->duration_s = p->duration_s;
	/* The agent at the other end waits for the whole schedule. */
	p->duration_s = ix_rdma_phases_end_s(ph, p->qps);
	p->warmup_s = 0;
	/* Each phase ends when its writes have completed: few in flight, so
	 * that it ends soon after its time (4 of 64 KiB: 256 KiB per QP). */
	p->tx_depth = 4;
	p->cq_mod = 1;
	p->sport = (uint16_t)sport;
	if (p->duration_s > max)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: longer than this agent's limit of %.0f s",
			       max);
	return 0;
}

/* An RDMA bw or lat test towards one peer, reported like a socket one. */
static int run_rdma(const struct ix_runner_ctx *ctx, json_t *run, bool bw, const struct ix_host *t,
		    uint32_t n, int64_t start, json_t *rep, struct ix_err *terr, struct ix_err *err)
{
	struct ix_client c = job_client(ctx, run, t, start);
	struct ix_rdma_params p;
	struct ix_rdma_result r;
	struct ix_rdma_summary s;
	struct ix_rdma_dev dev;
	struct ix_rdma_phases ph;
	struct ix_rdma_phased *out = NULL;
	bool phased;
	int rc, gpu;

	if (rdma_params(ctx, run, bw, &p, err) < 0 || rdma_gpu(run, &gpu, err) < 0 ||
	    rdma_phases(ctx, run, &p, &ph, &phased, err) < 0)
		return REFUSED;
	if (phased && !(out = calloc(1, sizeof(*out))))
		return ix_fail(err, IX_EXIT_FAIL, "out of memory"), REFUSED;
	if (n != 1)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: an rdma job takes one target"), REFUSED;
	if (charge(ctx,
		   ix_rdma_buffer_bytes(&p) + ix_rdma_queue_bytes(&p) +
			   (bw ? 0
			       : ix_samples_bytes(
					 lat_samples(p.iterations, p.warmup_s + p.duration_s))),
		   err) < 0)
		return REFUSED;
	sleep_until(ctx, start);
	ix_rdma_result_init(&r, &p);
	rc = ix_client_connect(&c, terr);
	if (rc == 0 && (rc = ix_rdma_hw_dev_new(&dev, NULL, gpu, terr)) == 0) {
		ix_rdma_result_free(&r);
		rc = phased ? ix_rdma_client_run_phased(&c, &dev, ctx->rdma_dev, 0, &p, &ph, start,
							out, &r, terr)
			    : ix_rdma_client_run(&c, &dev, ctx->rdma_dev, 0, &p, &r, terr);
		ix_rdma_hw_dev_free(&dev);
	}
	if (out) {
		json_object_set_new(rep, "phased", ix_phasewire_phased(out));
		free(out);
	}
	ix_client_close(&c);
	if (bw) {
		ix_rdma_summarize(&r, &s);
		json_t *qb = json_array();

		/* Each QP's bytes: every completed message's (phased: in
		 * "phased" instead). */
		for (uint32_t q = 0; q < r.bw.nqps; q++)
			json_array_append_new(
				qb, json_integer((json_int_t)(r.bw.qp_messages[q] * p.msg_size)));
		json_object_set_new(rep, "bw",
				    json_pack("{s:f,s:I,s:f,s:o}", "bps", s.bits_per_second,
					      "bytes", (json_int_t)s.bytes, "seconds", s.seconds,
					      "qp_bytes", qb));
		/* The ports' ceilings, as each end found them. */
		json_object_set_new(rep, "link", report_links(&r.local.link, &r.remote.link));
	} else {
		struct ix_lat_result lr;

		memset(&lr, 0, sizeof(lr));
		lr.stats = r.lat.stats;
		json_object_set_new(rep, "lat", report_lat(&lr));
	}
	json_object_set_new(rep, "counters", report_counters(&r.ctr_local, &r.ctr_remote));
	/* Where each end's buffers were: host memory, or which GPU and why. */
	json_object_set_new(
		rep, "buffers",
		json_pack("{s:s,s:s}", "local", r.local.buffer, "remote", r.remote.buffer));
	ix_rdma_result_free(&r);
	return rc;
}

/* Synchronised reads from the senders. */
static int run_read(const struct ix_runner_ctx *ctx, json_t *run, const struct ix_host *t,
		    uint32_t n, int64_t start, json_t *rep, struct ix_err *terr, struct ix_err *err)
{
	struct ix_read_params rp;
	struct ix_read_figures f;
	int rc;

	if (ix_wire_parse_read(json_object_get(run, "block"), ctx->limits, &rp, err) < 0 ||
	    charge(ctx,
		   (uint64_t)n * IX_STREAM_BUF_MIN +
			   ix_samples_bytes((uint64_t)rp.rounds + rp.warmup_rounds),
		   err) < 0)
		return REFUSED;
	rp.deadline_ns = job_deadline(ctx, start);
	rp.stop = ctx->stop;
	sleep_until(ctx, start);
	rc = ix_read_run(&rp, t, n, ctx->token, &f, terr);
	json_object_set_new(rep, "read", ix_wire_read_figures(&f));
	if (ctx->links && n > 0) {
		struct ix_link_limit link, none = { .bps = 0 };

		/* What the senders' data arrives by: the receiver's ceiling. */
		ix_link_cache_toward(ctx->links, t[0].name, &link);
		json_object_set_new(rep, "link", report_links(&link, &none));
	}
	return rc;
}

/* A switch's counters on a schedule from the start. */
static int run_series(const struct ix_runner_ctx *ctx, json_t *run, int64_t start, json_t *rep,
		      struct ix_err *err)
{
	struct ix_series *s = calloc(1, sizeof(*s));
	double max = ctx->limits->max_duration_s > 0 ? ctx->limits->max_duration_s : 86400;

	if (!s)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory"), REFUSED;
	if (ix_phasewire_parse_series_request(json_object_get(run, "ifseries"), s, err) < 0 ||
	    (s->at_s[s->nreads - 1] > max &&
	     ix_fail(err, IX_EXIT_USAGE, "RUN: longer than this agent's limit of %.0f s", max))) {
		free(s);
		return REFUSED;
	}
	json_object_set_new(rep, "ifseries", ix_phasewire_series_run(s, start, ctx->stop));
	free(s);
	return 0;
}

json_t *ix_runner_run(const struct ix_runner_ctx *ctx, json_t *run, struct ix_err *err)
{
	const char *kind = json_string_value(json_object_get(run, "kind"));
	json_t *delay = json_object_get(run, "delay_us"), *rep;
	struct ix_err terr = { 0 };
	struct ix_host *tg;
	int64_t start;
	uint32_t n = 0;
	int rc;

	if (!kind || !json_is_integer(delay) || json_integer_value(delay) < 0 ||
	    json_integer_value(delay) > MAX_DELAY_US)
		return ix_fail(err, IX_EXIT_USAGE, "RUN: malformed request"), NULL;
	start = ix_now_ns() + json_integer_value(delay) * 1000LL;
	tg = calloc(IX_MAX_FANIN, sizeof(*tg));
	if (!tg)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory"), NULL;
	rep = json_object();
	if (strcmp(kind, "ifseries") == 0) /* a switch's own counters: no peer */
		rc = run_series(ctx, run, start, rep, err);
	else if (parse_targets(json_object_get(run, "targets"), tg, IX_MAX_FANIN, &n, err) < 0 ||
		 check_source(run, err) < 0)
		rc = REFUSED;
	else if ((strcmp(kind, "bw") == 0 || strcmp(kind, "lat") == 0) &&
		 json_object_get(run, "rdma"))
		rc = run_rdma(ctx, run, kind[0] == 'b', tg, n, start, rep, &terr, err);
	else if (strcmp(kind, "bw") == 0 || strcmp(kind, "lat") == 0)
		rc = run_pair(ctx, run, kind[0] == 'b', tg, n, start, rep, &terr, err);
	else if (strcmp(kind, "read") == 0)
		rc = run_read(ctx, run, tg, n, start, rep, &terr, err);
	else {
		ix_fail(err, IX_EXIT_USAGE, "RUN: unknown kind");
		rc = REFUSED;
	}
	free(tg);
	if (rc == REFUSED) {
		json_decref(rep);
		return NULL;
	}
	json_object_set_new(rep, "ok", json_boolean(rc == 0));
	json_object_set_new(rep, "error", rc == 0 ? json_null() : json_string(terr.msg));
	return rep;
}

static double num(json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

static uint64_t unum(json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));
	return v > 0 ? (uint64_t)v : 0;
}

int ix_runner_parse_counters(json_t *rep, struct ix_ctr_set *local, struct ix_ctr_set *remote,
			     struct ix_err *err)
{
	json_t *c = json_object_get(rep, "counters");

	ix_ctr_set_init(local);
	ix_ctr_set_init(remote);
	if (!c || json_is_null(c))
		return 0;
	if (!json_is_object(c))
		return ix_fail(err, IX_EXIT_FAIL, "REPORT: 'counters' is not an object");
	if (ix_ctr_parse(json_object_get(c, "local"), local, err) < 0 ||
	    ix_ctr_parse(json_object_get(c, "remote"), remote, err) < 0) {
		ix_ctr_set_free(local);
		return -1;
	}
	return 0;
}

int ix_runner_parse_links(json_t *rep, struct ix_link_limit *local, struct ix_link_limit *remote,
			  struct ix_err *err)
{
	json_t *c = json_object_get(rep, "link");

	memset(local, 0, sizeof(*local));
	memset(remote, 0, sizeof(*remote));
	if (!c || json_is_null(c))
		return 0;
	if (!json_is_object(c))
		return ix_fail(err, IX_EXIT_FAIL, "REPORT: 'link' is not an object");
	if (ix_link_parse(json_object_get(c, "local"), local, err) < 0 ||
	    ix_link_parse(json_object_get(c, "remote"), remote, err) < 0) {
		memset(local, 0, sizeof(*local));
		return ix_fail_prefix(err, "REPORT");
	}
	return 0;
}

int ix_runner_parse_report(json_t *rep, struct ix_run_figures *f)
{
	json_t *bw = json_object_get(rep, "bw"), *lat = json_object_get(rep, "lat");
	json_t *read = json_object_get(rep, "read"), *x;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(rep) || !json_is_boolean(json_object_get(rep, "ok")))
		return -1;
	f->ok = json_is_true(json_object_get(rep, "ok"));
	snprintf(f->error, sizeof(f->error), "%s",
		 json_string_value(json_object_get(rep, "error")) ?: "");
	if (json_is_object(bw)) {
		f->bw_bps = num(bw, "bps");
		f->bytes = unum(bw, "bytes");
		if (json_is_integer(x = json_object_get(bw, "retransmits")))
			f->retransmits = ix_u64(unum(bw, "retransmits"));
		if (json_is_number(x = json_object_get(bw, "loss_percent")))
			f->loss_percent = ix_f64(json_number_value(x));
	}
	if (json_is_object(lat) && unum(lat, "samples") > 0) {
		f->lat.valid = true;
		f->lat.count = unum(lat, "samples");
		f->lat.min = unum(lat, "min");
		f->lat.p50 = unum(lat, "p50");
		f->lat.p99 = unum(lat, "p99");
		f->lat.max = unum(lat, "max");
		f->lat.mean = num(lat, "mean");
	}
	if (json_is_object(read) && ix_wire_parse_read_figures(read, &f->read) < 0)
		return -1;
	return 0;
}

void ix_runner_parse_buffers(json_t *report, char *local, char *remote, size_t len)
{
	json_t *b = json_object_get(report, "buffers");
	const char *l = json_string_value(json_object_get(b, "local"));
	const char *r = json_string_value(json_object_get(b, "remote"));

	snprintf(local, len, "%s", l ? l : "");
	snprintf(remote, len, "%s", r ? r : "");
}

int ix_runner_parse_streams(json_t *report, struct ix_run_stream *out, uint32_t cap, uint32_t *n,
			    struct ix_err *err)
{
	json_t *arr = json_object_get(json_object_get(report, "bw"), "streams"), *o;
	size_t i;

	*n = 0;
	if (!arr)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > cap)
		return ix_fail(err, IX_EXIT_FAIL,
			       "REPORT: 'bw.streams' is not a list of %u at most", cap);
	json_array_foreach(arr, i, o)
	{
		json_t *sp = json_object_get(o, "sport"), *dp = json_object_get(o, "dport");
		json_t *b = json_object_get(o, "bytes"), *s = json_object_get(o, "seconds");

		if (!json_is_integer(sp) || !json_is_integer(dp) || !json_is_integer(b) ||
		    !json_is_number(s) || json_integer_value(sp) < 0 ||
		    json_integer_value(sp) > 65535 || json_integer_value(dp) < 0 ||
		    json_integer_value(dp) > 65535 || json_integer_value(b) < 0 ||
		    !(json_number_value(s) >= 0 && json_number_value(s) < 1e7))
			return ix_fail(err, IX_EXIT_FAIL, "REPORT: stream %zu is malformed", i);
		out[i] = (struct ix_run_stream){ (uint16_t)json_integer_value(sp),
						 (uint16_t)json_integer_value(dp),
						 (uint64_t)json_integer_value(b),
						 json_number_value(s) };
	}
	*n = (uint32_t)json_array_size(arr);
	return 0;
}
