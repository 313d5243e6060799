/* What the tests of report/post's Prometheus exposition share: a small
 * parser of the text format that checks its rules (one HELP and TYPE per
 * family, samples under their family, no duplicate series), and lookups
 * of one sample by its labels. */
#ifndef IX_TEST_REPORT_POST_EXPOSITION_H
#define IX_TEST_REPORT_POST_EXPOSITION_H

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/report/post/payload.h"

/* ---- a small parser of the text exposition format ----------------------------- */

#define MAXL 8

struct sample {
	char name[128];
	char key[MAXL][64];
	char val[MAXL][256];
	int nl;
	double v;
};

static inline bool matches(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	cr_assert_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

static inline int parse_sample(const char *p, struct sample *s)
{
	char *end;
	size_t n = strcspn(p, "{ ");

	memset(s, 0, sizeof(*s));
	if (n == 0 || n >= sizeof(s->name))
		return -1;
	memcpy(s->name, p, n);
	p += n;
	if (*p == '{') {
		p++;
		while (*p != '}') {
			size_t k = strcspn(p, "="), o = 0;
			if (s->nl == MAXL || k == 0 || k >= sizeof(s->key[0]) || p[k] != '=' ||
			    p[k + 1] != '"')
				return -1;
			memcpy(s->key[s->nl], p, k);
			for (p += k + 2; *p != '"'; p++) {
				char c = *p;
				if (!c || o + 1 >= sizeof(s->val[0]))
					return -1;
				if (c == '\\') {
					c = *++p;
					if (c == 'n')
						c = '\n';
					else if (c != '\\' && c != '"')
						return -1;
				} else if (c == '\n') {
					return -1;
				}
				s->val[s->nl][o++] = c;
			}
			s->nl++;
			p++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return -1;
		}
		p++;
	}
	if (*p++ != ' ')
		return -1;
	s->v = strtod(p, &end);
	return end != p && *end == '\0' ? 0 : -1;
}

static inline const char *label(const struct sample *s, const char *key)
{
	for (int i = 0; i < s->nl; i++)
		if (strcmp(s->key[i], key) == 0)
			return s->val[i];
	return NULL;
}

/* Parse the whole body, checking the format rules; returns the samples. */
static inline struct sample *parse_body(char *body, size_t *n)
{
	struct sample *all = calloc(4096, sizeof(*all));
	char families[64][128], current[128] = "";
	int helps[64] = { 0 }, types[64] = { 0 }, nf = 0;
	json_t *seen = json_object();

	*n = 0;
	for (char *line = body, *nl; line && *line; line = nl ? nl + 1 : NULL) {
		char name[128];
		int f;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
			bool help = line[2] == 'H';
			cr_assert_eq(sscanf(line + 7, "%127s", name), 1);
			for (f = 0; f < nf && strcmp(families[f], name) != 0; f++)
				;
			if (f == nf)
				snprintf(families[nf++], sizeof(families[0]), "%s", name);
			(help ? helps : types)[f]++;
			cr_expect_eq((help ? helps : types)[f], 1, "second %s line for %s",
				     help ? "HELP" : "TYPE", name);
			if (!help) {
				cr_expect(matches(" (gauge|counter)$", line), "%s", line);
				snprintf(current, sizeof(current), "%s", name);
			}
			continue;
		}
		cr_assert_eq(parse_sample(line, &all[*n]), 0, "bad sample line: %s", line);
		cr_expect(matches("^[a-zA-Z_:][a-zA-Z0-9_:]*$", all[*n].name), "%s", line);
		cr_expect_str_eq(all[*n].name, current, "sample outside its family: %s", line);
		for (int i = 0; i < all[*n].nl; i++)
			cr_expect(matches("^[a-zA-Z_][a-zA-Z0-9_]*$", all[*n].key[i]) &&
					  strncmp(all[*n].key[i], "__", 2) != 0,
				  "%s", line);
		cr_expect_null(json_object_get(seen, line), "duplicate series: %s", line);
		json_object_set_new(seen, line, json_true());
		(*n)++;
	}
	for (int f = 0; f < nf; f++)
		cr_expect(helps[f] == 1 && types[f] == 1, "%s: HELP %d, TYPE %d", families[f],
			  helps[f], types[f]);
	json_decref(seen);
	return all;
}

/* The value of the one sample of name whose labels match kv (NULL-ended). */
static inline double value(const struct sample *s, size_t n, const char *name,
			   const char *const *kv)
{
	const struct sample *hit = NULL;

	for (size_t i = 0; i < n; i++) {
		bool ok = strcmp(s[i].name, name) == 0;
		for (size_t k = 0; ok && kv && kv[k]; k += 2) {
			const char *v = label(&s[i], kv[k]);
			ok = v && strcmp(v, kv[k + 1]) == 0;
		}
		if (ok) {
			cr_assert_null(hit, "more than one %s matches", name);
			hit = &s[i];
		}
	}
	cr_assert_not_null(hit, "no %s with those labels", name);
	return hit->v;
}

/* Labels to match, name and value pairs. */
#define L(...) ((const char *const[]){ __VA_ARGS__, NULL })

static inline double num(json_t *doc, const char *path)
{
	json_t *v = json_object_get(doc, path);
	cr_assert(json_is_number(v));
	return json_number_value(v);
}

/* How many samples of name have label key = v. */
static inline size_t count(const struct sample *s, size_t n, const char *name, const char *key,
			   const char *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += strcmp(s[i].name, name) == 0 && label(&s[i], key) &&
		     strcmp(label(&s[i], key), v) == 0;
	return k;
}

static inline char *body_pairs(const char *name, bool pairs, struct ix_post_msg *m)
{
	struct ix_post_opts o = { .url = "http://127.0.0.1:9091",
				  .format = IX_POST_PUSHGATEWAY,
				  .pairs = pairs };

	return body_with(name, &o, m);
}

#endif
