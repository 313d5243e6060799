/* Unit tests for report/prom/export.c: an exporter over a saved sysfs
 * tree, its listen address checked, its metrics rendered and served. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "report/prom/export.h"
#include "tests/unit/common.h"
#include "tests/unit/data.h"

static struct ix_prom_export *open_on(const char *listen, struct ix_err *err)
{
	struct ix_prom_export_config c = { .listen = listen,
					   .title = "ixperf test",
					   .sysfs = ix_test_data("sysfs/basic") };
	struct ix_prom_export *e = NULL;

	ix_prom_export_open(&e, &c, err);
	return e;
}

Test(export, a_bad_address_is_a_usage_error)
{
	struct ix_err err = { 0 };

	cr_assert_null(open_on("localhost", &err));
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert(strstr(err.msg, "expected ADDR:PORT"), "%s", err.msg);
}

Test(export, renders_a_saved_tree)
{
	struct ix_err err = { 0 };
	struct ix_prom_export *e = open_on("127.0.0.1:0", &err);
	char *body;
	size_t len;

	cr_assert_not_null(e, "%s", err.msg);
	cr_assert_gt(ix_prom_export_port(e), 0);
	/* Two samples: the rates are known. */
	ix_prom_export_step(e, 0.01);
	ix_prom_export_step(e, 0.01);
	cr_assert_eq(ix_prom_export_render(e, &body, &len), 0);
	cr_assert_eq(strlen(body), len);
	cr_assert(strstr(body,
			 "ixperf_pause_frames_received_total{interface=\"eth0\",priority=\"3\"} "
			 "1000\n"),
		  "%s", body);
	cr_assert(strstr(body, "ixperf_cnp_sent_total{device=\"mlx5_1\",port=\"1\"} 100\n"));
	cr_assert(strstr(body, "# TYPE ixperf_sample_age_seconds gauge\n"));
	cr_assert(strstr(body, "ixperf_sample_failures_total 0\n"));
	cr_assert(!strstr(body, "ixperf_agent_"), "no agent, no agent metrics");
	cr_assert(!strstr(body, "interface=\"lo\""), "loopback is left out");
	free(body);
	ix_prom_export_close(e);
}

/* A copy of the basic tree whose eth0 counters the test moves. */
static void copy_basic(char *dir, size_t len)
{
	char cmd[4200];

	snprintf(dir, len, "/tmp/ixperf-export.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/.' '%s'", ix_test_data("sysfs/basic"), dir);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

static void remove_tree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* eth0 receives 123456 bytes more, and the reading of them gets 150 ms
 * old (over the exporter's 100 ms). */
static void move_eth0(const char *dir)
{
	char stats[128];

	snprintf(stats, sizeof(stats), "%s/sys/class/net/eth0/statistics", dir);
	ix_test_put(stats, "rx_bytes", "10000123456");
	sleep_ms(150);
}

static bool serves(struct ix_prom_export *e, const char *line)
{
	char *body;
	size_t len;
	bool found;

	cr_assert_eq(ix_prom_export_render(e, &body, &len), 0);
	found = strstr(body, line) != NULL;
	free(body);
	return found;
}

Test(export, a_headless_scrape_reads_the_counters_anew)
{
	char dir[64];
	struct ix_err err = { 0 };
	struct ix_prom_export_config c = { .listen = "127.0.0.1:0", .title = "ixperf test" };
	struct ix_prom_export *e = NULL;

	copy_basic(dir, sizeof(dir));
	c.sysfs = dir;
	cr_assert_eq(ix_prom_export_open(&e, &c, &err), 0, "%s", err.msg);
	/* An hour's interval: no timer sample comes during the test. */
	ix_prom_export_step(e, 3600);
	cr_assert(serves(e, "ixperf_receive_bytes_total{interface=\"eth0\"} 10000000000\n"));
	move_eth0(dir);
	cr_assert(serves(e, "ixperf_receive_bytes_total{interface=\"eth0\"} 10000123456\n"),
		  "a reading over 100 ms old is taken again at the scrape");
	ix_prom_export_close(e);
	remove_tree(dir);
}

Test(export, a_callers_model_is_served_as_it_sampled_it)
{
	char dir[64];
	struct ix_err err = { 0 };
	struct ix_top_model m;
	struct ix_prom_export_config c = { .listen = "127.0.0.1:0",
					   .title = "ixperf test",
					   .model = &m };
	struct ix_prom_export *e = NULL;

	copy_basic(dir, sizeof(dir));
	c.sysfs = dir;
	cr_assert_eq(ix_top_model_init(&m, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_top_model_sample(&m, dir, ix_now_ns(), &err), 0, "%s", err.msg);
	cr_assert_eq(ix_prom_export_open(&e, &c, &err), 0, "%s", err.msg);
	move_eth0(dir);
	cr_assert(serves(e, "ixperf_receive_bytes_total{interface=\"eth0\"} 10000000000\n"),
		  "the screen's model is the caller's to sample");
	ix_prom_export_close(e);
	ix_top_model_free(&m);
	remove_tree(dir);
}
