/* Unit tests for report/post/format.c: the chat message of run, pattern,
 * rails and single-command documents, with the verdict each carries. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/fmt/units.h"
#include "tests/unit/report/post/payload.h"

/* ---- chat, webhook, html ------------------------------------------------------ */

static const char *chat_text(struct ix_post_msg *m, json_t **msg)
{
	*msg = json_loadb(m->body, m->len, 0, NULL);
	cr_assert_not_null(*msg, "chat body is not JSON: %s", m->body);
	cr_assert(json_is_string(json_object_get(*msg, "text")));
	return json_string_value(json_object_get(*msg, "text"));
}

Test(chat, run_message_has_verdict_and_figures)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;

	body_of("post-run.json", IX_POST_CHAT, &m);
	cr_expect_str_eq(m.content_type, "application/json");
	t = chat_text(&m, &msg);
	cr_expect(strstr(t, "FAIL") != NULL, "%s", t);
	cr_expect(strstr(t, "local acceptance") != NULL, "%s", t);
	cr_expect(strstr(t, "`vm`") != NULL, "%s", t);
	cr_expect(strstr(t, "2026-11-29T21:38:24Z") != NULL, "%s", t);
	cr_expect(strstr(t, "`tcp-bw` goodput: 28.3 Gbit/s") != NULL, "%s", t);
	cr_expect(strstr(t, "`tcp-lat` p99: 49.3 us") != NULL, "%s", t);
	cr_expect(strstr(t, "max_p99 5us") != NULL, "%s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

Test(chat, hostile_names_cannot_ping_or_forge_lines)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;
	size_t lines = 1;

	body_of("post-hostile.json", IX_POST_CHAT, &m);
	t = chat_text(&m, &msg);
	cr_expect_null(strstr(t, "<!channel>"), "%s", t);
	cr_expect_null(strstr(t, "<script>"), "%s", t);
	cr_expect(strstr(t, "&lt;!channel&gt;") != NULL, "%s", t);
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 4, "a title and one line per check: %s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

Test(chat, single_command_is_one_line)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;

	body_of("post-bw.json", IX_POST_CHAT, &m);
	t = chat_text(&m, &msg);
	cr_expect_null(strchr(t, '\n'), "%s", t);
	cr_expect(strstr(t, "ixperf bw") != NULL, "%s", t);
	cr_expect(strstr(t, "28.3 Gbit/s") != NULL, "%s", t);
	cr_expect(strncmp(t, "*OK* ", 5) == 0, "measured only: %s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

/* 'ixperf mesh' exits 4 on bad pairs: the message must not say OK. */
Test(chat, a_mesh_with_bad_pairs_says_fail)
{
	struct ix_post_msg m;
	json_t *msg;
	const char *t;

	body_of("mesh-bad.json", IX_POST_CHAT, &m);
	t = chat_text(&m, &msg);
	cr_expect(strncmp(t, "*FAIL* ixperf mesh", 18) == 0, "%s", t);
	cr_expect(strstr(t, "3 bad pair(s)") != NULL, "%s", t);
	json_decref(msg);
	ix_post_msg_free(&m);
}

/* ---- mesh --pattern and mesh --rails (documents of real runs) ------------------ */

static char *chat_of_doc(json_t *doc)
{
	struct ix_err err = { 0 };
	char *body = NULL, *t;
	size_t len = 0;
	json_t *msg;

	cr_assert_eq(ix_post_chat_body(doc, &body, &len, &err), 0, "%s", err.msg);
	msg = json_loadb(body, len, 0, NULL);
	cr_assert_not_null(msg, "%s", body);
	t = strdup(json_string_value(json_object_get(msg, "text")));
	json_decref(msg);
	free(body);
	return t;
}

/* The host with the lowest share of its reference, as the document has it. */
static json_t *lowest_node(json_t *r)
{
	json_t *nd, *low = NULL;
	size_t i;

	json_array_foreach(json_object_get(r, "nodes"), i, nd)
	{
		if (!low || json_number_value(json_object_get(nd, "percent")) <
				    json_number_value(json_object_get(low, "percent")))
			low = nd;
	}
	return low;
}

static void expect_pattern_line(const char *file, const char *verdict)
{
	json_t *doc = load(file), *r = json_array_get(json_object_get(doc, "results"), 0);
	json_t *low = lowest_node(r);
	long long bad = json_integer_value(json_object_get(r, "bad_hosts"));
	char want[512], rate[64];
	char *t = chat_of_doc(doc);

	snprintf(want, sizeof(want), "*%s* ixperf mesh", verdict);
	cr_expect(strncmp(t, want, strlen(want)) == 0, "%s", t);
	cr_expect_null(strchr(t, '\n'), "one line: %s", t);
	snprintf(want, sizeof(want), ": %s over %zu hosts, %lld bad host(s), %s `%s` ",
		 json_string_value(json_object_get(r, "pattern")),
		 json_array_size(json_object_get(r, "hosts")), bad, bad ? "worst" : "lowest",
		 json_string_value(json_object_get(low, "host")));
	cr_expect(strstr(t, want) != NULL, "want '%s' in %s", want, t);
	ix_fmt_rate(json_number_value(json_object_get(low, "figure_bps")), NULL, rate,
		    sizeof(rate));
	snprintf(want, sizeof(want), "%s against its line rate ", rate);
	cr_expect(strstr(t, want) != NULL, "want '%s' in %s", want, t);
	cr_expect(strstr(t, json_string_value(json_object_get(r, "verdict"))) != NULL,
		  "the pattern's verdict: %s", t);
	cr_expect_null(strstr(t, "INCOMPLETE"), "%s", t);
	free(t);
	json_decref(doc);
}

Test(chat, a_bisection_says_fail_bad_hosts_and_the_worst)
{
	expect_pattern_line("pattern-bisection.json", "FAIL");
}

Test(chat, a_ring_that_held_says_pass)
{
	expect_pattern_line("pattern-ring.json", "PASS");
}

/* Tests that failed and a host with no figure: said, never hidden. */
Test(chat, a_pattern_with_failed_tests_is_incomplete)
{
	json_t *doc = load("pattern-ring.json"),
	       *r = json_array_get(json_object_get(doc, "results"), 0);
	json_t *nd = json_array_get(json_object_get(r, "nodes"), 3);
	char *t;

	json_object_set_new(r, "tests_failed", json_integer(2));
	json_object_set_new(nd, "percent", json_null());
	json_object_set_new(doc, "complete", json_false());
	t = chat_of_doc(doc);
	cr_expect(strncmp(t, "*ERROR* ", 8) == 0, "%s", t);
	cr_expect(strstr(t, "; INCOMPLETE: 2 of 4 test(s) failed, 1 host(s) not judged") != NULL,
		  "%s", t);
	free(t);
	json_decref(doc);
}

Test(chat, rails_say_the_bad_rail_against_the_reference)
{
	json_t *doc = load("rails.json"), *res = json_object_get(doc, "results");
	json_t *rs = json_array_get(res, json_array_size(res) - 1);
	json_t *bad = json_array_get(json_object_get(rs, "rails"), 1);
	char want[512], a[64], b[64];
	char *t;

	cr_assert(json_is_true(json_object_get(bad, "bad")), "rail 1 is the slow one");
	t = chat_of_doc(doc);
	cr_expect(strncmp(t, "*FAIL* ixperf mesh", 18) == 0, "a bad rail exits 4: %s", t);
	ix_fmt_rate(json_number_value(json_object_get(bad, "median_bw_bps")), NULL, a, sizeof(a));
	ix_fmt_rate(json_number_value(json_object_get(rs, "ref_bw_bps")), NULL, b, sizeof(b));
	snprintf(want, sizeof(want),
		 ": rails over %zu hosts, %zu rail(s), %zu bad rail(s), worst `%s` median %s "
		 "against the rails' %s",
		 json_array_size(json_object_get(rs, "nodes")),
		 json_array_size(json_object_get(rs, "rails")),
		 json_array_size(json_object_get(rs, "bad_rails")),
		 json_string_value(json_object_get(bad, "name")), a, b);
	cr_expect(strstr(t, want) != NULL, "want '%s' in %s", want, t);
	cr_expect(strstr(t, "; 0 bad pair(s)") != NULL, "%s", t);
	free(t);
	json_decref(doc);
}

/* A rail's bad pair and a pair not measured: the worst pair named with its
 * reason, and INCOMPLETE with the count, as for an all-pairs mesh. */
Test(chat, rails_name_the_worst_bad_pair_and_what_was_not_measured)
{
	json_t *doc = load("rails.json"), *res = json_object_get(doc, "results");
	json_t *m0 = json_array_get(res, 0), *p;
	char want[512];
	char *t;

	p = json_pack("{s:s,s:s,s:f,s:s}", "from", "198.18.0.1:1", "to", "198.18.0.2:2", "bw_bps",
		      1e6, "reason", "bandwidth 1 Mbit/s < 0.7 x median");
	json_array_append_new(json_object_get(m0, "bad_pairs"), p);
	json_object_set_new(json_object_get(m0, "pairs"), "measured",
			    json_integer(json_integer_value(json_object_get(
						 json_object_get(m0, "pairs"), "planned")) -
					 1));
	t = chat_of_doc(doc);
	snprintf(want, sizeof(want),
		 "; 1 bad pair(s), worst `198.18.0.1:1` -> `198.18.0.2:2`: bandwidth 1 Mbit/s "
		 "&lt; 0.7 x median; INCOMPLETE: 1 pair(s) not measured");
	cr_expect(strstr(t, want) != NULL, "want '%s' in %s", want, t);
	free(t);
	json_decref(doc);
}
