/* Unit tests for report/json/read_pattern.c: a pattern's object read back
 * judges the same as the run did; malformed members are named. */
#include "config.h"

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "tests/unit/report/patfix.h"

Test(read_pattern, round_trip_gives_the_same_figures_and_verdict)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	struct ix_pattern_saved s;
	struct ix_err err = { 0 };
	json_t *o;

	pat_bisection(&r, &hl, true);
	r.host[2].counters_read = true;
	r.host[2].counters.v[IX_CC_DISCARD] = 7;
	r.host[2].counters.has = 1u << IX_CC_DISCARD;
	cr_assert_eq(ix_pattern_judge(&r), 0);
	o = ix_json_pattern(&r);
	cr_assert_eq(ix_json_read_pattern(o, &s, &err), 0, "%s", err.msg);
	cr_assert_eq(s.r.n, 4);
	cr_assert_eq(s.r.pattern, IX_PATTERN_BISECTION);
	cr_assert_str_eq(s.r.verdict, r.verdict);
	cr_assert_str_eq(s.r.split, r.split);
	cr_assert_eq(s.r.bad_hosts, r.bad_hosts);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_float_eq(s.r.host[i].share, r.host[i].share, 1e-9);
		cr_assert_eq(s.r.host[i].tx_bytes, r.host[i].tx_bytes);
		cr_assert_str_eq(s.r.host[i].link.neighbor.name, r.host[i].link.neighbor.name);
	}
	cr_assert_eq(s.r.host[2].counters.v[IX_CC_DISCARD], 7);
	ix_pattern_saved_free(&s);
	json_decref(o);
	ix_pattern_result_free(&r);
}

/* o with one member replaced by v, read back: the error's message. */
static void bad(const char *path, json_t *v, const char *want)
{
	struct ix_pattern_result r;
	struct ix_hostlist hl;
	struct ix_pattern_saved s;
	struct ix_err err = { 0 };
	json_t *o, *at;
	char key[64];
	const char *dot;

	pat_bisection(&r, &hl, false);
	ix_pattern_judge(&r);
	o = ix_json_pattern(&r);
	at = o;
	snprintf(key, sizeof(key), "%s", path);
	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		at = json_object_get(at, key);
		if (json_is_array(at))
			at = json_array_get(at, 0);
		path = dot + 1;
		snprintf(key, sizeof(key), "%s", path);
	}
	json_object_set_new(at, key, v);
	cr_assert_eq(ix_json_read_pattern(o, &s, &err), -1);
	cr_assert(strstr(err.msg, want), "'%s' does not say '%s'", err.msg, want);
	cr_assert_null(s.r.host);
	json_decref(o);
	ix_pattern_result_free(&r);
}

Test(read_pattern, malformed_members_are_named)
{
	bad("pattern", json_string("star"), "pattern: unknown pattern 'star'");
	bad("pattern", json_string("all-pairs"), "all-pairs is a mesh result");
	bad("tests.from", json_string("nowhere:1"), "tests[0].from");
	bad("tests.round", json_integer(3), "tests[0].round is 3 of 1 rounds");
	bad("halves.order", json_pack("[i,i,i,i]", 0, 1, 2, 9), "halves.order[3] is not a host");
	bad("nodes", json_array(), "nodes has 0 entries for 4 hosts");
	bad("params.bad_fraction", json_real(2), "params.bad_fraction");
}
