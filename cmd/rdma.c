/* ixperf bw|lat --path rdma HOST: the RDMA (RC) tests of bw and lat, with
 * perftest's figures; both ends run the parameters this side fills. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/ctl/client.h"
#include "probes/net/transport.h"
#include "probes/rdma/session.h"
#include "probes/rdma/verbs.h"
#include "report/json/json.h"
#include "report/text/text.h"

#define RDMA_SWEEP_MAX (8ull * 1024 * 1024) /* perftest -a's largest size */
#define RDMA_SWEEP_MIN 2ull

/* A decimal integer in [lo, hi] from text, naming the option. */
static int num_opt(const char *s, const char *name, long lo, long hi, long *out, struct ix_err *err)
{
	uint64_t v = 0;

	*out = 0;
	if (ix_parse_uint(s, (uint64_t)lo, (uint64_t)hi, &v, NULL) < 0)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for %s: '%s' (%ld to %ld)", name,
			       s, lo, hi);
	*out = (long)v;
	return 0;
}

static int gid_opts(const struct ix_rdma_cli *o, struct ix_rdma_gid_pref *g, struct ix_err *err)
{
	long v;

	memset(g, 0, sizeof(*g));
	if (o->gid_index) {
		if (num_opt(o->gid_index, "--gid-index", 0, 255, &v, err) < 0)
			return -1;
		g->by_index = true;
		g->index = (unsigned)v;
	}
	if (o->gid_type) {
		static const struct {
			const char *name, *type;
			int family;
		} types[] = { { "v1", "v1", 0 },
			      { "v2", "v2", 0 },
			      { "v2-ipv4", "v2", AF_INET },
			      { "v2-ipv6", "v2", AF_INET6 } };
		size_t i;

		for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
			if (strcmp(o->gid_type, types[i].name) == 0)
				break;
		if (i == sizeof(types) / sizeof(types[0]))
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --gid-type: '%s' (v1, v2, v2-ipv4 or "
				       "v2-ipv6)",
				       o->gid_type);
		if (g->by_index)
			return ix_fail(err, IX_EXIT_USAGE,
				       "--gid-index and --gid-type exclude each other");
		snprintf(g->type, sizeof(g->type), "%s", types[i].type);
		g->family = types[i].family;
	}
	return 0;
}

static int params_from(const struct ix_client_opts *c, const struct ix_rdma_cli *o, int kind,
		       bool bidir, uint64_t iters, struct ix_rdma_params *p, struct ix_err *err)
{
	int op = o->op ? ix_rdma_op_parse(o->op) : IX_RDMA_OP_WRITE;
	long v;

	if (op < 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --op: '%s' (write, read, send or write_imm)",
			       o->op);
	ix_rdma_params_init(p, (enum ix_rdma_kind)kind, (enum ix_rdma_op)op);
	p->qps = (uint32_t)o->qps;
	if (o->threads && kind == IX_RDMA_LAT)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--threads is for bandwidth: latency runs one QP from one thread");
	if (o->threads > (o->qps ? o->qps : 1))
		return ix_fail(err, IX_EXIT_USAGE,
			       "--threads %llu is more than the %llu QP%s (--qps): a thread "
			       "polls QPs of its own",
			       (unsigned long long)o->threads,
			       (unsigned long long)(o->qps ? o->qps : 1), o->qps > 1 ? "s" : "");
	p->threads = (uint32_t)o->threads;
	p->tx_depth = (uint32_t)o->tx_depth;
	p->rx_depth = (uint32_t)o->rx_depth;
	p->cq_mod = (uint32_t)o->cq_mod;
	p->rd_atom = (uint32_t)o->rd_atom;
	p->iterations = iters;
	p->duration_s = c->time_s > 0 ? c->time_s : 0;
	p->warmup_s = c->warmup_s;
	p->bidirectional = bidir;
	if (o->inline_size) {
		if (num_opt(o->inline_size, "--inline", 0, IX_RDMA_MAX_INLINE, &v, err) < 0)
			return -1;
		p->inline_size = (int32_t)v;
	}
	if (o->tclass) {
		if (num_opt(o->tclass, "--tc", 0, 255, &v, err) < 0)
			return -1;
		p->traffic_class = (uint8_t)v;
	}
	if (o->sl) {
		if (num_opt(o->sl, "--sl", 0, 15, &v, err) < 0)
			return -1;
		p->service_level = (uint8_t)v;
	}
	if (o->mtu && (p->mtu_cap = ix_rdma_mtu_from_bytes((uint32_t)o->mtu)) < 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --mtu: %llu (256, 512, 1024, 2048 or 4096)",
			       (unsigned long long)o->mtu);
	if (o->numa && strcmp(o->numa, "none") == 0) {
		p->numa = IX_RDMA_NUMA_NONE;
	} else if (o->numa && strcmp(o->numa, "device") != 0) {
		if (num_opt(o->numa, "--numa", 0, 1023, &v, err) < 0)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --numa: '%s' (a node number, 'device' or "
				       "'none')",
				       o->numa);
		p->numa = IX_RDMA_NUMA_NODE;
		p->numa_node = (int)v;
	}
	return gid_opts(o, &p->gid, err);
}

int ix_parse_gpu_index(const char *s, const char *name, int *out, struct ix_err *err)
{
	long v;

	if (strcmp(s, "auto") == 0) {
		*out = IX_RDMA_GPU_AUTO;
		return 0;
	}
	if (num_opt(s, name, 0, 63, &v, err) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* Options of the socket paths that mean nothing here. */
/* --capture is taken: RoCE that the kernel's stack carries (soft-RoCE)
 * shows on its interface, a NIC's own RDMA where libpcap can sniff it (its
 * RDMA device's name as the interface), mirrored ports on theirs. */
static int refuse_socket_opts(const struct ix_client_opts *c, struct ix_err *err)
{
	if (ix_client_capture_check(c, err) < 0)
		return -1;
	if (c->bind)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--bind does not apply to --path rdma (use --ib-dev and "
			       "--gid-index)");
	return 0;
}

static void render_json(struct ix_sink *sink, const char *cmd, const struct ix_env *env,
			struct ix_rdma_result *res, size_t n, int rc, const char *error)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, ix_json_rdma(&res[i]));
	ix_sink_put_json(sink, ix_json_document(cmd, env->argc, env->argv, arr,
						rc == IX_EXIT_OK ? NULL : error));
}

/* The sizes to run: one, or perftest -a's powers of two. */
static size_t sizes_of(const struct ix_client_opts *c, int kind, uint64_t *sizes, size_t cap)
{
	uint64_t def = kind == IX_RDMA_LAT ? 2 : 65536;

	if (!c->sweep) {
		sizes[0] = c->size ? c->size : def;
		return 1;
	}
	return ix_size_sweep(RDMA_SWEEP_MIN, c->size ? c->size : RDMA_SWEEP_MAX, sizes, cap);
}

int ix_rdma_run_sizes(struct ix_client *cl, const struct ix_rdma_params *params,
		      const struct ix_rdma_how *how, const uint64_t *sizes, size_t n,
		      struct ix_rdma_result *res, size_t *done, struct ix_err *err)
{
	struct ix_rdma_params p = *params;

	*done = 0;
	for (size_t i = 0; i < n; i++) {
		struct ix_rdma_dev dev;
		int brc;

		p.msg_size = sizes[i];
		if (ix_rdma_hw_dev_new(&dev, NULL, how->gpu, err) < 0)
			return -1;
		brc = ix_rdma_client_run(cl, &dev, how->dev, how->port, &p, &res[i], err);
		ix_rdma_hw_dev_free(&dev);
		if (brc < 0 && res[i].path_mtu == 0) /* refused before any traffic */
			return -1;
		*done = i + 1;
		if (how->each)
			how->each(how->arg, i, &res[i]);
		if (brc < 0)
			return -1;
	}
	return 0;
}

/* The text rows of ixperf bw|lat --path rdma, one per size as it ends. */
struct text_rows {
	FILE *f;
	const char *host;
};

static void text_row(void *arg, size_t i, const struct ix_rdma_result *r)
{
	const struct text_rows *t = arg;

	if (i == 0) {
		ix_text_rdma_begin(t->f, r, t->host);
		ix_text_rdma_header(t->f, r);
	}
	ix_text_rdma_row(t->f, r);
}

int ix_rdma_cmd(const char *cmd, const struct ix_client_opts *c, const struct ix_rdma_cli *o,
		int kind, bool bidir, uint64_t iters, const char *host, const struct ix_env *env)
{
	struct ix_rdma_params p;
	struct ix_client cl;
	struct ix_token token;
	struct ix_sink sink;
	struct ix_err err = { 0 };
	struct ix_rdma_result *res;
	struct ix_capture *cap = NULL;
	struct ix_err cerr = { 0 };
	uint64_t sizes[64];
	size_t nsizes, done = 0;
	char devs[1][64];
	size_t ndev;
	int rc = IX_EXIT_OK, gpu = -1;

	/* A sweep counts messages per size, as perftest -a does. */
	if (c->sweep && !iters && c->time_s <= 0)
		iters = kind == IX_RDMA_LAT ? 1000 : 5000;
	if (refuse_socket_opts(c, &err) < 0 ||
	    params_from(c, o, kind, bidir, iters, &p, &err) < 0 ||
	    (o->gpu && ix_parse_gpu_index(o->gpu, "--gpu", &gpu, &err) < 0))
		return ix_report_error_json(cmd, c->json, c->output, env, &err);
	/* No device, no driver, no permission: said before any connection. */
	if (ix_verbs_devices(devs, 1, &ndev, &err) < 0)
		return ix_report_error_json(cmd, c->json, c->output, env, &err);
	nsizes = sizes_of(c, kind, sizes, 64);
	res = calloc(nsizes, sizeof(*res));
	if (!res)
		return IX_EXIT_FAIL;
	ix_client_from_opts(&cl, c, host);
	if (ix_token_from_opt(c->token_file, &token, &err) < 0 ||
	    ix_sink_open(&sink, c->output, &err) < 0) {
		free(res);
		return ix_report_error_json(cmd, c->json, c->output, env, &err);
	}
	cl.token = &token;
	if (ix_client_capture_begin(c, host, &cap, &err) < 0 || ix_client_connect(&cl, &err) < 0) {
		rc = ix_report_error(cmd, &err);
		ix_capture_stop(cap, NULL, NULL);
		if (c->json) /* a document for every failure */
			render_json(&sink, cmd, env, res, 0, rc, err.msg);
		goto out;
	}
	{
		struct ix_rdma_how how = { .dev = o->dev,
					   .port = (unsigned)o->ib_port,
					   .gpu = gpu,
					   .each = c->json ? NULL : text_row,
					   .arg = &(struct text_rows){ sink.f, host } };

		if (ix_rdma_run_sizes(&cl, &p, &how, sizes, nsizes, res, &done, &err) < 0)
			rc = ix_report_error(cmd, &err);
	}
	ix_client_close(&cl);
	/* One capture covers the whole sweep: it goes with the last result. */
	if (cap && ix_capture_stop(cap, done ? &res[done - 1].wire : NULL, &cerr) < 0) {
		int crc = ix_report_error(cmd, &cerr);

		if (rc == IX_EXIT_OK) {
			err = cerr;
			rc = crc;
		}
	}
	if (c->json) {
		render_json(&sink, cmd, env, res, done, rc, err.msg);
	} else if (done) {
		ix_text_rdma_end(sink.f, &res[done - 1]);
		ix_text_wire(sink.f, &res[done - 1].wire);
	}
out:
	for (size_t i = 0; i < nsizes; i++)
		ix_rdma_result_free(&res[i]);
	free(res);
	if (ix_sink_commit(&sink, &err) < 0)
		return ix_report_error(cmd, &err);
	return rc;
}

const char *ix_rdma_cli_used(const struct ix_rdma_cli *o)
{
	if (o->op)
		return "--op";
	if (o->qps)
		return "--qps";
	if (o->threads)
		return "--threads";
	if (o->tx_depth)
		return "--tx-depth";
	if (o->rx_depth)
		return "--rx-depth";
	if (o->cq_mod)
		return "--cq-mod";
	if (o->rd_atom)
		return "--rd-atom";
	if (o->inline_size)
		return "--inline";
	if (o->dev)
		return "--ib-dev";
	if (o->ib_port)
		return "--ib-port";
	if (o->gid_index)
		return "--gid-index";
	if (o->gid_type)
		return "--gid-type";
	if (o->tclass)
		return "--tc";
	if (o->sl)
		return "--sl";
	if (o->mtu)
		return "--mtu";
	if (o->numa)
		return "--numa";
	if (o->gpu)
		return "--gpu";
	return NULL;
}

int ix_rdma_opts_fill(const struct ix_transport *tp, const char *op, uint64_t qps,
		      uint64_t parallel, int kind, struct ix_rdma_params *p, struct ix_err *err)
{
	int o = op ? ix_rdma_op_parse(op) : IX_RDMA_OP_WRITE;

	if (!(tp->caps & IX_CAP_RDMA)) {
		if (op || qps)
			return ix_fail(err, IX_EXIT_USAGE, "%s applies to --path rdma only",
				       op ? "--op" : "--qps");
		return 0;
	}
	if (o < 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "invalid value for --op: '%s' (write, read, send or write_imm)", op);
	if (parallel)
		return ix_fail(err, IX_EXIT_USAGE,
			       "-P/--parallel does not apply to --path rdma (use --qps)");
	ix_rdma_params_init(p, (enum ix_rdma_kind)kind, (enum ix_rdma_op)o);
	p->qps = (uint32_t)qps;
	return 0;
}
