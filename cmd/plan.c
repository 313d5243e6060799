/* Plan files for 'ixperf run' (ixperf-plan(5)), parsed with inih. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "cmd/common.h"
#include "cmd/plan.h"
#include "probes/host/inventory.h"
#include "probes/net/transport.h"
#include "report/doc/compare.h"
#include "report/doc/verdict.h"
#include "report/fmt/units.h"

/* The embedded default: a local acceptance run on loopback against agents
 * that 'ixperf run' starts itself (hosts left empty). */
static const char default_plan[] = "[plan]\n"
				   "name = local acceptance (loopback)\n"
				   "[tcp-bw]\n"
				   "probe = bw\n"
				   "time = 3\n"
				   "min_bw = 1Gbit\n"
				   "max_fabric_errors = 0\n"
				   "[tcp-bw-4-streams]\n"
				   "probe = bw\n"
				   "streams = 4\n"
				   "time = 3\n"
				   "min_bw = 1Gbit\n"
				   "[tcp-bw-sizes]\n"
				   "probe = bw\n"
				   "sizes = 1Ki,16Ki,128Ki,1Mi\n"
				   "time = 1\n"
				   "warmup = 0.2\n"
				   "min_bw = 100Mbit\n"
				   "[udp-bw]\n"
				   "probe = bw\n"
				   "path = udp\n"
				   "rate = 500M\n"
				   "time = 3\n"
				   "min_bw = 450Mbit\n"
				   "max_loss = 5%\n"
				   "[tcp-lat]\n"
				   "probe = lat\n"
				   "sizes = 64,4Ki\n"
				   "time = 2\n"
				   "max_p99 = 1ms\n"
				   "[udp-lat]\n"
				   "probe = lat\n"
				   "path = udp\n"
				   "time = 2\n"
				   "max_p99 = 1ms\n"
				   "[incast]\n"
				   "probe = incast\n"
				   "senders = 1,2,4\n"
				   "time = 2\n"
				   "warmup = 0.5\n"
				   "min_bw = 1Gbit\n"
				   "[incast-reads]\n"
				   "probe = incast\n"
				   "mode = read\n"
				   "senders = 1,4\n"
				   "sru = 64Ki\n"
				   "rounds = 100\n"
				   "max_stalled = 10\n";

struct parse {
	struct ix_plan *plan;
	const char *file;
	int line;
	struct ix_err *err;
	bool failed;
	const char *text; /* string input */
	size_t off;
	FILE *f;
};

const char *ix_check_probe_name(enum ix_check_probe p)
{
	static const char *const n[] = { "bw", "lat", "mesh", "incast" };
	return n[p];
}

static int bad(struct parse *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct parse *ps, const char *fmt, ...)
{
	char msg[IX_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ix_fail(ps->err, IX_EXIT_USAGE, "%s:%d: %.400s", ps->file, ps->line, msg);
	ps->failed = true;
	return 0; /* inih: stop */
}

static struct ix_check *check_for(struct parse *ps, const char *section)
{
	struct ix_plan *pl = ps->plan;

	if (pl->nchecks && strcmp(pl->checks[pl->nchecks - 1].name, section) == 0)
		return &pl->checks[pl->nchecks - 1];
	for (uint32_t i = 0; i < pl->nchecks; i++)
		if (strcmp(pl->checks[i].name, section) == 0)
			return NULL; /* a section split in two: refused by the caller */
	if (pl->nchecks >= IX_PLAN_MAX_CHECKS || strlen(section) >= sizeof(pl->checks->name))
		return NULL;
	struct ix_check *c = &pl->checks[pl->nchecks++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", section);
	c->line = ps->line;
	return c;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on"))
		return (*out = true);
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off"))
		return !(*out = false);
	return false;
}

/* "10%" or "0.1" as a fraction; "1%" style for loss is a percent. */
static int parse_percent(const char *v, double *frac, struct ix_err *err)
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

static int add_expect(struct parse *ps, struct ix_check *c, const char *key, const char *v)
{
	static const struct {
		const char *key;
		unsigned probes; /* bit per enum ix_check_probe */
		enum ix_expect_kind kind;
		const char *figure;
		char type; /* r rate, d duration, c count, p percent, f fraction */
	} keys[] = {
		{ "min_bw", 0xf, IX_EXPECT_MIN, "bits_per_second", 'r' },
		{ "max_retransmits", 0x1, IX_EXPECT_MAX, "retransmits", 'c' },
		{ "max_loss", 0x1, IX_EXPECT_MAX, "loss_percent", 'p' },
		{ "max_p50", 0x6, IX_EXPECT_MAX, "p50_ns", 'd' },
		{ "max_p90", 0x2, IX_EXPECT_MAX, "p90_ns", 'd' },
		{ "max_p99", 0x2, IX_EXPECT_MAX, "p99_ns", 'd' },
		{ "max_p999", 0x2, IX_EXPECT_MAX, "p99_9_ns", 'd' },
		{ "max_bad_pairs", 0x4, IX_EXPECT_MAX, "bad_pairs", 'c' },
		{ "min_pair_bw", 0x4, IX_EXPECT_MIN, "min_pair_bps", 'r' },
		{ "max_pair_lat", 0x4, IX_EXPECT_MAX, "p50_ns", 'd' },
		{ "max_suspects", 0x4, IX_EXPECT_MAX, "suspects", 'c' },
		{ "max_stalled", 0x8, IX_EXPECT_MAX, "stalled_rounds", 'c' },
		{ "min_jain", 0x8, IX_EXPECT_MIN, "jain", 'f' },
		{ "max_pfc_pauses", 0xf, IX_EXPECT_MAX, "pfc_pauses", 'c' },
		{ "max_cnp", 0xf, IX_EXPECT_MAX, "cnp", 'c' },
		{ "max_ecn_marked", 0xf, IX_EXPECT_MAX, "ecn_marked", 'c' },
		{ "max_fabric_drops", 0xf, IX_EXPECT_MAX, "fabric_drops", 'c' },
		{ "max_fabric_retransmissions", 0xf, IX_EXPECT_MAX, "fabric_retransmissions", 'c' },
		{ "max_fabric_errors", 0xf, IX_EXPECT_MAX, "fabric_errors", 'c' },
		{ "max_regression", 0xf, IX_EXPECT_REGRESSION, "headline", 'p' },
		{ "max_pair_regression", 0x4, IX_EXPECT_REGRESSION, "nodes_and_pairs", 'p' },
	};
	struct ix_expect *e;
	struct ix_err perr = { 0 };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t u;
		double d;

		if (strcmp(keys[i].key, key) != 0)
			continue;
		if (!c->have_probe)
			return bad(ps, "'%s' before 'probe' in [%s]", key, c->name);
		if (!(keys[i].probes & (1u << c->probe)))
			return bad(ps, "'%s' does not apply to a %s check", key,
				   ix_check_probe_name(c->probe));
		if (c->nexpect >= IX_PLAN_MAX_EXPECT)
			return bad(ps, "too many expectations in [%s]%s", c->name, "");
		e = &c->expect[c->nexpect];
		memset(e, 0, sizeof(*e));
		snprintf(e->key, sizeof(e->key), "%s", key);
		snprintf(e->text, sizeof(e->text), "%s", v);
		e->kind = keys[i].kind;
		e->figure = keys[i].figure;
		e->line = ps->line;
		switch (keys[i].type) {
		case 'r': {
			size_t n = strlen(v);
			e->unit = "bit/s";
			if (n > 5 && strcmp(v + n - 5, "%line") == 0) {
				char buf[32];
				snprintf(buf, sizeof(buf), "%.*s%%", (int)(n - 5), v);
				if (parse_percent(buf, &e->limit, &perr) < 0 || e->limit <= 0 ||
				    e->limit > 1)
					return bad(ps, "bad value '%s' for %s (e.g. 90%%line)", v,
						   key);
				e->line_relative = true;
			} else if (ix_parse_rate(v, &u, &perr) < 0) {
				return bad(ps, "bad value for %s: %s", key, perr.msg);
			} else {
				e->limit = (double)u;
			}
			break;
		}
		case 'd':
			e->unit = "ns";
			if (ix_parse_seconds(v, &d, &perr) < 0)
				return bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = d * 1e9;
			break;
		case 'c':
			e->unit = "";
			if (ix_parse_uint(v, 0, UINT64_MAX >> 8, &u, &perr) < 0)
				return bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = (double)u;
			break;
		case 'p':
			e->unit = keys[i].kind == IX_EXPECT_REGRESSION ? "" : "%";
			if (parse_percent(v, &d, &perr) < 0)
				return bad(ps, "bad value for %s: %s", key, perr.msg);
			e->limit = keys[i].kind == IX_EXPECT_REGRESSION ? d : d * 100.0;
			break;
		default:
			e->unit = "";
			if (ix_parse_seconds(v, &d, &perr) < 0 || d > 1)
				return bad(ps, "bad value '%s' for %s (a fraction, 0 to 1)", v,
					   key);
			e->limit = d;
		}
		/* The pair floors are the mesh's rules too: a pair past them
		 * is a bad pair whatever the median. */
		if (!strcmp(key, "min_pair_bw")) {
			if (e->line_relative)
				return bad(ps, "'%s' takes a rate, not a share of the line%s", key,
					   "");
			c->mesh.rules.min_bw_bps = e->limit;
		} else if (!strcmp(key, "max_pair_lat")) {
			c->mesh.rules.max_lat_ns = e->limit;
		}
		c->nexpect++;
		return 1;
	}
	return -1; /* not an expectation */
}

static int sizes(struct parse *ps, struct ix_check *c, const char *key, const char *v)
{
	char buf[512], *tok, *save = NULL;
	struct ix_err perr = { 0 };

	if (strlen(v) >= sizeof(buf))
		return bad(ps, "'%s' is too long%s", key, "");
	memcpy(buf, v, strlen(v) + 1);
	c->nsizes = 0;
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		uint64_t s;
		if (c->nsizes >= IX_PLAN_MAX_SIZES)
			return bad(ps, "too many sizes in '%s'%s", key, "");
		if (ix_parse_size(tok, &s, &perr) < 0 || s == 0)
			return bad(ps, "bad size in %s: %s", key, perr.msg[0] ? perr.msg : tok);
		c->sizes[c->nsizes++] = s;
	}
	return c->nsizes ? 1 : bad(ps, "'%s' lists no sizes%s", key, "");
}

/* Settings of a check: what to run. */
static int setting(struct parse *ps, struct ix_check *c, const char *k, const char *v)
{
	struct ix_err perr = { 0 };
	uint64_t u;
	double d;
	bool b;

	if (!strcmp(k, "probe")) {
		static const char *const names[] = { "bw", "lat", "mesh", "incast" };
		for (int i = 0; i < 4; i++)
			if (!strcmp(v, names[i])) {
				c->probe = (enum ix_check_probe)i;
				c->have_probe = true;
				return 1;
			}
		return bad(ps,
			   "unknown probe '%s' (bw, lat, mesh, incast; rdma, gpu and topo are %s)",
			   v, "not in this build");
	}
	if (!c->have_probe)
		return bad(ps, "[%s] must name its probe first (probe = ...), not '%s'", c->name,
			   k);
	if (!strcmp(k, "path")) {
		const struct ix_transport *tp;
		if (ix_path_lookup(v, &tp, &perr) < 0)
			return bad(ps, "%s%s", perr.msg, "");
		c->bw.path = c->lat.path = c->mesh.bw.path = c->mesh.lat.path = tp->name;
		c->incast.bw.path = c->incast.read.path = tp->name;
		return 1;
	}
	if (!strcmp(k, "hosts") || !strcmp(k, "host")) {
		if (strlen(v) >= sizeof(c->hosts))
			return bad(ps, "'%s' is too long%s", k, "");
		memcpy(c->hosts, v, strlen(v) + 1);
		return 1;
	}
	if (!strcmp(k, "time") || !strcmp(k, "warmup") || !strcmp(k, "round_timeout")) {
		if (ix_parse_seconds(v, &d, &perr) < 0 || (d <= 0 && strcmp(k, "warmup")))
			return bad(ps, "bad value for %s: %s", k, perr.msg[0] ? perr.msg : v);
		if (!strcmp(k, "time"))
			c->bw.duration_s = c->lat.duration_s = c->incast.bw.duration_s =
				c->mesh.bw.duration_s = c->mesh.lat.duration_s = d;
		else if (!strcmp(k, "warmup"))
			c->bw.warmup_s = c->lat.warmup_s = c->incast.bw.warmup_s =
				c->mesh.bw.warmup_s = c->mesh.lat.warmup_s = d;
		else
			c->incast.read.timeout_s = d;
		return 1;
	}
	if (!strcmp(k, "sizes") || !strcmp(k, "size"))
		return sizes(ps, c, k, v);
	if (!strcmp(k, "sweep")) { /* powers of two up to this size */
		if (ix_parse_size(v, &u, &perr) < 0 || u == 0)
			return bad(ps, "bad value for sweep: %s%s", perr.msg, "");
		c->nsizes = (uint32_t)ix_size_sweep(1, u, c->sizes, IX_PLAN_MAX_SIZES);
		return 1;
	}
	if (!strcmp(k, "streams") || !strcmp(k, "iters") || !strcmp(k, "rounds") ||
	    !strcmp(k, "concurrency") || !strcmp(k, "warmup_rounds")) {
		if (ix_parse_uint(v, !strcmp(k, "warmup_rounds") ? 0 : 1, 10000000, &u, &perr) < 0)
			return bad(ps, "bad value for %s: %s", k, perr.msg);
		if (!strcmp(k, "streams")) {
			if (u > IX_MAX_STREAMS)
				return bad(ps, "streams: at most 128%s%s", "", "");
			c->bw.streams = c->mesh.bw.streams = (uint32_t)u;
		} else if (!strcmp(k, "iters"))
			c->lat.iters = c->mesh.lat.iters = u;
		else if (!strcmp(k, "rounds"))
			c->incast.read.rounds = (uint32_t)u;
		else if (!strcmp(k, "warmup_rounds"))
			c->incast.read.warmup_rounds = (uint32_t)u;
		else
			c->mesh.concurrency = (uint32_t)u;
		return 1;
	}
	if (!strcmp(k, "rate") || !strcmp(k, "sru") || !strcmp(k, "window")) {
		int rc = !strcmp(k, "rate") ? ix_parse_rate(v, &u, &perr)
					    : ix_parse_size(v, &u, &perr);
		if (rc < 0 || u == 0)
			return bad(ps, "bad value for %s: %s", k, perr.msg[0] ? perr.msg : v);
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
			return bad(ps, "bad value '%s' for %s (forward, reverse, bidir)", v, k);
		return 1;
	}
	if (!strcmp(k, "congestion")) {
		if (strlen(v) >= sizeof(c->bw.congestion))
			return bad(ps, "bad value '%s' for %s", v, k);
		memcpy(c->bw.congestion, v, strlen(v) + 1);
		return 1;
	}
	if (!strcmp(k, "busy_poll") || !strcmp(k, "both_directions") || !strcmp(k, "retest")) {
		if (!parse_bool(v, &b))
			return bad(ps, "bad value '%s' for %s (yes or no)", v, k);
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
		return c->mesh.tests ? 1 : bad(ps, "bad value '%s' for %s (bw, lat, both)", v, k);
	}
	if (!strcmp(k, "mode")) {
		if (!strcmp(v, "stream") || !strcmp(v, "read")) {
			c->incast.mode = v[0] == 'r' ? IX_INCAST_READ : IX_INCAST_STREAM;
			return 1;
		}
		return bad(ps, "bad value '%s' for %s (stream, read)", v, k);
	}
	if (!strcmp(k, "senders")) {
		char buf[256], *tok, *save = NULL;
		if (strlen(v) >= sizeof(buf))
			return bad(ps, "'%s' is too long%s", k, "");
		memcpy(buf, v, strlen(v) + 1);
		c->incast.nsweep = 0;
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			if (c->incast.nsweep >= 64 ||
			    ix_parse_uint(tok, 1, IX_MAX_FANIN, &u, &perr) < 0)
				return bad(ps, "bad value for senders: %s%s", perr.msg, "");
			c->sweep[c->incast.nsweep++] = (uint32_t)u;
		}
		return c->incast.nsweep ? 1 : bad(ps, "'%s' lists no sender counts%s", k, "");
	}
	if (!strcmp(k, "bad_fraction") || !strcmp(k, "lat_factor") || !strcmp(k, "lat_baseline")) {
		char *end;
		d = strtod(v, &end);
		if (end == v || *end || d <= 0 || (!strcmp(k, "lat_baseline") && d > 100))
			return bad(ps, "bad value '%s' for %s", v, k);
		if (k[0] == 'b')
			c->mesh.rules.bw_fraction = d;
		else if (!strcmp(k, "lat_factor"))
			c->mesh.rules.lat_factor = d;
		else
			c->mesh.rules.lat_percentile = d;
		return 1;
	}
	return -1;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct parse *ps = user;
	struct ix_plan *pl = ps->plan;
	struct ix_check *c;
	int rc;

	if (ps->failed)
		return 0;
	if (!strcmp(section, "plan")) {
		char *dst = !strcmp(key, "name")         ? pl->name
			    : !strcmp(key, "hosts")      ? pl->hosts
			    : !strcmp(key, "token_file") ? pl->token_file
			    : !strcmp(key, "baseline")   ? pl->baseline
							 : NULL;
		size_t cap = dst == pl->name ? sizeof(pl->name) : sizeof(pl->hosts);

		if (!dst)
			return bad(ps,
				   "unknown key '%s' in [%s] (name, hosts, token_file, baseline)",
				   key, section);
		if (strlen(value) >= cap)
			return bad(ps, "'%s' is too long%s", key, "");
		memcpy(dst, value, strlen(value) + 1);
		return 1;
	}
	if (!section[0])
		return bad(ps, "'%s' outside any section%s", key, "");
	c = check_for(ps, section);
	if (!c)
		return bad(ps, "[%s] appears twice, or too many checks%s", section, "");
	rc = setting(ps, c, key, value);
	if (rc < 0)
		rc = add_expect(ps, c, key, value);
	if (rc < 0)
		return bad(ps, "unknown key '%s' in [%s] (see ixperf-plan(5))", key, section);
	return rc;
}

/* Line reader that counts lines, so every message can say file:line. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;

	ps->line++;
	if (ps->f)
		return fgets(str, num, ps->f);
	if (!ps->text[ps->off])
		return NULL;
	{
		const char *nl = strchr(ps->text + ps->off, '\n');
		size_t n = nl ? (size_t)(nl - ps->text - ps->off) + 1 : strlen(ps->text + ps->off);

		if (n >= (size_t)num)
			n = (size_t)num - 1;
		memcpy(str, ps->text + ps->off, n);
		str[n] = '\0';
		ps->off += n;
	}
	return str;
}

/* A mesh check fails on a bad pair unless it says how many it allows
 * (max_bad_pairs), as 'ixperf mesh' exits 4 on one: a dead pair is never
 * a pass. The section's own line is the expectation's. */
static int implicit_bad_pairs(struct parse *ps, struct ix_check *c)
{
	for (uint32_t i = 0; i < c->nexpect; i++)
		if (!strcmp(c->expect[i].key, "max_bad_pairs"))
			return 0;
	ps->line = c->line; /* the file is read: the line is the expectation's */
	if (add_expect(ps, c, "max_bad_pairs", "0") != 1)
		return -1;
	snprintf(c->expect[c->nexpect - 1].text, sizeof(c->expect[0].text), "0 (the default)");
	return 0;
}

/* Defaults, and what every check must have. */
static int finish(struct parse *ps)
{
	struct ix_plan *pl = ps->plan;

	if (!pl->nchecks)
		return ix_fail(ps->err, IX_EXIT_USAGE, "%s: no checks (one [section] per check)",
			       ps->file);
	for (uint32_t i = 0; i < pl->nchecks; i++) {
		struct ix_check *c = &pl->checks[i];
		const struct ix_transport *tp;

		if (!c->have_probe)
			return ix_fail(ps->err, IX_EXIT_USAGE, "%s:%d: [%s] names no probe",
				       ps->file, c->line, c->name);
		tp = ix_transport_find(c->bw.path ? c->bw.path : "tcp");
		c->bw.path = c->lat.path = c->mesh.bw.path = c->mesh.lat.path = tp->name;
		c->incast.bw.path = c->incast.read.path = tp->name;
		if (!c->bw.streams)
			c->bw.streams = c->mesh.bw.streams = 1;
		if (c->bw.duration_s <= 0)
			c->bw.duration_s = c->incast.bw.duration_s = c->mesh.bw.duration_s = 5;
		if (c->lat.duration_s <= 0 && !c->lat.iters)
			c->lat.duration_s = c->mesh.lat.duration_s = 2;
		if (c->lat.iters)
			c->lat.duration_s = c->mesh.lat.duration_s = 0;
		c->lat.timeout_s = c->mesh.lat.timeout_s = 1;
		if ((tp->caps & IX_CAP_NEEDS_RATE) && !c->bw.rate_bps)
			c->bw.rate_bps = c->incast.bw.rate_bps = 1000000000ull;
		c->mesh.bw.rate_bps = c->bw.rate_bps;
		c->mesh.bw.msg_size = tp->default_msg_size;
		c->mesh.lat.msg_size = 64;
		if (!c->mesh.tests)
			c->mesh.tests = IX_MESH_BW | IX_MESH_LAT;
		c->incast.bw.streams = 1;
		c->incast.bw.msg_size = tp->default_msg_size;
		c->incast.sweep = c->sweep;
		if (!c->incast.read.sru)
			c->incast.read.sru = 256 * 1024;
		if (!c->incast.read.rounds)
			c->incast.read.rounds = 200;
		if (c->incast.read.timeout_s <= 0)
			c->incast.read.timeout_s = 5;
		if (c->probe == IX_CHECK_INCAST && c->incast.mode == IX_INCAST_READ &&
		    !(tp->caps & IX_CAP_BLOCKS))
			return ix_fail(ps->err, IX_EXIT_USAGE,
				       "%s:%d: [%s]: synchronised reads need path tcp", ps->file,
				       c->line, c->name);
		for (uint32_t k = 0; k < c->nsizes; k++)
			if (c->probe == IX_CHECK_BW &&
			    (c->sizes[k] < tp->min_msg_size || c->sizes[k] > tp->max_msg_size))
				return ix_fail(ps->err, IX_EXIT_USAGE,
					       "%s:%d: [%s]: size %llu outside [%llu, %llu] for %s",
					       ps->file, c->line, c->name,
					       (unsigned long long)c->sizes[k],
					       (unsigned long long)tp->min_msg_size,
					       (unsigned long long)tp->max_msg_size, tp->name);
		if (!c->nsizes) {
			c->sizes[0] = c->probe == IX_CHECK_LAT ? 64 : tp->default_msg_size;
			c->nsizes = 1;
		}
		if (c->probe == IX_CHECK_MESH && implicit_bad_pairs(ps, c) < 0)
			return -1;
		if (c->probe == IX_CHECK_LAT && c->sizes[0] < tp->min_lat_size)
			return ix_fail(ps->err, IX_EXIT_USAGE,
				       "%s:%d: [%s]: UDP latency messages are at least 8 bytes",
				       ps->file, c->line, c->name);
	}
	if (!pl->name[0])
		snprintf(pl->name, sizeof(pl->name), "%.127s", pl->file[0] ? pl->file : "plan");
	return 0;
}

static int parse(struct parse *ps, struct ix_plan *plan, const char *file, struct ix_err *err)
{
	int rc;

	memset(plan, 0, sizeof(*plan));
	plan->checks = calloc(IX_PLAN_MAX_CHECKS, sizeof(*plan->checks));
	if (!plan->checks)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	ps->plan = plan;
	ps->file = file;
	ps->err = err;
	if (ps->f) /* a file on disk, not the embedded text */
		snprintf(plan->file, sizeof(plan->file), "%s", file);
	rc = ini_parse_stream(reader, ps, on_key, ps);
	if (ps->failed)
		return -1;
	if (rc > 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "%s:%d: not an INI line (key = value or [section])", file, rc);
	if (rc < 0)
		return ix_fail(err, IX_EXIT_FAIL, "%s: cannot read the plan", file);
	return finish(ps);
}

int ix_plan_parse_string(const char *text, const char *name, struct ix_plan *plan,
			 struct ix_err *err)
{
	struct parse ps = { .text = text };
	int rc = parse(&ps, plan, name, err);

	if (rc == 0 && !(plan->text = strdup(text)))
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (rc < 0)
		ix_plan_free(plan);
	return rc;
}

/* The whole file, bounded: plans are small. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t n = 0;

	if (!f)
		return NULL;
	buf = malloc(256 * 1024 + 1);
	if (buf)
		n = fread(buf, 1, 256 * 1024, f);
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

int ix_plan_load(const char *path, struct ix_plan *plan, struct ix_err *err)
{
	struct parse ps = { 0 };
	int rc;

	if (!path)
		return ix_plan_parse_string(default_plan, "(default plan)", plan, err);
	ps.f = fopen(path, "re");
	if (!ps.f)
		return ix_fail(err, IX_EXIT_USAGE, "cannot open plan %s: %s", path,
			       strerror(errno));
	rc = parse(&ps, plan, path, err);
	fclose(ps.f);
	if (rc == 0 && !(plan->text = slurp(path)))
		rc = ix_fail(err, IX_EXIT_FAIL, "cannot read plan %s again", path);
	if (rc < 0)
		ix_plan_free(plan);
	return rc;
}

void ix_plan_free(struct ix_plan *plan)
{
	free(plan->text);
	free(plan->checks);
	memset(plan, 0, sizeof(*plan));
}

enum ix_check_source ix_check_source(const struct ix_plan *pl, const struct ix_check *c,
				     bool launched)
{
	const char *spec = c->hosts[0] ? c->hosts : pl->hosts;

	if (!strcmp(spec, IX_PLAN_TASKS))
		return IX_SRC_TASKS;
	if (spec[0])
		return IX_SRC_HOSTS;
	return launched ? IX_SRC_TASKS : IX_SRC_LOCAL;
}

uint32_t ix_plan_local_agents(const struct ix_plan *pl, uint32_t max)
{
	uint32_t need = 0;

	for (uint32_t i = 0; i < pl->nchecks; i++) {
		const struct ix_check *c = &pl->checks[i];
		uint32_t k = c->probe == IX_CHECK_MESH ? 4 : 1;

		if (ix_check_source(pl, c, false) != IX_SRC_LOCAL)
			continue;
		for (uint32_t s = 0; c->probe == IX_CHECK_INCAST && s < c->incast.nsweep; s++)
			if (c->sweep[s] + 1 > k)
				k = c->sweep[s] + 1;
		if (k > need)
			need = k;
	}
	return need > max ? max : need;
}

bool ix_plan_uses_tasks(const struct ix_plan *pl)
{
	for (uint32_t i = 0; i < pl->nchecks; i++)
		if (ix_check_source(pl, &pl->checks[i], true) == IX_SRC_TASKS)
			return true;
	return false;
}

uint32_t ix_check_incast_fit(const struct ix_check *c, size_t nhosts, uint32_t *fit, char *skipped,
			     size_t len)
{
	uint32_t most = nhosts ? (uint32_t)nhosts - 1 : 0, n = 0;
	size_t k = 0;

	skipped[0] = '\0';
	if (!c->incast.nsweep) {
		fit[0] = most;
		return most ? 1 : 0;
	}
	for (uint32_t s = 0; s < c->incast.nsweep; s++) {
		if (c->sweep[s] <= most)
			fit[n++] = c->sweep[s];
		else if (k + 1 < len)
			k += (size_t)snprintf(skipped + k, len - k, "%s%u", k ? "," : "",
					      c->sweep[s]);
	}
	return n;
}

const char *ix_check_judge(const struct ix_check *c, json_t *results, json_t *baseline,
			   const char *hosts, json_t *out, char *why, size_t whylen)
{
	const char *probe = ix_check_probe_name(c->probe);
	struct ix_headline h;
	bool fail = false, error = false;

	ix_headline_of(probe, results, &h);
	for (uint32_t i = 0; i < c->nexpect; i++) {
		const struct ix_expect *e = &c->expect[i];
		double v = 0, limit = e->limit, base;
		json_t *regressed = NULL;
		bool have, pass;

		if (e->kind == IX_EXPECT_REGRESSION && !strcmp(e->figure, "nodes_and_pairs")) {
			have = ix_detail_judge(baseline, c->name, results, limit,
					       IX_PLAN_MAX_REGRESSED, &v, regressed = json_array(),
					       why, whylen);
		} else if (e->kind == IX_EXPECT_REGRESSION) {
			have = h.valid && baseline &&
			       ix_baseline_headline(baseline, c->name, &base) && base > 0;
			if (have) /* the fraction it got worse by */
				v = h.higher_better ? (base - h.value) / base
						    : (h.value - base) / base;
			if (!baseline)
				snprintf(why, whylen,
					 "max_regression needs a baseline (--baseline)");
			else if (!have)
				snprintf(why, whylen, "the baseline has no '%s' figure", c->name);
		} else {
			have = ix_figure_of(probe, results, e->figure, &v);
			if (e->line_relative) {
				char host[IX_HOST_NAME_MAX];
				double rate;

				snprintf(host, sizeof(host), "%.*s", (int)strcspn(hosts, ":,"),
					 hosts);
				rate = ix_link_rate_bps(host, "");
				if (rate <= 0) {
					have = false;
					snprintf(why, whylen,
						 "%s: the link rate towards %s is unknown "
						 "(loopback, or "
						 "no speed in sysfs)",
						 e->key, host);
				}
				limit = e->limit * rate;
			}
		}
		pass = have && (e->kind == IX_EXPECT_MIN ? v >= limit : v <= limit);
		error |= !have;
		fail |= have && !pass;
		json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:f,s:o,s:s,s:b,s:i}", "key",
						     e->key, "text", e->text, "figure", e->figure,
						     "limit", limit, "measured",
						     have ? json_real(v) : json_null(), "unit",
						     e->unit, "pass", pass, "line", e->line));
		if (regressed) /* the nodes and pairs past the limit, by name */
			json_object_set_new(json_array_get(out, json_array_size(out) - 1),
					    "regressed", regressed);
	}
	/* Nothing expected: the figures are information, not a pass. */
	return error ? "ERROR" : fail ? "FAIL" : c->nexpect ? "PASS" : "INFO";
}
