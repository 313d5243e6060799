#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/capture/talkers.h"

#define IX_TALKERS_HOSTS_LIMIT 1024 /* the matrices grow with its square */

struct talker {
	uint8_t family; /* 4 or 6 */
	uint8_t addr[16];
	int64_t first_ns, last_ns;
};

struct ix_talkers {
	pthread_mutex_t lock;
	size_t max;           /* hosts with their own index; index max is "other" */
	size_t dim;           /* max + 1: the matrices' side */
	size_t n;             /* hosts seen so far, at most max */
	struct talker *hosts; /* dim entries */
	uint32_t *slots;      /* open addressing: host index + 1, 0 when free */
	size_t nslots;        /* a power of two, at least twice max */
	uint64_t *bytes;      /* dim * dim, [src * dim + dst] */
	uint64_t *snap;       /* bytes at the previous snapshot */
	bool have_snap;
	int64_t snap_ns;
	bool other_used;
	uint64_t packets, total_bytes, other_packets, other_bytes;
};

struct ix_talkers *ix_talkers_new(size_t max_hosts, struct ix_err *err)
{
	struct ix_talkers *t;

	if (!max_hosts)
		max_hosts = IX_TALKERS_MAX_HOSTS;
	if (max_hosts > IX_TALKERS_HOSTS_LIMIT) {
		ix_fail(err, IX_EXIT_USAGE, "at most %d hosts in a traffic matrix",
			IX_TALKERS_HOSTS_LIMIT);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		return NULL;
	}
	t->max = max_hosts;
	t->dim = max_hosts + 1;
	for (t->nslots = 16; t->nslots < 2 * max_hosts; t->nslots *= 2)
		;
	t->hosts = calloc(t->dim, sizeof(*t->hosts));
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->bytes = calloc(t->dim * t->dim, sizeof(*t->bytes));
	t->snap = calloc(t->dim * t->dim, sizeof(*t->snap));
	if (!t->hosts || !t->slots || !t->bytes || !t->snap ||
	    pthread_mutex_init(&t->lock, NULL) != 0) {
		free(t->hosts);
		free(t->slots);
		free(t->bytes);
		free(t->snap);
		free(t);
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		return NULL;
	}
	return t;
}

void ix_talkers_free(struct ix_talkers *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->hosts);
	free(t->slots);
	free(t->bytes);
	free(t->snap);
	free(t);
}

/* FNV-1a over the family and the address. */
static uint32_t hash_addr(uint8_t family, const uint8_t addr[16])
{
	uint32_t h = 2166136261u;

	h = (h ^ family) * 16777619u;
	for (int i = 0; i < 16; i++)
		h = (h ^ addr[i]) * 16777619u;
	return h;
}

/* The index of a host, adding it while there is room; max ("other")
 * once the table is full. Called with the lock held. */
static size_t host_index(struct ix_talkers *t, uint8_t family, const uint8_t addr[16],
			 int64_t now_ns)
{
	size_t mask = t->nslots - 1;
	size_t s = hash_addr(family, addr) & mask;
	struct talker *h;

	for (; t->slots[s]; s = (s + 1) & mask) {
		h = &t->hosts[t->slots[s] - 1];
		if (h->family == family && memcmp(h->addr, addr, 16) == 0) {
			h->last_ns = now_ns;
			return t->slots[s] - 1;
		}
	}
	if (t->n == t->max)
		return t->max;
	h = &t->hosts[t->n];
	h->family = family;
	memcpy(h->addr, addr, 16);
	h->first_ns = h->last_ns = now_ns;
	t->slots[s] = (uint32_t)++t->n;
	return t->n - 1;
}

int ix_talkers_add(struct ix_talkers *t, int family, const uint8_t src[16], const uint8_t dst[16],
		   uint64_t bytes, int64_t now_ns)
{
	uint8_t s[16] = { 0 }, d[16] = { 0 };
	uint8_t fam;
	size_t si, di;

	/* IPv4 keys use the first 4 bytes only: the rest may be anything. */
	if (family == 4 || family == AF_INET) {
		fam = 4;
		memcpy(s, src, 4);
		memcpy(d, dst, 4);
	} else if (family == 6 || family == AF_INET6) {
		fam = 6;
		memcpy(s, src, 16);
		memcpy(d, dst, 16);
	} else {
		return -1;
	}
	pthread_mutex_lock(&t->lock);
	si = host_index(t, fam, s, now_ns);
	di = host_index(t, fam, d, now_ns);
	t->bytes[si * t->dim + di] += bytes;
	t->packets++;
	t->total_bytes += bytes;
	if (si == t->max || di == t->max) {
		t->other_used = true;
		t->other_packets++;
		t->other_bytes += bytes;
	}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

void ix_talkers_view_free(struct ix_talkers_view *v)
{
	free(v->hosts);
	free(v->bytes);
	free(v->rate);
	memset(v, 0, sizeof(*v));
}

/* The table's index of view index i (the "other" bucket comes last). */
static size_t table_index(const struct ix_talkers *t, size_t i)
{
	return i < t->n ? i : t->max;
}

/* Matrix, rates and counts under the lock; names and totals after it. */
static void copy_locked(struct ix_talkers *t, int64_t now_ns, struct ix_talkers_view *v)
{
	size_t n = v->n;

	v->rate_known = t->have_snap && now_ns > t->snap_ns;
	v->period_s = v->rate_known ? (double)(now_ns - t->snap_ns) / 1e9 : 0;
	for (size_t i = 0; i < n; i++) {
		size_t ti = table_index(t, i);

		if (ti < t->max) {
			v->hosts[i].family = t->hosts[ti].family;
			v->hosts[i].first_ns = t->hosts[ti].first_ns;
			v->hosts[i].last_ns = t->hosts[ti].last_ns;
		} else {
			v->hosts[i].other = true;
		}
		for (size_t j = 0; j < n; j++) {
			size_t k = ti * t->dim + table_index(t, j);
			uint64_t b = t->bytes[k];

			v->bytes[i * n + j] = b;
			if (v->rate_known)
				v->rate[i * n + j] = (double)(b - t->snap[k]) / v->period_s;
			t->snap[k] = b;
		}
	}
	t->have_snap = true;
	t->snap_ns = now_ns;
	v->packets = t->packets;
	v->total_bytes = t->total_bytes;
	v->other_packets = t->other_packets;
	v->other_bytes = t->other_bytes;
}

int ix_talkers_snapshot(struct ix_talkers *t, int64_t now_ns, struct ix_talkers_view *out,
			struct ix_err *err)
{
	struct ix_talkers_view v = { 0 };
	uint8_t addrs[IX_TALKERS_HOSTS_LIMIT][16];
	size_t n;

	/* Allocate for the hosts seen now; retry if more came meanwhile. */
	for (;;) {
		pthread_mutex_lock(&t->lock);
		n = t->n + (t->other_used ? 1 : 0);
		pthread_mutex_unlock(&t->lock);
		v.hosts = calloc(n ? n : 1, sizeof(*v.hosts));
		v.bytes = calloc(n ? n * n : 1, sizeof(*v.bytes));
		v.rate = calloc(n ? n * n : 1, sizeof(*v.rate));
		if (!v.hosts || !v.bytes || !v.rate) {
			ix_talkers_view_free(&v);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
		pthread_mutex_lock(&t->lock);
		if (n == t->n + (t->other_used ? 1 : 0))
			break;
		pthread_mutex_unlock(&t->lock);
		ix_talkers_view_free(&v);
	}
	v.n = n;
	copy_locked(t, now_ns, &v);
	for (size_t i = 0; i < n; i++)
		if (!v.hosts[i].other)
			memcpy(addrs[i], t->hosts[i].addr, 16);
	pthread_mutex_unlock(&t->lock);

	for (size_t i = 0; i < n; i++) {
		struct ix_talkers_host *h = &v.hosts[i];

		if (h->other)
			snprintf(h->addr, sizeof(h->addr), "other");
		else if (!inet_ntop(h->family == 4 ? AF_INET : AF_INET6, addrs[i], h->addr,
				    sizeof(h->addr)))
			snprintf(h->addr, sizeof(h->addr), "?");
		for (size_t j = 0; j < n; j++) {
			h->tx_bytes += v.bytes[i * n + j];
			h->rx_bytes += v.bytes[j * n + i];
			h->tx_rate += v.rate[i * n + j];
			h->rx_rate += v.rate[j * n + i];
		}
	}
	*out = v;
	return 0;
}

/* a busier than b: by rate, then by bytes. */
static bool busier(const struct ix_talkers_pair *a, const struct ix_talkers_pair *b)
{
	if (a->rate != b->rate)
		return a->rate > b->rate;
	return a->bytes > b->bytes;
}

size_t ix_talkers_top(const struct ix_talkers_view *v, struct ix_talkers_pair *out, size_t max)
{
	size_t k = 0;

	/* Insertion into a sorted array of at most max: no allocation. */
	for (size_t s = 0; s < v->n; s++) {
		for (size_t d = 0; d < v->n; d++) {
			struct ix_talkers_pair p = { s, d, v->bytes[s * v->n + d],
						     v->rate_known ? v->rate[s * v->n + d] : 0 };
			size_t at;

			if (!p.bytes || !max)
				continue;
			if (k == max && !busier(&p, &out[k - 1]))
				continue;
			at = k < max ? k++ : k - 1;
			for (; at > 0 && busier(&p, &out[at - 1]); at--)
				out[at] = out[at - 1];
			out[at] = p;
		}
	}
	return k;
}
