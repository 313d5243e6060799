/* Unit tests for report/fmt/suggest.c: edit distance and "did you mean". */
#include "config.h"

#include <criterion/criterion.h>

#include "report/fmt/suggest.h"

Test(suggest, edit_distance_counts_each_edit_once)
{
	cr_expect_eq(ix_edit_distance("mesh", "mesh"), 0);
	cr_expect_eq(ix_edit_distance("mseh", "mesh"), 1); /* a swap of neighbours */
	cr_expect_eq(ix_edit_distance("tme", "time"), 1);  /* a letter left out */
	cr_expect_eq(ix_edit_distance("timee", "time"), 1);
	cr_expect_eq(ix_edit_distance("tine", "time"), 1);
	cr_expect_eq(ix_edit_distance("", "bw"), 2);
	cr_expect_eq(ix_edit_distance("kitten", "sitting"), 3);
}

static const char *const cmds[] = { "bw",   "lat",    "server",  "mesh", "incast", "ecmp",
				    "run",  "report", "compare", "post", "top",    "topo",
				    "wire", "fabric", "gpu",     "help" };
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

Test(suggest, commands_a_typo_away)
{
	cr_expect_str_eq(ix_suggest("mseh", cmds, NCMDS), "mesh");
	cr_expect_str_eq(ix_suggest("servr", cmds, NCMDS), "server");
	cr_expect_str_eq(ix_suggest("incats", cmds, NCMDS), "incast");
	cr_expect_str_eq(ix_suggest("bww", cmds, NCMDS), "bw");
	cr_expect_str_eq(ix_suggest("fabirc", cmds, NCMDS), "fabric");
}

Test(suggest, no_guess_when_far_or_tied)
{
	cr_expect_null(ix_suggest("xyzzy", cmds, NCMDS));
	/* one edit from both top (a swap) and topo (a letter left out) */
	cr_expect_null(ix_suggest("tpo", cmds, NCMDS));
	cr_expect_str_eq(ix_suggest("to", cmds, NCMDS), "top");
	/* one letter is no word to guess from */
	cr_expect_null(ix_suggest("x", cmds, NCMDS));
	cr_expect_str_eq(ix_suggest("lot", (const char *const[]){ "lat", "top" }, 2), "lat");
}

Test(suggest, long_options)
{
	static const char *const opts[] = { "time",     "json",       "output",
					    "parallel", "reverse",    "bidir",
					    "interval", "congestion", "rate" };

	cr_expect_str_eq(ix_suggest("tme", opts, 9), "time");
	cr_expect_str_eq(ix_suggest("jsno", opts, 9), "json");
	cr_expect_str_eq(ix_suggest("paralel", opts, 9), "parallel");
	cr_expect_str_eq(ix_suggest("congestoin", opts, 9), "congestion");
	cr_expect_null(ix_suggest("report_gbits", opts, 9));
}
