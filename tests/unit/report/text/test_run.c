/* Unit tests for report/text/run.c: the summary of a run document. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"

static char *summary_of(const char *run_json)
{
	struct ix_unit_choice u = { 0 };
	json_t *run = json_loads(run_json, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(run, "%s", run_json);
	cr_assert_not_null(f);
	ix_text_run(f, run, NULL, &u);
	fclose(f);
	json_decref(run);
	return buf;
}

Test(run, a_line_per_check_and_expectation)
{
	char *t = summary_of(
		"{\"name\":\"nightly\",\"verdict\":\"FAIL\",\"checks\":[{\"name\":\"mesh\","
		"\"probe\":\"mesh\",\"verdict\":\"FAIL\",\"judged\":\"FAIL\",\"error\":null,"
		"\"headline\":{\"name\":\"median pair "
		"bandwidth\",\"value\":9.5e9,\"unit\":\"bit/s\"},"
		"\"expectations\":[{\"key\":\"min_pair_bw\",\"text\":\"1Gbit\",\"measured\":0,"
		"\"unit\":\"bit/s\",\"pass\":false},{\"key\":\"max_bad_pairs\",\"text\":\"0 (the "
		"default)\",\"measured\":1,\"unit\":\"\",\"pass\":false}]}]}");

	cr_assert(strstr(t, "ixperf run: nightly\n"), "%s", t);
	cr_assert(strstr(t, "  FAIL  mesh                     mesh   median pair bandwidth 9.50 "
			    "Gbit/s\n"),
		  "%s", t);
	cr_assert(strstr(t, "          FAIL min_pair_bw = 1Gbit: 0.00 bit/s\n"), "%s", t);
	cr_assert(strstr(t, "          FAIL max_bad_pairs = 0 (the default): 1\n"), "%s", t);
	cr_assert(strstr(t, "Verdict: FAIL\n"), "%s", t);
	cr_assert_null(strstr(t, "over what was measured"), "%s", t);
	free(t);
}

/* An unreachable host: an ERROR, and still what failed over the others. */
Test(run, an_error_says_what_failed_over_the_rest)
{
	char *t = summary_of(
		"{\"name\":\"n\",\"verdict\":\"ERROR\",\"checks\":[{\"name\":\"mesh\","
		"\"probe\":\"mesh\",\"verdict\":\"ERROR\",\"judged\":\"FAIL\",\"error\":\"1 of 6 "
		"pairs not measured\",\"headline\":{\"name\":\"median pair "
		"bandwidth\",\"value\":null,"
		"\"unit\":\"bit/s\"},\"expectations\":[{\"key\":\"min_bw\",\"text\":\"10Gbit\","
		"\"measured\":null,\"unit\":\"bit/"
		"s\",\"pass\":false}]}],\"topology\":{\"findings\":[{"
		"\"severity\":\"warning\",\"message\":\"eth0 is downtrained\"}]}}");

	cr_assert(strstr(t, "  ERROR mesh"), "%s", t);
	cr_assert(strstr(t, "median pair bandwidth -\n"), "%s", t);
	cr_assert(strstr(t, "          FAIL min_bw = 10Gbit: not measured\n"), "%s", t);
	cr_assert(strstr(t, "          1 of 6 pairs not measured\n"), "%s", t);
	cr_assert(strstr(t, "          and over what was measured, a threshold FAILED\n"), "%s", t);
	cr_assert(strstr(t, "Topology (ixperf topo):\n  WARN  eth0 is downtrained\n"), "%s", t);
	free(t);
}

/* A coll check: the simulated library and the rank the pair scan named. */
Test(run, a_collective_names_its_simulation_and_slow_rank)
{
	char *t = summary_of(
		"{\"name\":\"n\",\"verdict\":\"FAIL\",\"checks\":[{\"name\":\"ar\",\"probe\":"
		"\"coll\",\"verdict\":\"FAIL\",\"judged\":\"FAIL\",\"error\":null,\"headline\":{"
		"\"name\":\"average bus bandwidth\",\"value\":8e11,\"unit\":\"bit/s\"},"
		"\"expectations\":[{\"key\":\"max_slow\",\"text\":\"0 (default)\",\"measured\":2,"
		"\"unit\":\"\",\"pass\":false}],\"results\":[{\"kind\":\"coll\",\"simulation\":"
		"\"a simulated NCCL\",\"ranks\":[{\"node\":\"n1\",\"device\":0,\"pci_bus_id\":"
		"\"0000:1a:00.0\"},{\"node\":\"n1\",\"device\":1,\"pci_bus_id\":\"0000:3b:00.0\"},"
		"{\"node\":\"n2\",\"device\":0,\"pci_bus_id\":\"0000:1a:00.0\"}],\"verdict\":{"
		"\"culprit\":\"rank\",\"rank\":1,\"rank_b\":null,\"share\":0.25,\"slow_pairs\":2}}]"
		"},"
		"{\"name\":\"ag\",\"probe\":\"coll\",\"verdict\":\"FAIL\",\"judged\":\"FAIL\","
		"\"error\":null,\"headline\":{\"name\":\"average bus bandwidth\",\"value\":8e11,"
		"\"unit\":\"bit/s\"},\"expectations\":[],\"results\":[{\"kind\":\"coll\","
		"\"simulation\":null,\"ranks\":[{\"node\":\"n1\",\"device\":0,\"pci_bus_id\":\"a\"}"
		","
		"{\"node\":\"n2\",\"device\":3,\"pci_bus_id\":\"b\"}],\"verdict\":{\"culprit\":"
		"\"link\",\"rank\":0,\"rank_b\":1,\"share\":0.5,\"slow_pairs\":1}}]}]}");

	cr_assert(strstr(t, "  FAIL  ar                       coll   average bus bandwidth 800 "
			    "Gbit/s\n"),
		  "%s", t);
	cr_assert(strstr(t, "          SIMULATED: a simulated NCCL\n"), "%s", t);
	cr_assert(strstr(t, "          slow rank 1 on n1 (GPU 1, 0000:3b:00.0): both its links at "
			    "0.25 x the others'\n"),
		  "%s", t);
	cr_assert(strstr(t, "          slow link: rank 0 on n1 (GPU 0, a) <-> rank 1 on n2 (GPU 3, "
			    "b), at 0.5 x the others\n"),
		  "%s", t);
	cr_assert_null(strstr(strstr(t, "SIMULATED") + 1, "SIMULATED"),
		       "one SIMULATED line, for the simulated library only: %s", t);
	free(t);
}
