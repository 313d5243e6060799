/*
 * The strings a launcher hands a task (probes/cluster/launch.c,
 * launch_pmix.c), the input as one NUL-terminated string:
 * SLURM_STEP_TASKS_PER_NODE ("2(x3),1") read by ix_launch_slurm_place for
 * a spread of ranks, an endpoint another task published over PMIx
 * ("PORT ADDR", ix_launch_pmix_parse_ep), and a per-task list
 * (--task-bind, --task-rdma-dev) picked by ix_launch_list_pick.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/launch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what, const char *s)
{
	if (!ok) {
		fprintf(stderr, "%s: '%s'\n", what, s);
		abort();
	}
}

static void place(const char *s)
{
	static const uint32_t far[] = { 100, 1000, IX_LAUNCH_MAX_TASKS - 1, IX_LAUNCH_MAX_TASKS,
					UINT32_MAX };
	struct ix_err err;
	uint32_t node, local;

	for (uint32_t i = 0; i < 64 + sizeof(far) / sizeof(far[0]); i++) {
		uint32_t rank = i < 64 ? i : far[i - 64];

		if (ix_launch_slurm_place(s, rank, &node, &local, &err) < 0) {
			must(strstr(err.msg, "SLURM_STEP_TASKS_PER_NODE") != NULL,
			     "a refusal that does not name the variable", s);
			continue;
		}
		/* A node holds a task at least: rank r is on node r at most. */
		must(rank < IX_LAUNCH_MAX_TASKS, "a task beyond the most there are", s);
		must(node <= rank && local <= rank, "a task placed past its rank", s);
	}
}

static void endpoint(const char *s)
{
	struct ix_launch_ep ep;

	memset(&ep, 0, sizeof(ep));
	if (ix_launch_pmix_parse_ep(s, &ep) < 0)
		return;
	must(ep.port > 0, "port 0 taken", s);
	must(ep.addr[0] != '\0' && memchr(ep.addr, '\0', sizeof(ep.addr)) != NULL,
	     "an empty or unterminated address", s);
}

static void pick(const char *s)
{
	char out[64];
	struct ix_err err;

	for (uint32_t r = 0; r < 8; r++)
		if (ix_launch_list_pick(s, r, out, sizeof(out), &err) == 0)
			must(out[0] && strlen(out) < sizeof(out) && !strchr(out, ','),
			     "an empty, long or joined entry", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	place(s);
	endpoint(s);
	pick(s);
	free(s);
	return 0;
}
