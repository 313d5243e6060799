/* ixperf lat HOST: ping-pong latency over TCP or UDP. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/ctl/auth.h"
#include "probes/ctl/client.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"
#include "probes/rdma/setup.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define LAT_DEFAULT_SIZE 64
#define LAT_SWEEP_MAX    65536ull

struct lat_opts {
	struct ix_client_opts c;
	uint64_t iters;
	bool busy_poll;
	double timeout_s;
	struct ix_rdma_cli r;
};

static const struct ix_option lat_options[] = {
	IX_CLIENT_OPTION_ROWS(struct lat_opts, "transport: tcp (default), udp or rdma"),
	{ 'n', "iters", IX_OPT_UINT, offsetof(struct lat_opts, iters), "N",
	  "measure N round trips instead of --time (as perftest -n)", 1, 1e12 },
	{ 0, "busy-poll", IX_OPT_FLAG, offsetof(struct lat_opts, busy_poll), NULL,
	  "spin on non-blocking receives on both ends (lower, steadier latency; burns a core)", 0,
	  0 },
	{ 0, "timeout", IX_OPT_SECONDS, offsetof(struct lat_opts, timeout_s), "SECONDS",
	  "a reply later than this: UDP counts it lost, TCP fails (default 1)", 0.001, 60 },
	IX_RDMA_OPTION_ROWS(struct lat_opts, r),
};

const struct ix_cmd_spec ix_lat_spec = {
	.name = "lat",
	.usage = "[OPTIONS] HOST",
	.summary = "Measure ping-pong latency to an ixperf server over TCP, UDP or RDMA",
	.opts = lat_options,
	.nopts = IX_OPTS_END(lat_options),
	.epilog = "Figures are one-way latency, RTT/2, as perftest and sockperf report them.\n"
		  "Defaults: --time 2, --warmup 0.5, --size 64.\n"
		  "Examples:\n"
		  "  ixperf lat node07\n"
		  "  ixperf lat --path udp --busy-poll -n 1000000 node07\n"
		  "  ixperf lat -a -s 64Ki --json node07\n"
		  "  ixperf lat --capture eth0 --path udp node07\n",
};

static int check(const struct lat_opts *o, int argc, char **argv, int pos,
		 const struct ix_transport **tp, struct ix_err *err)
{
	if (pos >= argc)
		return ix_fail(err, IX_EXIT_USAGE,
			       "missing HOST (the machine running 'ixperf server')");
	if (pos + 1 < argc)
		return ix_fail(err, IX_EXIT_USAGE, "one HOST only; unexpected '%s'", argv[pos + 1]);
	if (o->iters && o->c.time_s > 0)
		return ix_fail(err, IX_EXIT_USAGE, "--time and --iters exclude each other");
	if (o->c.path && strcmp(o->c.path, "rdma") == 0) {
		if (o->busy_poll || o->timeout_s > 0)
			return ix_fail(err, IX_EXIT_USAGE,
				       "--busy-poll and --timeout do not apply to --path rdma (it "
				       "always polls)");
		return 0;
	}
	if (ix_path_lookup(o->c.path, tp, err) < 0)
		return -1;
	if (ix_rdma_cli_used(&o->r))
		return ix_fail(err, IX_EXIT_USAGE, "%s applies to --path rdma only",
			       ix_rdma_cli_used(&o->r));
	if (o->c.size && (o->c.size < (*tp)->min_lat_size || o->c.size > (*tp)->max_msg_size))
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for -s/--size: %llu is outside [%llu, %llu] for %s",
			       (unsigned long long)o->c.size,
			       (unsigned long long)(*tp)->min_lat_size,
			       (unsigned long long)(*tp)->max_msg_size, (*tp)->name);
	if (ix_client_capture_check(&o->c, err) < 0)
		return -1;
	return 0;
}

int cmd_lat(int argc, char **argv, const struct ix_env *env)
{
	struct lat_opts o = { .c.warmup_s = -1 };
	const struct ix_transport *tp;
	struct ix_lat_params p;
	struct ix_client cl;
	struct ix_token token;
	struct ix_err err = { 0 }, cerr = { 0 };
	struct ix_sink sink;
	struct ix_lat_result *res;
	struct ix_capture *cap;
	uint64_t sizes[64];
	size_t nsizes = 0, done = 0;
	bool help;
	int pos, rc = IX_EXIT_OK;

	if (ix_opts_parse(&ix_lat_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("lat", &err);
	if (help) {
		ix_opts_help(&ix_lat_spec, stdout);
		return IX_EXIT_OK;
	}
	if (check(&o, argc, argv, pos, &tp, &err) < 0)
		return ix_report_error_json("lat", o.c.json, o.c.output, env, &err);
	if (o.c.path && strcmp(o.c.path, "rdma") == 0)
		return ix_rdma_cmd("lat", &o.c, &o.r, IX_RDMA_LAT, false, o.iters, argv[pos], env);

	memset(&p, 0, sizeof(p));
	p.path = tp->name;
	p.iters = o.iters;
	p.duration_s = o.iters ? 0 : o.c.time_s > 0 ? o.c.time_s : o.c.sweep ? 1 : 2;
	p.warmup_s = o.c.warmup_s >= 0 ? o.c.warmup_s : o.c.sweep ? 0.2 : 0.5;
	p.busy_poll = o.busy_poll;
	p.timeout_s = o.timeout_s > 0 ? o.timeout_s : 1.0;
	if (o.c.sweep) {
		uint64_t max = o.c.size ? o.c.size : LAT_SWEEP_MAX;

		if (max > tp->max_msg_size)
			max = tp->max_msg_size;
		nsizes = ix_size_sweep(tp->min_lat_size, max, sizes, 64);
	} else {
		sizes[nsizes++] = o.c.size ? o.c.size : LAT_DEFAULT_SIZE;
	}
	res = calloc(nsizes, sizeof(*res));
	if (!res)
		return IX_EXIT_FAIL;
	ix_client_from_opts(&cl, &o.c, argv[pos]);
	if (ix_token_from_opt(o.c.token_file, &token, &err) < 0) {
		free(res);
		return ix_report_error_json("lat", o.c.json, o.c.output, env, &err);
	}
	cl.token = &token;
	if (ix_client_capture_begin(&o.c, argv[pos], &cap, &err) < 0) {
		free(res);
		return ix_report_error_json("lat", o.c.json, o.c.output, env, &err);
	}
	if (ix_sink_open(&sink, o.c.output, &err) < 0 || ix_client_connect(&cl, &err) < 0) {
		ix_capture_stop(cap, NULL, NULL);
		free(res);
		return ix_report_error_json("lat", o.c.json, o.c.output, env, &err);
	}
	if (!o.c.json)
		ix_text_lat_header(sink.f, &p, argv[pos]);
	for (size_t i = 0; i < nsizes; i++) {
		p.msg_size = sizes[i];
		done = i + 1;
		rc = ix_lat_run(&cl, &p, &res[i], &err) < 0 ? ix_report_error("lat", &err)
							    : IX_EXIT_OK;
		if (!o.c.json)
			ix_text_lat_row(sink.f, &res[i]);
		if (rc != IX_EXIT_OK)
			break;
	}
	ix_client_close(&cl);
	/* One capture covers the whole sweep: it goes with the last result. */
	if (cap && ix_capture_stop(cap, &res[done - 1].wire, &cerr) < 0) {
		int crc = ix_report_error("lat", &cerr);

		if (rc == IX_EXIT_OK) {
			err = cerr;
			rc = crc;
		}
	}
	if (o.c.json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < done; i++)
			json_array_append_new(arr, ix_json_lat(&res[i]));
		ix_sink_put_json(&sink, ix_json_document("lat", env->argc, env->argv, arr,
							 rc == IX_EXIT_OK ? NULL : err.msg));
	} else {
		ix_text_wire(sink.f, &res[done - 1].wire);
	}
	for (size_t i = 0; i < done; i++)
		ix_lat_result_free(&res[i]);
	free(res);
	if (ix_sink_commit(&sink, &err) < 0)
		return ix_report_error("lat", &err);
	return rc;
}
