/* Unit tests for report/text/top.c: the text tables of the live monitor,
 * over the sysfs fixtures and a known traffic matrix. Unknown figures must
 * come out as "-", never 0. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

/* Render into a string. */
static char *render(void (*fn)(FILE *, const void *, size_t), const void *arg, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, arg, n);
	fclose(f);
	return buf;
}

static void links_text(FILE *f, const void *m, size_t n)
{
	ix_text_links(f, m);
}

static void talkers_text(FILE *f, const void *v, size_t n)
{
	ix_text_talkers(f, v, n);
}

/* The line of text that starts with name. */
static const char *line_of(const char *text, const char *name, char *buf, size_t len)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t n = strcspn(p, "\n");

		if (strncmp(p, name, strlen(name)) == 0 && p[strlen(name)] == ' ') {
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
	}
	cr_assert_fail("no line for %s in:\n%s", name, text);
	return NULL;
}

Test(text_top, links_table)
{
	struct ix_top_model m;
	char *text, line[256];

	model(&m, true);
	text = render(links_text, &m, 0);
	cr_assert(strncmp(text, "INTERFACE", 9) == 0, "%s", text);
	line_of(text, "eth0", line, sizeof(line));
	cr_assert_not_null(strstr(line, " up "), "%s", line);
	cr_assert_not_null(strstr(line, "25.0 Gbit/s"), "%s", line);
	cr_assert_not_null(strstr(line, "9000"), "%s", line);
	cr_assert_not_null(strstr(line, "6.25 Gbit/s"), "%s", line);
	cr_assert_not_null(strstr(line, "2.50 Gbit/s"), "%s", line);
	cr_assert_not_null(strstr(line, "25.0%"), "%s", line);
	cr_assert_not_null(strstr(line, " 5.0 "), "%s", line);
	line_of(text, "ens1f0", line, sizeof(line));
	cr_assert_not_null(strstr(line, " down "), "%s", line);
	cr_assert_null(strstr(line, "%"), "no speed, no utilisation: %s", line);
	cr_assert_not_null(strstr(line, " - "), "%s", line);
	line_of(text, "mlx5_0/1", line, sizeof(line));
	cr_assert_not_null(strstr(line, "ACTIVE"), "%s", line);
	cr_assert_not_null(strstr(line, "200 Gbit/s"), "%s", line);
	cr_assert_not_null(strstr(line, "4.0%"), "%s", line);
	free(text);
	ix_top_model_free(&m);
}

/* The fabric column: the classes that moved per second, then the driver's
 * names of the counters that moved most. */
Test(text_top, fabric_column)
{
	struct ix_top_model m;
	char *text, line[512];
	const char *p;

	model(&m, true);
	text = render(links_text, &m, 0);
	cr_assert_not_null(strstr(text, " FABRIC\n"), "%s", text);
	line_of(text, "eth0", line, sizeof(line));
	p = strstr(line, "drops 12/s, pause rx 400/s, errors 5/s "
			 "(rx_prio3_pause, rx_prio4_pause, rx_discards_phy, ...)");
	cr_assert_not_null(p, "%s", line);
	cr_assert_eq(p[strlen(p) - 1], ')', "last column: %s", line);
	line_of(text, "mlx5_1/1", line, sizeof(line));
	cr_assert_not_null(strstr(line, "  ecn 5/s, cnp sent 30/s (np_cnp_sent, "
					"np_ecn_marked_roce_packets)"),
			   "%s", line);
	line_of(text, "ens1f1", line, sizeof(line));
	cr_assert(strlen(line) > 6 && strcmp(line + strlen(line) - 6, "  none") == 0,
		  "nothing moved: %s", line);
	line_of(text, "veth1", line, sizeof(line));
	cr_assert_eq(line[strlen(line) - 1], '-', "just appeared: %s", line);
	free(text);
	ix_top_model_free(&m);
}

Test(text_top, talkers_table)
{
	struct ix_talkers_view v;
	struct ix_talkers *t = traffic(&v, true);
	char *text;

	text = render(talkers_text, &v, 1);
	cr_assert(strncmp(text, "SOURCE", 6) == 0, "%s", text);
	cr_assert_not_null(strstr(text, "10.0.0.1"), "%s", text);
	cr_assert_not_null(strstr(text, "8.00 Kbit/s"), "%s", text);
	cr_assert_not_null(strstr(text, "5.00 KB"), "%s", text);
	cr_assert_null(strstr(text, "500 B"), "one pair only: %s", text);
	free(text);
	text = render(talkers_text, &v, 0);
	cr_assert_not_null(strstr(text, "500 B"), "all pairs: %s", text);
	free(text);
	ix_talkers_view_free(&v);
	ix_talkers_free(t);
}
