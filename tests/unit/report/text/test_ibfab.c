/* Unit tests for report/text/ibfab.c: the cables once each with width,
 * speed, rate and state, the counters that moved, the findings, and a
 * hostile node description drawn safe. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"
#include "report/text/text.h"

static char *render(const struct ix_ibfab *f, const struct ix_ibfab_findings *fs, int reads)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	cr_assert_not_null(o);
	ix_text_ibfab(o, f, fs, reads, "over 1.0 s");
	fclose(o);
	return buf;
}

static void subnet(struct ix_ibfab *f, const char *hdesc)
{
	struct ix_ibfab_port *h, *s;

	ix_ibfab_init(f);
	cr_assert_not_null(ix_ibfab_add(f, 0x10, false, hdesc, 1));
	cr_assert_not_null(ix_ibfab_add(f, 0x20, true, "sw", 4));
	h = ix_ibfab_port(f, 0, 1);
	s = ix_ibfab_port(f, 1, 3);
	*h = (struct ix_ibfab_port){ .num = 1,
				     .state = 4,
				     .width_active = 2,
				     .speed_active = 4,
				     .peer_node = 1,
				     .peer_port = 3 };
	*s = *h;
	s->num = 3;
	s->peer_node = 0;
	s->peer_port = 1;
	h->ctr[0].valid = h->ctr[1].valid = true;
	h->ctr[1].v[IX_IBC_RCV_ERRORS] = 4;
	h->ctr[1].v[IX_IBC_XMIT_WAIT] = 90;
	h->ctr[1].v[IX_IBC_XMIT_DATA] = 1000; /* traffic: not listed */
	snprintf(f->via, sizeof(f->via), "mlx5_0 port 1");
}

Test(text_ibfab, cables_moved_counters_and_findings)
{
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;
	struct ix_err err = { 0 };
	char *out;

	subnet(&f, "h");
	cr_assert_eq(ix_ibfab_check(&f, NULL, &fs, &err), 0);
	out = render(&f, &fs, 2);
	cr_assert(strstr(out, "ixperf fabric: 1 switches, 1 adapters, 1 cables (through mlx5_0 "
			      "port 1)\n"),
		  "%s", out);
	cr_assert(strstr(out, "  \"h\"/1"), "%s", out);
	cr_assert(strstr(out, "4X    QDR      32.00  Active\n"), "%s", out);
	cr_assert_null(strstr(out, "\"sw\"/3                       \"h\"/1"), "each cable once");
	cr_assert(strstr(out, "Counters that moved over 1.0 s:\n  PortRcvErrors +4, PortXmitWait "
			      "+90  at \"h\"/1\n"),
		  "%s", out);
	cr_assert_null(strstr(out, "PortXmitData"), "%s", out);
	cr_assert(strstr(out, "FINDINGS (1):\n  errors      \"h\"/1: PortRcvErrors +4 between the "
			      "reads\n"),
		  "%s", out);
	free(out);
	ix_ibfab_findings_free(&fs);
	ix_ibfab_free(&f);
}

Test(text_ibfab, one_read_and_a_hostile_description)
{
	struct ix_ibfab f;
	char *out;

	subnet(&f, "evil\x1b[2J\x9b");
	out = render(&f, NULL, 1);
	cr_assert(strstr(out, "Counters read once"), "%s", out);
	cr_assert(strstr(out, "No findings.\n"), "%s", out);
	cr_assert_null(strchr(out, '\x1b'), "an escape reached the terminal");
	cr_assert_null(strchr(out, '\x9b'));
	free(out);
	ix_ibfab_free(&f);
}
