/* Comparing two lists of figures, and the CSV both report and compare write. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/doc/compare.h"

#define EPS 1e-9

static enum ix_verdict judge(struct ix_cmp_row *r, double tol)
{
	const struct ix_figure *b = r->base, *c = r->cur;
	double worse, allow;

	if (!b->valid)
		return IX_CMP_NO_VALUE;
	if (!c->valid)
		return IX_CMP_REGRESSION;
	r->delta = c->value - b->value;
	if (b->value != 0) {
		r->change = r->delta / fabs(b->value);
		r->change_valid = true;
	}
	worse = b->better == IX_HIGHER_BETTER ? -r->delta : r->delta; /* > 0: worse */
	if (b->absolute) {
		allow = b->allowance > 0 ? fmax(b->allowance, tol * fabs(b->value)) : 0;
	} else if (b->value == 0) {
		allow = 0;
	} else {
		worse /= fabs(b->value);
		allow = tol;
	}
	if (worse > allow + EPS)
		return IX_CMP_REGRESSION;
	if (worse < -(allow + EPS))
		return IX_CMP_IMPROVED;
	return IX_CMP_SAME;
}

static void count(struct ix_cmp_counts *c, enum ix_verdict v)
{
	switch (v) {
	case IX_CMP_SAME:
		c->same++;
		break;
	case IX_CMP_IMPROVED:
		c->improved++;
		break;
	case IX_CMP_REGRESSION:
		c->regressions++;
		break;
	case IX_CMP_ONLY_BASE:
		c->only_base++;
		break;
	case IX_CMP_ONLY_NEW:
		c->only_new++;
		break;
	case IX_CMP_NO_VALUE:
		c->no_value++;
		break;
	}
}

int ix_figures_compare(const struct ix_figure *base, size_t nbase, const struct ix_figure *cur,
		       size_t ncur, double tolerance, struct ix_cmp_row **rows, size_t *nrows,
		       struct ix_cmp_counts *counts, struct ix_err *err)
{
	json_t *index = json_object();
	struct ix_cmp_row *v = calloc(nbase + ncur + 1, sizeof(*v));
	bool *matched = calloc(ncur + 1, sizeof(*matched));
	size_t n = 0;

	*rows = NULL;
	*nrows = 0;
	memset(counts, 0, sizeof(*counts));
	if (!index || !v || !matched)
		goto oom;
	for (size_t i = 0; i < ncur; i++)
		if (json_object_set_new(index, cur[i].key, json_integer((json_int_t)i)) < 0)
			goto oom;
	for (size_t i = 0; i < nbase; i++) {
		json_t *at = json_object_get(index, base[i].key);
		struct ix_cmp_row *r = &v[n++];

		r->base = &base[i];
		if (!at) {
			r->verdict = IX_CMP_ONLY_BASE;
		} else {
			r->cur = &cur[json_integer_value(at)];
			matched[json_integer_value(at)] = true;
			r->verdict = judge(r, tolerance);
		}
		count(counts, r->verdict);
	}
	for (size_t i = 0; i < ncur; i++) {
		if (matched[i])
			continue;
		v[n].cur = &cur[i];
		v[n].verdict = IX_CMP_ONLY_NEW;
		count(counts, IX_CMP_ONLY_NEW);
		n++;
	}
	json_decref(index);
	free(matched);
	*rows = v;
	*nrows = n;
	return 0;
oom:
	json_decref(index);
	free(v);
	free(matched);
	return ix_fail(err, IX_EXIT_FAIL, "out of memory");
}

const char *ix_verdict_text(enum ix_verdict v)
{
	static const char *const t[] = { "ok",           "improved",    "REGRESSION",
					 "only in base", "only in new", "no value" };

	return (unsigned)v < sizeof(t) / sizeof(t[0]) ? t[v] : "?";
}

const char *ix_verdict_id(enum ix_verdict v)
{
	static const char *const t[] = { "same",      "improved", "regression",
					 "only_base", "only_new", "no_value" };

	return (unsigned)v < sizeof(t) / sizeof(t[0]) ? t[v] : "?";
}

/* JSON has no infinities: a change from a tiny base may be one. */
static json_t *real_or_null(bool valid, double v)
{
	return valid && isfinite(v) ? json_real(v) : json_null();
}

static json_t *opt_value(const struct ix_figure *f)
{
	return f ? real_or_null(f->valid, f->value) : json_null();
}

json_t *ix_cmp_row_json(const struct ix_cmp_row *r)
{
	const struct ix_figure *f = r->base ? r->base : r->cur;
	bool both = r->base && r->cur && r->base->valid && r->cur->valid;

	return json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:s,s:b}", "key", f->key, "check",
			 f->check, "name", f->name, "unit", f->unit, "base", opt_value(r->base),
			 "new", opt_value(r->cur), "change",
			 real_or_null(r->change_valid, r->change), "delta",
			 real_or_null(both, r->delta), "verdict", ix_verdict_id(r->verdict),
			 "detail", f->detail);
}

long ix_detail_regressions(json_t *baseline, const char *check, json_t *results, double limit,
			   size_t max, double *worst, json_t *list, struct ix_err *err)
{
	struct ix_figure *base = NULL, *cur = NULL;
	size_t nbase = 0, ncur = 0, over = 0;
	json_t *index = json_object();
	long compared = 0;

	*worst = 0;
	if (!index || ix_figures_extract(baseline, &base, &nbase, err) < 0 ||
	    ix_figures_of_results(check, results, &cur, &ncur, err) < 0) {
		json_decref(index);
		free(base);
		return index ? -1 : ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	for (size_t i = 0; i < nbase; i++)
		if (base[i].detail && base[i].valid && base[i].value > 0)
			json_object_set_new(index, base[i].key, json_integer((json_int_t)i));
	for (size_t i = 0; i < ncur; i++) {
		json_t *at = json_object_get(index, cur[i].key);
		const struct ix_figure *b, *c = &cur[i];
		double worse;

		if (!c->detail || !c->valid || !at)
			continue;
		b = &base[json_integer_value(at)];
		worse = b->better == IX_HIGHER_BETTER ? (b->value - c->value) / b->value
						      : (c->value - b->value) / b->value;
		compared++;
		if (compared == 1 || worse > *worst)
			*worst = worse;
		if (worse > limit && over++ < max) {
			char was[48], now[48];

			ix_figure_fmt(b, was, sizeof(was));
			ix_figure_fmt(c, now, sizeof(now));
			json_array_append_new(
				list, json_sprintf("%s %+.1f%% (%s -> %s)", c->name,
						   -100.0 * worse *
							   (b->better == IX_HIGHER_BETTER ? 1 : -1),
						   was, now));
		}
	}
	if (over > max)
		json_array_append_new(list, json_sprintf("and %zu more", over - max));
	json_decref(index);
	free(base);
	free(cur);
	return compared;
}

bool ix_detail_judge(json_t *baseline, const char *check, json_t *results, double limit, size_t max,
		     double *worst, json_t *list, char *why, size_t whylen)
{
	struct ix_err err = { 0 };
	long n = 0;

	*worst = 0;
	if (!baseline) {
		snprintf(why, whylen, "max_pair_regression needs a baseline (--baseline)");
		return false;
	}
	n = ix_detail_regressions(baseline, check, results, limit, max, worst, list, &err);
	if (n < 0)
		snprintf(why, whylen, "%s", err.msg);
	else if (n == 0)
		snprintf(why, whylen, "the baseline's '%s' has no node or pair of this mesh",
			 check);
	return n > 0;
}

int ix_parse_tolerance(const char *s, double *out, struct ix_err *err)
{
	size_t digits = 0, i;
	bool dot = false, pct = false;
	double d;

	for (i = 0; s[i]; i++) {
		if (isdigit((unsigned char)s[i]))
			digits++;
		else if (s[i] == '.' && !dot && !pct)
			dot = true;
		else if (s[i] == '%' && !pct && s[i + 1] == '\0')
			pct = true;
		else
			break;
	}
	if (s[0] == '-')
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is negative", s);
	if (s[i] || !digits)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s' is not a tolerance: give a percentage (10%%) or a fraction "
			       "(0.1)",
			       s);
	d = strtod(s, NULL);
	if (!isfinite(d))
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is out of range", s);
	if (pct)
		d /= 100;
	else if (d > 1)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s' is ambiguous: write %s%% for a percentage, or a fraction "
			       "of at most 1",
			       s, s);
	*out = d;
	return 0;
}

/* ---- CSV and text ------------------------------------------------------- */

/* A plain decimal number: [+-]digits[.digits][e[+-]digits], a digit somewhere. */
static bool csv_number(const char *s)
{
	bool digit = false;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digit = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digit = true;
	if (digit && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return digit && !*s;
}

void ix_csv_field(FILE *f, const char *s)
{
	/* A spreadsheet runs a cell starting with one of these as a formula. */
	bool formula = *s && strchr("=+-@\t\r", *s) && !csv_number(s);

	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void ix_csv_header(FILE *f)
{
	fputs("file,key,check,name,value,unit\r\n", f);
}

void ix_csv_rows(FILE *f, const char *file, const struct ix_figure *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ix_csv_field(f, file);
		fputc(',', f);
		ix_csv_field(f, v[i].key);
		fputc(',', f);
		ix_csv_field(f, v[i].check);
		fputc(',', f);
		ix_csv_field(f, v[i].name);
		fputc(',', f);
		if (v[i].valid)
			fprintf(f, "%.15g", v[i].value);
		fputc(',', f);
		ix_csv_field(f, v[i].unit);
		fputs("\r\n", f);
	}
}
