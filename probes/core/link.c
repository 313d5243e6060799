#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes/core/link.h"

static json_t *pcie_json(const struct ix_link_pcie *p)
{
	if (!p->known)
		return json_null();
	return json_pack("{s:s,s:i,s:i,s:i,s:i,s:f,s:b}", "bdf", p->bdf, "gen", p->gen, "width",
			 p->width, "expected_gen", p->expected_gen, "expected_width",
			 p->expected_width, "bps", p->bps, "downtrained", p->downtrained);
}

json_t *ix_neighbor_json(const struct ix_neighbor *n)
{
	return json_pack("{s:s,s:s,s:s,s:s}", "source", n->source, "chassis", n->chassis, "name",
			 n->name, "port", n->port);
}

json_t *ix_link_json(const struct ix_link_limit *l)
{
	json_t *o;

	if (!l->iface[0])
		return json_null();
	o = json_pack("{s:s,s:o,s:s}", "iface", l->iface, "bps",
		      l->bps > 0 ? json_real(l->bps) : json_null(), "source",
		      l->source[0] ? l->source : "unknown");
	json_object_set_new(o, "pcie", pcie_json(&l->pcie));
	if (l->gpu.known)
		json_object_set_new(o, "gpu_pcie", pcie_json(&l->gpu));
	json_object_set_new(o, "ceiling_bps",
			    l->ceiling_bps > 0 ? json_real(l->ceiling_bps) : json_null());
	json_object_set_new(o, "bottleneck",
			    l->bottleneck[0] ? json_string(l->bottleneck) : json_null());
	if (l->neighbor.source[0])
		json_object_set_new(o, "neighbor", ix_neighbor_json(&l->neighbor));
	if (l->port_guid) {
		char g[24];

		snprintf(g, sizeof(g), "0x%016llx", (unsigned long long)l->port_guid);
		json_object_set_new(o, "port_guid", json_string(g));
	}
	return o;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static int get_string(json_t *o, const char *k, bool need, char *out, size_t len,
		      struct ix_err *err)
{
	json_t *v = json_object_get(o, k);
	const char *s = json_string_value(v);

	if ((!v || json_is_null(v)) && !need)
		return 0;
	if (!s || strlen(s) >= len || !printable(s))
		return ix_fail(err, IX_EXIT_FAIL, "link: '%s' is not a short printable string", k);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* A rate: absent or null is 0; else a finite number >= 0. */
static int get_rate(json_t *o, const char *k, double *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "link: '%s' is not a rate in bit/s", k);
	*out = json_number_value(v);
	return 0;
}

static int get_small(json_t *o, const char *k, int *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1024)
		return ix_fail(err, IX_EXIT_FAIL, "link: pcie '%s' is not a small integer", k);
	*out = (int)json_integer_value(v);
	return 0;
}

static int parse_pcie(json_t *j, const char *key, struct ix_link_pcie *p, struct ix_err *err)
{
	json_t *d;

	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "link: '%s' is not an object", key);
	d = json_object_get(j, "downtrained");
	if (get_string(j, "bdf", true, p->bdf, sizeof(p->bdf), err) < 0 ||
	    get_small(j, "gen", &p->gen, err) < 0 || get_small(j, "width", &p->width, err) < 0 ||
	    get_small(j, "expected_gen", &p->expected_gen, err) < 0 ||
	    get_small(j, "expected_width", &p->expected_width, err) < 0 ||
	    get_rate(j, "bps", &p->bps, err) < 0)
		return -1;
	if (d && !json_is_boolean(d))
		return ix_fail(err, IX_EXIT_FAIL, "link: pcie 'downtrained' is not a boolean");
	p->downtrained = json_is_true(d);
	p->known = true;
	return 0;
}

/* The switch port: absent or null leaves n empty. */
static int parse_neighbor(json_t *j, struct ix_neighbor *n, struct ix_err *err)
{
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "link: 'neighbor' is not an object");
	if (get_string(j, "source", true, n->source, sizeof(n->source), err) < 0 ||
	    get_string(j, "chassis", true, n->chassis, sizeof(n->chassis), err) < 0 ||
	    get_string(j, "name", false, n->name, sizeof(n->name), err) < 0 ||
	    get_string(j, "port", false, n->port, sizeof(n->port), err) < 0)
		return -1;
	if ((strcmp(n->source, "lldp") != 0 && strcmp(n->source, "ib") != 0) || !n->chassis[0])
		return ix_fail(err, IX_EXIT_FAIL,
			       "link: a neighbor needs source \"lldp\" or \"ib\" and a chassis");
	return 0;
}

/* "0x" and 16 hex digits; absent or null: 0. */
static int parse_guid(json_t *j, uint64_t *out, struct ix_err *err)
{
	const char *s = json_string_value(j);

	*out = 0;
	if (!j || json_is_null(j))
		return 0;
	if (!s || strncmp(s, "0x", 2) != 0 || strlen(s) != 18)
		return ix_fail(err, IX_EXIT_FAIL, "link: 'port_guid' is not 0x and 16 hex digits");
	for (s += 2; *s; s++) {
		if (!isxdigit((unsigned char)*s)) {
			*out = 0;
			return ix_fail(err, IX_EXIT_FAIL,
				       "link: 'port_guid' is not 0x and 16 hex digits");
		}
		*out = *out << 4 |
		       (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' : (*s | 0x20) - 'a' + 10);
	}
	return 0;
}

int ix_link_parse(json_t *j, struct ix_link_limit *out, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "unknown");
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "link: not an object");
	if (get_string(j, "iface", true, out->iface, sizeof(out->iface), err) < 0 ||
	    get_string(j, "source", false, out->source, sizeof(out->source), err) < 0 ||
	    get_rate(j, "bps", &out->bps, err) < 0 ||
	    get_rate(j, "ceiling_bps", &out->ceiling_bps, err) < 0 ||
	    get_string(j, "bottleneck", false, out->bottleneck, sizeof(out->bottleneck), err) < 0 ||
	    parse_pcie(json_object_get(j, "pcie"), "pcie", &out->pcie, err) < 0 ||
	    parse_pcie(json_object_get(j, "gpu_pcie"), "gpu_pcie", &out->gpu, err) < 0 ||
	    parse_neighbor(json_object_get(j, "neighbor"), &out->neighbor, err) < 0 ||
	    parse_guid(json_object_get(j, "port_guid"), &out->port_guid, err) < 0) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (out->bottleneck[0] && strcmp(out->bottleneck, "link") != 0 &&
	    strcmp(out->bottleneck, "pcie") != 0 && strcmp(out->bottleneck, "gpu") != 0) {
		memset(out, 0, sizeof(*out));
		return ix_fail(err, IX_EXIT_FAIL,
			       "link: 'bottleneck' is not \"link\", \"pcie\" or \"gpu\"");
	}
	return 0;
}

void ix_link_settle(struct ix_link_limit *l)
{
	l->ceiling_bps = l->bps > 0 ? l->bps : 0;
	snprintf(l->bottleneck, sizeof(l->bottleneck), "%s", l->bps > 0 ? "link" : "");
	if (l->pcie.known && l->pcie.bps > 0 &&
	    (!(l->ceiling_bps > 0) || l->pcie.bps < l->ceiling_bps)) {
		l->ceiling_bps = l->pcie.bps;
		snprintf(l->bottleneck, sizeof(l->bottleneck), "pcie");
	}
	if (l->gpu.known && l->gpu.bps > 0 &&
	    (!(l->ceiling_bps > 0) || l->gpu.bps < l->ceiling_bps)) {
		l->ceiling_bps = l->gpu.bps;
		snprintf(l->bottleneck, sizeof(l->bottleneck), "gpu");
	}
}

double ix_link_ceiling(const struct ix_link_limit *l)
{
	if (!l)
		return 0;
	return l->ceiling_bps > 0 ? l->ceiling_bps : l->bps > 0 ? l->bps : 0;
}

const struct ix_link_limit *ix_link_lower(const struct ix_link_limit *a,
					  const struct ix_link_limit *b)
{
	double ca = ix_link_ceiling(a), cb = ix_link_ceiling(b);

	if (ca > 0 && (!(cb > 0) || ca <= cb))
		return a;
	return cb > 0 ? b : NULL;
}
