/* Unit tests for probes/capture/talkers.c: the who-talks-to-whom matrix, its
 * rates between snapshots, the bound on hosts and concurrent adds. */
#include "config.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "probes/capture/talkers.h"

/* An IPv4 address in the first 4 bytes; junk after it must not matter. */
static void v4(uint8_t a[16], const char *s, uint8_t junk)
{
	memset(a, junk, 16);
	cr_assert_eq(inet_pton(AF_INET, s, a), 1, "%s", s);
}

static void v6(uint8_t a[16], const char *s)
{
	cr_assert_eq(inet_pton(AF_INET6, s, a), 1, "%s", s);
}

static struct ix_talkers *new_talkers(size_t max)
{
	struct ix_err err = { 0 };
	struct ix_talkers *t = ix_talkers_new(max, &err);

	cr_assert_not_null(t, "%s", err.msg);
	return t;
}

static void snap(struct ix_talkers *t, int64_t now, struct ix_talkers_view *v)
{
	struct ix_err err = { 0 };

	cr_assert_eq(ix_talkers_snapshot(t, now, v, &err), 0, "%s", err.msg);
}

#define AT(v, s, d)   ((v)->bytes[(s) * (v)->n + (d)])
#define RATE(v, s, d) ((v)->rate[(s) * (v)->n + (d)])

Test(talkers, matrix_and_rates)
{
	struct ix_talkers *t = new_talkers(0);
	struct ix_talkers_view v;
	uint8_t a[16], b[16], c[16];

	v4(a, "10.0.0.1", 0);
	v4(b, "10.0.0.2", 0xaa);
	v4(c, "192.168.1.3", 0x55);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(ix_talkers_add(t, 4, a, b, 1000, 100), 0);
	cr_assert_eq(ix_talkers_add(t, AF_INET, b, a, 500, 200), 0);
	cr_assert_eq(ix_talkers_add(t, 4, a, c, 200, 300), 0);
	snap(t, 1000000000, &v);
	cr_assert_eq(v.n, 3);
	cr_assert_str_eq(v.hosts[0].addr, "10.0.0.1");
	cr_assert_str_eq(v.hosts[1].addr, "10.0.0.2");
	cr_assert_str_eq(v.hosts[2].addr, "192.168.1.3");
	cr_assert_eq(v.hosts[0].family, 4);
	cr_assert_eq(v.hosts[0].first_ns, 100);
	cr_assert_eq(v.hosts[0].last_ns, 300);
	cr_assert_eq(AT(&v, 0, 1), 3000);
	cr_assert_eq(AT(&v, 1, 0), 500);
	cr_assert_eq(AT(&v, 0, 2), 200);
	cr_assert_eq(AT(&v, 2, 0), 0);
	cr_assert_eq(v.hosts[0].tx_bytes, 3200);
	cr_assert_eq(v.hosts[0].rx_bytes, 500);
	cr_assert_eq(v.hosts[2].rx_bytes, 200);
	cr_assert_eq(v.packets, 5);
	cr_assert_eq(v.total_bytes, 3700);
	cr_assert_not(v.rate_known, "no previous snapshot");
	cr_assert_eq(v.other_packets, 0);
	ix_talkers_view_free(&v);

	/* Two seconds later, 2000 more bytes from a to b. */
	ix_talkers_add(t, 4, a, b, 2000, 2000000000);
	snap(t, 3000000000, &v);
	cr_assert(v.rate_known);
	cr_assert_eq(v.period_s, 2.0);
	cr_assert_eq(AT(&v, 0, 1), 5000);
	cr_assert_eq(RATE(&v, 0, 1), 1000.0);
	cr_assert_eq(RATE(&v, 1, 0), 0.0);
	cr_assert_eq(v.hosts[0].tx_rate, 1000.0);
	cr_assert_eq(v.hosts[1].rx_rate, 1000.0);
	ix_talkers_view_free(&v);

	/* A snapshot at the same instant: rates unknown, no division by 0. */
	snap(t, 3000000000, &v);
	cr_assert_not(v.rate_known);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}

Test(talkers, ipv6_and_families)
{
	struct ix_talkers *t = new_talkers(0);
	struct ix_talkers_view v;
	uint8_t a[16], b[16], m[16];

	v6(a, "2001:db8::1");
	v6(b, "fe80::1:2");
	/* All zeros in IPv4 and in IPv6: two hosts, families stay apart. */
	memset(m, 0, sizeof(m));
	cr_assert_eq(ix_talkers_add(t, 6, a, b, 10, 1), 0);
	cr_assert_eq(ix_talkers_add(t, AF_INET6, b, a, 20, 2), 0);
	cr_assert_eq(ix_talkers_add(t, 4, m, m, 30, 3), 0);
	cr_assert_eq(ix_talkers_add(t, 6, m, m, 40, 4), 0);
	cr_assert_eq(ix_talkers_add(t, 5, a, b, 50, 5), -1);
	cr_assert_eq(ix_talkers_add(t, 0, a, b, 50, 5), -1);
	snap(t, 10, &v);
	cr_assert_eq(v.n, 4);
	cr_assert_str_eq(v.hosts[0].addr, "2001:db8::1");
	cr_assert_str_eq(v.hosts[1].addr, "fe80::1:2");
	cr_assert_str_eq(v.hosts[2].addr, "0.0.0.0");
	cr_assert_str_eq(v.hosts[3].addr, "::");
	cr_assert_eq(v.hosts[3].family, 6);
	cr_assert_eq(AT(&v, 1, 0), 20);
	cr_assert_eq(AT(&v, 2, 2), 30);
	cr_assert_eq(v.packets, 4);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}

Test(talkers, hosts_past_the_bound_go_to_other)
{
	struct ix_talkers *t = new_talkers(4);
	struct ix_talkers_view v;
	uint8_t x[16], s[16];
	char addr[32];
	uint64_t sum = 0;

	v4(x, "10.9.9.9", 0);
	for (int i = 0; i < 10; i++) {
		snprintf(addr, sizeof(addr), "10.0.0.%d", i + 1);
		v4(s, addr, 0);
		ix_talkers_add(t, 4, s, x, 100, i);
	}
	/* Known hosts keep their own row even when the table is full. */
	v4(s, "10.0.0.1", 0);
	ix_talkers_add(t, 4, x, s, 7, 20);
	snap(t, 100, &v);
	cr_assert_eq(v.n, 5);
	cr_assert_str_eq(v.hosts[0].addr, "10.0.0.1");
	cr_assert_str_eq(v.hosts[1].addr, "10.9.9.9");
	cr_assert_str_eq(v.hosts[3].addr, "10.0.0.3");
	cr_assert(v.hosts[4].other);
	cr_assert_str_eq(v.hosts[4].addr, "other");
	cr_assert_eq(v.hosts[4].family, 0);
	cr_assert_eq(AT(&v, 4, 1), 700);
	cr_assert_eq(AT(&v, 1, 0), 7);
	cr_assert_eq(v.other_packets, 7);
	cr_assert_eq(v.other_bytes, 700);
	cr_assert_eq(v.hosts[1].rx_bytes, 1000);
	for (size_t i = 0; i < v.n * v.n; i++)
		sum += v.bytes[i];
	cr_assert_eq(sum, v.total_bytes);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}

Test(talkers, bounds_of_the_table)
{
	struct ix_err err = { 0 };

	cr_assert_null(ix_talkers_new(100000, &err));
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	ix_talkers_free(NULL);
}

Test(talkers, top_pairs)
{
	struct ix_talkers *t = new_talkers(0);
	struct ix_talkers_view v;
	struct ix_talkers_pair top[3];
	uint8_t h[5][16];
	char addr[32];

	for (int i = 0; i < 5; i++) {
		snprintf(addr, sizeof(addr), "10.1.0.%d", i);
		v4(h[i], addr, 0);
	}
	snap(t, 0, &v);
	cr_assert_eq(v.n, 0);
	cr_assert_eq(ix_talkers_top(&v, top, 3), 0);
	ix_talkers_view_free(&v);
	ix_talkers_add(t, 4, h[0], h[1], 10, 1);
	ix_talkers_add(t, 4, h[1], h[2], 40, 1);
	ix_talkers_add(t, 4, h[2], h[3], 30, 1);
	ix_talkers_add(t, 4, h[3], h[4], 20, 1);
	ix_talkers_add(t, 4, h[4], h[0], 50, 1);
	snap(t, 1000000000, &v);
	/* No rates yet: by bytes. */
	cr_assert_eq(ix_talkers_top(&v, top, 3), 3);
	cr_assert_eq(top[0].bytes, 50);
	cr_assert_eq(top[1].bytes, 40);
	cr_assert_eq(top[2].bytes, 30);
	cr_assert_eq(top[0].src, 4);
	cr_assert_eq(top[0].dst, 0);
	ix_talkers_view_free(&v);
	/* Rates first: h0 -> h1 is the busiest pair of the last second. */
	ix_talkers_add(t, 4, h[0], h[1], 1000, 2);
	ix_talkers_add(t, 4, h[3], h[4], 5, 2);
	snap(t, 2000000000, &v);
	cr_assert_eq(ix_talkers_top(&v, top, 3), 3);
	cr_assert_eq(top[0].src, 0);
	cr_assert_eq(top[0].rate, 1000.0);
	cr_assert_eq(top[1].src, 3);
	cr_assert_eq(top[1].rate, 5.0);
	cr_assert_eq(top[2].bytes, 50, "then idle pairs by bytes");
	cr_assert_eq(ix_talkers_top(&v, top, 0), 0);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}

#define THREADS 4
#define ADDS    50000

struct worker {
	struct ix_talkers *t;
	int id;
};

static void *adder(void *arg)
{
	struct worker *w = arg;
	uint8_t s[16] = { 10, 0, 0, 0 }, d[16] = { 10, 0, 1, 0 };

	for (int i = 0; i < ADDS; i++) {
		s[3] = (uint8_t)(i % 8);
		d[3] = (uint8_t)w->id;
		ix_talkers_add(w->t, 4, s, d, 3, i);
	}
	return NULL;
}

Test(talkers, concurrent_adds_and_snapshots)
{
	struct ix_talkers *t = new_talkers(0);
	struct ix_talkers_view v;
	pthread_t th[THREADS];
	struct worker w[THREADS];
	uint64_t seen = 0;

	for (int i = 0; i < THREADS; i++) {
		w[i] = (struct worker){ t, i };
		cr_assert_eq(pthread_create(&th[i], NULL, adder, &w[i]), 0);
	}
	/* Snapshots while the adders run: each one self-consistent. */
	for (int k = 0; k < 200; k++) {
		uint64_t sum = 0;

		snap(t, (int64_t)(k + 1) * 1000000, &v);
		for (size_t i = 0; i < v.n * v.n; i++)
			sum += v.bytes[i];
		cr_assert_eq(sum, v.total_bytes);
		cr_assert_eq(v.total_bytes, v.packets * 3);
		cr_assert_geq(v.total_bytes, seen, "totals never go back");
		seen = v.total_bytes;
		ix_talkers_view_free(&v);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	snap(t, 1000000000, &v);
	cr_assert_eq(v.packets, (uint64_t)THREADS * ADDS);
	cr_assert_eq(v.n, 8 + THREADS);
	for (size_t i = 0; i < v.n; i++) {
		if (strncmp(v.hosts[i].addr, "10.0.1.", 7) == 0)
			cr_assert_eq(v.hosts[i].rx_bytes, 3ULL * ADDS, "%s", v.hosts[i].addr);
		else
			cr_assert_eq(v.hosts[i].tx_bytes, 3ULL * ADDS * THREADS / 8, "%s",
				     v.hosts[i].addr);
	}
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}
