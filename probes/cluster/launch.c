#include "config.h"

#include <errno.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/cluster/launch.h"

#define TOKEN_MIN 32 /* characters of IXPERF_TOKEN */

/* ---- the Slurm environment (no PMIx) ------------------------------------ */

static int env_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	char *end;

	if (!s || !*s)
		return 0;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end ? -1 : 1;
}

/* One entry of a task count list: "N" or "N(xM)"; *p advanced past it.
 * Digits only: strtoull would take a sign or blanks, and "-1" as 2^64 - 1,
 * which the sums of the list wrap around. */
static int tasks_entry(const char **p, uint64_t *tasks, uint64_t *times)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*tasks = strtoull(*p, &end, 10);
	if (errno || end == *p || *tasks == 0)
		return -1;
	*times = 1;
	if (*end == '(') {
		const char *q = end + 1;

		if (*q++ != 'x' || *q < '0' || *q > '9')
			return -1;
		*times = strtoull(q, &end, 10);
		if (errno || end == q || *times == 0 || *end != ')')
			return -1;
		end++;
	}
	*p = end;
	return 0;
}

int ix_launch_slurm_place(const char *tpn, uint32_t rank, uint32_t *node, uint32_t *local,
			  struct ix_err *err)
{
	const char *p = tpn;
	uint64_t first = 0, n = 0;
	bool found = false;

	if (!tpn || !*tpn)
		return ix_fail(err, IX_EXIT_USAGE, "SLURM_STEP_TASKS_PER_NODE is not set");
	while (*p) {
		uint64_t tasks, times;

		/* Every entry is checked, also past the task's. */
		if (tasks_entry(&p, &tasks, &times) < 0 || (*p && (*p != ',' || !p[1])))
			return ix_fail(err, IX_EXIT_USAGE,
				       "SLURM_STEP_TASKS_PER_NODE '%s' is malformed", tpn);
		if (*p == ',')
			p++;
		/* Bounded before they are multiplied and summed. */
		if (tasks > IX_LAUNCH_MAX_TASKS || times > IX_LAUNCH_MAX_TASKS ||
		    first + tasks * times > IX_LAUNCH_MAX_TASKS)
			return ix_fail(err, IX_EXIT_USAGE,
				       "SLURM_STEP_TASKS_PER_NODE '%s': more than %d tasks", tpn,
				       IX_LAUNCH_MAX_TASKS);
		if (!found && rank < first + tasks * times) {
			uint64_t k = (rank - first) / tasks;

			*node = (uint32_t)(n + k);
			*local = (uint32_t)(rank - first - k * tasks);
			found = true;
		}
		first += tasks * times;
		n += times;
	}
	if (found)
		return 0;
	return ix_fail(err, IX_EXIT_USAGE,
		       "task %u is not in SLURM_STEP_TASKS_PER_NODE '%s' (%" PRIu64 " tasks)", rank,
		       tpn, first);
}

uint16_t ix_launch_slurm_port(uint64_t job, uint64_t step, uint32_t local)
{
	/* A spread of 4,000 bases, ten ports apart: tasks on one node of one
	 * step get neighbouring ports, other steps other bases. */
	uint64_t h = (job * 2654435761u + step * 40503u) % 4000u;

	return (uint16_t)(20000 + h * 10 + local % 10);
}

struct slurm_priv {
	uint64_t job, step;
};

static int slurm_detect(struct ix_launch *l, struct ix_err *err)
{
	static struct slurm_priv priv;
	uint64_t rank, size, local, node;
	const char *dist = getenv("SLURM_DISTRIBUTION");

	/* A task of an srun step; a batch script (SLURM_STEP_ID "batch", no
	 * step task count) is not one, whatever SLURM_NTASKS says. */
	if (env_u64("SLURM_PROCID", &rank) != 1 || !getenv("SLURM_STEP_NODELIST") ||
	    env_u64("SLURM_STEP_ID", &priv.step) != 1 ||
	    env_u64("SLURM_STEP_NUM_TASKS", &size) != 1)
		return 0;
	if (size < 2)
		return 0;
	if (size > IX_LAUNCH_MAX_TASKS || rank >= size)
		return ix_fail(err, IX_EXIT_USAGE,
			       "Slurm task %" PRIu64 " of %" PRIu64
			       ": out of range (at most %d tasks)",
			       rank, size, IX_LAUNCH_MAX_TASKS);
	if (dist && strncmp(dist, "block", 5) != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "without PMIx the tasks' places follow from a block distribution, "
			       "not '%s' (use srun --mpi=pmix, or -m block)",
			       dist);
	if (env_u64("SLURM_JOB_ID", &priv.job) != 1)
		return ix_fail(err, IX_EXIT_USAGE, "SLURM_JOB_ID is not set or malformed");
	if (env_u64("SLURM_LOCALID", &local) != 1 || env_u64("SLURM_NODEID", &node) != 1)
		return ix_fail(err, IX_EXIT_USAGE, "SLURM_LOCALID or SLURM_NODEID is not set");
	l->rank = (uint32_t)rank;
	l->size = (uint32_t)size;
	l->local_rank = (uint32_t)local;
	snprintf(l->node, sizeof(l->node), "%s",
		 getenv("SLURMD_NODENAME") ? getenv("SLURMD_NODENAME") : "");
	snprintf(l->job, sizeof(l->job), "%" PRIu64 ".%" PRIu64, priv.job, priv.step);
	l->priv = &priv;
	return 1;
}

static uint16_t slurm_port(const struct ix_launch *l)
{
	const struct slurm_priv *p = l->priv;

	return ix_launch_slurm_port(p->job, p->step, l->local_rank);
}

static int slurm_token(struct ix_token *token, struct ix_err *err)
{
	const char *s = getenv("IXPERF_TOKEN");
	size_t n = s ? strlen(s) : 0;

	if (token->set)
		return 0; /* --token-file */
	if (!s)
		return ix_fail(err, IX_EXIT_USAGE,
			       "launched by Slurm without PMIx: the agents need a shared token, "
			       "and only PMIx can hand one round; set IXPERF_TOKEN (at least %d "
			       "random characters; srun passes it on) or give --token-file, or "
			       "use srun --mpi=pmix",
			       TOKEN_MIN);
	if (n < TOKEN_MIN || n > IX_TOKEN_MAX)
		return ix_fail(err, IX_EXIT_USAGE, "IXPERF_TOKEN has %zu characters, not %d to %d",
			       n, TOKEN_MIN, IX_TOKEN_MAX);
	memcpy(token->key, s, n);
	token->len = n;
	token->set = true;
	return 0;
}

static int slurm_exchange(struct ix_launch *l, const struct ix_launch_ep *self,
			  struct ix_token *token, struct ix_launch_ep *all, double timeout_s,
			  struct ix_err *err)
{
	const struct slurm_priv *p = l->priv;
	const char *tpn = getenv("SLURM_STEP_TASKS_PER_NODE");
	struct ix_hostlist nodes = { 0 };
	int rc = 0;

	(void)self;
	(void)timeout_s;
	if (slurm_token(token, err) < 0 ||
	    ix_hostlist_parse(getenv("SLURM_STEP_NODELIST"), 1, &nodes, err) < 0) {
		ix_hostlist_free(&nodes);
		return -1;
	}
	for (uint32_t r = 0; r < l->size && rc == 0; r++) {
		uint32_t node, local;

		rc = ix_launch_slurm_place(tpn, r, &node, &local, err);
		if (rc == 0 && node >= nodes.n)
			rc = ix_fail(err, IX_EXIT_USAGE,
				     "task %u is on node %u, but SLURM_STEP_NODELIST names %zu", r,
				     node, nodes.n);
		if (rc == 0) {
			all[r].rank = r;
			snprintf(all[r].node, sizeof(all[r].node), "%s", nodes.v[node].name);
			snprintf(all[r].addr, sizeof(all[r].addr), "%s", nodes.v[node].name);
			all[r].port = ix_launch_slurm_port(p->job, p->step, local);
		}
	}
	ix_hostlist_free(&nodes);
	return rc;
}

static void slurm_finish(struct ix_launch *l)
{
	(void)l;
}

const struct ix_launch_backend ix_launch_slurm_env = {
	.name = "slurm-env",
	.detect = slurm_detect,
	.port = slurm_port,
	.exchange = slurm_exchange,
	.finish = slurm_finish,
	.shares_token = false,
	.publishes_self = false,
};

/* ---- a task's own address and device ------------------------------------ */

int ix_launch_list_pick(const char *list, uint32_t local_rank, char *out, size_t len,
			struct ix_err *err)
{
	const char *p = list;
	size_t n = 1, k, w;

	for (const char *q = list; *q; q++)
		n += *q == ',';
	for (k = local_rank % n; k > 0; k--)
		p = strchr(p, ',') + 1;
	w = strcspn(p, ",");
	if (w == 0)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' has an empty entry", list);
	if (w >= len)
		return ix_fail(err, IX_EXIT_USAGE, "'%.*s' is too long (at most %zu characters)",
			       (int)(w > 64 ? 64 : w), p, len - 1);
	memcpy(out, p, w);
	out[w] = '\0';
	return 0;
}

/* The numeric form of sa, with its scope for a link-local IPv6 address. */
static int numeric(const struct sockaddr *sa, socklen_t sl, char *addr, size_t len)
{
	return getnameinfo(sa, sl, addr, (socklen_t)len, NULL, 0, NI_NUMERICHOST) == 0 ? 0 : -1;
}

/* An IP literal: 1 when this host can bind it, 0 when entry is no literal,
 * -1 with err when it is one but not this host's. */
static int literal_addr(const char *entry, char *addr, size_t len, struct ix_err *err)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int fd, rc = -1, e = 0;

	if (getaddrinfo(entry, NULL, &hints, &ai) != 0)
		return 0;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		rc = numeric(ai->ai_addr, ai->ai_addrlen, addr, len);
	else
		e = errno;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	if (rc == 0)
		return 1;
	return ix_fail(err, IX_EXIT_USAGE, "%s is not an address of this host (%s)", entry,
		       strerror(e ? e : EINVAL));
}

/* The first address of family fam on interface name, into addr: 1 found,
 * 0 none; *seen set when the interface exists. */
static int iface_addr(const struct ifaddrs *all, const char *name, int fam, char *addr, size_t len,
		      bool *seen)
{
	for (const struct ifaddrs *i = all; i; i = i->ifa_next) {
		if (strcmp(i->ifa_name, name) != 0)
			continue;
		*seen = true;
		if (!i->ifa_addr || i->ifa_addr->sa_family != fam)
			continue;
		if (numeric(i->ifa_addr,
			    fam == AF_INET ? sizeof(struct sockaddr_in)
					   : sizeof(struct sockaddr_in6),
			    addr, len) == 0)
			return 1;
	}
	return 0;
}

int ix_launch_local_addr(const char *entry, char *addr, size_t len, struct ix_err *err)
{
	struct ifaddrs *all;
	bool seen = false;
	int rc = literal_addr(entry, addr, len, err);

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (strlen(entry) >= IF_NAMESIZE)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s' is neither an IP address nor an interface name", entry);
	if (getifaddrs(&all) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot list the interfaces: %s",
			       strerror(errno));
	rc = iface_addr(all, entry, AF_INET, addr, len, &seen) ||
	     iface_addr(all, entry, AF_INET6, addr, len, &seen);
	freeifaddrs(all);
	if (rc)
		return 0;
	if (seen)
		return ix_fail(err, IX_EXIT_USAGE, "interface %s has no IPv4 or IPv6 address",
			       entry);
	return ix_fail(err, IX_EXIT_USAGE,
		       "'%s' is neither an IP address nor an interface of this host", entry);
}

/* ---- dispatch ----------------------------------------------------------- */

static const struct ix_launch_backend *const backends[] = {
	&ix_launch_pmix,
	&ix_launch_slurm_env,
};

int ix_launch_detect(struct ix_launch *l, struct ix_err *err)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		int rc = backends[i]->detect(l, err);

		if (rc != 0) {
			if (rc > 0)
				l->be = backends[i];
			return rc < 0 ? ix_fail_prefix(err, "%s", backends[i]->name) : 1;
		}
	}
	return 0;
}

int ix_launch_exchange(struct ix_launch *l, const struct ix_launch_ep *self, struct ix_token *token,
		       struct ix_launch_ep *all, double timeout_s, struct ix_err *err)
{
	return l->be->exchange(l, self, token, all, timeout_s, err);
}

static int no_values(const struct ix_launch *l, struct ix_err *err)
{
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "the %s launcher carries no values between tasks: launch with PMIx "
		       "(srun --mpi=pmix, or mpirun)",
		       l->be ? l->be->name : "(no)");
}

int ix_launch_put(struct ix_launch *l, const char *key, const void *data, size_t len,
		  struct ix_err *err)
{
	return l->be && l->be->put ? l->be->put(l, key, data, len, err) : no_values(l, err);
}

int ix_launch_get(struct ix_launch *l, uint32_t rank, const char *key, uint8_t **data, size_t *len,
		  double timeout_s, struct ix_err *err)
{
	*data = NULL;
	*len = 0;
	if (!l->be || !l->be->get)
		return no_values(l, err);
	return l->be->get(l, rank, key, data, len, timeout_s, err);
}

void ix_launch_finish(struct ix_launch *l)
{
	if (l->be)
		l->be->finish(l);
	l->be = NULL;
}
