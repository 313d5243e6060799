/* ixperf ecmp A B --switch LEAF: how an ECMP hash spreads one pair's flows
 * over a leaf's uplinks. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/cluster/coord.h"
#include "probes/cluster/ecmp.h"
#include "probes/net/transport.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define DEFAULT_FLOWS 8
#define DEFAULT_SPORT 30000 /* below Linux's ephemeral range (32768-60999) */
/* RoCE v2 source ports come from the flow label as 0xc000 | label
 * (rdma_flow_label_to_udp_sport), above 49152 for a nonzero label. */
#define DEFAULT_RDMA_SPORT 50000
#define MIN_RDMA_SPORT     49153

struct ecmp_opts {
	struct ix_coord_opts k;
	uint64_t flows;
	uint64_t sport;
	bool udp;
	const char *path;
	double lead_s, gap_s;
	const char *sw; /* the last --switch; every one is collected from argv */
	const char *uplinks;
	double time_s;
	double warmup_s;
	double alone_s;
	uint64_t size;
	uint64_t rate;
};

static const struct ix_option ecmp_options[] = {
	IX_COORD_OPTION_ROWS(struct ecmp_opts),
	{ 'P', "flows", IX_OPT_UINT, offsetof(struct ecmp_opts, flows), "K",
	  "flows from A to B, each from its own source port (default 8)", IX_ECMP_MIN_FLOWS,
	  IX_ECMP_MAX_FLOWS },
	{ 0, "sport", IX_OPT_UINT, offsetof(struct ecmp_opts, sport), "PORT",
	  "source port of the first flow; flow i sends from PORT+i (default 30000)", 1024, 65535 },
	{ 'u', "udp", IX_OPT_FLAG, offsetof(struct ecmp_opts, udp), NULL,
	  "UDP flows (the agent at B binds PORT+i too) instead of TCP", 0, 0 },
	{ 0, "path", IX_OPT_STRING, offsetof(struct ecmp_opts, path), "PATH",
	  "tcp (default), udp (as --udp) or rdma: K QPs of one RDMA write connection, each "
	  "with a flow label for source port PORT+i (default PORT 50000)",
	  0, 0 },
	{ 0, "lead", IX_OPT_SECONDS, offsetof(struct ecmp_opts, lead_s), "SECONDS",
	  "rdma: from the start to the first QP alone, for the QPs' setup (default 3)", 0.1, 600 },
	{ 0, "gap", IX_OPT_SECONDS, offsetof(struct ecmp_opts, gap_s), "SECONDS",
	  "rdma: between two phases, the switches read in its middle (default 1)", 0.01, 600 },
	{ 0, "switch", IX_OPT_STRING, offsetof(struct ecmp_opts, sw), "HOST",
	  "agent on a leaf switch whose interface counters map flows to uplinks (repeatable, "
	  "up to 4)",
	  0, 0 },
	{ 0, "uplinks", IX_OPT_STRING, offsetof(struct ecmp_opts, uplinks), "IF,IF",
	  "the switches' uplinks (default: every interface up but the pair's port and the "
	  "agent's own)",
	  0, 0 },
	{ 't', "time", IX_OPT_SECONDS, offsetof(struct ecmp_opts, time_s), "SECONDS",
	  "measured time of the flows at once (default 5)", 0.1, 3600 },
	{ 'w', "warmup", IX_OPT_SECONDS, offsetof(struct ecmp_opts, warmup_s), "SECONDS",
	  "warm-up of the flows at once, excluded (default 1)", 0, 600 },
	{ 0, "alone-time", IX_OPT_SECONDS, offsetof(struct ecmp_opts, alone_s), "SECONDS",
	  "each flow alone while the switches' counters are read (default 2)", 0.1, 600 },
	{ 's', "size", IX_OPT_SIZE, offsetof(struct ecmp_opts, size), "BYTES",
	  "message size (default 128Ki for TCP, 1472 for UDP)", 1, 0 },
	{ 'b', "rate", IX_OPT_RATE, offsetof(struct ecmp_opts, rate), "RATE",
	  "rate per flow in bit/s (UDP default 1G; TCP: a cap, default none)", 1, 0 },
};

const struct ix_cmd_spec ix_ecmp_spec = {
	.name = "ecmp",
	.usage = "[OPTIONS] A B [--switch LEAF]...",
	.summary = "ECMP polarisation: one pair's flows over a leaf's uplinks, and which is slow",
	.opts = ecmp_options,
	.nopts = IX_OPTS_END(ecmp_options),
	.epilog = "K flows from A to B differ only in their source port. With --switch, each runs\n"
		  "alone while the switch agent's interface counters are read: the uplink whose\n"
		  "sent bytes rose by most of the flow's bytes carries it. Then all run at once.\n"
		  "With --path rdma the flows are the QPs of one RDMA write connection, run\n"
		  "alone and at once in one test on a schedule the switches read on.\n"
		  "A, B and every switch run 'ixperf server' (A's with --allow-run or a token).\n"
		  "Hosts as ixperf mesh takes them: host or host:port, A and B or A,B.\n"
		  "Exit status: 0 the flows spread (or no switch to tell), 1 a test failed\n"
		  "(it wins), 4 the hash is polarised or one uplink's flows are slow.\n"
		  "Examples:\n"
		  "  ixperf ecmp node01 node17 --switch leaf01\n"
		  "  ixperf ecmp --flows 16 --uplinks swp51,swp52 --switch leaf01 node01 node17\n",
};

/* Every --switch of argv (the option table keeps the last only). */
static int collect_switches(int argc, char **argv, const char **sw, uint32_t *n, struct ix_err *err)
{
	*n = 0;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--switch") == 0 && i + 1 < argc)
			v = argv[++i];
		else if (strncmp(argv[i], "--switch=", 9) == 0)
			v = argv[i] + 9;
		if (!v)
			continue;
		if (*n == IX_ECMP_MAX_SWITCHES)
			return ix_fail(err, IX_EXIT_USAGE, "at most %d --switch",
				       IX_ECMP_MAX_SWITCHES);
		if (!*v || strchr(v, ','))
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --switch: '%s' (one host each)", v);
		sw[(*n)++] = v;
	}
	return 0;
}

/* "swp51,swp52": interface names, each once. */
static int parse_uplinks(const char *s, struct ix_ecmp_params *p, struct ix_err *err)
{
	const char *at = s;

	p->nuplinks = 0;
	for (;;) {
		size_t len = strcspn(at, ",");

		if (len == 0 || len >= IX_IFNAME_SIZE)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --uplinks: '%s' (interface names of 1 to "
				       "%d characters, comma separated)",
				       s, IX_IFNAME_SIZE - 1);
		if (p->nuplinks == IX_ECMP_MAX_UPLINKS)
			return ix_fail(err, IX_EXIT_USAGE, "invalid value for --uplinks: over %d",
				       IX_ECMP_MAX_UPLINKS);
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)at[i] <= ' ' || (unsigned char)at[i] >= 0x7f ||
			    at[i] == '/')
				return ix_fail(err, IX_EXIT_USAGE,
					       "invalid value for --uplinks: '%.*s' is not an "
					       "interface name",
					       (int)len, at);
		memcpy(p->uplinks[p->nuplinks], at, len);
		p->uplinks[p->nuplinks][len] = 0;
		for (uint32_t k = 0; k < p->nuplinks; k++)
			if (strcmp(p->uplinks[k], p->uplinks[p->nuplinks]) == 0)
				return ix_fail(err, IX_EXIT_USAGE,
					       "invalid value for --uplinks: '%s' given twice",
					       p->uplinks[k]);
		p->nuplinks++;
		if (!at[len])
			break;
		at += len + 1;
	}
	if (p->nuplinks < 2)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --uplinks: '%s' (two uplinks at least)", s);
	return 0;
}

static int build(const struct ecmp_opts *o, uint32_t nswitches, struct ix_ecmp_params *p,
		 struct ix_err *err)
{
	const struct ix_transport *tp;

	memset(p, 0, sizeof(*p));
	if (o->udp && o->path && strcmp(o->path, "udp") != 0)
		return ix_fail(err, IX_EXIT_USAGE, "--udp and --path %s: choose one", o->path);
	if (ix_path_lookup(o->path ? o->path : o->udp ? "udp" : "tcp", &tp, err) < 0)
		return -1;
	p->rdma = (tp->caps & IX_CAP_RDMA) != 0;
	if (!p->rdma && (o->lead_s > 0 || o->gap_s > 0))
		return ix_fail(err, IX_EXIT_USAGE, "--lead and --gap are for --path rdma");
	if (p->rdma && o->rate)
		return ix_fail(err, IX_EXIT_USAGE,
			       "-b/--rate is for tcp and udp: an RDMA write runs at what the "
			       "path gives");
	p->lead_s = o->lead_s > 0 ? o->lead_s : 3;
	p->gap_s = o->gap_s > 0 ? o->gap_s : 1;
	p->bw.path = tp->name;
	p->bw.streams = o->flows ? (uint32_t)o->flows : DEFAULT_FLOWS;
	p->bw.src_port = (uint16_t)(o->sport  ? o->sport
				    : p->rdma ? DEFAULT_RDMA_SPORT
					      : DEFAULT_SPORT);
	if (p->rdma && p->bw.src_port < MIN_RDMA_SPORT)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --sport: %u; RoCE v2 source ports from a flow "
			       "label are %d to 65535",
			       p->bw.src_port, MIN_RDMA_SPORT);
	if ((uint64_t)p->bw.src_port + p->bw.streams - 1 > 65535)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --sport: %u + %u flows goes past port 65535",
			       p->bw.src_port, p->bw.streams);
	if (o->size && (o->size < tp->min_msg_size || o->size > tp->max_msg_size))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for -s/--size: %llu is outside [%llu, %llu] for %s",
			       (unsigned long long)o->size, (unsigned long long)tp->min_msg_size,
			       (unsigned long long)tp->max_msg_size, tp->name);
	p->bw.msg_size = o->size ? o->size : tp->default_msg_size;
	p->bw.mode = IX_MODE_FORWARD;
	p->bw.duration_s = o->time_s > 0 ? o->time_s : 5;
	p->bw.warmup_s = o->warmup_s >= 0 ? o->warmup_s : 1;
	p->bw.rate_bps = o->rate ? o->rate : (tp->caps & IX_CAP_NEEDS_RATE) ? 1000000000ull : 0;
	p->alone_s = o->alone_s > 0 ? o->alone_s : 2;
	if (o->uplinks && nswitches == 0)
		return ix_fail(err, IX_EXIT_USAGE, "--uplinks needs a --switch to read them at");
	return o->uplinks ? parse_uplinks(o->uplinks, p, err) : 0;
}

/* "A,B,SW1,...": the pair from the arguments, then the switches. */
static int host_spec(int argc, char **argv, int pos, const char **sw, uint32_t nsw, char *buf,
		     size_t len, struct ix_err *err)
{
	size_t o = 0;

	if (pos >= argc)
		return ix_fail(err, IX_EXIT_USAGE, "missing the pair: ixperf ecmp A B");
	for (int i = pos; i < argc; i++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s", o ? "," : "",
				      argv[i]);
	for (uint32_t i = 0; i < nsw; i++)
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ",%s", sw[i]);
	if (o >= len)
		return ix_fail(err, IX_EXIT_USAGE, "the hosts are too long");
	return 0;
}

int cmd_ecmp(int argc, char **argv, const struct ix_env *env)
{
	struct ecmp_opts o = { .warmup_s = -1 };
	struct ix_coord_cmd c;
	struct ix_ecmp_params p;
	struct ix_ecmp_result *r = NULL;
	struct ix_err err = { 0 };
	const char *sw[IX_ECMP_MAX_SWITCHES];
	uint32_t nsw = 0;
	char spec[4096];
	bool help;
	int pos, rc;

	memset(&c, 0, sizeof(c));
	if (ix_opts_parse(&ix_ecmp_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("ecmp", &err);
	if (help) {
		ix_opts_help(&ix_ecmp_spec, stdout);
		return IX_EXIT_OK;
	}
	if (collect_switches(argc, argv, sw, &nsw, &err) < 0 ||
	    host_spec(argc, argv, pos, sw, nsw, spec, sizeof(spec), &err) < 0 ||
	    build(&o, nsw, &p, &err) < 0 || ix_coord_cmd_prepare(&c, "ecmp", &o.k, spec, &err) < 0)
		goto fail;
	if (c.hosts.n != 2 + nsw) {
		ix_fail(&err, IX_EXIT_USAGE, "ixperf ecmp takes a pair A B; %zu hosts given",
			c.hosts.n - nsw);
		goto fail;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		ix_fail(&err, IX_EXIT_FAIL, "out of memory");
		goto fail;
	}
	if (ix_coord_cmd_connect(&c, &o.k, &err) < 0 ||
	    ix_ecmp_run(&c.co, &p, &c.hosts, r, &err) < 0)
		goto fail;
	if (o.k.json)
		rc = ix_coord_cmd_json(&c, env, ix_json_ecmp(r), r->complete ? NULL : r->error,
				       &err);
	else {
		ix_text_ecmp(c.sink.f, r, &c.units);
		rc = ix_coord_cmd_commit(&c, &err);
	}
	/* A failure wins over a finding: a run that could not measure
	 * everything does not stand as a verdict alone. */
	rc = rc < 0         ? ix_report_error("ecmp", &err)
	     : !r->complete ? IX_EXIT_FAIL
	     : r->state == IX_ECMP_POLARISED || r->state == IX_ECMP_SLOW ? IX_EXIT_THRESHOLD
									 : IX_EXIT_OK;
	free(r);
	ix_coord_cmd_free(&c);
	return rc;
fail:
	free(r);
	ix_coord_cmd_free(&c);
	return ix_report_error_json("ecmp", o.k.json, o.k.output, env, &err);
}
