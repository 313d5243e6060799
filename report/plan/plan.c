/* Plan files for 'ixperf run' (ixperf-plan(5)), parsed with inih. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "probes/host/inventory.h"
#include "probes/net/transport.h"
#include "probes/rdma/setup.h"
#include "report/doc/compare.h"
#include "report/doc/verdict.h"
#include "report/plan/parse.h"
#include "report/plan/plan.h"

/* The embedded default: a local acceptance run on loopback against agents
 * that 'ixperf run' starts itself (hosts left empty); RDMA towards one on
 * an address a RoCE GID holds, the GPUs and the topology where the machine
 * has them. */
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
				   "max_stalled = 10\n"
				   /* The paths this machine may have, each run only where it
				    * does (a SKIP, with the reason, elsewhere). */
				   "[rdma-bw]\n"
				   "probe = bw\n"
				   "path = rdma\n"
				   "requires = rdma\n"
				   "time = 2\n"
				   "warmup = 0.5\n"
				   "min_bw = 100Mbit\n"
				   "[rdma-lat]\n"
				   "probe = lat\n"
				   "path = rdma\n"
				   "requires = rdma\n"
				   "time = 1\n"
				   "max_p99 = 1ms\n"
				   "[gpu-pcie]\n"
				   "probe = gpu\n"
				   "requires = gpu\n"
				   "tests = host_to_device_memcpy_ce,device_to_host_memcpy_ce\n"
				   "min_bw = 70%link\n"
				   "[topology]\n"
				   "probe = topo\n"
				   "requires = rdma\n"
				   "max_findings = 0\n";

const char *ix_check_probe_name(enum ix_check_probe p)
{
	static const char *const n[IX_CHECK_PROBES] = { "bw",        "lat",  "mesh",
							"incast",    "gpu",  "topo",
							"inventory", "coll", "mem" };
	return n[p];
}

int ix_plan_bad(struct ix_plan_parse *ps, const char *fmt, ...)
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

static struct ix_check *check_for(struct ix_plan_parse *ps, const char *section)
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

#define IX_RDMA_LAT_DEFAULT_SIZE 2 /* as ixperf lat --path rdma (perftest's) */

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct ix_plan_parse *ps = user;
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
			return ix_plan_bad(
				ps, "unknown key '%s' in [%s] (name, hosts, token_file, baseline)",
				key, section);
		if (strlen(value) >= cap)
			return ix_plan_bad(ps, "'%s' is too long%s", key, "");
		memcpy(dst, value, strlen(value) + 1);
		return 1;
	}
	if (!section[0])
		return ix_plan_bad(ps, "'%s' outside any section%s", key, "");
	c = check_for(ps, section);
	if (!c)
		return ix_plan_bad(ps, "[%s] appears twice, or too many checks%s", section, "");
	rc = ix_plan_check_key(ps, c, key, value);
	if (rc < 0)
		return ix_plan_bad(ps, "unknown key '%s' in [%s] (see ixperf-plan(5))", key,
				   section);
	return rc;
}

/* Line reader that counts lines, so every message can say file:line. */
static char *reader(char *str, int num, void *stream)
{
	struct ix_plan_parse *ps = stream;

	ps->line++;
	if (ps->failed)
		return NULL;
	if (ps->f) {
		if (!fgets(str, num, ps->f))
			return NULL;
	} else {
		const char *nl = strchr(ps->text + ps->off, '\n');
		size_t n = nl ? (size_t)(nl - ps->text - ps->off) + 1 : strlen(ps->text + ps->off);

		if (!n)
			return NULL;
		if (n >= (size_t)num)
			n = (size_t)num - 1;
		memcpy(str, ps->text + ps->off, n);
		str[n] = '\0';
		ps->off += n;
	}
	/* A section header without its ']': inih goes on with the section
	 * before it and would blame a later line; this one is at fault. */
	{
		const char *p = str + strspn(str, " \t");

		if (*p == '[' && !strchr(p, ']')) {
			ix_plan_bad(ps, "'[' without ']': a section is [name]%s", "");
			return NULL;
		}
	}
	return str;
}

/* A key that holds for the other kind of path than the check's, at its
 * line. */
static int path_keys_fit(struct ix_plan_parse *ps, struct ix_check *c,
			 const struct ix_transport *tp)
{
	bool rdma = tp->caps & IX_CAP_RDMA;

	if (rdma && c->socket_key[0])
		return ix_fail(ps->err, IX_EXIT_USAGE,
			       "%s:%d: [%s]: '%s' does not apply to path rdma", ps->file,
			       c->socket_key_line, c->name, c->socket_key);
	if (!rdma && c->rdma_key[0])
		return ix_fail(ps->err, IX_EXIT_USAGE,
			       "%s:%d: [%s]: '%s' applies to path = rdma only (this check runs %s)",
			       ps->file, c->rdma_key_line, c->name, c->rdma_key, tp->name);
	return 0;
}

/* path = rdma: the test's time or count, and the fabric's options for
 * mesh and incast, whose agents run op, qps, tc and sl. */
static void rdma_defaults(struct ix_check *c)
{
	struct ix_rdma_params *p = &c->rdma;

	if (p->iterations)
		p->duration_s = 0;
	else
		p->duration_s = c->probe == IX_CHECK_LAT ? c->lat.duration_s : c->bw.duration_s;
	c->mesh.rdma = c->incast.rdma = *p;
	c->mesh.rdma.kind = IX_RDMA_MESH;
	c->incast.rdma.kind = IX_RDMA_INCAST;
	/* gpu: the buffers of the end that initiates each pair */
	if (c->gpu == IX_PLAN_GPU_AUTO)
		snprintf(c->mesh.gpu, sizeof(c->mesh.gpu), "auto");
	else if (c->gpu >= 0)
		snprintf(c->mesh.gpu, sizeof(c->mesh.gpu), "%d", c->gpu & 63);
}

/* gpu and topo checks run on this machine: no agents, no path. */
/* An expectation of 0 the check did not name: none is expected. */
static void expect_none(struct ix_check *c, const char *key, const char *figure)
{
	struct ix_expect *e;

	for (uint32_t k = 0; k < c->nexpect; k++)
		if (!strcmp(c->expect[k].key, key))
			return;
	if (c->nexpect >= IX_PLAN_MAX_EXPECT)
		return;
	e = &c->expect[c->nexpect++];
	memset(e, 0, sizeof(*e));
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->text, sizeof(e->text), "0 (default)");
	e->kind = IX_EXPECT_MAX;
	e->figure = figure;
	e->unit = "";
	e->line = c->line;
}

static void host_check_defaults(struct ix_check *c)
{
	c->bw.path = c->lat.path =
		c->probe == IX_CHECK_GPU || c->probe == IX_CHECK_COLL ? "gpu" : "sysfs";
	/* A wrong element, or a rank or link named slow or missing, fails a
	 * collective unless the check allows some. */
	if (c->probe == IX_CHECK_COLL) {
		expect_none(c, "max_wrong", "wrong");
		expect_none(c, "max_slow", "slow");
	}
	/* A pair slower than its firmware advertises fails a mem check
	 * unless the check allows some. */
	if (c->probe == IX_CHECK_MEM) {
		c->bw.path = c->lat.path = "memory";
		expect_none(c, "max_slow", "slow");
		if (!c->mem.tests)
			c->mem.tests = IX_MEM_T_ALL;
		if (c->mem.time_s <= 0)
			c->mem.time_s = 0.5;
		if (!c->mem_have_slack)
			c->mem.slack = 0.25;
		c->mem.sysfs = c->sysfs;
	}
	if (c->probe == IX_CHECK_TOPO || c->probe == IX_CHECK_INVENTORY)
		expect_none(c, "max_findings", "findings");
	if (c->probe == IX_CHECK_INVENTORY) {
		c->bw.path = c->lat.path = "agents";
		expect_none(c, "max_odd_nodes", "odd_nodes");
	}
}

/* Defaults, and what every check must have. */
static int finish(struct ix_plan_parse *ps)
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
		if (c->probe == IX_CHECK_GPU || c->probe == IX_CHECK_TOPO ||
		    c->probe == IX_CHECK_INVENTORY || c->probe == IX_CHECK_COLL ||
		    c->probe == IX_CHECK_MEM) {
			host_check_defaults(c);
			continue;
		}
		if (ix_path_lookup(c->bw.path, &tp, ps->err) < 0)
			return -1;
		if (path_keys_fit(ps, c, tp) < 0)
			return -1;
		if (c->probe == IX_CHECK_MESH && ix_plan_implicit_bad_pairs(ps, c) < 0)
			return -1;
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
			c->sizes[0] = c->probe != IX_CHECK_LAT ? tp->default_msg_size
				      : tp->caps & IX_CAP_RDMA ? IX_RDMA_LAT_DEFAULT_SIZE
							       : 64;
			c->nsizes = 1;
		}
		if (c->probe == IX_CHECK_LAT && c->sizes[0] < tp->min_lat_size)
			return ix_fail(ps->err, IX_EXIT_USAGE,
				       "%s:%d: [%s]: UDP latency messages are at least 8 bytes",
				       ps->file, c->line, c->name);
		if (tp->caps & IX_CAP_RDMA)
			rdma_defaults(c);
	}
	if (!pl->name[0])
		snprintf(pl->name, sizeof(pl->name), "%.127s", pl->file[0] ? pl->file : "plan");
	return 0;
}

static int parse(struct ix_plan_parse *ps, struct ix_plan *plan, const char *file,
		 struct ix_err *err)
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
	struct ix_plan_parse ps = { .text = text };
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
	struct ix_plan_parse ps = { 0 };
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

/* gpu, coll, mem and topo checks run on this machine, without agents. */
static bool on_agents(const struct ix_check *c)
{
	return c->probe != IX_CHECK_GPU && c->probe != IX_CHECK_TOPO && c->probe != IX_CHECK_COLL &&
	       c->probe != IX_CHECK_MEM;
}

uint32_t ix_plan_local_agents(const struct ix_plan *pl, uint32_t max)
{
	uint32_t need = 0;

	for (uint32_t i = 0; i < pl->nchecks; i++) {
		const struct ix_check *c = &pl->checks[i];
		uint32_t k = c->probe == IX_CHECK_MESH ? 4 : 1;

		if (ix_check_source(pl, c, false) != IX_SRC_LOCAL || !on_agents(c))
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
		if (on_agents(&pl->checks[i]) &&
		    ix_check_source(pl, &pl->checks[i], true) == IX_SRC_TASKS)
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

/* The sentences of a topo result's findings. */
static json_t *findings_of(json_t *results, bool odd)
{
	json_t *r = json_array_get(results, 0), *out = json_array(), *f;
	size_t i;

	json_array_foreach(json_object_get(r, odd ? "odd_ones_out" : "findings"), i, f)
	{
		const char *m = json_string_value(json_object_get(f, "message"));
		const char *h = json_string_value(json_object_get(f, "host"));
		const char *dev = json_string_value(json_object_get(f, "device"));

		if (odd) /* "node07:5301: mlx5_0 fw 28.39.1002, where 3 of 4 nodes have ..." */
			json_array_append_new(
				out,
				json_sprintf("%s: %s%s%s %s, where %d of %d nodes have %s",
					     h ? h : "?", dev ? dev : "", dev && dev[0] ? " " : "",
					     json_string_value(json_object_get(f, "field")) ?: "",
					     json_string_value(json_object_get(f, "value")) ?: "",
					     (int)json_integer_value(json_object_get(f, "agree")),
					     (int)json_integer_value(json_object_get(f, "of")),
					     json_string_value(json_object_get(f, "majority"))
						     ?: ""));
		else if (m) /* a fleet's findings name their node */
			json_array_append_new(out,
					      h ? json_sprintf("%s: %s", h, m) : json_string(m));
	}
	return out;
}

/* Each bad rail of a rail mesh with why: "rail 1 (10.2.0.0/24): median
 * 80.0 Mbit/s is 20% of the rails' 400.0 Mbit/s". */
static json_t *bad_rails_of(json_t *results)
{
	json_t *r = json_array_get(results, json_array_size(results) - 1), *out = json_array(), *x;
	size_t i;

	json_array_foreach(json_object_get(r, "rails"), i,
			   x) if (json_is_true(json_object_get(x, "bad")))
		json_array_append_new(
			out, json_sprintf("rail %zu (%s): %s", i,
					  json_string_value(json_object_get(x, "name")) ?: "?",
					  json_string_value(json_object_get(x, "reason")) ?: ""));
	return out;
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
		if (!have && !why[0]) /* the first expectation nothing measured */
			snprintf(why, whylen, "%s = %s: the %s check measured no such figure",
				 e->key, e->text, probe);
		pass = have && (e->kind == IX_EXPECT_MIN ? v >= limit : v <= limit);
		error |= !have;
		fail |= have && !pass;
		json_t *o = json_pack("{s:s,s:s,s:s,s:f,s:o,s:s,s:b,s:i}", "key", e->key, "text",
				      e->text, "figure", e->figure, "limit", limit, "measured",
				      have ? json_real(v) : json_null(), "unit", e->unit, "pass",
				      pass, "line", e->line);

		if (have && !strcmp(e->figure, "findings")) /* each with its sentence */
			json_object_set_new(o, "findings", findings_of(results, false));
		if (have && !strcmp(e->figure, "odd_nodes"))
			json_object_set_new(o, "findings", findings_of(results, true));
		if (have && !strcmp(e->figure, "bad_rails"))
			json_object_set_new(o, "findings", bad_rails_of(results));
		if (regressed) /* the nodes and pairs past the limit, by name */
			json_object_set_new(o, "regressed", regressed);
		json_array_append_new(out, o);
	}
	/* Nothing expected: the figures are information, not a pass. */
	return error ? "ERROR" : fail ? "FAIL" : c->nexpect ? "PASS" : "INFO";
}
