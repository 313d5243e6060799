#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "probes/coll/wire.h"

/*
 * A rank's report as bytes: "IXC2", then fixed-width fields in the host's
 * order (every rank of a job runs on the same architecture and build), the
 * node's facts as their struct, strings as a 16-bit length and their
 * bytes, the rows' cells, the iterations' times.
 */
#define MAGIC "IXC2"

struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool bad;
};

static void put(struct wbuf *w, const void *v, size_t n)
{
	if (w->bad)
		return;
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		while (cap < w->len + n)
			cap *= 2;
		uint8_t *p = realloc(w->p, cap);
		if (!p) {
			w->bad = true;
			return;
		}
		w->p = p;
		w->cap = cap;
	}
	memcpy(w->p + w->len, v, n);
	w->len += n;
}

#define PUT(w, v) put((w), &(v), sizeof(v))

static void put_str(struct wbuf *w, const char *s)
{
	size_t n = strlen(s);
	uint16_t l = (uint16_t)(n > 0xffff ? 0xffff : n);

	PUT(w, l);
	put(w, s, l);
}

int ix_coll_wire_encode(const struct ix_coll_rank *r, uint8_t **out, size_t *len,
			struct ix_err *err)
{
	struct wbuf w = { 0 };
	int32_t rank = r->rank, device = r->device;
	uint8_t joined = r->joined, complete = r->complete;
	uint16_t nrows = (uint16_t)r->nrows;
	uint32_t niter = r->niter;

	put(&w, MAGIC, 4);
	PUT(&w, rank);
	PUT(&w, device);
	PUT(&w, joined);
	PUT(&w, complete);
	PUT(&w, nrows);
	PUT(&w, niter);
	PUT(&w, r->pair_bps);
	PUT(&w, r->facts);
	put_str(&w, r->node);
	put_str(&w, r->gpu);
	put_str(&w, r->pci_bus_id);
	put_str(&w, r->error);
	for (int i = 0; i < r->nrows; i++)
		for (int p = 0; p < IX_COLL_NPLACES; p++) {
			const struct ix_coll_rank_cell *c = &r->cell[i][p];
			uint8_t m = c->measured;
			PUT(&w, m);
			PUT(&w, c->host_us);
			PUT(&w, c->dev_med_us);
			PUT(&w, c->dev_min_us);
			PUT(&w, c->dev_max_us);
			PUT(&w, c->wrong);
			PUT(&w, c->first_wrong);
		}
	put(&w, r->iter_us, r->niter * sizeof(float));
	if (w.bad) {
		free(w.p);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	*out = w.p;
	*len = w.len;
	return 0;
}

struct rbuf {
	const uint8_t *p;
	size_t len, off;
	bool bad;
};

static void get(struct rbuf *r, void *v, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = true;
		memset(v, 0, n);
		return;
	}
	memcpy(v, r->p + r->off, n);
	r->off += n;
}

#define GET(r, v) get((r), &(v), sizeof(v))

static void get_str(struct rbuf *r, char *s, size_t size)
{
	uint16_t l = 0;

	GET(r, l);
	if (r->bad || r->len - r->off < l) {
		r->bad = true;
		s[0] = '\0';
		return;
	}
	size_t n = l < size ? l : size - 1;
	memcpy(s, r->p + r->off, n);
	s[n] = '\0';
	r->off += l;
}

int ix_coll_wire_decode(const uint8_t *buf, size_t len, struct ix_coll_rank *out,
			struct ix_err *err)
{
	struct rbuf r = { buf, len, 0, false };
	char magic[4];
	int32_t rank, device;
	uint8_t joined, complete;
	uint16_t nrows;
	uint32_t niter;

	memset(out, 0, sizeof(*out));
	get(&r, magic, 4);
	if (r.bad || memcmp(magic, MAGIC, 4) != 0)
		return ix_fail(err, IX_EXIT_FAIL, "a rank's report is not one (no %s)", MAGIC);
	GET(&r, rank);
	GET(&r, device);
	GET(&r, joined);
	GET(&r, complete);
	GET(&r, nrows);
	GET(&r, niter);
	GET(&r, out->pair_bps);
	GET(&r, out->facts);
	/* the strings of the facts end inside their arrays, whatever came */
	out->facts.nvml_error[sizeof(out->facts.nvml_error) - 1] = '\0';
	out->facts.nic[sizeof(out->facts.nic) - 1] = '\0';
	out->facts.nic_path[sizeof(out->facts.nic_path) - 1] = '\0';
	if (r.bad || nrows > IX_COLL_MAX_ROWS || niter > IX_COLL_MAX_ITERS || rank < 0)
		return ix_fail(err, IX_EXIT_FAIL,
			       "a rank's report is malformed (%u rows, %u iterations)", nrows,
			       niter);
	out->rank = rank;
	out->device = device;
	out->joined = joined;
	out->complete = complete;
	out->nrows = nrows;
	out->niter = niter;
	get_str(&r, out->node, sizeof(out->node));
	get_str(&r, out->gpu, sizeof(out->gpu));
	get_str(&r, out->pci_bus_id, sizeof(out->pci_bus_id));
	get_str(&r, out->error, sizeof(out->error));
	for (int i = 0; i < nrows; i++)
		for (int p = 0; p < IX_COLL_NPLACES; p++) {
			struct ix_coll_rank_cell *c = &out->cell[i][p];
			uint8_t m = 0;
			GET(&r, m);
			c->measured = m;
			GET(&r, c->host_us);
			GET(&r, c->dev_med_us);
			GET(&r, c->dev_min_us);
			GET(&r, c->dev_max_us);
			GET(&r, c->wrong);
			GET(&r, c->first_wrong);
		}
	get(&r, out->iter_us, niter * sizeof(float));
	if (r.bad || r.off != len)
		return ix_fail(err, IX_EXIT_FAIL, "rank %d's report is truncated or too long",
			       (int)rank);
	return 0;
}
