/* The PMIx backend of launch.h: srun --mpi=pmix, Open MPI's mpirun. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/launch.h"

#ifdef HAVE_PMIX

#include <pmix.h>

#define KEY_EP    "ixperf.agent" /* "PORT ADDR" of each task's agent */
#define KEY_TOKEN "ixperf.token" /* rank 0's job token, hex */

struct pmix_priv {
	pmix_proc_t self;
	bool up;
};

static struct pmix_priv priv;

static int pmix_fail(struct ix_err *err, const char *what, pmix_status_t st)
{
	return ix_fail(err, IX_EXIT_FAIL, "PMIx %s failed: %s", what, PMIx_Error_string(st));
}

/* A value of proc (rank, or the job's with PMIX_RANK_WILDCARD). */
static pmix_status_t get(uint32_t rank, const char *key, pmix_value_t **val)
{
	pmix_proc_t p;

	PMIX_LOAD_PROCID(&p, priv.self.nspace, rank);
	return PMIx_Get(&p, key, NULL, 0, val);
}

static int pmix_detect(struct ix_launch *l, struct ix_err *err)
{
	pmix_value_t *val = NULL;
	pmix_status_t st;

	if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK"))
		return 0;
	st = PMIx_Init(&priv.self, NULL, 0);
	if (st != PMIX_SUCCESS)
		return pmix_fail(err, "init", st);
	priv.up = true;
	l->priv = &priv;
	l->rank = priv.self.rank;
	st = get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &val);
	if (st != PMIX_SUCCESS || val->type != PMIX_UINT32) {
		PMIx_Finalize(NULL, 0);
		priv.up = false;
		return pmix_fail(err, "job size", st);
	}
	l->size = val->data.uint32;
	PMIX_VALUE_RELEASE(val);
	if (l->size < 2 || l->size > IX_LAUNCH_MAX_TASKS) {
		PMIx_Finalize(NULL, 0);
		priv.up = false;
		if (l->size < 2)
			return 0;
		return ix_fail(err, IX_EXIT_USAGE, "a job of %u tasks: at most %d", l->size,
			       IX_LAUNCH_MAX_TASKS);
	}
	if (get(priv.self.rank, PMIX_LOCAL_RANK, &val) == PMIX_SUCCESS) {
		if (val->type == PMIX_UINT16)
			l->local_rank = val->data.uint16;
		PMIX_VALUE_RELEASE(val);
	}
	if (get(priv.self.rank, PMIX_HOSTNAME, &val) == PMIX_SUCCESS) {
		if (val->type == PMIX_STRING && val->data.string)
			snprintf(l->node, sizeof(l->node), "%s", val->data.string);
		PMIX_VALUE_RELEASE(val);
	}
	snprintf(l->job, sizeof(l->job), "%.63s", priv.self.nspace);
	return 1;
}

static uint16_t pmix_port(const struct ix_launch *l)
{
	(void)l;
	return 0;
}

static int put_string(const char *key, const char *s, struct ix_err *err)
{
	pmix_value_t v;
	pmix_status_t st;

	PMIX_VALUE_CONSTRUCT(&v);
	v.type = PMIX_STRING;
	v.data.string = (char *)s;
	st = PMIx_Put(PMIX_GLOBAL, key, &v);
	return st == PMIX_SUCCESS ? 0 : pmix_fail(err, "put", st);
}

static int hex_token(const char *hex, struct ix_token *t, struct ix_err *err)
{
	size_t n = strlen(hex);

	if (n != 2 * 32)
		return ix_fail(err, IX_EXIT_FAIL, "PMIx: rank 0's token is malformed");
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return ix_fail(err, IX_EXIT_FAIL, "PMIx: rank 0's token is malformed");
		t->key[i] = (uint8_t)b;
	}
	t->len = n / 2;
	t->set = true;
	return 0;
}

static int pmix_exchange(struct ix_launch *l, const struct ix_launch_ep *self,
			 struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			 struct ix_err *err)
{
	char ep[IX_HOST_NAME_MAX + 16], hex[IX_AUTH_HEX];
	pmix_info_t info[2];
	bool collect = true;
	int tmo = (int)(timeout_s + 0.999);
	pmix_status_t st;

	snprintf(ep, sizeof(ep), "%u %s", (unsigned)self->port, self->addr);
	if (put_string(KEY_EP, ep, err) < 0)
		return -1;
	if (l->rank == 0) {
		/* Drawn here, handed round by the PMIx servers of the job only. */
		if (ix_auth_challenge(hex, err) < 0 || put_string(KEY_TOKEN, hex, err) < 0)
			return -1;
	}
	st = PMIx_Commit();
	if (st != PMIX_SUCCESS)
		return pmix_fail(err, "commit", st);
	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
	st = PMIx_Fence(NULL, 0, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (st != PMIX_SUCCESS)
		return pmix_fail(err, "fence (every task publishing its agent)", st);
	for (uint32_t r = 0; r < l->size; r++) {
		pmix_value_t *val = NULL;
		unsigned port;
		int used = 0;

		all[r].rank = r;
		st = get(r, KEY_EP, &val);
		if (st != PMIX_SUCCESS || val->type != PMIX_STRING ||
		    sscanf(val->data.string, "%u %n", &port, &used) != 1 || port == 0 ||
		    port > 65535) {
			if (val)
				PMIX_VALUE_RELEASE(val);
			return ix_fail(err, IX_EXIT_FAIL, "PMIx: task %u published no agent", r);
		}
		all[r].port = (uint16_t)port;
		snprintf(all[r].addr, sizeof(all[r].addr), "%s", val->data.string + used);
		PMIX_VALUE_RELEASE(val);
		snprintf(all[r].node, sizeof(all[r].node), "%s", all[r].addr);
		if (get(r, PMIX_HOSTNAME, &val) == PMIX_SUCCESS) {
			if (val->type == PMIX_STRING && val->data.string)
				snprintf(all[r].node, sizeof(all[r].node), "%s", val->data.string);
			PMIX_VALUE_RELEASE(val);
		}
	}
	{
		pmix_value_t *val = NULL;
		int rc;

		st = get(0, KEY_TOKEN, &val);
		if (st != PMIX_SUCCESS || val->type != PMIX_STRING)
			rc = pmix_fail(err, "get of the job token", st);
		else
			rc = hex_token(val->data.string, token, err);
		if (val)
			PMIX_VALUE_RELEASE(val);
		return rc;
	}
}

static void pmix_finish(struct ix_launch *l)
{
	(void)l;
	if (priv.up)
		PMIx_Finalize(NULL, 0);
	priv.up = false;
}

#else /* !HAVE_PMIX */

static int pmix_detect(struct ix_launch *l, struct ix_err *err)
{
	(void)l;
	(void)err;
	return 0; /* the Slurm environment may still serve */
}

static uint16_t pmix_port(const struct ix_launch *l)
{
	(void)l;
	return 0;
}

static int pmix_exchange(struct ix_launch *l, const struct ix_launch_ep *self,
			 struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			 struct ix_err *err)
{
	(void)l, (void)self, (void)token, (void)all, (void)timeout_s;
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "built without PMIx");
}

static void pmix_finish(struct ix_launch *l)
{
	(void)l;
}

#endif

const struct ix_launch_backend ix_launch_pmix = {
	.name = "pmix",
	.detect = pmix_detect,
	.port = pmix_port,
	.exchange = pmix_exchange,
	.finish = pmix_finish,
	.shares_token = true,
};
