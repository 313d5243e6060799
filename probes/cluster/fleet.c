/* Inventories of many nodes and their odd ones out (probes/cluster/fleet.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/fleet.h"
#include "probes/core/clock.h"
#include "probes/ctl/invwire.h"
#include "probes/net/proto.h"

#define VAL_LEN (2 * IX_INV_STR + 2)

int ix_fleet_init(struct ix_fleet_result *r, const struct ix_hostlist *hosts)
{
	memset(r, 0, sizeof(*r));
	r->nodes = calloc(hosts->n ? hosts->n : 1, sizeof(*r->nodes));
	if (!r->nodes)
		return -1;
	r->n = (uint32_t)hosts->n;
	for (uint32_t i = 0; i < r->n; i++) {
		ix_host_format(&hosts->v[i], r->nodes[i].host, sizeof(r->nodes[i].host));
		snprintf(r->nodes[i].error, sizeof(r->nodes[i].error), "not asked");
	}
	return 0;
}

void ix_fleet_free(struct ix_fleet_result *r)
{
	free(r->nodes);
	free(r->odd);
	memset(r, 0, sizeof(*r));
}

bool ix_fleet_node_odd(const struct ix_fleet_result *r, uint32_t i)
{
	for (uint32_t k = 0; k < r->nodd; k++)
		if (r->odd[k].node == i)
			return true;
	return false;
}

static int add_odd(struct ix_fleet_result *r, uint32_t node, const char *field, const char *device,
		   const char *value, const char *majority, uint32_t agree, uint32_t of)
{
	struct ix_fleet_odd *v = realloc(r->odd, (r->nodd + 1) * sizeof(*v)), *o;

	if (!v)
		return -1;
	r->odd = v;
	o = &v[r->nodd++];
	memset(o, 0, sizeof(*o));
	o->node = node;
	snprintf(o->field, sizeof(o->field), "%s", field);
	snprintf(o->device, sizeof(o->device), "%s", device);
	snprintf(o->value, sizeof(o->value), "%s", value);
	snprintf(o->majority, sizeof(o->majority), "%s", majority);
	o->agree = agree;
	o->of = of;
	return 0;
}

/* One field over the nodes that have it (has[i]): where more than half
 * share a value, every other node is odd. */
static int judge(struct ix_fleet_result *r, const char *field, const char *device,
		 char (*vals)[VAL_LEN], const bool *has)
{
	uint32_t of = 0, best = 0, best_count = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		uint32_t c = 0;

		if (!has[i])
			continue;
		of++;
		for (uint32_t k = 0; k < r->n; k++)
			c += has[k] && strcmp(vals[i], vals[k]) == 0;
		if (c > best_count) {
			best_count = c;
			best = i;
		}
	}
	if (of < 2 || 2 * best_count <= of || best_count == of)
		return 0;
	for (uint32_t i = 0; i < r->n; i++)
		if (has[i] && strcmp(vals[i], vals[best]) != 0 &&
		    add_odd(r, i, field, device, vals[i], vals[best], best_count, of) < 0)
			return -1;
	return 0;
}

static const struct ix_inv_nic *nic_named(const struct ix_node_inv *inv, const char *name)
{
	for (uint32_t k = 0; k < inv->nnics; k++)
		if (strcmp(inv->nics[k].name, name) == 0)
			return &inv->nics[k];
	return NULL;
}

/* The value of a NIC's field as compared: driver with its version, the
 * PCIe link as trained, the MTU. */
static void nic_value(const struct ix_inv_nic *n, const char *field, char *buf, size_t len)
{
	if (strcmp(field, "model") == 0)
		snprintf(buf, len, "%s", n->model);
	else if (strcmp(field, "fw") == 0)
		snprintf(buf, len, "%s", n->fw);
	else if (strcmp(field, "driver") == 0)
		snprintf(buf, len, "%s%s%s", n->driver, n->driver_version[0] ? " " : "",
			 n->driver_version);
	else if (strcmp(field, "pcie") == 0)
		ix_inv_pcie_str(&n->pcie, false, buf, len);
	else if (n->mtu_known)
		snprintf(buf, len, "%u", n->mtu);
	else
		buf[0] = '\0';
}

static const char *const nic_fields[] = { "model", "fw", "driver", "pcie", "mtu" };

int ix_fleet_analyze(struct ix_fleet_result *r)
{
	char(*vals)[VAL_LEN] = calloc(r->n ? r->n : 1, sizeof(*vals));
	bool *has = calloc(r->n ? r->n : 1, sizeof(*has));
	int rc = 0;

	free(r->odd);
	r->odd = NULL;
	r->nodd = r->answered = r->findings = r->odd_nodes = 0;
	if (!vals || !has) {
		free(vals);
		free(has);
		return -1;
	}
	for (uint32_t i = 0; i < r->n; i++)
		if (r->nodes[i].ok) {
			r->answered++;
			r->findings += r->nodes[i].inv.nfindings;
		}
	/* The node as a whole. */
	for (int f = 0; f < 3 && rc == 0; f++) {
		static const char *const names[] = { "kernel", "verbs", "gpu_driver" };

		for (uint32_t i = 0; i < r->n; i++) {
			const struct ix_node_inv *inv = &r->nodes[i].inv;
			const char *v = f == 0   ? inv->kernel
					: f == 1 ? inv->verbs
						 : inv->gpu_driver;

			has[i] = r->nodes[i].ok;
			snprintf(vals[i], VAL_LEN, "%s", v);
		}
		rc = judge(r, names[f], "", vals, has);
	}
	/* Every NIC name any node has, compared across the nodes that have it
	 * (each name once: at the first node that has it). */
	for (uint32_t a = 0; a < r->n && rc == 0; a++) {
		const struct ix_node_inv *ia = &r->nodes[a].inv;

		if (!r->nodes[a].ok)
			continue;
		for (uint32_t k = 0; k < ia->nnics && rc == 0; k++) {
			const char *name = ia->nics[k].name;
			bool seen = false;

			for (uint32_t b = 0; b < a && !seen; b++)
				seen = r->nodes[b].ok && nic_named(&r->nodes[b].inv, name);
			if (seen || nic_named(ia, name) != &ia->nics[k])
				continue;
			for (size_t f = 0;
			     f < sizeof(nic_fields) / sizeof(nic_fields[0]) && rc == 0; f++) {
				for (uint32_t i = 0; i < r->n; i++) {
					const struct ix_inv_nic *n =
						r->nodes[i].ok ? nic_named(&r->nodes[i].inv, name)
							       : NULL;

					has[i] = n != NULL;
					if (n)
						nic_value(n, nic_fields[f], vals[i], VAL_LEN);
				}
				rc = judge(r, nic_fields[f], name, vals, has);
			}
		}
	}
	for (uint32_t i = 0; i < r->n; i++)
		r->odd_nodes += ix_fleet_node_odd(r, i);
	free(vals);
	free(has);
	return rc;
}

int ix_fleet_gather(struct ix_coord *co, const struct ix_hostlist *hosts, double timeout_s,
		    struct ix_fleet_result *r, struct ix_err *err)
{
	struct ix_coord_job *jobs;
	json_t *req;
	int64_t t0 = ix_now_ns();
	uint32_t n = co->n < hosts->n ? co->n : (uint32_t)hosts->n;

	if (ix_fleet_init(r, hosts) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	jobs = calloc(n ? n : 1, sizeof(*jobs));
	req = ix_inv_request();
	if (!jobs || !req) {
		free(jobs);
		json_decref(req);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		jobs[i].peer = i;
		jobs[i].run = req;
	}
	ix_coord_ask(co, jobs, n, IX_MSG_INVENTORY, IX_MSG_INVENTORY_REPLY, timeout_s);
	for (uint32_t i = 0; i < n; i++) {
		struct ix_fleet_node *nd = &r->nodes[i];
		struct ix_err e = { 0 };

		if (!jobs[i].report) {
			snprintf(nd->error, sizeof(nd->error), "%s", jobs[i].error);
			continue;
		}
		if (ix_inv_reply_parse(jobs[i].report, &nd->inv, &e) < 0) {
			snprintf(nd->error, sizeof(nd->error), "%s", e.msg);
		} else {
			nd->ok = true;
			nd->error[0] = '\0';
		}
		json_decref(jobs[i].report);
	}
	json_decref(req);
	free(jobs);
	r->wall_s = (double)(ix_now_ns() - t0) / 1e9;
	if (ix_fleet_analyze(r) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	return 0;
}

int ix_fleet_collect(struct ix_coord *co, const struct ix_hostlist *hosts,
		     const struct ix_token *token, double timeout_s, struct ix_fleet_result *r,
		     struct ix_err *err)
{
	struct ix_coord own;
	struct ix_err e = { 0 };
	int rc;

	if (co)
		return ix_fleet_gather(co, hosts, timeout_s, r, err);
	/* Unreachable agents are nodes with their reason, not an error. */
	if (ix_coord_open(&own, hosts, token, timeout_s, &e) < 0 && !own.peers) {
		ix_fleet_init(r, hosts);
		return ix_fail(err, IX_EXIT_FAIL, "%s", e.msg);
	}
	rc = ix_fleet_gather(&own, hosts, timeout_s, r, err);
	ix_coord_close(&own);
	return rc;
}

int ix_fleet_append(struct ix_fleet_result *r, const struct ix_fleet_result *more)
{
	struct ix_fleet_node *v;

	if (!more->n)
		return 0;
	v = realloc(r->nodes, (r->n + more->n) * sizeof(*v));
	if (!v)
		return -1;
	memcpy(v + r->n, more->nodes, more->n * sizeof(*v));
	r->nodes = v;
	r->n += more->n;
	r->wall_s += more->wall_s;
	return ix_fleet_analyze(r);
}
