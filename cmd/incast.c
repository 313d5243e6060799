/* ixperf incast HOSTS: many senders into one receiver, swept over fan-in. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/incast.h"
#include "probes/ctl/auth.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define MAX_SWEEP 64

struct incast_opts {
	struct ix_coord_opts k;
	const char *mode;
	const char *sweep;
	const char *path;
	double time_s;
	double warmup_s;
	uint64_t size;
	uint64_t rate;
	uint64_t sru;
	uint64_t rounds;
	uint64_t warmup_rounds;
	double round_timeout_s;
	struct ix_coord_capture cap;
	const char *op;
	uint64_t qps;
	uint64_t min_goodput;
	double min_jain;
	uint64_t max_stalled;
};

static const struct ix_option incast_options[] = {
	IX_COORD_OPTION_ROWS(struct incast_opts),
	{ 0, "mode", IX_OPT_STRING, offsetof(struct incast_opts, mode), "MODE",
	  "stream (all senders stream at once; default) or read (synchronised reads)", 0, 0 },
	{ 0, "sweep", IX_OPT_STRING, offsetof(struct incast_opts, sweep), "LIST",
	  "sender counts, e.g. 1,2,4,8 (default: every sender at once)", 0, 0 },
	{ 0, "path", IX_OPT_STRING, offsetof(struct incast_opts, path), "PATH",
	  "stream mode: tcp (default), udp or rdma (on the agents' RDMA devices)", 0, 0 },
	{ 0, "op", IX_OPT_STRING, offsetof(struct incast_opts, op), "OP",
	  "rdma: write (default), read, send or write_imm", 0, 0 },
	{ 0, "qps", IX_OPT_UINT, offsetof(struct incast_opts, qps), "N",
	  "rdma: queue pairs per sender (default 1)", 1, 256 },
	{ 't', "time", IX_OPT_SECONDS, offsetof(struct incast_opts, time_s), "SECONDS",
	  "stream mode: measured time per step (default 5)", 0.01, 3600 },
	{ 'w', "warmup", IX_OPT_SECONDS, offsetof(struct incast_opts, warmup_s), "SECONDS",
	  "stream mode: warm-up per step, excluded (default 1)", 0, 600 },
	{ 's', "size", IX_OPT_SIZE, offsetof(struct incast_opts, size), "BYTES",
	  "stream mode: message size (default 128Ki for TCP, 1472 for UDP)", 1, 0 },
	{ 'b', "rate", IX_OPT_RATE, offsetof(struct incast_opts, rate), "RATE",
	  "stream mode: rate per sender in bit/s (UDP default 1G)", 1, 0 },
	{ 0, "sru", IX_OPT_SIZE, offsetof(struct incast_opts, sru), "BYTES",
	  "read mode: bytes each sender returns per round (default 256Ki)", 1, 1u << 30 },
	{ 'r', "rounds", IX_OPT_UINT, offsetof(struct incast_opts, rounds), "N",
	  "read mode: measured rounds per step (default 200)", 1, 10000000 },
	{ 0, "warmup-rounds", IX_OPT_UINT, offsetof(struct incast_opts, warmup_rounds), "N",
	  "read mode: rounds before them, not measured (default 5)", 0, 1000000 },
	{ 0, "round-timeout", IX_OPT_SECONDS, offsetof(struct incast_opts, round_timeout_s),
	  "SECONDS", "read mode: a round slower than this fails the step (default 5)", 0.01, 600 },
	{ 0, "min-goodput", IX_OPT_RATE, offsetof(struct incast_opts, min_goodput), "RATE",
	  "threshold: every step's goodput into the receiver at least RATE", 1, 0 },
	{ 0, "min-jain", IX_OPT_NUMBER, offsetof(struct incast_opts, min_jain), "F",
	  "threshold, stream mode: every step's Jain fairness at least F", 0.01, 1 },
	{ 0, "max-stalled", IX_OPT_UINT, offsetof(struct incast_opts, max_stalled), "N",
	  "threshold, read mode: at most N stalled rounds in every step", 0, 1e12 },
	IX_COORD_CAPTURE_ROWS(struct incast_opts, cap, "during the sweep"),
};

const struct ix_cmd_spec ix_incast_spec = {
	.name = "incast",
	.usage = "[OPTIONS] RECEIVER,SENDER[,SENDER...]",
	.summary = "Many senders into one receiver: goodput, fairness, stalls vs fan-in",
	.opts = incast_options,
	.nopts = IX_OPTS_END(incast_options),
	.epilog = "The first host receives; the others send, the first N of them in a step of N.\n"
		  "Every host runs 'ixperf server'. Hosts: comma list, Slurm ranges, @FILE,\n"
		  "host:port; default $SLURM_JOB_NODELIST.\n"
		  "Exit status: 0 every step measured (and every threshold held), 1 a step\n"
		  "failed, 4 a threshold (--min-goodput, --min-jain, --max-stalled) was missed;\n"
		  "a failed step wins over a missed threshold.\n"
		  "Examples:\n"
		  "  ixperf incast --sweep 1,2,4,8 'node[01-09]'\n"
		  "  ixperf incast --mode read --sru 16Ki --rounds 500 --sweep 1,8 @hosts.txt\n"
		  "  ixperf incast --capture eth0 --sweep 8 node01,node[02-09]   (on node01)\n",
};

/* "1,2,4,8": strictly parsed, each within [1, max]. */
static int parse_sweep(const char *s, uint32_t max, uint32_t *out, uint32_t *n, struct ix_err *err)
{
	char buf[512];
	char *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for --sweep: too long");
	memcpy(buf, s, strlen(s) + 1);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (*n >= MAX_SWEEP)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --sweep: over %d steps", MAX_SWEEP);
		if (ix_parse_uint(tok, 1, max, &v, err) < 0)
			return ix_fail_prefix(err, "invalid value for --sweep (%u senders given)",
					      max);
		out[(*n)++] = (uint32_t)v;
	}
	if (*n == 0)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for --sweep: empty");
	return 0;
}

static int build(const struct incast_opts *o, uint32_t nsenders, struct ix_incast_params *p,
		 uint32_t *sweep, struct ix_err *err)
{
	const struct ix_transport *tp;
	bool read = o->mode && strcmp(o->mode, "read") == 0;

	memset(p, 0, sizeof(*p));
	if (o->mode && !read && strcmp(o->mode, "stream") != 0)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for --mode: '%s' (stream, read)",
			       o->mode);
	if (ix_path_lookup(o->path, &tp, err) < 0 ||
	    ix_rdma_opts_fill(tp, o->op, o->qps, 0, IX_RDMA_INCAST, &p->rdma, err) < 0)
		return -1;
	if ((tp->caps & IX_CAP_RDMA) && o->rate)
		return ix_fail(err, IX_EXIT_USAGE, "-b/--rate does not apply to --path rdma");
	if (read && !(tp->caps & IX_CAP_BLOCKS))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--mode read needs a reliable path (tcp), not '%s'", tp->name);
	if (o->size && (o->size < tp->min_msg_size || o->size > tp->max_msg_size))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for -s/--size: %llu is outside [%llu, %llu] for %s",
			       (unsigned long long)o->size, (unsigned long long)tp->min_msg_size,
			       (unsigned long long)tp->max_msg_size, tp->name);
	if (o->sweep) {
		if (parse_sweep(o->sweep, nsenders, sweep, &p->nsweep, err) < 0)
			return -1;
	} else {
		sweep[0] = nsenders;
		p->nsweep = 1;
	}
	p->sweep = sweep;
	p->mode = read ? IX_INCAST_READ : IX_INCAST_STREAM;
	p->receiver = 0;
	p->bw.path = tp->name;
	p->bw.streams = 1;
	p->bw.msg_size = o->size ? o->size : tp->default_msg_size;
	p->bw.duration_s = o->time_s > 0 ? o->time_s : 5;
	p->bw.warmup_s = o->warmup_s >= 0 ? o->warmup_s : 1;
	p->bw.rate_bps = o->rate ? o->rate : (tp->caps & IX_CAP_NEEDS_RATE) ? 1000000000ull : 0;
	p->read.path = tp->name;
	p->read.sru = o->sru ? o->sru : 256 * 1024;
	p->read.rounds = o->rounds ? (uint32_t)o->rounds : 200;
	p->read.warmup_rounds = o->warmup_rounds == UINT64_MAX ? 5 : (uint32_t)o->warmup_rounds;
	p->read.timeout_s = o->round_timeout_s > 0 ? o->round_timeout_s : 5;
	if (o->min_jain > 0 && read)
		return ix_fail(err, IX_EXIT_USAGE, "--min-jain applies to stream mode only");
	if (o->max_stalled != UINT64_MAX && !read)
		return ix_fail(err, IX_EXIT_USAGE, "--max-stalled applies to read mode only");
	p->limits.min_goodput_bps = (double)o->min_goodput;
	p->limits.min_jain = o->min_jain;
	p->limits.have_max_stalled = o->max_stalled != UINT64_MAX;
	p->limits.max_stalled = o->max_stalled;
	return ix_coord_capture_check(&o->cap, err);
}

int cmd_incast(int argc, char **argv, const struct ix_env *env)
{
	struct incast_opts o = { .warmup_s = -1,
				 .warmup_rounds = UINT64_MAX,
				 .max_stalled = UINT64_MAX };
	struct ix_coord_cmd c;
	struct ix_incast_params p;
	struct ix_incast_result r;
	struct ix_fleet_result fleet;
	uint32_t sweep[MAX_SWEEP];
	struct ix_err err = { 0 }, cerr = { 0 }, ferr = { 0 };
	struct ix_capture *cap = NULL;
	const char *problem;
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_incast_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("incast", &err);
	if (help) {
		ix_opts_help(&ix_incast_spec, stdout);
		return IX_EXIT_OK;
	}
	memset(&c, 0, sizeof(c));
	if (pos + 1 < argc)
		ix_fail(&err, IX_EXIT_USAGE, "one HOSTS argument (a comma list); unexpected '%s'",
			argv[pos + 1]);
	if (err.code || (rc = ix_coord_cmd_prepare(&c, "incast", &o.k,
						   pos < argc ? argv[pos] : NULL, &err)) < 0)
		goto fail;
	if (rc > 0) /* one task of a launch, done serving */
		return c.spmd_exit;
	if (c.hosts.n < 2 || c.hosts.n - 1 > IX_MAX_FANIN) {
		ix_fail(&err, IX_EXIT_USAGE,
			"incast needs a receiver and 1 to %d senders; %zu hosts given",
			IX_MAX_FANIN, c.hosts.n);
		goto fail;
	}
	if (build(&o, (uint32_t)c.hosts.n - 1, &p, sweep, &err) < 0 ||
	    ix_coord_capture_begin(&o.cap, &c.hosts, &cap, &err) < 0 ||
	    ix_coord_cmd_connect(&c, &o.k, &err) < 0 ||
	    ix_incast_run(&c.co, &p, &c.hosts, &r, &err) < 0)
		goto fail;
	if (cap && ix_capture_stop(cap, &r.wire, &cerr) < 0)
		ix_report_error("incast", &cerr);
	problem = !r.complete ? "a step failed" : cerr.code ? cerr.msg : NULL;
	/* Every agent's inventory, after the sweep (see cmd/mesh.c). */
	ix_fleet_gather(&c.co, &c.hosts, IX_FLEET_TIMEOUT_S, &fleet, &ferr);
	if (o.k.json) {
		json_t *res = ix_json_incast(&r);

		json_object_set_new(res, "fleet", ix_json_fleet(&fleet));
		rc = ix_coord_cmd_json(&c, env, res, problem, &err);
	} else {
		ix_text_incast(c.sink.f, &r, &c.units);
		ix_text_fleet(c.sink.f, &fleet);
		rc = ix_coord_cmd_commit(&c, &err);
	}
	rc = rc < 0      ? ix_report_error("incast", &err)
	     : problem   ? IX_EXIT_FAIL
	     : r.nfailed ? IX_EXIT_THRESHOLD
			 : IX_EXIT_OK;
	ix_incast_result_free(&r);
	ix_fleet_free(&fleet);
	ix_coord_cmd_free(&c);
	return rc;
fail:
	ix_capture_stop(cap, NULL, NULL);
	ix_coord_cmd_free(&c);
	return ix_report_error_json("incast", o.k.json, o.k.output, env, &err);
}
