#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/fmt/units.h"

typedef unsigned __int128 u128;

struct prefix {
	const char *name;
	uint64_t mult;
};

static const struct prefix prefixes[] = {
	{ "Ki", 1ull << 10 },      { "Mi", 1ull << 20 },
	{ "Gi", 1ull << 30 },      { "Ti", 1ull << 40 },
	{ "K", 1000ull },          { "k", 1000ull },
	{ "M", 1000000ull },       { "G", 1000000000ull },
	{ "T", 1000000000000ull }, { "", 1 },
};

/* A decimal number held exactly: whole + frac / 10^fdigits. */
struct decimal {
	uint64_t whole;
	uint64_t frac;
	unsigned fdigits;
	double approx;
};

/* Split "1.5Gi..." into its number and the rest; digits and one dot only. */
static int split_number(const char *s, struct decimal *d, const char **rest, struct ix_err *err)
{
	const char *p = s;
	unsigned digits = 0;

	memset(d, 0, sizeof(*d));
	if (!s || !*s)
		return ix_fail(err, IX_EXIT_USAGE, "empty value");
	if (*s == '-')
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is negative", s);
	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (d->whole > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return ix_fail(err, IX_EXIT_USAGE, "'%s' is too large", s);
		d->whole = d->whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++) {
			if (d->fdigits >= 18)
				return ix_fail(err, IX_EXIT_USAGE, "'%s' has too many decimals", s);
			d->frac = d->frac * 10 + (uint64_t)(*p - '0');
			d->fdigits++;
		}
	}
	if (digits == 0 || *p == '.')
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a number", s);
	d->approx = strtod(s, NULL);
	*rest = p;
	return 0;
}

static uint64_t pow10u(unsigned n)
{
	uint64_t v = 1;
	while (n--)
		v *= 10;
	return v;
}

/* value = d * mult exactly; *exact says whether it is a whole number. */
static int scale(const char *s, const struct decimal *d, uint64_t mult, bool round_up_half,
		 uint64_t *out, bool *exact, struct ix_err *err)
{
	u128 whole = (u128)d->whole * mult, num = (u128)d->frac * mult, den = pow10u(d->fdigits);
	u128 v = whole + num / den;

	*exact = num % den == 0;
	if (round_up_half && !*exact && (num % den) * 2 >= den)
		v++;
	if (v > UINT64_MAX)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is too large", s);
	*out = (uint64_t)v;
	return 0;
}

/* The binary multiplier of a decimal prefix's (1000 -> 1024...); others as
 * they are. */
static uint64_t size_binary(uint64_t mult)
{
	uint64_t b = 1;

	if (mult < 1000 || mult % 1000)
		return mult;
	for (; mult > 1; mult /= 1000)
		b <<= 10;
	return b;
}

static const struct prefix *match_prefix(const char **p)
{
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t l = strlen(prefixes[i].name);
		if (strncmp(*p, prefixes[i].name, l) == 0) {
			*p += l;
			return &prefixes[i];
		}
	}
	return NULL;
}

int ix_parse_size(const char *s, uint64_t *out, struct ix_err *err)
{
	const struct prefix *pf;
	const char *rest;
	struct decimal d;
	uint64_t v, mult;
	bool exact;

	if (split_number(s, &d, &rest, err) < 0)
		return -1;
	pf = match_prefix(&rest);
	/* K, M, G, T are binary, with or without a B after them, as iperf3
	 * reads them (-l 128K and -l 128KB are 131072 bytes); only kB, the SI
	 * kilobyte spelled with its lowercase k, is 1000. */
	mult = strcmp(pf->name, "k") == 0 && *rest == 'B' ? pf->mult : size_binary(pf->mult);
	if (*rest == 'B')
		rest++;
	if (*rest)
		return ix_fail(
			err, IX_EXIT_USAGE,
			"'%s': unknown suffix '%s' (sizes take K, M, G, T or Ki, Mi, Gi, Ti, "
			"of 1024, or kB of 1000, each optionally followed by B)",
			s, rest);
	if (scale(s, &d, mult, false, &v, &exact, err) < 0)
		return -1;
	if (!exact)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a whole number of bytes", s);
	*out = v;
	return 0;
}

int ix_parse_rate(const char *s, uint64_t *out, struct ix_err *err)
{
	const struct prefix *pf;
	const char *rest;
	struct decimal d;
	uint64_t unit = 1;
	bool exact;

	if (split_number(s, &d, &rest, err) < 0)
		return -1;
	pf = match_prefix(&rest);
	if (strncmp(rest, "bit", 3) == 0)
		rest += 3;
	else if (strncmp(rest, "Byte", 4) == 0 || strncmp(rest, "byte", 4) == 0)
		rest += 4, unit = 8;
	else if (*rest == 'b')
		rest++;
	else if (*rest == 'B')
		rest++, unit = 8;
	if (strcmp(rest, "/s") == 0 || strcmp(rest, "ps") == 0)
		rest += 2;
	if (*rest)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s': unknown suffix '%s' (e.g. 200M, 200Mbit, 25MB/s, 1Gi)", s,
			       rest);
	/* Rates are rounded to the nearest bit/s. */
	return scale(s, &d, pf->mult * unit, true, out, &exact, err);
}

int ix_parse_seconds(const char *s, double *out, struct ix_err *err)
{
	const char *rest;
	struct decimal d;
	double num, mult = 1.0;

	if (split_number(s, &d, &rest, err) < 0)
		return -1;
	num = d.approx;
	if (strcmp(rest, "ms") == 0)
		mult = 1e-3;
	else if (strcmp(rest, "us") == 0)
		mult = 1e-6;
	else if (strcmp(rest, "ns") == 0)
		mult = 1e-9;
	else if (strcmp(rest, "m") == 0 || strcmp(rest, "min") == 0)
		mult = 60;
	else if (strcmp(rest, "h") == 0)
		mult = 3600;
	else if (*rest && strcmp(rest, "s") != 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s': unknown time unit '%s' (use s, ms, us, ns, m, h)", s, rest);
	if (!isfinite(num * mult) || num * mult > 31536000.0)
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is too long", s);
	*out = num * mult;
	return 0;
}

int ix_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, struct ix_err *err)
{
	uint64_t v = 0;

	if (!s || !*s)
		return ix_fail(err, IX_EXIT_USAGE, "empty value");
	if (*s == '-')
		return ix_fail(err, IX_EXIT_USAGE, "'%s' is negative", s);
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return ix_fail(err, IX_EXIT_USAGE, "'%s' is not a whole number", s);
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return ix_fail(err, IX_EXIT_USAGE, "'%s' is too large", s);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < lo || v > hi)
		return ix_fail(err, IX_EXIT_USAGE, "%s is out of range [%llu, %llu]", s,
			       (unsigned long long)lo, (unsigned long long)hi);
	*out = v;
	return 0;
}

static const struct {
	const char *name;
	double bits;
} fixed_units[] = {
	{ "bit", 1 },
	{ "Kbit", 1e3 },
	{ "Mbit", 1e6 },
	{ "Gbit", 1e9 },
	{ "Tbit", 1e12 },
	{ "B", 8 },
	{ "KB", 8e3 },
	{ "MB", 8e6 },
	{ "GB", 8e9 },
	{ "TB", 8e12 },
	{ "KiB", 8.0 * 1024 },
	{ "MiB", 8.0 * 1048576 },
	{ "GiB", 8.0 * 1073741824.0 },
	{ "TiB", 8.0 * 1099511627776.0 },
};

int ix_parse_units(const char *s, struct ix_unit_choice *u, struct ix_err *err)
{
	memset(u, 0, sizeof(*u));
	if (strcmp(s, "bits") == 0)
		return 0;
	if (strcmp(s, "bytes") == 0) {
		u->kind = IX_UNITS_BYTES;
		return 0;
	}
	for (size_t i = 0; i < sizeof(fixed_units) / sizeof(fixed_units[0]); i++) {
		if (strcmp(s, fixed_units[i].name) == 0) {
			u->kind = IX_UNITS_FIXED;
			u->divisor = fixed_units[i].bits;
			snprintf(u->label, sizeof(u->label), "%s", fixed_units[i].name);
			return 0;
		}
	}
	return ix_fail(err, IX_EXIT_USAGE,
		       "'%s' is not a unit (bits, bytes, bit, Kbit, Mbit, Gbit, Tbit, B, KB, MB, "
		       "GB, TB, KiB, MiB, GiB, TiB)",
		       s);
}

/* Decimals for three significant digits, decided after rounding. */
static int decimals(double v)
{
	v = fabs(v);
	return v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
}

static void fmt_auto(double v, const char *unit, char *buf, size_t len)
{
	static const char *const pre[] = { "", "K", "M", "G", "T", "P" };
	size_t i = 0;

	while (fabs(v) >= 999.5 && i < 5) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, len, "%.*f %s%s", decimals(v), v, pre[i], unit);
}

void ix_fmt_rate(double bps, const struct ix_unit_choice *u, char *buf, size_t len)
{
	if (u && u->kind == IX_UNITS_FIXED)
		snprintf(buf, len, "%.2f %s/s", bps / u->divisor, u->label);
	else if (u && u->kind == IX_UNITS_BYTES)
		fmt_auto(bps / 8.0, "B/s", buf, len);
	else
		fmt_auto(bps, "bit/s", buf, len);
}

void ix_fmt_bytes(double bytes, const struct ix_unit_choice *u, char *buf, size_t len)
{
	if (u && u->kind == IX_UNITS_FIXED && u->divisor >= 8)
		snprintf(buf, len, "%.2f %s", bytes * 8.0 / u->divisor, u->label);
	else
		fmt_auto(bytes, "B", buf, len);
}

void ix_fmt_ns(double ns, char *buf, size_t len)
{
	if (ns < 999.5)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 999.5e3)
		snprintf(buf, len, "%.*f us", decimals(ns / 1e3), ns / 1e3);
	else if (ns < 999.5e6)
		snprintf(buf, len, "%.*f ms", decimals(ns / 1e6), ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

size_t ix_size_sweep(uint64_t min, uint64_t max, uint64_t *sizes, size_t cap)
{
	size_t n = 0;

	for (uint64_t s = 1; s <= max && n < cap; s *= 2)
		if (s >= min)
			sizes[n++] = s;
	return n;
}
