/* The summary of an 'ixperf run' document: a line per check with its
 * verdict and headline, a line per expectation, a simulation and a slow
 * rank named, the errors, the topology's findings and the run's verdict. It renders the document (the
 * checks' figures are judged JSON), as the run's HTML report does. */
#include "config.h"

#include <string.h>

#include "report/text/text.h"

static void fmt_value(double v, const char *unit, const struct ix_unit_choice *u, char *buf,
		      size_t len)
{
	if (unit && !strcmp(unit, "ns"))
		ix_fmt_ns(v, buf, len);
	else if (unit && !strcmp(unit, "bit/s"))
		ix_fmt_rate(v, u, buf, len);
	else if (unit && !strcmp(unit, "%"))
		snprintf(buf, len, "%.3g%%", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* The rank of a coll result's ranks: "3 on node07 (GPU 1, 0000:3b:00.0)". */
static void coll_rank(json_t *r, json_int_t k, char *buf, size_t len)
{
	json_t *x = json_array_get(json_object_get(r, "ranks"), (size_t)k);

	snprintf(buf, len, "%lld on %s (GPU %lld, %s)", (long long)k,
		 json_string_value(json_object_get(x, "node")) ?: "?",
		 (long long)json_integer_value(json_object_get(x, "device")),
		 json_string_value(json_object_get(x, "pci_bus_id")) ?: "?");
}

/* Under a check, what its results say of themselves: a simulated library,
 * and a collective's rank or link named slow. */
static void result_notes(FILE *f, json_t *results)
{
	json_t *r, *v;
	size_t i;

	json_array_foreach(results, i, r)
	{
		const char *sim = json_string_value(json_object_get(r, "simulation"));
		const char *culprit;
		char a[256], b[256];

		if (sim)
			fprintf(f, "          SIMULATED: %s\n", sim);
		v = json_object_get(r, "verdict");
		culprit = json_string_value(json_object_get(v, "culprit"));
		if (!culprit || !json_is_object(v))
			continue;
		coll_rank(r, json_integer_value(json_object_get(v, "rank")), a, sizeof(a));
		coll_rank(r, json_integer_value(json_object_get(v, "rank_b")), b, sizeof(b));
		if (!strcmp(culprit, "rank"))
			fprintf(f, "          slow rank %s: both its links at %.2g x the others'\n",
				a, json_number_value(json_object_get(v, "share")));
		else if (!strcmp(culprit, "link"))
			fprintf(f,
				"          slow link: rank %s <-> rank %s, at %.2g x the others\n",
				a, b, json_number_value(json_object_get(v, "share")));
		else if (!strcmp(culprit, "many"))
			fprintf(f, "          %lld slow links that no one rank or link explains\n",
				(long long)json_integer_value(json_object_get(v, "slow_pairs")));
	}
}

void ix_text_run(FILE *f, json_t *run, const struct ix_fleet_result *fleet,
		 const struct ix_unit_choice *u)
{
	json_t *c;
	size_t i;

	fprintf(f, "ixperf run: %s\n", json_string_value(json_object_get(run, "name")));
	json_array_foreach(json_object_get(run, "checks"), i, c)
	{
		json_t *h = json_object_get(c, "headline"), *e, *r;
		char val[48] = "-";
		size_t k, j;

		if (json_is_number(json_object_get(h, "value")))
			fmt_value(json_number_value(json_object_get(h, "value")),
				  json_string_value(json_object_get(h, "unit")), u, val,
				  sizeof(val));
		fprintf(f, "  %-5s %-24s %-6s %s %s\n",
			json_string_value(json_object_get(c, "verdict")),
			json_string_value(json_object_get(c, "name")),
			json_string_value(json_object_get(c, "probe")),
			json_string_value(json_object_get(h, "name")), val);
		json_array_foreach(json_object_get(c, "expectations"), k, e)
		{
			json_t *m = json_object_get(e, "measured");
			char got[48] = "not measured";

			if (json_is_number(m))
				fmt_value(json_number_value(m),
					  json_string_value(json_object_get(e, "unit")), u, got,
					  sizeof(got));
			fprintf(f, "          %-4s %s = %s: %s\n",
				json_is_true(json_object_get(e, "pass")) ? "ok" : "FAIL",
				json_string_value(json_object_get(e, "key")),
				json_string_value(json_object_get(e, "text")), got);
			json_array_foreach(json_object_get(e, "findings"), j, r)
			{
				fprintf(f, "               finding: %s\n",
					json_string_value(r) ?: "?");
			}
			json_array_foreach(json_object_get(e, "regressed"), j, r)
			{
				fprintf(f, "               %s\n", json_string_value(r) ?: "?");
			}
		}
		result_notes(f, json_object_get(c, "results"));
		if (json_is_string(json_object_get(c, "reason")))
			fprintf(f, "          %s\n",
				json_string_value(json_object_get(c, "reason")));
		if (json_is_string(json_object_get(c, "error")))
			fprintf(f, "          %s\n",
				json_string_value(json_object_get(c, "error")));
		if (!strcmp(json_string_value(json_object_get(c, "verdict")), "ERROR") &&
		    !strcmp(json_string_value(json_object_get(c, "judged")) ?: "", "FAIL"))
			fprintf(f, "          and over what was measured, a threshold FAILED\n");
	}
	json_array_foreach(json_object_get(json_object_get(run, "topology"), "findings"), i, c)
	{
		if (!i)
			fprintf(f, "Topology (ixperf topo):\n");
		fprintf(f, "  %-5s %s\n",
			strcmp(json_string_value(json_object_get(c, "severity")), "error")
				? "WARN"
				: "ERROR",
			json_string_value(json_object_get(c, "message")));
	}
	if (fleet)
		ix_text_fleet(f, fleet);
	fprintf(f, "Verdict: %s\n", json_string_value(json_object_get(run, "verdict")));
}
