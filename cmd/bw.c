/* ixperf bw HOST: bandwidth over TCP or UDP. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/client.h"
#include "probes/host/inventory.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "probes/rdma/setup.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define DEFAULT_UDP_RATE 1000000000ull /* 1 Gbit/s per stream */
#define SWEEP_MAX_TCP    (4ull * 1024 * 1024)
#define SWEEP_MAX_UDP    32768ull

struct bw_opts {
	struct ix_client_opts c;
	uint64_t bytes;
	uint64_t parallel;
	bool reverse;
	bool bidir;
	double interval_s;
	const char *congestion;
	uint64_t rate;
	uint64_t window;
	bool no_offload;
	bool zerocopy;
	const char *units;
	struct ix_rdma_cli r;
	uint64_t iters;
};

static const struct ix_option bw_options[] = {
	IX_CLIENT_OPTION_ROWS(
		struct bw_opts,
		"transport: tcp (default), udp, rdma, or pcie (host <-> GPU copies over "
		"each GPU's PCIe link, as ixperf gpu)"),
	{ 'n', "bytes", IX_OPT_SIZE, offsetof(struct bw_opts, bytes), "BYTES",
	  "send this many bytes per direction (split over the streams) instead of --time", 1, 0 },
	{ 'P', "parallel", IX_OPT_UINT, offsetof(struct bw_opts, parallel), "N",
	  "parallel streams per direction (default 1)", 1, IX_MAX_STREAMS },
	{ 'R', "reverse", IX_OPT_FLAG, offsetof(struct bw_opts, reverse), NULL,
	  "the server sends, the client receives", 0, 0 },
	{ 0, "bidir", IX_OPT_FLAG, offsetof(struct bw_opts, bidir), NULL, "both directions at once",
	  0, 0 },
	{ 'i', "interval", IX_OPT_SECONDS, offsetof(struct bw_opts, interval_s), "SECONDS",
	  "report every SECONDS (0 = only the summary; default 1)", 0, 3600 },
	{ 'C', "congestion", IX_OPT_STRING, offsetof(struct bw_opts, congestion), "ALGO",
	  "TCP congestion control on both ends (e.g. cubic, bbr)", 0, 0 },
	{ 'b', "rate", IX_OPT_RATE, offsetof(struct bw_opts, rate), "RATE",
	  "target rate per stream in bit/s (UDP default 1G; TCP default unlimited)", 1, 0 },
	{ 0, "units", IX_OPT_STRING, offsetof(struct bw_opts, units), "UNIT",
	  "bits (default), bytes, or bit Kbit Mbit Gbit Tbit B KB MB GB TB KiB MiB GiB TiB", 0, 0 },
	{ 0, "window", IX_OPT_SIZE, offsetof(struct bw_opts, window), "BYTES", "socket buffer size",
	  1024, 1u << 30 },
	{ 0, "no-offload", IX_OPT_FLAG, offsetof(struct bw_opts, no_offload), NULL,
	  "udp: no GSO on send nor GRO on receive (datagrams still go many a call)", 0, 0 },
	{ 'Z', "zerocopy", IX_OPT_FLAG, offsetof(struct bw_opts, zerocopy), NULL,
	  "tcp: senders (both ends) send with MSG_ZEROCOPY; the result says what the kernel "
	  "copied anyway",
	  0, 0 },
	{ 0, "iters", IX_OPT_UINT, offsetof(struct bw_opts, iters), "N",
	  "rdma: N messages per QP instead of --time (as perftest -n)", 1, 1e12 },
	IX_RDMA_OPTION_ROWS(struct bw_opts, r),
};

const struct ix_cmd_spec ix_bw_spec = {
	.name = "bw",
	.usage = "[OPTIONS] HOST",
	.summary = "Measure bandwidth to an ixperf server over TCP, UDP or RDMA",
	.opts = bw_options,
	.nopts = IX_OPTS_END(bw_options),
	.epilog =
		"Goodput is what the receiver got, payload only, in the measured window.\n"
		"Defaults: --time 10, --warmup 1, --interval 1, --size 128Ki (TCP) or 1472 (UDP).\n"
		"Examples:\n"
		"  ixperf bw -P 4 -t 30 node07\n"
		"  ixperf bw --path udp -b 2G -s 8972 node07\n"
		"  ixperf bw -a -t 1 --json -o sweep.json node07\n"
		"  ixperf bw --capture eth0 --pcap bw.pcap -t 5 node07\n"
		"  ixperf bw --path rdma --op send --qps 4 -s 64Ki node07\n",
};

struct live {
	FILE *f;
	const struct ix_unit_choice *u;
};

static void on_interval(void *arg, const struct ix_bw_result *r, size_t k)
{
	struct live *l = arg;
	ix_text_bw_interval(l->f, r, k, l->u);
}

/* --path rdma: the options of the socket paths that mean nothing there. */
static int check_rdma(const struct bw_opts *o, int argc, int pos, struct ix_err *err)
{
	if (pos >= argc)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing HOST (the machine running 'ixperf server')");
	if (pos + 1 < argc)
		return ix_fail(err, IX_EXIT_USAGE, "one HOST only");
	if (o->parallel)
		return ix_fail(err, IX_EXIT_USAGE,
			       "-P/--parallel does not apply to --path rdma "
			       "(use --qps)");
	if (o->reverse)
		return ix_fail(err, IX_EXIT_USAGE,
			       "-R/--reverse does not apply to --path rdma "
			       "(use --op read to move data toward this end)");
	if (o->bytes || o->congestion || o->rate || o->window || o->zerocopy || o->no_offload)
		return ix_fail(
			err, IX_EXIT_USAGE,
			"--bytes, --congestion, --rate, --window, --zerocopy and --no-offload "
			"do not apply to --path rdma");
	if (o->interval_s >= 0 || o->units)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--interval and --units do not apply to --path rdma (perftest's "
			       "Gbit/s and Mpps)");
	if (o->iters && o->c.time_s > 0)
		return ix_fail(err, IX_EXIT_USAGE, "--iters and --time exclude each other");
	return 0;
}

static int check(const struct bw_opts *o, int argc, char **argv, int pos,
		 const struct ix_transport **tp, struct ix_err *err)
{
	if (pos >= argc)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing HOST (the machine running 'ixperf server')");
	if (pos + 1 < argc)
		return ix_fail(err, IX_EXIT_USAGE, "one HOST only; unexpected '%s'", argv[pos + 1]);
	if (ix_path_lookup(o->c.path, tp, err) < 0)
		return -1;
	/* --threads is every path's that carries streams several to a thread. */
	struct ix_rdma_cli r = o->r;

	r.threads = 0;
	if (o->iters || ix_rdma_cli_used(&r))
		return ix_fail(err, IX_EXIT_USAGE, "%s applies to --path rdma only",
			       o->iters ? "--iters" : ix_rdma_cli_used(&r));
	if (o->r.threads && !(*tp)->mux)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--threads applies to --path tcp and rdma (each UDP stream has a "
			       "thread of its own)");
	if (o->r.threads && (o->rate || o->zerocopy))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--threads does not apply with --rate or --zerocopy (paced and "
			       "zero-copy streams have a thread each)");
	if (o->reverse && o->bidir)
		return ix_fail(err, IX_EXIT_USAGE, "--reverse and --bidir exclude each other");
	if (o->bytes && o->c.time_s > 0)
		return ix_fail(err, IX_EXIT_USAGE, "--time and --bytes exclude each other");
	if (o->bytes && o->c.sweep)
		return ix_fail(err, IX_EXIT_USAGE, "--all-sizes runs by --time, not --bytes");
	if (o->zerocopy && strcmp((*tp)->name, "tcp") != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "-Z/--zerocopy applies to --path tcp only (UDP sends go in "
			       "GSO batches)");
	if (o->no_offload && !((*tp)->caps & IX_CAP_DATAGRAM))
		return ix_fail(err, IX_EXIT_USAGE, "--no-offload applies to --path udp only");
	if (o->congestion && !((*tp)->caps & IX_CAP_CONGESTION))
		return ix_fail(err, IX_EXIT_USAGE, "--congestion does not apply to path '%s'",
			       (*tp)->name);
	if (o->congestion && strlen(o->congestion) >= IX_CC_NAME_MAX)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --congestion: '%s' is too long", o->congestion);
	if (o->c.size && (o->c.size < (*tp)->min_msg_size || o->c.size > (*tp)->max_msg_size))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for -s/--size: %llu is outside [%llu, %llu] for %s",
			       (unsigned long long)o->c.size,
			       (unsigned long long)(*tp)->min_msg_size,
			       (unsigned long long)(*tp)->max_msg_size, (*tp)->name);
	if (o->interval_s > 0 && o->interval_s < 0.05)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for -i/--interval: below 0.05 s");
	if (ix_client_capture_check(&o->c, err) < 0)
		return -1;
	return 0;
}

/* --path pcie is another test (this host's GPUs, no server) with options of
 * its own: it is found before bw's options are parsed. */
static bool path_is_pcie(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--path=pcie") == 0 ||
		    (strcmp(argv[i], "--path") == 0 && i + 1 < argc &&
		     strcmp(argv[i + 1], "pcie") == 0))
			return true;
	}
	return false;
}

int cmd_bw(int argc, char **argv, const struct ix_env *env)
{
	struct bw_opts o = { .interval_s = -1, .c.warmup_s = -1 };
	const struct ix_transport *tp = NULL;
	struct ix_unit_choice units;
	struct ix_bw_params p;
	struct ix_client cl;
	struct ix_token token;
	struct ix_err err = { 0 }, cerr = { 0 };
	struct ix_sink sink;
	struct live live;
	struct ix_bw_hooks hooks = { on_interval, &live };
	uint64_t sizes[64];
	size_t nsizes = 0, done = 0;
	struct ix_bw_result *res;
	struct ix_capture *cap;
	struct ix_link_limit link = { .bps = 0 };
	bool help;
	int pos, rc = IX_EXIT_OK;

	if (path_is_pcie(argc, argv))
		return ix_gpu_cmd_pcie(argc, argv, env);
	if (ix_opts_parse(&ix_bw_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("bw", &err);
	if (help) {
		ix_opts_help(&ix_bw_spec, stdout);
		return IX_EXIT_OK;
	}
	if (o.c.path && strcmp(o.c.path, "rdma") == 0) {
		if (check_rdma(&o, argc, pos, &err) < 0)
			return ix_report_error_json("bw", o.c.json, o.c.output, env, &err);
		return ix_rdma_cmd("bw", &o.c, &o.r, IX_RDMA_BW, o.bidir, o.iters, argv[pos], env);
	}
	if (check(&o, argc, argv, pos, &tp, &err) < 0 ||
	    ix_parse_units(o.units ? o.units : "bits", &units, &err) < 0)
		return ix_report_error_json("bw", o.c.json, o.c.output, env, &err);

	memset(&p, 0, sizeof(p));
	p.path = tp->name;
	p.streams = o.parallel ? (uint32_t)o.parallel : 1;
	p.mode = o.bidir ? IX_MODE_BIDIR : o.reverse ? IX_MODE_REVERSE : IX_MODE_FORWARD;
	p.bytes = o.bytes;
	p.duration_s = o.bytes ? 0 : o.c.time_s > 0 ? o.c.time_s : o.c.sweep ? 2 : 10;
	p.warmup_s = o.c.warmup_s >= 0 ? o.c.warmup_s : o.bytes ? 0 : 1;
	p.interval_s = o.interval_s >= 0 ? o.interval_s : o.c.sweep ? 0 : 1;
	p.rate_bps = o.rate ? o.rate : (tp->caps & IX_CAP_NEEDS_RATE) ? DEFAULT_UDP_RATE : 0;
	p.window = o.window;
	p.no_offload = o.no_offload;
	p.zerocopy = o.zerocopy;
	p.threads = (uint32_t)o.r.threads;
	if (o.congestion)
		snprintf(p.congestion, sizeof(p.congestion), "%s", o.congestion);

	if (o.c.sweep) {
		uint64_t max = o.c.size                       ? o.c.size
			       : (tp->caps & IX_CAP_DATAGRAM) ? SWEEP_MAX_UDP
							      : SWEEP_MAX_TCP;
		nsizes = ix_size_sweep(tp->min_msg_size, max, sizes, 64);
	} else {
		sizes[nsizes++] = o.c.size ? o.c.size : tp->default_msg_size;
	}
	res = calloc(nsizes, sizeof(*res));
	if (!res)
		return IX_EXIT_FAIL;

	ix_client_from_opts(&cl, &o.c, argv[pos]);
	if (ix_token_from_opt(o.c.token_file, &token, &err) < 0) {
		free(res);
		return ix_report_error_json("bw", o.c.json, o.c.output, env, &err);
	}
	cl.token = &token;
	if (ix_client_capture_begin(&o.c, argv[pos], &cap, &err) < 0) {
		free(res);
		return ix_report_error_json("bw", o.c.json, o.c.output, env, &err);
	}
	if (ix_sink_open(&sink, o.c.output, &err) < 0 || ix_client_connect(&cl, &err) < 0) {
		ix_capture_stop(cap, NULL, NULL);
		free(res);
		return ix_report_error_json("bw", o.c.json, o.c.output, env, &err);
	}
	live.f = sink.f;
	live.u = &units;
	p.msg_size = sizes[0];
	if (!o.c.json) {
		ix_text_bw_begin(sink.f, &p, argv[pos], &units);
		if (nsizes > 1)
			ix_text_bw_sweep_header(sink.f, &units);
	}
	for (size_t i = 0; i < nsizes; i++) {
		int brc;

		p.msg_size = sizes[i];
		done = i + 1;
		brc = ix_bw_run(&cl, &p, &res[i], (!o.c.json && nsizes == 1) ? &hooks : NULL, &err);
		/* Looked up once, after the first test: the interface toward the
		 * server (with --bind, the one holding that address) and its rate. */
		if (i == 0)
			ix_link_toward(o.c.bind ? o.c.bind : argv[pos], "", &link);
		res[i].link = link;
		if (brc < 0) {
			rc = ix_report_error("bw", &err);
			break;
		}
		if (!o.c.json && nsizes > 1)
			ix_text_bw_sweep_row(sink.f, &res[i], &units);
	}
	ix_client_close(&cl);
	/* One capture covers the whole sweep: it goes with the last result. */
	if (cap && ix_capture_stop(cap, &res[done - 1].wire, &cerr) < 0) {
		int crc = ix_report_error("bw", &cerr);

		if (rc == IX_EXIT_OK) {
			err = cerr;
			rc = crc;
		}
	}

	if (o.c.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < done; i++)
			json_array_append_new(arr, ix_json_bw(&res[i]));
		ix_sink_put_json(&sink, ix_json_document("bw", env->argc, env->argv, arr,
							 rc == IX_EXIT_OK ? NULL : err.msg));
	} else if (nsizes == 1 && done == 1) {
		ix_text_bw_summary(sink.f, &res[0], &units);
	} else {
		ix_text_wire(sink.f, &res[done - 1].wire);
		if (rc != IX_EXIT_OK)
			ix_text_why(sink.f, "INCOMPLETE", err.msg); /* may quote an agent */
	}
	for (size_t i = 0; i < done; i++)
		ix_bw_result_free(&res[i]);
	free(res);
	if (ix_sink_commit(&sink, &err) < 0)
		return ix_report_error("bw", &err);
	return rc;
}
