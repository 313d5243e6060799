/* Internal to report/model/ibblame_*.c: the join's state, shared by the
 * pass that places pairs on cables (ibblame_place.c) and the one that names the
 * elements and their evidence (ibblame_elements.c). */
#ifndef IX_IBBLAME_INT_H
#define IX_IBBLAME_INT_H

#include "report/model/ibblame.h"

#define MAX_PICKS 64 /* cable directions the cover may take */
#define MAX_SLOTS (2 * IX_IBFAB_MAX_HOPS)

struct ix_ibb_ctx {
	const struct ix_mesh_result *r;
	const struct ix_ibfab *f;
	struct ix_ibblame *b;
	uint32_t *base; /* per node: its ports' first slot */
	uint32_t nslots;
	/* the inputs */
	const struct ix_ibblame_input *in;
};

/* The bad cells with the cable directions they blame, and each direction's
 * pairs, by test: a bandwidth test's data crosses the cables out, a
 * latency test's round trip the cables out and back. */
struct ix_ibb_tally {
	uint32_t *bw_bad, *bw_good, *lat_bad, *lat_good; /* per slot */
	uint32_t *off, *slots; /* per bad cell: its slots at slots[off[i] .. off[i + 1]) */
	bool *done;
	size_t nbad, cap, nslot, capslot;
};

/* Whether most of the pairs through slot s are bad, in either test. */
static inline bool ix_ibb_suspect(const struct ix_ibb_tally *t, uint32_t s)
{
	return (t->bw_bad[s] && t->bw_bad[s] > t->bw_good[s]) ||
	       (t->lat_bad[s] && t->lat_bad[s] > t->lat_good[s]);
}

/* What a cell's tests say (ix_ibb_cell_tests): a failed test is bad both ways. */
#define IX_IBB_BW      1u
#define IX_IBB_BW_BAD  2u
#define IX_IBB_LAT     4u
#define IX_IBB_LAT_BAD 8u
#define IX_IBB_BAD     (IX_IBB_BW_BAD | IX_IBB_LAT_BAD)

static inline uint32_t ix_ibb_slot(const struct ix_ibb_ctx *c, int32_t node, uint32_t port)
{
	return c->base[node] + port;
}

/* The tests of the cell a -> b as IX_IBB_* bits; 0: it does not count
 * (not measured, a node down, the diagonal). */
unsigned ix_ibb_cell_tests(const struct ix_mesh_result *r, uint32_t a, uint32_t b);
/* The cable directions (slots) of a's test towards b: slots[0 .. *nout)
 * out, then, with back, the others of the way back up to *ns. 0, or -1
 * (not placed, the first reason kept). */
int ix_ibb_walk(struct ix_ibb_ctx *c, uint32_t a, uint32_t b, bool back, uint32_t *slots,
		uint32_t *nout, uint32_t *ns);
/* The slots a bad cell blames: out for a bad bandwidth, all for a bad
 * latency or a failed test. */
static inline uint32_t ix_ibb_blamed(unsigned tests, uint32_t nout, uint32_t ns)
{
	return tests & IX_IBB_LAT_BAD ? ns : nout;
}
/* Name the picked cable directions as elements (ibblame_elements.c), then
 * count each one's pairs and write its evidence. */
void ix_ibb_group(struct ix_ibb_ctx *c, const struct ix_ibb_tally *t, const uint32_t *picks,
		  uint32_t np);
void ix_ibb_count(struct ix_ibb_ctx *c);

#endif
