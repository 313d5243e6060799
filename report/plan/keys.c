/* The keys of a check in a plan file (ixperf-plan(5)): which probes and
 * paths each applies to, their values parsed with range checks into the
 * check. The file, its sections and the defaults are plan.c's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/gpu/bench.h"
#include "probes/net/transport.h"
#include "probes/rdma/setup.h"
#include "report/fmt/units.h"
#include "report/plan/parse.h"
#include "report/plan/plan.h"

/* Which probes a key applies to: a bit per enum ix_check_probe. */
#define P_BW     (1u << IX_CHECK_BW)
#define P_LAT    (1u << IX_CHECK_LAT)
#define P_MESH   (1u << IX_CHECK_MESH)
#define P_INCAST (1u << IX_CHECK_INCAST)
#define P_GPU    (1u << IX_CHECK_GPU)
#define P_TOPO   (1u << IX_CHECK_TOPO)
#define P_INV    (1u << IX_CHECK_INVENTORY)
#define P_COLL   (1u << IX_CHECK_COLL)
#define P_MEM    (1u << IX_CHECK_MEM)
#define P_PAIR   (P_BW | P_LAT)
#define P_NET    (P_BW | P_LAT | P_MESH | P_INCAST)
#define P_ALL    (P_NET | P_GPU | P_TOPO | P_INV | P_COLL | P_MEM)

/* Which path a key holds for only: socket paths (tcp, udp) or rdma. */
enum key_path { ANY_PATH, SOCKET_ONLY, RDMA_ONLY };

bool ix_plan_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
		return (*out = true);
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
		return !(*out = false);
	return false;
}

/* "10%" or "0.1" as a fraction; "1%" style for loss is a percent. */
int ix_plan_percent(const char *v, double *frac, struct ix_err *err)
{
	char buf[64];
	size_t n = strlen(v);
	uint64_t bp;

	if (n == 0 || n >= sizeof(buf))
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a percentage", v);
	memcpy(buf, v, n + 1);
	if (buf[n - 1] != '%')
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a percentage (e.g. 10%%)", v);
	buf[n - 1] = '\0';
	/* percent with up to 4 decimals, exactly, through the rate parser */
	if (ix_parse_rate(buf, &bp, err) < 0 || strchr(buf, 'b') || strchr(buf, 'B') ||
	    strpbrk(buf, "KMGTk"))
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a percentage", v);
	*frac = strtod(buf, NULL) / 100.0;
	return 0;
}

/* Remember the first key that holds for one kind of path only: finish()
 * refuses it, at its line, when the check's path is the other kind. */
static void path_key(struct ix_plan_parse *ps, struct ix_check *c, enum key_path kp,
		     const char *key)
{
	char *dst = kp == RDMA_ONLY ? c->rdma_key : c->socket_key;
	int *line = kp == RDMA_ONLY ? &c->rdma_key_line : &c->socket_key_line;

	if (kp == ANY_PATH || dst[0])
		return;
	snprintf(dst, sizeof(c->rdma_key), "%s", key);
	*line = ps->line;
}

/* "80%line", "80%link", "80%hbm": a share of a reference; 0 when v has no
 * such suffix, -1 when it has one and the share is bad. */
static int share_of(const char *v, double *frac, enum ix_expect_ref *ref)
{
	static const struct {
		const char *suffix;
		enum ix_expect_ref ref;
	} refs[] = { { "%line", IX_REF_LINE }, { "%link", IX_REF_LINK }, { "%hbm", IX_REF_HBM } };
	struct ix_err perr = { 0 };
	size_t n = strlen(v);

	for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		size_t k = strlen(refs[i].suffix);
		char buf[32];

		if (n <= k || strcmp(v + n - k, refs[i].suffix) != 0)
			continue;
		*ref = refs[i].ref;
		snprintf(buf, sizeof(buf), "%.*s%%", (int)(n - k), v);
		if (ix_plan_percent(buf, frac, &perr) < 0 || *frac <= 0 || *frac > 1)
			return -1;
		return 1;
	}
	return 0;
}

static int add_expect(struct ix_plan_parse *ps, struct ix_check *c, const char *key, const char *v)
{
	static const struct {
		const char *key;
		unsigned probes; /* P_* */
		enum key_path path;
		enum ix_expect_kind kind;
		const char *figure;
		char type; /* r rate, d duration, c count, p percent, f fraction */
	} keys[] = {
		{ "min_bw", P_NET | P_GPU, ANY_PATH, IX_EXPECT_MIN, "bits_per_second", 'r' },
		{ "max_retransmits", P_BW, SOCKET_ONLY, IX_EXPECT_MAX, "retransmits", 'c' },
		{ "max_loss", P_BW, SOCKET_ONLY, IX_EXPECT_MAX, "loss_percent", 'p' },
		{ "max_p50", P_LAT | P_MESH, ANY_PATH, IX_EXPECT_MAX, "p50_ns", 'd' },
		{ "max_p90", P_LAT, ANY_PATH, IX_EXPECT_MAX, "p90_ns", 'd' },
		{ "max_p99", P_LAT, ANY_PATH, IX_EXPECT_MAX, "p99_ns", 'd' },
		{ "max_p999", P_LAT, ANY_PATH, IX_EXPECT_MAX, "p99_9_ns", 'd' },
		{ "max_lat", P_GPU | P_MEM, ANY_PATH, IX_EXPECT_MAX, "latency_ns", 'd' },
		{ "max_bad_pairs", P_MESH, ANY_PATH, IX_EXPECT_MAX, "bad_pairs", 'c' },
		{ "max_bad_hosts", P_MESH, ANY_PATH, IX_EXPECT_MAX, "bad_hosts", 'c' },
		{ "min_pair_bw", P_MESH, ANY_PATH, IX_EXPECT_MIN, "min_pair_bps", 'r' },
		{ "max_pair_lat", P_MESH, ANY_PATH, IX_EXPECT_MAX, "p50_ns", 'd' },
		{ "max_suspects", P_MESH, ANY_PATH, IX_EXPECT_MAX, "suspects", 'c' },
		{ "max_bad_rails", P_MESH, ANY_PATH, IX_EXPECT_MAX, "bad_rails", 'c' },
		{ "max_stalled", P_INCAST, ANY_PATH, IX_EXPECT_MAX, "stalled_rounds", 'c' },
		{ "min_jain", P_INCAST, ANY_PATH, IX_EXPECT_MIN, "jain", 'f' },
		{ "max_findings", P_TOPO | P_INV, ANY_PATH, IX_EXPECT_MAX, "findings", 'c' },
		{ "max_odd_nodes", P_INV, ANY_PATH, IX_EXPECT_MAX, "odd_nodes", 'c' },
		{ "max_pfc_pauses", P_NET, ANY_PATH, IX_EXPECT_MAX, "pfc_pauses", 'c' },
		{ "max_cnp", P_NET, ANY_PATH, IX_EXPECT_MAX, "cnp", 'c' },
		{ "max_ecn_marked", P_NET, ANY_PATH, IX_EXPECT_MAX, "ecn_marked", 'c' },
		{ "max_fabric_drops", P_NET, ANY_PATH, IX_EXPECT_MAX, "fabric_drops", 'c' },
		{ "max_fabric_retransmissions", P_NET, ANY_PATH, IX_EXPECT_MAX,
		  "fabric_retransmissions", 'c' },
		{ "max_fabric_errors", P_NET, ANY_PATH, IX_EXPECT_MAX, "fabric_errors", 'c' },
		{ "min_busbw", P_COLL, ANY_PATH, IX_EXPECT_MIN, "busbw_bits_per_second", 'r' },
		{ "max_wrong", P_COLL, ANY_PATH, IX_EXPECT_MAX, "wrong", 'c' },
		{ "max_slow", P_COLL | P_MEM, ANY_PATH, IX_EXPECT_MAX, "slow", 'c' },
		{ "min_read", P_MEM, ANY_PATH, IX_EXPECT_MIN, "read_bits_per_second", 'r' },
		{ "min_write", P_MEM, ANY_PATH, IX_EXPECT_MIN, "write_bits_per_second", 'r' },
		{ "max_regression", P_ALL, ANY_PATH, IX_EXPECT_REGRESSION, "headline", 'p' },
		{ "max_pair_regression", P_MESH, ANY_PATH, IX_EXPECT_REGRESSION, "nodes_and_pairs",
		  'p' },
	};
	struct ix_expect *e;
	struct ix_err perr = { 0 };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t u;
		double d;
		int share;

		if (strcmp(keys[i].key, key) != 0)
			continue;
		if (!c->have_probe)
			return ix_plan_bad(ps, "'%s' before 'probe' in [%s]", key, c->name);
		if (!(keys[i].probes & (1u << c->probe)))
			return ix_plan_bad(ps, "'%s' does not apply to %s %s check", key,
					   c->probe == IX_CHECK_INVENTORY ? "an" : "a",
					   ix_check_probe_name(c->probe));
		if (c->nexpect >= IX_PLAN_MAX_EXPECT)
			return ix_plan_bad(ps, "too many expectations in [%s]%s", c->name, "");
		path_key(ps, c, keys[i].path, key);
		e = &c->expect[c->nexpect];
		memset(e, 0, sizeof(*e));
		snprintf(e->key, sizeof(e->key), "%s", key);
		snprintf(e->text, sizeof(e->text), "%s", v);
		e->kind = keys[i].kind;
		e->figure = keys[i].figure;
		e->line = ps->line;
		switch (keys[i].type) {
		case 'r':
			e->unit = "bit/s";
			share = share_of(v, &e->limit, &e->ref);
			if (share < 0)
				return ix_plan_bad(ps, "bad value '%s' for %s (e.g. %s)", v, key,
						   c->probe == IX_CHECK_GPU ? "80%link or 80%hbm"
									    : "90%line");
			if (share && (e->ref == IX_REF_LINE) != (c->probe != IX_CHECK_GPU))
				return ix_plan_bad(ps, "'%s' is no share a %s check takes (%s)", v,
						   ix_check_probe_name(c->probe),
						   c->probe == IX_CHECK_GPU ? "%link or %hbm"
									    : "%line");
			if (share && e->ref != IX_REF_LINE) { /* a percent of the cells' own */
				e->figure = e->ref == IX_REF_LINK ? "percent_of_link"
								  : "percent_of_hbm";
				e->unit = "%";
				e->limit *= 100.0;
			}
			e->line_relative = e->ref == IX_REF_LINE;
			if (share)
				break;
			if (ix_parse_rate(v, &u, &perr) < 0)
				return ix_plan_bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = (double)u;
			break;
		case 'd':
			e->unit = "ns";
			if (ix_parse_seconds(v, &d, &perr) < 0)
				return ix_plan_bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = d * 1e9;
			break;
		case 'c':
			e->unit = "";
			if (ix_parse_uint(v, 0, UINT64_MAX >> 8, &u, &perr) < 0)
				return ix_plan_bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = (double)u;
			break;
		case 'p':
			e->unit = keys[i].kind == IX_EXPECT_REGRESSION ? "" : "%";
			if (ix_plan_percent(v, &d, &perr) < 0)
				return ix_plan_bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = keys[i].kind == IX_EXPECT_REGRESSION ? d : d * 100.0;
			break;
		default:
			e->unit = "";
			if (ix_parse_seconds(v, &d, &perr) < 0 || d > 1)
				return ix_plan_bad(ps, "bad value '%s' for %s (a fraction, 0 to 1)",
						   v, key);
			e->limit = d;
		}
		/* The pair floors are the mesh's rules too: a pair past them
		 * is a bad pair whatever the median. */
		if (!strcmp(key, "min_pair_bw")) {
			if (e->line_relative)
				return ix_plan_bad(ps,
						   "'%s' takes a rate, not a share of the line%s",
						   key, "");
			c->mesh.rules.min_bw_bps = e->limit;
		} else if (!strcmp(key, "max_pair_lat")) {
			c->mesh.rules.max_lat_ns = e->limit;
		}
		c->nexpect++;
		return 1;
	}
	return -1; /* not an expectation */
}

/* key = 0 at the section's line, said to be the default, unless the
 * check names key. */
static int implicit_zero(struct ix_plan_parse *ps, struct ix_check *c, const char *key)
{
	for (uint32_t i = 0; i < c->nexpect; i++)
		if (!strcmp(c->expect[i].key, key))
			return 0;
	ps->line = c->line; /* the file is read: the line is the expectation's */
	if (add_expect(ps, c, key, "0") != 1)
		return -1;
	snprintf(c->expect[c->nexpect - 1].text, sizeof(c->expect[0].text), "0 (the default)");
	return 0;
}

/* A pattern's keys: rounds and seed for a permutation, no rails, its
 * bad hosts 0 unless the check says otherwise. */
static int pattern_keys(struct ix_plan_parse *ps, struct ix_check *c)
{
	ps->line = c->line;
	if ((c->pattern_rounds || c->have_seed) && c->pattern != IX_PATTERN_PERMUTATION) {
		ix_plan_bad(ps, "[%s]: rounds and seed are for pattern = permutation", c->name);
		return -1;
	}
	if (c->pattern == IX_PATTERN_ALL_PAIRS)
		return 0;
	if (c->mesh.tests & IX_MESH_LAT) {
		ix_plan_bad(ps,
			    "[%s]: pattern %s measures bandwidth: test = lat or both is "
			    "for all-pairs",
			    c->name, ix_pattern_name(c->pattern));
		return -1;
	}
	if (c->rails.n || c->rails.discover) {
		ix_plan_bad(ps,
			    "[%s]: pattern %s runs every host at once: rails are for "
			    "all-pairs",
			    c->name, ix_pattern_name(c->pattern));
		return -1;
	}
	c->mesh.tests = IX_MESH_BW;
	if (!c->have_seed)
		c->seed = ix_pattern_new_seed();
	return implicit_zero(ps, c, "max_bad_hosts");
}

int ix_plan_implicit_bad_pairs(struct ix_plan_parse *ps, struct ix_check *c)
{
	bool rails = c->rails.n || c->rails.discover;

	if (pattern_keys(ps, c) < 0)
		return -1;
	if (c->pattern != IX_PATTERN_ALL_PAIRS)
		return 0;
	for (uint32_t i = 0; !rails && i < c->nexpect; i++)
		if (!strcmp(c->expect[i].key, "max_bad_rails")) {
			ps->line = c->expect[i].line;
			ix_plan_bad(ps, "max_bad_rails needs rails (auto, or a list)");
			return -1;
		}
	if (implicit_zero(ps, c, "max_bad_pairs") < 0)
		return -1;
	return rails ? implicit_zero(ps, c, "max_bad_rails") : 0;
}

static int sizes(struct ix_plan_parse *ps, struct ix_check *c, const char *key, const char *v)
{
	char buf[512], *tok, *save = NULL;
	struct ix_err perr = { 0 };

	if (strlen(v) >= sizeof(buf))
		return ix_plan_bad(ps, "'%s' is too long%s", key, "");
	memcpy(buf, v, strlen(v) + 1);
	c->nsizes = 0;
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		uint64_t s;
		if (c->nsizes >= IX_PLAN_MAX_SIZES)
			return ix_plan_bad(ps, "too many sizes in '%s'%s", key, "");
		if (ix_parse_size(tok, &s, &perr) < 0 || s == 0)
			return ix_plan_bad(ps, "bad size in %s: %s", key,
					   perr.msg[0] ? perr.msg : tok);
		c->sizes[c->nsizes++] = s;
	}
	return c->nsizes ? 1 : ix_plan_bad(ps, "'%s' lists no sizes%s", key, "");
}

/* probe = NAME: the check's kind, before any other key. */
static int set_probe(struct ix_plan_parse *ps, struct ix_check *c, const char *v)
{
	static const enum ix_rdma_kind kinds[IX_CHECK_PROBES] = {
		IX_RDMA_BW, IX_RDMA_LAT, IX_RDMA_MESH, IX_RDMA_INCAST, IX_RDMA_BW,
		IX_RDMA_BW, IX_RDMA_BW,  IX_RDMA_BW,   IX_RDMA_BW
	};

	if (c->have_probe)
		return ix_plan_bad(ps, "[%s] names its probe twice%s", c->name, "");
	for (int i = 0; i < IX_CHECK_PROBES; i++)
		if (!strcmp(v, ix_check_probe_name((enum ix_check_probe)i))) {
			c->probe = (enum ix_check_probe)i;
			c->have_probe = true;
			ix_rdma_params_init(&c->rdma, kinds[i], IX_RDMA_OP_WRITE);
			c->gpu = IX_PLAN_GPU_NONE;
			return 1;
		}
	return ix_plan_bad(
		ps, "unknown probe '%s' (bw, lat, mesh, incast, gpu, coll, mem, topo or inventory)",
		v);
}

/* requires = rdma,gpu */
static int set_needs(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	char buf[64], *tok, *save = NULL;

	if (strlen(v) >= sizeof(buf))
		return ix_plan_bad(ps, "'%s' is too long%s", k, "");
	memcpy(buf, v, strlen(v) + 1);
	c->needs = 0;
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, "rdma"))
			c->needs |= IX_NEED_RDMA;
		else if (!strcmp(tok, "gpu"))
			c->needs |= IX_NEED_GPU;
		else
			return ix_plan_bad(ps, "bad value '%s' for %s (rdma, gpu, or both)", tok,
					   k);
	}
	return c->needs ? 1 : ix_plan_bad(ps, "'%s' names nothing (rdma, gpu)%s", k, "");
}

/* A string key into a bounded field. */
static int set_text(struct ix_plan_parse *ps, const char *k, const char *v, char *dst, size_t cap)
{
	if (!v[0] || strlen(v) >= cap)
		return ix_plan_bad(ps, "bad value '%.200s' for %s (empty, or too long)", v, k);
	memcpy(dst, v, strlen(v) + 1);
	return 1;
}

/* The keys of path rdma. */
static int set_rdma(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	struct ix_err perr = { 0 };
	uint64_t u;
	int op;

	if (!strcmp(k, "op")) {
		if ((op = ix_rdma_op_parse(v)) < 0)
			return ix_plan_bad(
				ps, "bad value '%s' for op (write, read, send or write_imm)", v);
		c->rdma.op = (enum ix_rdma_op)op;
		return 1;
	}
	if (!strcmp(k, "ib_dev"))
		return set_text(ps, k, v, c->ib_dev, sizeof(c->ib_dev));
	if (!strcmp(k, "gpu") && !strcmp(v, "auto")) {
		c->gpu = IX_PLAN_GPU_AUTO;
		return 1;
	}
	if (!strcmp(k, "mtu")) {
		if (ix_parse_uint(v, 256, 4096, &u, &perr) < 0 ||
		    (c->rdma.mtu_cap = ix_rdma_mtu_from_bytes((uint32_t)u)) < 0)
			return ix_plan_bad(
				ps, "bad value '%s' for mtu (256, 512, 1024, 2048 or 4096)", v);
		return 1;
	}
	{
		static const struct {
			const char *key;
			uint64_t lo, hi;
		} ranges[] = { { "qps", 1, IX_RDMA_MAX_QPS },
			       { "gid_index", 0, 255 },
			       { "tc", 0, 255 },
			       { "sl", 0, 15 },
			       { "ib_port", 1, 255 },
			       { "gpu", 0, 63 } };
		size_t i;

		for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
			if (!strcmp(k, ranges[i].key))
				break;
		if (i == sizeof(ranges) / sizeof(ranges[0]))
			return -1;
		if (ix_parse_uint(v, ranges[i].lo, ranges[i].hi, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
	}
	if (!strcmp(k, "qps"))
		c->rdma.qps = (uint32_t)u;
	else if (!strcmp(k, "gid_index"))
		c->rdma.gid = (struct ix_rdma_gid_pref){ .by_index = true, .index = (unsigned)u };
	else if (!strcmp(k, "tc"))
		c->rdma.traffic_class = (uint8_t)u;
	else if (!strcmp(k, "sl"))
		c->rdma.service_level = (uint8_t)u;
	else if (!strcmp(k, "ib_port"))
		c->ib_port = (unsigned)u;
	else
		c->gpu = (int)u;
	return 1;
}

/* The keys of probe = gpu and probe = topo. */
static int set_host_probe(struct ix_plan_parse *ps, struct ix_check *c, const char *k,
			  const char *v)
{
	struct ix_err perr = { 0 };
	uint64_t u;

	if (!strcmp(k, "tests")) {
		bool sel[IX_GPU_MAX_TESTS];

		if (ix_gpu_select_tests(v, sel, &perr) < 0)
			return ix_plan_bad(ps, "bad value for tests: %s", perr.msg);
		return set_text(ps, k, v, c->gpu_tests, sizeof(c->gpu_tests));
	}
	if (!strcmp(k, "gpus")) {
		if (ix_gpu_parse_list(v, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for gpus: %s", perr.msg);
		return set_text(ps, k, v, c->gpus, sizeof(c->gpus));
	}
	if (!strcmp(k, "backend")) {
		if (strcmp(v, "cuda") && strcmp(v, "rocm"))
			return ix_plan_bad(ps, "bad value '%s' for backend (cuda or rocm)", v);
		return set_text(ps, k, v, c->gpu_backend, sizeof(c->gpu_backend));
	}
	if (!strcmp(k, "lib"))
		return set_text(ps, k, v, c->gpu_lib, sizeof(c->gpu_lib));
	if (!strcmp(k, "sysfs"))
		return set_text(ps, k, v, c->sysfs, sizeof(c->sysfs));
	if (!strcmp(k, "samples")) {
		if (ix_parse_uint(v, 1, 64, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		c->gpu_samples = (uint32_t)u;
		return 1;
	}
	return -1;
}

/* Which probes and path every setting applies to. */
static const struct {
	const char *key;
	unsigned probes;
	enum key_path path;
} settings[] = {
	{ "path", P_NET, ANY_PATH },
	{ "hosts", P_NET | P_INV, ANY_PATH },
	{ "host", P_NET | P_INV, ANY_PATH },
	{ "requires", P_ALL, ANY_PATH },
	{ "time", P_NET | P_MEM, ANY_PATH },
	{ "warmup", P_NET, ANY_PATH },
	{ "round_timeout", P_INCAST, ANY_PATH },
	{ "sizes", P_PAIR, ANY_PATH },
	{ "size", P_PAIR | P_GPU | P_MEM, ANY_PATH },
	{ "sweep", P_PAIR, ANY_PATH },
	{ "streams", P_BW | P_MESH, SOCKET_ONLY },
	{ "iters", P_NET | P_GPU | P_COLL, ANY_PATH },
	{ "rounds", P_INCAST | P_MESH, ANY_PATH },
	{ "pattern", P_MESH, ANY_PATH },
	{ "seed", P_MESH, ANY_PATH },
	{ "warmup_rounds", P_INCAST, ANY_PATH },
	{ "concurrency", P_MESH, ANY_PATH },
	{ "rate", P_BW | P_INCAST, SOCKET_ONLY },
	{ "sru", P_INCAST, ANY_PATH },
	{ "window", P_BW, SOCKET_ONLY },
	{ "direction", P_BW, SOCKET_ONLY },
	{ "congestion", P_BW, SOCKET_ONLY },
	{ "busy_poll", P_LAT, SOCKET_ONLY },
	{ "both_directions", P_MESH, ANY_PATH },
	{ "retest", P_MESH, ANY_PATH },
	{ "test", P_MESH, ANY_PATH },
	{ "rails", P_MESH, ANY_PATH },
	{ "mode", P_INCAST, ANY_PATH },
	{ "senders", P_INCAST, ANY_PATH },
	{ "bad_fraction", P_MESH, ANY_PATH },
	{ "lat_factor", P_MESH, ANY_PATH },
	{ "lat_baseline", P_MESH, ANY_PATH },
	{ "op", P_NET, RDMA_ONLY },
	{ "qps", P_NET, RDMA_ONLY },
	{ "tc", P_NET, RDMA_ONLY },
	{ "sl", P_NET, RDMA_ONLY },
	{ "gid_index", P_PAIR, RDMA_ONLY },
	{ "mtu", P_PAIR, RDMA_ONLY },
	{ "ib_dev", P_PAIR, RDMA_ONLY },
	{ "ib_port", P_PAIR, RDMA_ONLY },
	{ "gpu", P_PAIR | P_MESH, RDMA_ONLY },
	{ "tests", P_GPU | P_MEM, ANY_PATH },
	{ "initiators", P_MEM, ANY_PATH },
	{ "nodes", P_MEM, ANY_PATH },
	{ "threads", P_MEM, ANY_PATH },
	{ "latency_size", P_MEM, ANY_PATH },
	{ "hugepages", P_MEM, ANY_PATH },
	{ "slack", P_MEM, ANY_PATH },
	{ "gpus", P_GPU | P_COLL, ANY_PATH },
	{ "backend", P_GPU | P_COLL, ANY_PATH },
	{ "lib", P_GPU | P_COLL, ANY_PATH },
	{ "collective", P_COLL, ANY_PATH },
	{ "datatype", P_COLL, ANY_PATH },
	{ "reduction", P_COLL, ANY_PATH },
	{ "library", P_COLL, ANY_PATH },
	{ "library_path", P_COLL, ANY_PATH },
	{ "min_bytes", P_COLL, ANY_PATH },
	{ "max_bytes", P_COLL, ANY_PATH },
	{ "step_factor", P_COLL, ANY_PATH },
	{ "warmup_iters", P_COLL, ANY_PATH },
	{ "timeout", P_COLL, ANY_PATH },
	{ "samples", P_GPU, ANY_PATH },
	{ "sysfs", P_TOPO | P_COLL | P_MEM, ANY_PATH },
};

/* Settings of a check: what to run. */
static int setting(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	struct ix_err perr = { 0 };
	uint64_t u;
	double d;
	bool b;
	size_t i;
	int rc;

	if (!strcmp(k, "probe"))
		return set_probe(ps, c, v);
	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(k, settings[i].key))
			break;
	if (i == sizeof(settings) / sizeof(settings[0]))
		return -1; /* an expectation, or unknown */
	if (!c->have_probe)
		return ix_plan_bad(ps, "[%s] must name its probe first (probe = ...), not '%s'",
				   c->name, k);
	if (!(settings[i].probes & (1u << c->probe)))
		return ix_plan_bad(ps, "'%s' does not apply to %s %s check", k,
				   c->probe == IX_CHECK_INVENTORY ? "an" : "a",
				   ix_check_probe_name(c->probe));
	path_key(ps, c, settings[i].path, k);
	if (!strcmp(k, "iters") && c->probe == IX_CHECK_BW)
		path_key(ps, c, RDMA_ONLY, k); /* bw over sockets runs for a time */
	if (!strcmp(k, "requires"))
		return set_needs(ps, c, k, v);
	if ((rc = ix_plan_coll_key(ps, c, k, v)) >= 0 || (rc = ix_plan_mem_key(ps, c, k, v)) >= 0 ||
	    (rc = set_rdma(ps, c, k, v)) >= 0 || (rc = set_host_probe(ps, c, k, v)) >= 0)
		return rc;
	if (!strcmp(k, "path")) {
		const struct ix_transport *tp;
		if (ix_path_lookup(v, &tp, &perr) < 0)
			return ix_plan_bad(ps, "%s%s", perr.msg, "");
		c->bw.path = c->lat.path = c->mesh.bw.path = c->mesh.lat.path = tp->name;
		c->incast.bw.path = c->incast.read.path = tp->name;
		return 1;
	}
	if (!strcmp(k, "hosts") || !strcmp(k, "host")) {
		if (strlen(v) >= sizeof(c->hosts))
			return ix_plan_bad(ps, "'%s' is too long%s", k, "");
		memcpy(c->hosts, v, strlen(v) + 1);
		return 1;
	}
	if (!strcmp(k, "time") || !strcmp(k, "warmup") || !strcmp(k, "round_timeout")) {
		if (ix_parse_seconds(v, &d, &perr) < 0 || (d <= 0 && strcmp(k, "warmup")))
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : v);
		if (!strcmp(k, "time"))
			c->bw.duration_s = c->lat.duration_s = c->incast.bw.duration_s =
				c->mesh.bw.duration_s = c->mesh.lat.duration_s = d;
		else if (!strcmp(k, "warmup"))
			c->bw.warmup_s = c->lat.warmup_s = c->incast.bw.warmup_s =
				c->mesh.bw.warmup_s = c->mesh.lat.warmup_s = c->rdma.warmup_s = d;
		else
			c->incast.read.timeout_s = d;
		return 1;
	}
	if (!strcmp(k, "size") && c->probe == IX_CHECK_GPU) {
		if (ix_parse_size(v, &u, &perr) < 0 || u == 0 || u > SIZE_MAX / 2)
			return ix_plan_bad(ps, "bad value for size: %s",
					   perr.msg[0] ? perr.msg : v);
		c->gpu_size = u;
		return 1;
	}
	if (!strcmp(k, "sizes") || !strcmp(k, "size"))
		return sizes(ps, c, k, v);
	if (!strcmp(k, "sweep")) { /* powers of two up to this size */
		if (ix_parse_size(v, &u, &perr) < 0 || u == 0)
			return ix_plan_bad(ps, "bad value for sweep: %s%s", perr.msg, "");
		c->nsizes = (uint32_t)ix_size_sweep(1, u, c->sizes, IX_PLAN_MAX_SIZES);
		return 1;
	}
	if (!strcmp(k, "streams") || !strcmp(k, "iters") || !strcmp(k, "rounds") ||
	    !strcmp(k, "concurrency") || !strcmp(k, "warmup_rounds")) {
		if (ix_parse_uint(v, !strcmp(k, "warmup_rounds") ? 0 : 1, 10000000, &u, &perr) < 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k, perr.msg);
		if (!strcmp(k, "streams")) {
			if (u > IX_MAX_STREAMS)
				return ix_plan_bad(ps, "streams: at most 128%s%s", "", "");
			c->bw.streams = c->mesh.bw.streams = (uint32_t)u;
		} else if (!strcmp(k, "iters")) {
			c->lat.iters = c->mesh.lat.iters = c->rdma.iterations = u;
			c->gpu_iterations = (uint32_t)u;
		} else if (!strcmp(k, "rounds") && c->probe == IX_CHECK_MESH) {
			if (u > IX_PATTERN_MAX_ROUNDS)
				return ix_plan_bad(ps, "rounds: at most %u", IX_PATTERN_MAX_ROUNDS);
			c->pattern_rounds = (uint32_t)u;
		} else if (!strcmp(k, "rounds"))
			c->incast.read.rounds = (uint32_t)u;
		else if (!strcmp(k, "warmup_rounds"))
			c->incast.read.warmup_rounds = (uint32_t)u;
		else
			c->mesh.concurrency = (uint32_t)u;
		return 1;
	}
	if (!strcmp(k, "rate") || !strcmp(k, "sru") || !strcmp(k, "window")) {
		int rc2 = !strcmp(k, "rate") ? ix_parse_rate(v, &u, &perr)
					     : ix_parse_size(v, &u, &perr);
		if (rc2 < 0 || u == 0)
			return ix_plan_bad(ps, "bad value for %s: %s", k,
					   perr.msg[0] ? perr.msg : v);
		if (!strcmp(k, "rate"))
			c->bw.rate_bps = c->incast.bw.rate_bps = u;
		else if (!strcmp(k, "sru"))
			c->incast.read.sru = u;
		else
			c->bw.window = u;
		return 1;
	}
	if (!strcmp(k, "direction")) {
		if (!strcmp(v, "forward"))
			c->bw.mode = IX_MODE_FORWARD;
		else if (!strcmp(v, "reverse"))
			c->bw.mode = IX_MODE_REVERSE;
		else if (!strcmp(v, "bidir"))
			c->bw.mode = IX_MODE_BIDIR;
		else
			return ix_plan_bad(ps, "bad value '%s' for %s (forward, reverse, bidir)", v,
					   k);
		return 1;
	}
	if (!strcmp(k, "congestion")) {
		if (strlen(v) >= sizeof(c->bw.congestion))
			return ix_plan_bad(ps, "bad value '%s' for %s", v, k);
		memcpy(c->bw.congestion, v, strlen(v) + 1);
		return 1;
	}
	if (!strcmp(k, "busy_poll") || !strcmp(k, "both_directions") || !strcmp(k, "retest")) {
		if (!ix_plan_bool(v, &b))
			return ix_plan_bad(ps, "bad value '%s' for %s (yes or no)", v, k);
		if (!strcmp(k, "busy_poll"))
			c->lat.busy_poll = b;
		else if (!strcmp(k, "both_directions"))
			c->mesh.both_directions = b;
		else
			c->mesh.retest = b;
		return 1;
	}
	if (!strcmp(k, "test")) {
		c->mesh.tests = !strcmp(v, "bw")     ? IX_MESH_BW
				: !strcmp(v, "lat")  ? IX_MESH_LAT
				: !strcmp(v, "both") ? IX_MESH_BW | IX_MESH_LAT
						     : 0;
		return c->mesh.tests
			       ? 1
			       : ix_plan_bad(ps, "bad value '%s' for %s (bw, lat, both)", v, k);
	}
	if (!strcmp(k, "pattern"))
		return ix_pattern_parse(v, &c->pattern, &perr) < 0
			       ? ix_plan_bad(ps, "bad value for pattern: %s", perr.msg)
			       : 1;
	if (!strcmp(k, "seed")) {
		if (ix_parse_uint(v, 0, UINT64_MAX, &c->seed, &perr) < 0)
			return ix_plan_bad(ps, "bad value for seed: %s", perr.msg);
		c->have_seed = true;
		return 1;
	}
	if (!strcmp(k, "rails"))
		return ix_rail_spec_parse(v, &c->rails, &perr) < 0
			       ? ix_plan_bad(ps, "bad value for rails: %s", perr.msg)
			       : 1;
	if (!strcmp(k, "mode")) {
		if (!strcmp(v, "stream") || !strcmp(v, "read")) {
			c->incast.mode = v[0] == 'r' ? IX_INCAST_READ : IX_INCAST_STREAM;
			return 1;
		}
		return ix_plan_bad(ps, "bad value '%s' for %s (stream, read)", v, k);
	}
	if (!strcmp(k, "senders")) {
		char buf[256], *tok, *save = NULL;
		if (strlen(v) >= sizeof(buf))
			return ix_plan_bad(ps, "'%s' is too long%s", k, "");
		memcpy(buf, v, strlen(v) + 1);
		c->incast.nsweep = 0;
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			if (c->incast.nsweep >= 64 ||
			    ix_parse_uint(tok, 1, IX_MAX_FANIN, &u, &perr) < 0)
				return ix_plan_bad(ps, "bad value for senders: %s%s", perr.msg, "");
			c->sweep[c->incast.nsweep++] = (uint32_t)u;
		}
		return c->incast.nsweep ? 1
					: ix_plan_bad(ps, "'%s' lists no sender counts%s", k, "");
	}
	/* bad_fraction, lat_factor, lat_baseline */
	{
		char *end;
		d = strtod(v, &end);
		if (end == v || *end || d <= 0 || (!strcmp(k, "lat_baseline") && d > 100))
			return ix_plan_bad(ps, "bad value '%s' for %s", v, k);
		if (k[0] == 'b')
			c->mesh.rules.bw_fraction = d;
		else if (!strcmp(k, "lat_factor"))
			c->mesh.rules.lat_factor = d;
		else
			c->mesh.rules.lat_percentile = d;
		return 1;
	}
}

int ix_plan_check_key(struct ix_plan_parse *ps, struct ix_check *c, const char *k, const char *v)
{
	int rc = setting(ps, c, k, v);

	return rc < 0 ? add_expect(ps, c, k, v) : rc;
}
