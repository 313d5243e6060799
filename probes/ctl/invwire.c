/* Inventory request and reply bodies (probes/ctl/invwire.h). */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/ctl/invwire.h"

json_t *ix_inv_request(void)
{
	return json_pack("{s:i}", "version", IX_INV_WIRE_VERSION);
}

int ix_inv_request_parse(json_t *j, struct ix_err *err)
{
	const char *key;
	json_t *v;

	size_t size;

	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_USAGE, "inventory request: not an object");
	size = json_dumpb(j, NULL, 0, JSON_COMPACT);
	if (size > IX_INV_REQUEST_MAX)
		return ix_fail(err, IX_EXIT_USAGE,
			       "inventory request: %zu bytes, over the %d-byte limit", size,
			       IX_INV_REQUEST_MAX);
	json_object_foreach(j, key, v)
	{
		if (strcmp(key, "version") != 0)
			return ix_fail(
				err, IX_EXIT_USAGE,
				"inventory request: unexpected member '%.32s' (it takes only "
				"\"version\")",
				key);
		if (!json_is_integer(v) || json_integer_value(v) != IX_INV_WIRE_VERSION)
			return ix_fail(err, IX_EXIT_USAGE, "inventory request: version must be %d",
				       IX_INV_WIRE_VERSION);
	}
	return 0;
}

static json_t *opt_int(bool known, json_int_t v)
{
	return known ? json_integer(v) : json_null();
}

static json_t *pcie_json(const struct ix_inv_pcie *p)
{
	if (!p->known)
		return json_null();
	return json_pack("{s:i,s:i,s:o,s:o,s:b}", "gen", p->gen, "width", p->width, "max_gen",
			 opt_int(p->max_gen > 0, p->max_gen), "max_width",
			 opt_int(p->max_width > 0, p->max_width), "downtrained", p->downtrained);
}

json_t *ix_inv_reply(const struct ix_node_inv *inv)
{
	json_t *nics = json_array(), *gpus = json_array(), *finds = json_array(),
	       *addrs = json_array();

	for (uint32_t i = 0; i < inv->nnics; i++) {
		const struct ix_inv_nic *n = &inv->nics[i];

		json_array_append_new(
			nics, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:o}", "name",
					n->name, "rdma", n->rdma, "bdf", n->bdf, "model", n->model,
					"fw", n->fw, "driver", n->driver, "driver_version",
					n->driver_version, "mtu", opt_int(n->mtu_known, n->mtu),
					"numa_node", opt_int(n->numa_node >= 0, n->numa_node),
					"pcie", pcie_json(&n->pcie)));
	}
	for (uint32_t i = 0; i < inv->ngpus; i++) {
		const struct ix_inv_gpu *g = &inv->gpus[i];

		json_array_append_new(gpus,
				      json_pack("{s:s,s:s,s:s,s:o,s:o}", "bdf", g->bdf, "model",
						g->model, "driver", g->driver, "numa_node",
						opt_int(g->numa_node >= 0, g->numa_node), "pcie",
						pcie_json(&g->pcie)));
	}
	for (uint32_t i = 0; i < inv->nfindings; i++) {
		const struct ix_inv_finding *f = &inv->findings[i];

		json_array_append_new(finds, json_pack("{s:s,s:s,s:s,s:s}", "kind", f->kind,
						       "severity", f->error ? "error" : "warning",
						       "device", f->device, "message", f->message));
	}
	for (uint32_t i = 0; i < inv->naddrs && i < IX_IFADDR_MAX; i++) {
		const struct ix_ifaddr *a = &inv->addrs[i];

		json_array_append_new(addrs,
				      json_pack("{s:s,s:s,s:s,s:i,s:s,s:s}", "iface", a->iface,
						"family", a->family == AF_INET6 ? "inet6" : "inet",
						"addr", a->addr, "prefix", (int)a->prefix, "rdma",
						a->rdma, "leaf", a->leaf));
	}
	return json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:i,s:b,s:o}", "hostname", inv->hostname,
			 "kernel", inv->kernel, "verbs", inv->verbs, "gpu_driver", inv->gpu_driver,
			 "nics", nics, "gpus", gpus, "findings", finds, "findings_total",
			 (int)inv->findings_total, "truncated", inv->truncated, "addrs", addrs);
}

/* ---- the reply, decoded ---------------------------------------------- */

/* A string member that fits len with its terminator and holds no control
 * character. */
static int get_str(json_t *o, const char *where, const char *k, char *buf, size_t len,
		   struct ix_err *err)
{
	json_t *v = json_object_get(o, k);
	const char *s = json_string_value(v);
	size_t n;

	if (!s)
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %s%s is not a string", where,
			       k);
	n = json_string_length(v);
	if (n >= len || strlen(s) != n)
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory reply: %s%s is longer than %zu bytes or holds a NUL",
			       where, k, len - 1);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return ix_fail(err, IX_EXIT_FAIL,
				       "inventory reply: %s%s holds a control character", where, k);
	memcpy(buf, s, n + 1);
	return 0;
}

/* An integer in [lo, hi], or null (*known false). */
static int get_int(json_t *o, const char *where, const char *k, long lo, long hi, bool null_ok,
		   bool *known, long *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	if (null_ok && json_is_null(v)) {
		*known = false;
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory reply: %s%s is not an integer from %ld to %ld", where, k,
			       lo, hi);
	*known = true;
	*out = (long)json_integer_value(v);
	return 0;
}

static int get_pcie(json_t *o, const char *where, struct ix_inv_pcie *p, struct ix_err *err)
{
	json_t *v = json_object_get(o, "pcie");
	bool known;
	long x;

	memset(p, 0, sizeof(*p));
	if (json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %spcie is not an object",
			       where);
	if (get_int(v, where, "gen", 1, 16, false, &known, &x, err) < 0)
		return -1;
	p->gen = (int)x;
	if (get_int(v, where, "width", 1, 32, false, &known, &x, err) < 0)
		return -1;
	p->width = (int)x;
	if (get_int(v, where, "max_gen", 1, 16, true, &known, &x, err) < 0)
		return -1;
	p->max_gen = (int)x;
	if (get_int(v, where, "max_width", 1, 32, true, &known, &x, err) < 0)
		return -1;
	p->max_width = (int)x;
	if (!json_is_boolean(json_object_get(v, "downtrained")))
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory reply: %spcie.downtrained is not a boolean", where);
	p->downtrained = json_is_true(json_object_get(v, "downtrained"));
	p->known = true;
	return 0;
}

/* Element i of array name: where says "name[i]." in messages; -1 when it
 * is not an object. */
static int element(json_t *o, const char *name, uint32_t i, char *where, size_t len,
		   struct ix_err *err)
{
	snprintf(where, len, "%s[%u].", name, i);
	if (!json_is_object(o))
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %s[%u] is not an object", name,
			       i);
	return 0;
}

static int parse_nic(json_t *o, uint32_t i, struct ix_inv_nic *n, struct ix_err *err)
{
	char where[32];
	bool known;
	long x;

	memset(n, 0, sizeof(*n));
	if (element(o, "nics", i, where, sizeof(where), err) < 0)
		return -1;
	if (get_str(o, where, "name", n->name, sizeof(n->name), err) < 0 ||
	    get_str(o, where, "rdma", n->rdma, sizeof(n->rdma), err) < 0 ||
	    get_str(o, where, "bdf", n->bdf, sizeof(n->bdf), err) < 0 ||
	    get_str(o, where, "model", n->model, sizeof(n->model), err) < 0 ||
	    get_str(o, where, "fw", n->fw, sizeof(n->fw), err) < 0 ||
	    get_str(o, where, "driver", n->driver, sizeof(n->driver), err) < 0 ||
	    get_str(o, where, "driver_version", n->driver_version, sizeof(n->driver_version), err) <
		    0)
		return -1;
	if (!n->name[0])
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %sname is empty", where);
	if (get_int(o, where, "mtu", 0, 1 << 20, true, &n->mtu_known, &x, err) < 0)
		return -1;
	n->mtu = (uint32_t)x;
	if (get_int(o, where, "numa_node", 0, 4095, true, &known, &x, err) < 0)
		return -1;
	n->numa_node = known ? (int)x : -1;
	return get_pcie(o, where, &n->pcie, err);
}

static int parse_gpu(json_t *o, uint32_t i, struct ix_inv_gpu *g, struct ix_err *err)
{
	char where[32];
	bool known;
	long x;

	memset(g, 0, sizeof(*g));
	if (element(o, "gpus", i, where, sizeof(where), err) < 0)
		return -1;
	if (get_str(o, where, "bdf", g->bdf, sizeof(g->bdf), err) < 0 ||
	    get_str(o, where, "model", g->model, sizeof(g->model), err) < 0 ||
	    get_str(o, where, "driver", g->driver, sizeof(g->driver), err) < 0)
		return -1;
	if (get_int(o, where, "numa_node", 0, 4095, true, &known, &x, err) < 0)
		return -1;
	g->numa_node = known ? (int)x : -1;
	return get_pcie(o, where, &g->pcie, err);
}

static int parse_finding(json_t *o, uint32_t i, struct ix_inv_finding *f, struct ix_err *err)
{
	char where[32], sev[16];

	memset(f, 0, sizeof(*f));
	if (element(o, "findings", i, where, sizeof(where), err) < 0)
		return -1;
	if (get_str(o, where, "kind", f->kind, sizeof(f->kind), err) < 0 ||
	    get_str(o, where, "severity", sev, sizeof(sev), err) < 0 ||
	    get_str(o, where, "device", f->device, sizeof(f->device), err) < 0 ||
	    get_str(o, where, "message", f->message, sizeof(f->message), err) < 0)
		return -1;
	if (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory reply: %sseverity is neither error nor warning", where);
	f->error = strcmp(sev, "error") == 0;
	return 0;
}

static int parse_addr(json_t *o, uint32_t i, struct ix_ifaddr *a, struct ix_err *err)
{
	unsigned char bytes[sizeof(struct in6_addr)];
	char where[32], family[8];
	bool known;
	long x;

	memset(a, 0, sizeof(*a));
	if (element(o, "addrs", i, where, sizeof(where), err) < 0)
		return -1;
	if (get_str(o, where, "iface", a->iface, sizeof(a->iface), err) < 0 ||
	    get_str(o, where, "family", family, sizeof(family), err) < 0 ||
	    get_str(o, where, "addr", a->addr, sizeof(a->addr), err) < 0 ||
	    get_str(o, where, "rdma", a->rdma, sizeof(a->rdma), err) < 0 ||
	    get_str(o, where, "leaf", a->leaf, sizeof(a->leaf), err) < 0)
		return -1;
	if (!a->iface[0])
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %siface is empty", where);
	if (strcmp(family, "inet") == 0)
		a->family = AF_INET;
	else if (strcmp(family, "inet6") == 0)
		a->family = AF_INET6;
	else
		return ix_fail(err, IX_EXIT_FAIL,
			       "inventory reply: %sfamily is neither inet nor inet6", where);
	if (inet_pton(a->family, a->addr, bytes) != 1)
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: %saddr is not an %s address",
			       where, family);
	if (get_int(o, where, "prefix", 0, a->family == AF_INET ? 32 : 128, false, &known, &x,
		    err) < 0)
		return -1;
	a->prefix = (uint8_t)x;
	return 0;
}

/* An array member of at most max elements. */
static json_t *get_array(json_t *j, const char *k, size_t max, struct ix_err *err)
{
	json_t *a = json_object_get(j, k);

	if (!json_is_array(a)) {
		ix_fail(err, IX_EXIT_FAIL, "inventory reply: %s is not an array", k);
		return NULL;
	}
	if (json_array_size(a) > max) {
		ix_fail(err, IX_EXIT_FAIL, "inventory reply: more than %zu %s", max, k);
		return NULL;
	}
	return a;
}

int ix_inv_reply_parse(json_t *j, struct ix_node_inv *inv, struct ix_err *err)
{
	json_t *nics, *gpus, *finds, *addrs = NULL, *v;
	bool known;
	size_t i;
	long x;

	memset(inv, 0, sizeof(*inv));
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: not an object");
	if (get_str(j, "", "hostname", inv->hostname, sizeof(inv->hostname), err) < 0 ||
	    get_str(j, "", "kernel", inv->kernel, sizeof(inv->kernel), err) < 0 ||
	    get_str(j, "", "verbs", inv->verbs, sizeof(inv->verbs), err) < 0 ||
	    get_str(j, "", "gpu_driver", inv->gpu_driver, sizeof(inv->gpu_driver), err) < 0)
		return -1;
	if (!(nics = get_array(j, "nics", IX_INV_MAX_NICS, err)) ||
	    !(gpus = get_array(j, "gpus", IX_INV_MAX_GPUS, err)) ||
	    !(finds = get_array(j, "findings", IX_INV_MAX_FINDINGS, err)))
		return -1;
	json_array_foreach(nics, i, v)
	{
		if (parse_nic(v, (uint32_t)i, &inv->nics[i], err) < 0)
			return -1;
		inv->nnics++;
	}
	json_array_foreach(gpus, i, v)
	{
		if (parse_gpu(v, (uint32_t)i, &inv->gpus[i], err) < 0)
			return -1;
		inv->ngpus++;
	}
	json_array_foreach(finds, i, v)
	{
		if (parse_finding(v, (uint32_t)i, &inv->findings[i], err) < 0)
			return -1;
		inv->nfindings++;
	}
	if (get_int(j, "", "findings_total", (long)inv->nfindings, 1L << 20, false, &known, &x,
		    err) < 0)
		return -1;
	inv->findings_total = (uint32_t)x;
	if (!json_is_boolean(json_object_get(j, "truncated")))
		return ix_fail(err, IX_EXIT_FAIL, "inventory reply: truncated is not a boolean");
	inv->truncated = json_is_true(json_object_get(j, "truncated"));
	/* Agents before the addresses send none. */
	if (json_object_get(j, "addrs") && !(addrs = get_array(j, "addrs", IX_IFADDR_MAX, err)))
		return -1;
	json_array_foreach(addrs, i, v)
	{
		if (parse_addr(v, (uint32_t)i, &inv->addrs[i], err) < 0)
			return -1;
		inv->naddrs++;
	}
	return 0;
}
