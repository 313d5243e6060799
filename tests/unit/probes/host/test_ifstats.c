/* Unit tests for probes/host/ifstats.c: counters out of a netdev snapshot,
 * and the live read of this namespace. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/ifstats.h"

/* A snapshot of the netdev counters named, with their values, and one
 * the driver counts under a netdev name. */
static void snapshot(struct ix_ctr_set *set, const char *const *names, const uint64_t *v, size_t n)
{
	ix_ctr_set_init(set);
	set->valid = true;
	for (size_t i = 0; i < n; i++)
		ix_ctr_set_add(set, IX_SRC_NETDEV, names[i], v[i]);
	ix_ctr_set_add(set, IX_SRC_ETHTOOL, "rx_bytes", 999);
}

Test(ifstats, from_a_snapshot)
{
	const char *names[] = { "rx_bytes", "tx_bytes", "tx_packets" };
	const uint64_t v[] = { 10, 20, 3 };
	struct ix_ctr_set set;
	struct ix_ifstat st;

	snapshot(&set, names, v, 3);
	memset(&st, 0, sizeof(st));
	cr_assert(ix_ifstats_from_set(&set, &st));
	cr_assert_eq(st.rx_bytes, 10, "the netdev's, not the driver's");
	cr_assert_eq(st.tx_bytes, 20);
	cr_assert_eq(st.tx_packets, 3);
	ix_ctr_set_free(&set);
	/* Without the bytes both ways: refused. */
	snapshot(&set, names, v, 1);
	cr_assert_not(ix_ifstats_from_set(&set, &st));
	ix_ctr_set_free(&set);
}

Test(ifstats, live_read_leaves_loopback_out_and_is_sorted)
{
	static struct ix_ifstat v[IX_IFSTAT_MAX];
	bool trunc;
	uint32_t n = ix_ifstats_read(v, IX_IFSTAT_MAX, NULL, &trunc);

	cr_assert_null(ix_ifstats_find(v, n, "lo"));
	for (uint32_t i = 1; i < n; i++)
		cr_assert(strcmp(v[i - 1].name, v[i].name) < 0);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_not(v[i].control);
}
