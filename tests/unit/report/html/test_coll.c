/* Unit tests for report/html/coll.c: a "coll" result's section (the
 * simulation named, the facts, nccl-tests' table, the slow rank marked
 * and the verdict) and a whole page of a coll document (its headline and
 * its FAIL when a rank is named). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/coll/merge.h"
#include "report/html/html.h"
#include "report/json/json.h"

/* Four ranks on four nodes, two sizes, rank 2 slow in the pair scan. */
static json_t *result(bool slow)
{
	struct ix_coll_result res = { 0 };
	json_t *o;

	res.opts.op = IX_COLL_ALL_REDUCE;
	res.opts.dtype = IX_COLL_FLOAT32;
	res.opts.sizes[0] = 1 << 20;
	res.opts.sizes[1] = 4 << 20;
	res.opts.nsizes = 2;
	res.opts.iters = 5;
	res.opts.check = true;
	res.opts.places[0] = res.opts.places[1] = true;
	res.opts.pair_scan = true;
	snprintf(res.lib_name, sizeof(res.lib_name), "nccl");
	snprintf(res.lib_version, sizeof(res.lib_version), "2.23.4");
	snprintf(res.gpu_backend, sizeof(res.gpu_backend), "cuda");
	snprintf(res.simulation, sizeof(res.simulation), "a simulated NCCL <for tests>");
	res.nranks = 4;
	res.ranks = calloc(4, sizeof(*res.ranks));
	for (int r = 0; r < 4; r++) {
		struct ix_coll_rank *k = &res.ranks[r];
		k->rank = r;
		snprintf(k->node, sizeof(k->node), "node%d", r);
		snprintf(k->gpu, sizeof(k->gpu), "Fake GPU %d", r % 2);
		k->joined = k->complete = true;
		k->nrows = 2;
		for (int i = 0; i < 2; i++)
			for (int p = 0; p < 2; p++)
				k->cell[i][p] = (struct ix_coll_rank_cell){
					.measured = true, .host_us = 100.0 * (i + 1), .wrong = 0
				};
		k->pair_bps = slow && (r == 1 || r == 2) ? 2e9 : 20e9;
	}
	res.ranks[3].cell[1][1].wrong = 3;
	ix_coll_merge(&res);
	o = ix_json_coll(&res);
	ix_coll_result_free(&res);
	return o;
}

static char *render(json_t *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_html_coll(f, o);
	fclose(f);
	return buf;
}

Test(html_coll, section)
{
	json_t *o = result(true);
	char *buf = render(o);

	cr_assert(strstr(buf, "<p class=\"errbox\">SIMULATED library: a simulated NCCL &lt;for "
			      "tests&gt;</p>"),
		  "%s", buf);
	cr_assert(strstr(buf, "<dt>collective</dt><dd>all_reduce</dd>"), "%s", buf);
	cr_assert(strstr(buf, "<dd>algbw &times; 2(n-1)/n = 1.5"), "%s", buf);
	cr_assert(strstr(buf, "<svg"), "a chart of busbw by size: %s", buf);
	/* 4 MiB in 200 us: algbw 20.97 GB/s, busbw 31.46 */
	cr_assert(strstr(buf, "<td class=\"n\">20.97</td><td class=\"n\">31.46</td>"), "%s", buf);
	cr_assert(strstr(buf, "<td class=\"n warn\">3</td>"), "the wrong elements marked: %s", buf);
	cr_assert(strstr(buf, "<b>Verdict:</b> slow rank 2 on node2: both its ring links at 0.1"),
		  "%s", buf);
	cr_assert(strstr(buf, "<tr class=\"fail\"><td class=\"n\">2</td><td>node2</td>"), "%s",
		  buf);
	free(buf);
	json_decref(o);
}

static char *page(json_t *o)
{
	json_t *doc = ix_json_document("coll", 0, NULL, json_pack("[o]", o), NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ix_err err = { 0 };

	cr_assert_eq(ix_html_render(f, doc, NULL, 0, &err), 0, "%s", err.msg);
	fclose(f);
	json_decref(doc);
	return buf;
}

Test(html_coll, page_fails_on_a_named_rank)
{
	char *buf = page(result(true));

	cr_assert(strstr(buf, "average bus bandwidth"), "the headline: %s", buf);
	cr_assert(strstr(buf, "FAIL"), "%s", buf);
	free(buf);
}

Test(html_coll, no_verdict_without_a_culprit)
{
	json_t *o = result(false);
	char *buf = render(o);

	cr_assert(strstr(buf, "no rank or link stands out in the pair scan"), "%s", buf);
	cr_assert(!strstr(buf, "<tr class=\"fail\">"), "%s", buf);
	free(buf);
	json_decref(o);
}

/* Slow links that no one rank or link explains fail the page as a named
 * rank does; none, and every element right, pass it. */
Test(html_coll, page_fails_on_slow_links_without_one_culprit)
{
	json_t *o = result(false);
	char *buf;

	json_object_set_new(o, "wrong", json_integer(0));
	buf = page(json_incref(o));
	cr_assert(strstr(buf, "PASS") && !strstr(buf, "FAIL"), "%s", buf);
	free(buf);
	json_object_set_new(json_object_get(o, "verdict"), "culprit", json_string("many"));
	json_object_set_new(json_object_get(o, "verdict"), "slow_pairs", json_integer(3));
	buf = page(o);
	cr_assert(strstr(buf, "FAIL"), "%s", buf);
	free(buf);
}

/* A rank's links in its row, and what the links allow in the facts. */
Test(html_coll, links_and_ceiling)
{
	json_t *o = result(true), *k, *ceiling;
	char *buf;

	k = json_object_get(json_array_get(json_object_get(o, "ranks"), 2), "facts");
	json_object_set_new(k, "pcie",
			    json_pack("{s:i,s:i,s:i,s:i,s:f,s:b}", "gen", 4, "width", 8, "max_gen",
				      5, "max_width", 16, "Bps", 15.75e9, "downtrained", 1));
	json_object_set_new(k, "nic", json_string("mlx5_1/1"));
	json_object_set_new(k, "nic_path", json_string("PIX"));
	json_object_set_new(k, "moved", json_pack("{s:i}", "errors", 7));
	ceiling = json_object_get(o, "ceiling");
	json_object_set_new(ceiling, "Bps", json_real(50e9));
	json_object_set_new(ceiling, "why", json_string("n1: 1 NIC <b>"));
	json_object_set_new(ceiling, "share", json_real(0.5));
	buf = render(o);
	cr_assert(strstr(buf, "<td>PCIe Gen4 x8 <b>downtrained</b>; mlx5_1/1 PIX; <b>during the "
			      "run: 7 errors</b></td>"),
		  "%s", buf);
	cr_assert(strstr(buf, "<dt>the links allow</dt><dd>50.00 GB/s busbw (n1: 1 NIC &lt;b&gt;); "
			      "the largest size reached 50% of it</dd>"),
		  "%s", buf);
	free(buf);
	json_object_set_new(ceiling, "Bps", json_null());
	json_object_set_new(ceiling, "unknown", json_string("rank 0 on n0: NVLink not read"));
	buf = render(o);
	cr_assert(strstr(buf, "<dd>unknown: rank 0 on n0: NVLink not read</dd>"), "%s", buf);
	free(buf);
	json_decref(o);
}
