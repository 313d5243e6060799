/* The live view and the state file of a running mesh (cmd/mesh_live.c). */
#ifndef IX_MESH_LIVE_H
#define IX_MESH_LIVE_H

#include <stdbool.h>

#include <jansson.h>

#include "probes/coord.h"
#include "probes/multi.h"

struct ix_mesh_live_opts {
	bool live;              /* draw the heatmap on the terminal */
	const char *state_path; /* publish the matrix there, NULL = no */
	int argc;               /* the command line, for the state document */
	char **argv;
};

/* ix_mesh_run with the view and the state file. q or ^C in the view ends
 * the run after the current batch: r then holds what was measured. */
int ix_mesh_live_run(struct ix_coord *co, const struct ix_mesh_params *p,
		     const struct ix_hostlist *hosts, struct ix_mesh_result *r,
		     const struct ix_mesh_live_opts *o, struct ix_err *err);

/* With --live: whether the terminal can show the view (IX_EXIT_UNAVAILABLE
 * when there is none), asked before the agents are contacted. */
int ix_mesh_live_check(const struct ix_mesh_live_opts *o, struct ix_err *err);

/* The "progress" object of a state document. */
json_t *ix_mesh_progress_json(uint32_t batches, uint32_t total, double elapsed_s, bool done);

#endif
