/* Unit tests for report/prom/export.c: an exporter over a saved sysfs
 * tree, its listen address checked, its metrics rendered and served. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/core/clock.h"
#include "report/prom/export.h"
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
