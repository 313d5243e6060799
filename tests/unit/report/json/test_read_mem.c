/* Unit tests for report/json/read_mem.c: a "mem" result read back as it
 * was written (and printed as the live one was), damaged ones refused
 * naming the member. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

static void mem_text(FILE *f, const void *r)
{
	ix_text_mem(f, r);
}

static char *text_of(const struct ix_mem_result *r)
{
	return ix_test_render(mem_text, r);
}

static void expect_cell_eq(const struct ix_mem_cell *a, const struct ix_mem_cell *b, uint32_t i)
{
	cr_expect_eq(a->initiator, b->initiator, "cell %u", i);
	cr_expect_eq(a->target, b->target, "cell %u", i);
	cr_expect_eq(a->measured, b->measured, "cell %u", i);
	cr_expect_str_eq(a->why, b->why, "cell %u", i);
	cr_expect_eq(a->threads, b->threads, "cell %u", i);
	cr_expect_eq(a->buf_bytes, b->buf_bytes, "cell %u", i);
	for (int k = 0; k < IX_MEM_NKINDS; k++)
		cr_expect_eq(a->bw[k], b->bw[k], "cell %u bw[%d]", i, k);
	cr_expect_eq(a->lat_ns, b->lat_ns, "cell %u", i);
	cr_expect_eq(a->lat_bytes, b->lat_bytes, "cell %u", i);
	cr_expect_eq(a->pages.page_bytes, b->pages.page_bytes, "cell %u", i);
	cr_expect_eq(a->pages.huge_bytes, b->pages.huge_bytes, "cell %u", i);
	cr_expect_eq(a->pages.huge_asked, b->pages.huge_asked, "cell %u", i);
	cr_expect_str_eq(a->pages.thp, b->pages.thp, "cell %u", i);
	cr_expect_eq(a->placed, b->placed, "cell %u", i);
	cr_expect_eq(a->ncurve, b->ncurve, "cell %u", i);
	for (uint32_t k = 0; k < a->ncurve && k < b->ncurve; k++) {
		cr_expect_eq(a->curve[k].delay_ns, b->curve[k].delay_ns, "cell %u point %u", i, k);
		cr_expect_eq(a->curve[k].load_Bps, b->curve[k].load_Bps, "cell %u point %u", i, k);
		cr_expect_eq(a->curve[k].lat_ns, b->curve[k].lat_ns, "cell %u point %u", i, k);
	}
	cr_expect_eq(a->hmat_class, b->hmat_class, "cell %u", i);
	cr_expect_eq(a->ratio_read, b->ratio_read, "cell %u", i);
	cr_expect_eq(a->ratio_write, b->ratio_write, "cell %u", i);
	cr_expect_eq(a->ratio_lat, b->ratio_lat, "cell %u", i);
	cr_expect_eq(a->slow, b->slow, "cell %u", i);
}

/* Everything the document holds comes back equal; the params it does not
 * hold (tests, the buffer sizes asked for) read as 0. */
Test(read_mem, reads_back_what_was_written)
{
	static struct ix_mem_result r, back;
	struct ix_mem_cell cells[3];
	struct ix_err err = { 0 };
	char *live, *again;
	json_t *j;

	ix_test_mem_result(&r, cells);
	j = ix_json_mem(&r);
	cr_assert_eq(ix_json_read_mem(j, &back, &err), 0, "%s", err.msg);
	cr_expect_eq(back.params.initiators, r.params.initiators);
	cr_expect_eq(back.params.targets, r.params.targets);
	cr_expect_eq(back.params.threads, r.params.threads);
	cr_expect_eq(back.params.time_s, r.params.time_s);
	cr_expect_eq(back.params.slack, r.params.slack);
	cr_expect_eq(back.params.no_huge, r.params.no_huge);
	cr_expect_eq(back.params.tests, 0);
	cr_expect_str_eq(back.params.sysfs, "");
	cr_expect_str_eq(back.sysfs, r.sysfs);
	cr_expect_eq(back.llc_bytes, r.llc_bytes);
	cr_expect_eq(back.nt_stores, r.nt_stores);
	cr_expect_eq(back.complete, r.complete);
	cr_expect_str_eq(back.error, r.error);
	cr_assert_eq(back.nnodes, r.nnodes);
	cr_expect_eq(memcmp(back.nodes, r.nodes, sizeof(r.nodes)), 0, "the nodes, HMAT included");
	cr_assert_eq(back.ncells, r.ncells);
	for (uint32_t i = 0; i < r.ncells; i++)
		expect_cell_eq(&back.cells[i], &r.cells[i], i);
	live = text_of(&r);
	again = text_of(&back);
	cr_expect_str_eq(again, live, "the text is the live one");
	cr_expect(strstr(again, "SLOW") != NULL);
	free(live);
	free(again);
	json_decref(j);
	ix_mem_result_free(&back);
}

/* A run stopped early, its masks and options, and a hostile note. */
Test(read_mem, incomplete_and_params)
{
	static struct ix_mem_result r, back;
	struct ix_mem_cell cells[3];
	struct ix_err err = { 0 };
	json_t *j;

	ix_test_mem_result(&r, cells);
	r.complete = false;
	snprintf(r.error, sizeof(r.error), "interrupted: the cells not reached are empty");
	r.params.initiators = 1;
	r.params.targets = 1ull << 63 | 3;
	r.params.threads = 4;
	r.params.no_huge = true;
	snprintf(r.sysfs, sizeof(r.sysfs), "/tmp/tree");
	snprintf(cells[2].why, sizeof(cells[2].why), "bad\033[2Jnote");
	j = ix_json_mem(&r);
	cr_assert_eq(ix_json_read_mem(j, &back, &err), 0, "%s", err.msg);
	cr_expect_not(back.complete);
	cr_expect_str_eq(back.error, r.error);
	cr_expect_eq(back.params.initiators, 1);
	cr_expect_eq(back.params.targets, 1ull << 63 | 3);
	cr_expect_eq(back.params.threads, 4);
	cr_expect(back.params.no_huge);
	cr_expect_str_eq(back.params.sysfs, "/tmp/tree");
	cr_expect_str_eq(back.cells[2].why, "bad?[2Jnote", "made safe for a terminal");
	json_decref(j);
	ix_mem_result_free(&back);
}

/* path: "KEY" or "KEY.KEY" or "ARRAY[i].KEY..." into the written result;
 * set it to v (NULL: delete it). */
static void damage(json_t *res, const char *path, json_t *v)
{
	char buf[128], *save = NULL, *tok, *next;
	json_t *o = res;

	snprintf(buf, sizeof(buf), "%s", path);
	tok = strtok_r(buf, ".", &save);
	while ((next = strtok_r(NULL, ".", &save))) {
		char *br = strchr(tok, '[');

		if (br) {
			*br = '\0';
			o = json_array_get(json_object_get(o, tok), strtoul(br + 1, NULL, 10));
		} else {
			o = json_object_get(o, tok);
		}
		cr_assert_not_null(o, "%s", path);
		tok = next;
	}
	if (v)
		json_object_set_new(o, tok, v);
	else
		json_object_del(o, tok);
}

Test(read_mem, damaged_ones_name_the_member)
{
	static const struct {
		const char *path, *value, *want; /* value NULL: the member deleted */
	} bad[] = {
		{ "complete", NULL, "complete is missing, not true or false" },
		{ "params.time_s", "\"fast\"", "params.time_s is a string, not a number" },
		{ "params", NULL, "params is missing, not an object" },
		{ "params.initiators", "[0, 64]",
		  "params.initiators[1] is 64, out of range 0 to 63" },
		{ "llc_bytes", NULL, "llc_bytes is missing, not a whole number or null" },
		{ "nodes", "{}", "nodes is an object, not an array" },
		{ "nodes[1].node", "0", "nodes[1].node: node 0 is listed twice" },
		{ "nodes[1].memory_bytes", NULL,
		  "nodes[1].memory_bytes is missing, not a whole number or null" },
		{ "nodes[0].hmat", "[null]", "nodes[0].hmat has 1 entries, not 2" },
		{ "nodes[0].hmat[1].read_latency_ns", "-1",
		  "nodes[0].hmat[1].read_latency_ns is -1, out of range" },
		{ "nodes[0].hmat[1].initiators", "null",
		  "nodes[0].hmat[1].initiators is null, not an array" },
		{ "cells[0].target", "5", "cells[0].target: node 5 is not one of the nodes" },
		{ "cells[1].bandwidth_Bps.copy", "\"x\"",
		  "cells[1].bandwidth_Bps.copy is a string, not a number or null" },
		{ "cells[1].latency_ns", NULL, "cells[1].latency_ns is missing" },
		{ "cells[0].placed", "1.5", "cells[0].placed is 1.5, out of range 0 to 1" },
		{ "cells[0].pages.thp", "7",
		  "cells[0].pages.thp is a number, not a string or null" },
		{ "cells[0].loaded[1].load_Bps", "null",
		  "cells[0].loaded[1].load_Bps is null, not a number" },
		{ "cells[0].advertised.class", "2",
		  "cells[0].advertised.class is 2, out of range" },
		{ "cells[0].advertised.class", "0",
		  "cells[0].advertised.class: node 0 has no HMAT "
		  "class 0" },
		{ "cells[2].note", "[]", "cells[2].note is an array, not a string or null" },
	};
	static struct ix_mem_result r, back;
	struct ix_mem_cell cells[3];

	ix_test_mem_result(&r, cells);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };
		json_t *j = ix_json_mem(&r);

		damage(j, bad[i].path,
		       bad[i].value ? json_loads(bad[i].value, JSON_DECODE_ANY, NULL) : NULL);
		cr_expect_eq(ix_json_read_mem(j, &back, &err), -1, "%s", bad[i].path);
		cr_expect(strstr(err.msg, bad[i].want) != NULL, "%s: got '%s', want '%s'",
			  bad[i].path, err.msg, bad[i].want);
		cr_expect_eq(back.ncells, 0, "%s: left empty", bad[i].path);
		cr_expect_null(back.cells, "%s: left empty", bad[i].path);
		json_decref(j);
	}
}

/* A node whose memory size the kernel did not give reads back as unknown,
 * not as 0 bytes. */
Test(read_mem, a_null_memory_size_is_unknown)
{
	static struct ix_mem_result r, back;
	struct ix_mem_cell cells[3];
	struct ix_err err = { 0 };
	json_t *j;

	ix_test_mem_result(&r, cells);
	j = ix_json_mem(&r);
	damage(j, "nodes[1].memory_bytes", json_null());
	cr_assert_eq(ix_json_read_mem(j, &back, &err), 0, "%s", err.msg);
	cr_expect(back.nodes[0].mem_known);
	cr_expect_not(back.nodes[1].mem_known);
	cr_expect_eq(back.nodes[1].mem_bytes, 0);
	json_decref(j);
	ix_mem_result_free(&back);
}

Test(read_mem, not_an_object)
{
	static struct ix_mem_result back;
	struct ix_err err = { 0 };
	json_t *j = json_array();

	cr_expect_eq(ix_json_read_mem(j, &back, &err), -1);
	cr_expect(strstr(err.msg, "result is an array, not an object") != NULL, "%s", err.msg);
	json_decref(j);
}
