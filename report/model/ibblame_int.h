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

/* The bad cells with their cable directions, and each direction's counts. */
struct ix_ibb_tally {
	uint32_t *bad, *good;  /* per slot */
	uint32_t *off, *slots; /* per bad cell: its slots at slots[off[i] .. off[i + 1]) */
	bool *done;
	size_t nbad, cap, nslot, capslot;
};

static inline uint32_t ix_ibb_slot(const struct ix_ibb_ctx *c, int32_t node, uint32_t port)
{
	return c->base[node] + port;
}

/* Whether the cell a -> b counts, and how: 0 skip, 1 good, 2 bad; back:
 * its cables back count too. */
int ix_ibb_cell_kind(const struct ix_mesh_result *r, uint32_t a, uint32_t b, bool *back);
/* The cable directions (slots) of a's test towards b: 0, or -1 (not placed,
 * the first reason kept). */
int ix_ibb_walk(struct ix_ibb_ctx *c, uint32_t a, uint32_t b, bool back, uint32_t *slots,
		uint32_t *ns);
/* Name the picked cable directions as elements (ibblame_elements.c), then
 * count each one's pairs and write its evidence. */
void ix_ibb_group(struct ix_ibb_ctx *c, const struct ix_ibb_tally *t, const uint32_t *picks,
		  uint32_t np);
void ix_ibb_count(struct ix_ibb_ctx *c);

#endif
