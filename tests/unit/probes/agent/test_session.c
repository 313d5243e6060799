/* Unit tests for probes/agent/session.c: the agent's log lines, which
 * carry what peers send. (Sessions themselves are tested live:
 * tests/integration/agent_limits.sh, faults.sh.) */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/agent/session.h"
#include "probes/agent/state.h"

static char logged[1024];

static void capture(void *arg, const char *msg)
{
	(void)arg;
	snprintf(logged, sizeof(logged), "%s", msg);
}

static void fresh(struct ix_agent *a)
{
	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	a->cfg.log = capture;
	logged[0] = '\0';
}

/* A HELLO's host and version: a new line, ESC [ 2J, an OSC title, C1 CSI
 * as U+009B and as a raw byte, NEL (U+0085). */
Test(log, a_peer_cannot_forge_a_line_or_send_the_terminal_a_control)
{
	struct ix_agent a;

	fresh(&a);
	ix_agent_logf(&a, "%s: client connected (%.64s, ixperf %.16s)", "10.0.0.1:5000",
		      "evil\n2026-01-01 forged\x1b[2J\xc2\x9b"
		      "2J\x9b"
		      "2J\xc2\x85",
		      "1\r\x1b]0;t\x07");
	cr_assert_str_eq(logged,
			 "10.0.0.1:5000: client connected (evil?2026-01-01 forged?[2J?2J?2J?, "
			 "ixperf 1??]0;t?)");
}

/* %.64s cuts a name on a byte: half a character is not UTF-8. */
Test(log, a_name_cut_by_a_precision_loses_its_half_character)
{
	struct ix_agent a;

	fresh(&a);
	ix_agent_logf(&a, "(%.4s)", "abc\xc3\xa9");
	cr_assert_str_eq(logged, "(abc?)");
	ix_agent_logf(&a, "(%.5s)", "abc\xc3\xa9");
	cr_assert_str_eq(logged, "(abc\xc3\xa9)", "a whole character stays");
}

/* A refusal's reason may quote the peer (an error about its frame). */
Test(log, refusals_are_made_safe_too)
{
	struct ix_agent a;

	fresh(&a);
	ix_agent_log_refusal(&a, "10.0.0.1:5000", "near '\"x\xc2\x9b[2J\x1b[0m'");
	cr_assert_str_eq(logged, "10.0.0.1:5000: refused: near '\"x?[2J?[0m'");
}
