/* A saved "rails" result read back (ixperf report): the rails, their
 * verdicts and each node's all-rail throughput, for the text renderer's
 * tables. Each rail's own mesh reads back as any mesh (read.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/json/members.h"
#include "report/json/read.h"

void ix_rails_saved_free(struct ix_rails_saved *s)
{
	free(s->r.node);
	s->r.node = NULL;
	ix_rails_free(&s->rails);
	ix_hostlist_free(&s->nodes);
}

/* The hosts of names (each a node of the document's nodes) as indexes. */
static int node_list(json_t *rail, const char *where, const char *key, struct ix_member_hosts *hs,
		     uint32_t **out, uint32_t *n, struct ix_err *err)
{
	json_t *a, *h;
	size_t i;

	if (ix_member_array(rail, where, key, IX_HOSTLIST_MAX, &a, err) < 0)
		return -1;
	*out = calloc(json_array_size(a) + 1, sizeof(**out));
	if (!*out)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	*n = 0;
	json_array_foreach(a, i, h)
	{
		char at[64];

		snprintf(at, sizeof(at), "%s.%s[%zu]", where, key, i);
		if (ix_member_host_of(hs, h, at, "", false, &(*out)[i], err) < 0)
			return -1;
		(*n)++;
	}
	return 0;
}

static int read_rail(json_t *x, uint32_t k, struct ix_member_hosts *hs, struct ix_rails_saved *s,
		     struct ix_err *err)
{
	struct ix_rail *rl = &s->rails.rail[k];
	struct ix_rail_verdict *v = &s->r.verdict[k];
	char where[32];
	uint32_t n = 0;
	bool bad = false;

	snprintf(where, sizeof(where), "rails[%u]", k);
	if (ix_member_text(x, where, "name", IX_MEMBER_REQUIRED, rl->name, sizeof(rl->name), err) <
		    0 ||
	    ix_member_text(x, where, "iface", IX_MEMBER_NULLABLE, rl->iface, sizeof(rl->iface),
			   err) < 0 ||
	    ix_member_text(x, where, "rdma", IX_MEMBER_NULLABLE, rl->rdma, sizeof(rl->rdma), err) <
		    0 ||
	    ix_member_bool(x, where, "bad", &bad, err) < 0 ||
	    ix_member_text(x, where, "reason", IX_MEMBER_NULLABLE, v->reason, sizeof(v->reason),
			   err) < 0 ||
	    ix_member_num(x, where, "median_bw_bps", IX_MEMBER_NULLABLE, 0, 1e18, &v->median_bw_bps,
			  err) < 0 ||
	    ix_member_num(x, where, "lat_p50_ns", IX_MEMBER_NULLABLE, 0, 1e18, &v->lat_p50_ns,
			  err) < 0 ||
	    ix_member_count(x, where, "bad_pairs", IX_MEMBER_REQUIRED, UINT32_MAX, &v->bad_pairs,
			    err) < 0 ||
	    ix_member_count(x, where, "pairs_measured", IX_MEMBER_REQUIRED, UINT32_MAX,
			    &v->measured, err) < 0 ||
	    ix_member_count(x, where, "pairs_failed", IX_MEMBER_REQUIRED, UINT32_MAX, &v->failed,
			    err) < 0 ||
	    node_list(x, where, "nodes", hs, &rl->node, &n, err) < 0 ||
	    node_list(x, where, "missing", hs, &rl->missing, &rl->nmissing, err) < 0)
		return -1;
	v->bad = bad;
	v->have_bw = json_is_number(json_object_get(x, "median_bw_bps"));
	/* Its hosts' count is what the tables show; the hosts themselves are
	 * its mesh's. */
	rl->hosts.n = n;
	s->r.bad_rails += bad;
	return 0;
}

int ix_json_read_rails(json_t *res, struct ix_rails_saved *out, struct ix_err *err)
{
	struct ix_member_hosts hs = { &out->nodes, json_object() };
	json_t *rails, *nodes, *x;
	size_t i;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->r.rails = &out->rails;
	out->r.nodes = &out->nodes;
	if (!json_is_object(res) || !hs.index ||
	    ix_member_array(res, "", "nodes", IX_HOSTLIST_MAX, &nodes, err) < 0 ||
	    ix_member_array(res, "", "rails", IX_RAILS_MAX, &rails, err) < 0 ||
	    ix_member_text(res, "", "by", IX_MEMBER_REQUIRED, out->rails.how,
			   sizeof(out->rails.how), err) < 0 ||
	    ix_member_num(res, "", "ref_bw_bps", IX_MEMBER_NULLABLE, 0, 1e18, &out->r.ref_bw_bps,
			  err) < 0 ||
	    ix_member_num(res, "", "ref_lat_ns", IX_MEMBER_NULLABLE, 0, 1e18, &out->r.ref_lat_ns,
			  err) < 0 ||
	    ix_member_num(res, "", "bw_fraction", IX_MEMBER_NULLABLE, 0, 1,
			  &out->r.rules.bw_fraction, err) < 0 ||
	    ix_member_num(res, "", "wall_s", IX_MEMBER_REQUIRED, 0, 1e9, &out->r.wall_s, err) < 0 ||
	    ix_member_bool(res, "", "complete", &out->r.complete, err) < 0)
		goto out;
	out->r.node = calloc(json_array_size(nodes) + 1, sizeof(*out->r.node));
	if (!out->r.node) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	json_array_foreach(nodes, i, x)
	{
		struct ix_rails_node *nd = &out->r.node[i];
		char where[32];
		uint32_t at;

		snprintf(where, sizeof(where), "nodes[%zu]", i);
		if (ix_member_host_of(&hs, x, where, "host", true, &at, err) < 0 ||
		    ix_member_num(x, where, "bw_out_bps", IX_MEMBER_REQUIRED, 0, 1e18,
				  &nd->bw_out_bps, err) < 0 ||
		    ix_member_num(x, where, "bw_in_bps", IX_MEMBER_REQUIRED, 0, 1e18,
				  &nd->bw_in_bps, err) < 0 ||
		    ix_member_u32(x, where, "rails", &nd->rails, err) < 0)
			goto out;
		if (at != i) {
			ix_fail(err, IX_EXIT_FAIL, "%s.host: a node listed twice", where);
			goto out;
		}
	}
	json_array_foreach(rails, i, x)
	{
		out->rails.n = (uint32_t)i + 1;
		if (read_rail(x, (uint32_t)i, &hs, out, err) < 0)
			goto out;
	}
	if (!out->rails.n) {
		ix_fail(err, IX_EXIT_FAIL, "rails is empty");
		goto out;
	}
	rc = 0;
out:
	json_decref(hs.index);
	if (rc < 0)
		ix_rails_saved_free(out);
	return rc;
}
