/* Unit tests for report/post/format.c: the chat message of run and
 * single-command documents, with the verdict each carries. */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

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
