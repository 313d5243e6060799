/* The PMIx backend of launch.h: srun --mpi=pmix, Open MPI's mpirun. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/launch.h"
#include "probes/core/clock.h"

int ix_launch_pmix_parse_ep(const char *s, struct ix_launch_ep *ep)
{
	unsigned port;
	int used = 0;

	if (!s || sscanf(s, "%u %n", &port, &used) != 1 || port == 0 || port > 65535 || !s[used] ||
	    strlen(s + used) >= sizeof(ep->addr))
		return -1;
	ep->port = (uint16_t)port;
	snprintf(ep->addr, sizeof(ep->addr), "%s", s + used);
	return 0;
}

#ifdef HAVE_PMIX

#include <pthread.h>
#include <time.h>

#include <pmix.h>

#define KEY_EP    "ixperf.agent" /* "PORT ADDR" of each task's agent */
#define KEY_TOKEN "ixperf.token" /* rank 0's job token, hex */
#define LOOKUP_S  5              /* one value asked alone, after a failed fence */

struct pmix_priv {
	pmix_proc_t self;
	bool up;
};

static struct pmix_priv priv;

static int pmix_fail(struct ix_err *err, const char *what, pmix_status_t st)
{
	return ix_fail(err, IX_EXIT_FAIL, "PMIx %s failed: %s", what, PMIx_Error_string(st));
}

/* A value of proc (rank, or the job's with PMIX_RANK_WILDCARD), waited
 * for tmo seconds at most (0: as long as it takes). */
static pmix_status_t get(uint32_t rank, const char *key, int tmo, pmix_value_t **val)
{
	pmix_info_t info;
	pmix_proc_t p;
	pmix_status_t st;

	PMIX_LOAD_PROCID(&p, priv.self.nspace, rank);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &tmo, PMIX_INT);
	st = PMIx_Get(&p, key, tmo ? &info : NULL, tmo ? 1 : 0, val);
	PMIX_INFO_DESTRUCT(&info);
	return st;
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
	st = get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 0, &val);
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
	if (get(priv.self.rank, PMIX_LOCAL_RANK, 0, &val) == PMIX_SUCCESS) {
		if (val->type == PMIX_UINT16)
			l->local_rank = val->data.uint16;
		PMIX_VALUE_RELEASE(val);
	}
	if (get(priv.self.rank, PMIX_HOSTNAME, 0, &val) == PMIX_SUCCESS) {
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

/* Publish this task's endpoint, and on rank 0 the job's token. */
static int publish(const struct ix_launch *l, const struct ix_launch_ep *self, struct ix_err *err)
{
	char ep[IX_HOST_NAME_MAX + 16], hex[IX_AUTH_HEX];
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
	return st == PMIX_SUCCESS ? 0 : pmix_fail(err, "commit", st);
}

/* Every task's endpoint to every task, within tmo seconds. */
static pmix_status_t fence(int tmo)
{
	pmix_info_t info[2];
	bool collect = true;
	pmix_status_t st;

	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
	st = PMIx_Fence(NULL, 0, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	return st;
}

/* The node of rank r as the launcher knows it, into ep (kept when unknown). */
static void node_of(uint32_t r, struct ix_launch_ep *ep)
{
	pmix_value_t *val = NULL;

	if (get(r, PMIX_HOSTNAME, LOOKUP_S, &val) == PMIX_SUCCESS) {
		if (val->type == PMIX_STRING && val->data.string)
			snprintf(ep->node, sizeof(ep->node), "%s", val->data.string);
		PMIX_VALUE_RELEASE(val);
	}
}

/* After a fence: every task has published. */
static int collect(const struct ix_launch *l, struct ix_launch_ep *all, struct ix_err *err)
{
	for (uint32_t r = 0; r < l->size; r++) {
		pmix_value_t *val = NULL;
		pmix_status_t st = get(r, KEY_EP, 0, &val);
		int rc = st == PMIX_SUCCESS && val->type == PMIX_STRING
				 ? ix_launch_pmix_parse_ep(val->data.string, &all[r])
				 : -1;

		if (val)
			PMIX_VALUE_RELEASE(val);
		if (rc < 0)
			return ix_fail(err, IX_EXIT_FAIL, "PMIx: task %u published no agent", r);
		all[r].rank = r;
		snprintf(all[r].node, sizeof(all[r].node), "%s", all[r].addr);
		node_of(r, &all[r]);
	}
	return 0;
}

/* ---- without a fence: each endpoint asked alone, all at once ------------ */

struct lookups {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t left; /* answers still to come */
};

struct lookup {
	struct lookups *all;
	bool done, found;
	char ep[IX_HOST_NAME_MAX + 16];
};

/* PMIx's thread: the value is the library's, copied here. */
static void looked_up(pmix_status_t st, pmix_value_t *val, void *arg)
{
	struct lookup *k = arg;

	pthread_mutex_lock(&k->all->lock);
	k->found = st == PMIX_SUCCESS && val && val->type == PMIX_STRING && val->data.string;
	if (k->found)
		snprintf(k->ep, sizeof(k->ep), "%s", val->data.string);
	k->done = true;
	k->all->left--;
	pthread_cond_broadcast(&k->all->cond);
	pthread_mutex_unlock(&k->all->lock);
}

/* Ask for every endpoint, each bounded by the PMIx servers to tmo seconds,
 * and wait for the answers (a few seconds more at most). */
static void lookup_all(const struct ix_launch *l, struct lookup *k, struct lookups *ls, int tmo)
{
	struct timespec until;
	pmix_info_t info;

	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &tmo, PMIX_INT);
	for (uint32_t r = 0; r < l->size; r++) {
		pmix_proc_t p;

		k[r].all = ls;
		PMIX_LOAD_PROCID(&p, priv.self.nspace, r);
		pthread_mutex_lock(&ls->lock);
		ls->left++;
		pthread_mutex_unlock(&ls->lock);
		if (PMIx_Get_nb(&p, KEY_EP, &info, 1, looked_up, &k[r]) != PMIX_SUCCESS) {
			pthread_mutex_lock(&ls->lock);
			ls->left--;
			k[r].done = true;
			pthread_mutex_unlock(&ls->lock);
		}
	}
	PMIX_INFO_DESTRUCT(&info);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += tmo + 5;
	pthread_mutex_lock(&ls->lock);
	while (ls->left > 0 && pthread_cond_timedwait(&ls->cond, &ls->lock, &until) == 0)
		;
	pthread_mutex_unlock(&ls->lock);
}

/* Rank 0 after a failed fence: whoever published, and the others missing.
 * Returns the number that published; the lookups stay allocated while an
 * answer is outstanding (PMIx would write to them). */
static int collect_each(const struct ix_launch *l, struct ix_launch_ep *all, struct ix_err *err)
{
	static struct lookups ls = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	struct lookup *k = calloc(l->size, sizeof(*k));
	int found = 0;

	if (!k)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	lookup_all(l, k, &ls, LOOKUP_S);
	pthread_mutex_lock(&ls.lock);
	for (uint32_t r = 0; r < l->size; r++) {
		all[r].rank = r;
		all[r].missing =
			!k[r].done || !k[r].found || ix_launch_pmix_parse_ep(k[r].ep, &all[r]) < 0;
		if (all[r].missing) {
			all[r].addr[0] = '\0';
			all[r].port = 0;
		} else {
			snprintf(all[r].node, sizeof(all[r].node), "%s", all[r].addr);
			found++;
		}
	}
	if (ls.left == 0)
		free(k);
	pthread_mutex_unlock(&ls.lock);
	for (uint32_t r = 0; r < l->size; r++)
		node_of(r, &all[r]);
	return found;
}

/* The job's token, from rank 0. */
static int job_token(struct ix_token *token, int tmo, struct ix_err *err)
{
	pmix_value_t *val = NULL;
	pmix_status_t st = get(0, KEY_TOKEN, tmo, &val);
	int rc;

	if (st != PMIX_SUCCESS || val->type != PMIX_STRING)
		rc = pmix_fail(err, "get of the job token (rank 0's)", st);
	else
		rc = hex_token(val->data.string, token, err);
	if (val)
		PMIX_VALUE_RELEASE(val);
	return rc;
}

static int pmix_exchange(struct ix_launch *l, const struct ix_launch_ep *self,
			 struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			 struct ix_err *err)
{
	pmix_status_t st;

	if (publish(l, self, err) < 0)
		return -1;
	st = fence((int)(timeout_s + 0.999));
	if (st == PMIX_SUCCESS)
		return collect(l, all, err) < 0 ? -1 : job_token(token, LOOKUP_S, err);
	/* Some task has not published in time (or died): rank 0 goes on with
	 * those that did, the others serve it. */
	if (l->rank != 0) {
		for (uint32_t r = 0; r < l->size; r++) {
			all[r] = r == l->rank ? *self : (struct ix_launch_ep){ .rank = r };
			all[r].missing = r != l->rank;
		}
		return job_token(token, LOOKUP_S, err) < 0
			       ? ix_fail_prefix(err, "after the fence failed (%s)",
						PMIx_Error_string(st))
			       : 0;
	}
	if (collect_each(l, all, err) < 0 || job_token(token, LOOKUP_S, err) < 0)
		return -1;
	return 0;
}

static int pmix_put(struct ix_launch *l, const char *key, const void *data, size_t len,
		    struct ix_err *err)
{
	pmix_value_t v;
	pmix_status_t st;

	(void)l;
	PMIX_VALUE_CONSTRUCT(&v);
	v.type = PMIX_BYTE_OBJECT;
	v.data.bo.bytes = (char *)data;
	v.data.bo.size = len;
	st = PMIx_Put(PMIX_GLOBAL, key, &v);
	if (st != PMIX_SUCCESS)
		return pmix_fail(err, "put", st);
	st = PMIx_Commit();
	return st == PMIX_SUCCESS ? 0 : pmix_fail(err, "commit", st);
}

/* A value another task may not have put yet: PMIx answers NOT-FOUND at
 * once for a key its server has not seen, so ask again, the cache
 * refreshed, until it comes or tmo seconds have passed. */
static pmix_status_t get_waiting(uint32_t rank, const char *key, int tmo, pmix_value_t **val)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int64_t until = ix_now_ns() + tmo * IX_NSEC_PER_SEC;
	bool refresh = true;
	pmix_status_t st;

	for (;;) {
		pmix_info_t info[2];
		pmix_proc_t p;
		int step = 1;

		PMIX_LOAD_PROCID(&p, priv.self.nspace, rank);
		PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &step, PMIX_INT);
		PMIX_INFO_LOAD(&info[1], PMIX_GET_REFRESH_CACHE, &refresh, PMIX_BOOL);
		st = PMIx_Get(&p, key, info, 2, val);
		PMIX_INFO_DESTRUCT(&info[0]);
		PMIX_INFO_DESTRUCT(&info[1]);
		if (st != PMIX_ERR_NOT_FOUND && st != PMIX_ERR_TIMEOUT)
			return st;
		if (ix_now_ns() >= until)
			return st;
		nanosleep(&pause, NULL);
	}
}

static int pmix_get(struct ix_launch *l, uint32_t rank, const char *key, uint8_t **data,
		    size_t *len, double timeout_s, struct ix_err *err)
{
	pmix_value_t *val = NULL;
	int tmo = timeout_s < 1 ? 1 : (int)(timeout_s + 0.999);
	pmix_status_t st;

	(void)l;
	st = get_waiting(rank, key, tmo, &val);
	if (st != PMIX_SUCCESS || !val || val->type != PMIX_BYTE_OBJECT) {
		if (val)
			PMIX_VALUE_RELEASE(val);
		return ix_fail(err, IX_EXIT_FAIL, "task %u published no %s within %d s (%s)", rank,
			       key, tmo, st == PMIX_SUCCESS ? "not bytes" : PMIx_Error_string(st));
	}
	*len = val->data.bo.size;
	*data = malloc(*len ? *len : 1);
	if (!*data) {
		PMIX_VALUE_RELEASE(val);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (*len)
		memcpy(*data, val->data.bo.bytes, *len);
	PMIX_VALUE_RELEASE(val);
	return 0;
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
#ifdef HAVE_PMIX
	.put = pmix_put,
	.get = pmix_get,
#endif
	.shares_token = true,
	.publishes_self = true,
};
