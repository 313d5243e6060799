/* The text exposition format: names, escaping, HELP and TYPE lines,
 * samples; and the agent's own metrics. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/prom/prom.h"

static bool name_char(char c, bool first, bool label)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!label && c == ':') || (!first && c >= '0' && c <= '9');
}

bool ix_prom_name_valid(const char *name, bool label)
{
	if (!name || !name[0] || (label && name[0] == '_' && name[1] == '_'))
		return false;
	for (size_t i = 0; name[i]; i++)
		if (!name_char(name[i], i == 0, label))
			return false;
	return true;
}

void ix_prom_write_escaped(FILE *f, const char *s, bool help)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && !help)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

void ix_prom_family(FILE *f, const char *name, enum ix_prom_type type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	ix_prom_write_escaped(f, help, true);
	fprintf(f, "\n# TYPE %s %s\n", name, type == IX_PROM_COUNTER ? "counter" : "gauge");
}

static void sample_head(FILE *f, const char *name, const struct ix_prom_label *l, size_t nl)
{
	size_t k = 0;

	fputs(name, f);
	for (size_t i = 0; i < nl; i++) {
		if (!l[i].value)
			continue;
		fprintf(f, "%c%s=\"", k++ ? ',' : '{', l[i].name);
		ix_prom_write_escaped(f, l[i].value, false);
		fputc('"', f);
	}
	if (k)
		fputc('}', f);
	fputc(' ', f);
}

void ix_prom_sample(FILE *f, const char *name, const struct ix_prom_label *l, size_t nl, double v)
{
	sample_head(f, name, l, nl);
	if (isnan(v))
		fputs("NaN\n", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf\n" : "-Inf\n", f);
	else
		fprintf(f, "%.17g\n", v);
}

void ix_prom_sample_u64(FILE *f, const char *name, const struct ix_prom_label *l, size_t nl,
			uint64_t v)
{
	sample_head(f, name, l, nl);
	fprintf(f, "%" PRIu64 "\n", v);
}

int ix_prom_priority(const char *counter)
{
	const char *p = strstr(counter, "prio");

	while (p) {
		const char *d = p + 4;

		if (!strncmp(d, "rity", 4))
			d += 4;
		if (*d == '_')
			d++;
		if (*d >= '0' && *d <= '7' && !(d[1] >= '0' && d[1] <= '9'))
			return *d - '0';
		p = strstr(p + 4, "prio");
	}
	return -1;
}

void ix_prom_agent(FILE *f, const struct ix_agent_stats *s)
{
	static const char *const reason[IX_AGENT_REFUSE_N] = {
		[IX_AGENT_REFUSE_TESTS] = "tests",
		[IX_AGENT_REFUSE_ADDRESS] = "address",
		[IX_AGENT_REFUSE_MEMORY] = "memory",
		[IX_AGENT_REFUSE_CONNECTIONS] = "connections",
	};

	ix_prom_family(f, "ixperf_agent_tests_total", IX_PROM_COUNTER,
		       "Tests this agent has served to their end.");
	ix_prom_sample_u64(f, "ixperf_agent_tests_total", NULL, 0, s->tests_served);
	ix_prom_family(f, "ixperf_agent_refused_total", IX_PROM_COUNTER,
		       "Tests and connections this agent refused, by reason: tests (--max-tests), "
		       "address (--max-tests-per-host), memory (--max-memory, --max-test-memory), "
		       "connections (too many from one address or in all).");
	for (int k = 0; k < IX_AGENT_REFUSE_N; k++)
		ix_prom_sample_u64(f, "ixperf_agent_refused_total",
				   &(struct ix_prom_label){ "class", reason[k] }, 1, s->refused[k]);
	ix_prom_family(f, "ixperf_agent_tests_running", IX_PROM_GAUGE, "Tests running now.");
	ix_prom_sample_u64(f, "ixperf_agent_tests_running", NULL, 0, s->tests_running);
	ix_prom_family(f, "ixperf_agent_connections", IX_PROM_GAUGE,
		       "Connections being served now.");
	ix_prom_sample_u64(f, "ixperf_agent_connections", NULL, 0, s->connections);
	ix_prom_family(f, "ixperf_agent_memory_held_bytes", IX_PROM_GAUGE,
		       "Buffer memory the running tests hold, counted against --max-memory.");
	ix_prom_sample_u64(f, "ixperf_agent_memory_held_bytes", NULL, 0, s->mem_held);
	if (s->mem_limit) {
		ix_prom_family(f, "ixperf_agent_memory_limit_bytes", IX_PROM_GAUGE,
			       "The agent's --max-memory.");
		ix_prom_sample_u64(f, "ixperf_agent_memory_limit_bytes", NULL, 0, s->mem_limit);
	}
}
