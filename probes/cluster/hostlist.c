#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/hostlist.h"

/*
 * Grammar, as read here:
 *
 *   list   = entry { "," entry }     commas inside [...] belong to the range
 *   entry  = "@" FILE                one entry per line, '#' comments (top level only)
 *          | "[" v6 "]" [":" port]   IPv6 literal: the first bracket group holds a ':'
 *          | v6                      bare IPv6 literal: two or more ':' outside brackets
 *          | name [":" port]         name with Slurm ranges: "r[1-2]n[01-16,20]-ib"
 *
 * The ambiguity between "[::1]" and a Slurm range is settled by the colon: a
 * Slurm range only ever holds digits, '-' and ',', so an entry whose leading
 * bracket group contains a ':' is an IPv6 literal and never a range. An entry
 * with a single ':' outside brackets is "name:port"; with more than one it can
 * only be a bare IPv6 literal, which must then parse as one (so "host:1:2" is
 * refused rather than taken as a strange name). The file name after '@' runs
 * to the end of the entry, so "@hosts:6000" reads the file "hosts:6000".
 *
 * On error the list is rolled back to what it held before the call.
 */

#define TOKEN_SHOW   64 /* longest token quoted in an error message */
#define BOUND_DIGITS 18 /* longest range bound, so values fit in 64 bits */

struct parse {
	struct ix_hostlist *out;
	uint16_t default_port;
	struct ix_err *err;
	const char *origin; /* NULL for the spec, else the variable it came from */
	const char *file;   /* file being read, NULL at the top level */
	size_t line;        /* line number in file */
	uint32_t *set;      /* open-addressing set of indices + 1 into out->v */
	size_t set_cap, set_used;
};

/* An entry being parsed, for error messages: text and 1-based position. */
struct tok {
	const char *s;
	size_t len, pos;
};

struct range {
	unsigned long long lo, hi;
	int width;
};

struct group {
	size_t lit_off, lit_len; /* literal text before the group */
	size_t r0, nr;           /* its ranges */
};

static int fail_tok(struct parse *p, const struct tok *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail_tok(struct parse *p, const struct tok *t, const char *fmt, ...)
{
	char why[384], where[160];
	int show = t->len > TOKEN_SHOW ? TOKEN_SHOW : (int)t->len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (p->file)
		snprintf(where, sizeof(where), "%s line %zu", p->file, p->line);
	else if (p->origin)
		snprintf(where, sizeof(where), "position %zu of %s", t->pos, p->origin);
	else
		snprintf(where, sizeof(where), "position %zu", t->pos);
	return ix_fail(p->err, IX_EXIT_USAGE, "host list: '%.*s%s' at %s: %s", show, t->s,
		       t->len > TOKEN_SHOW ? "..." : "", where, why);
}

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_';
}

/* Check every character of a literal part of a name; v6 also allows ':'. */
static int check_chars(struct parse *p, const struct tok *t, const char *s, size_t n, bool v6)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (name_char(c) || (v6 && c == ':'))
			continue;
		if (c >= 0x20 && c < 0x7f)
			return fail_tok(p, t, "invalid character '%c' in host name", c);
		return fail_tok(p, t, "invalid character 0x%02x in host name", c);
	}
	return 0;
}

static uint32_t host_hash(const char *name, uint16_t port)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 16777619u;
	h = (h ^ (port & 0xff)) * 16777619u;
	h = (h ^ (port >> 8)) * 16777619u;
	return h;
}

/* Slot holding the host equal to (name, port), or the empty slot ending its probe. */
static size_t set_find(const struct parse *p, const char *name, uint16_t port)
{
	size_t mask = p->set_cap - 1, i = host_hash(name, port) & mask;

	while (p->set[i]) {
		const struct ix_host *h = &p->out->v[p->set[i] - 1];

		if (h->port == port && strcmp(h->name, name) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Make room for one more host in the set, rebuilding it from out->v. */
static int set_reserve(struct parse *p)
{
	size_t cap = p->set_cap ? p->set_cap : 64;
	uint32_t *set;

	if ((p->set_used + 1) * 2 <= p->set_cap)
		return 0;
	while ((p->out->n + 1) * 2 > cap)
		cap *= 2;
	if (cap == p->set_cap)
		cap *= 2;
	set = calloc(cap, sizeof(*set));
	if (!set)
		return ix_fail(p->err, IX_EXIT_FAIL, "host list: out of memory");
	free(p->set);
	p->set = set;
	p->set_cap = cap;
	p->set_used = 0;
	for (size_t k = 0; k < p->out->n; k++) {
		size_t i = set_find(p, p->out->v[k].name, p->out->v[k].port);

		if (!p->set[i]) {
			p->set[i] = (uint32_t)(k + 1);
			p->set_used++;
		}
	}
	return 0;
}

static int add_host(struct parse *p, const struct tok *t, const char *name, uint16_t port)
{
	struct ix_hostlist *l = p->out;
	size_t i;

	if (l->n >= IX_HOSTLIST_MAX)
		return fail_tok(p, t, "more than %d hosts in the list", IX_HOSTLIST_MAX);
	if (set_reserve(p))
		return -1;
	i = set_find(p, name, port);
	if (p->set[i]) {
		char buf[IX_HOST_NAME_MAX + 16];

		ix_host_format(&l->v[p->set[i] - 1], buf, sizeof(buf));
		return fail_tok(p, t, "duplicate host %s", buf);
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct ix_host *v;

		if (cap > IX_HOSTLIST_MAX)
			cap = IX_HOSTLIST_MAX;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return ix_fail(p->err, IX_EXIT_FAIL, "host list: out of memory");
		l->v = v;
		l->cap = cap;
	}
	snprintf(l->v[l->n].name, sizeof(l->v[l->n].name), "%s", name);
	l->v[l->n].port = port;
	l->v[l->n].task = 0;
	l->v[l->n].node[0] = '\0';
	l->n++;
	p->set[i] = (uint32_t)l->n;
	p->set_used++;
	return 0;
}

/* Decimal port 1..65535 from s[0..n). */
static int parse_port(struct parse *p, const struct tok *t, const char *s, size_t n, uint16_t *port)
{
	unsigned long v = 0;

	if (n == 0)
		return fail_tok(p, t, "missing port after ':'");
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail_tok(p, t, "port '%.*s' is not a decimal number", (int)n, s);
		if (v <= 65535)
			v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return fail_tok(p, t, "port %.*s is out of range 1-65535", (int)n, s);
	*port = (uint16_t)v;
	return 0;
}

static int add_v6(struct parse *p, const struct tok *t, const char *s, size_t n, uint16_t port)
{
	char name[IX_HOST_NAME_MAX];
	struct in6_addr a;

	if (n == 0)
		return fail_tok(p, t, "empty IPv6 literal");
	if (check_chars(p, t, s, n, true))
		return -1;
	if (n >= sizeof(name))
		return fail_tok(p, t, "host name longer than %d characters", IX_HOST_NAME_MAX - 1);
	memcpy(name, s, n);
	name[n] = '\0';
	if (inet_pton(AF_INET6, name, &a) != 1)
		return fail_tok(p, t,
				"'%s' is not an IPv6 address (a name takes at most one ':port')",
				name);
	return add_host(p, t, name, port);
}

/* Range bound s[0..n): digits only. */
static int parse_bound(struct parse *p, const struct tok *t, const char *s, size_t n,
		       unsigned long long *v)
{
	if (n == 0)
		return fail_tok(p, t, "empty range bound");
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return fail_tok(p, t, "range bound '%.*s' is not a number", (int)n, s);
		*v = *v * 10 + (unsigned long long)(s[i] - '0');
		if (i >= BOUND_DIGITS)
			return fail_tok(p, t, "range bound '%.*s' is too large", (int)n, s);
	}
	return 0;
}

/* Ranges of one bracket group s[0..n) ("01-16,20") into r; *count gets the
 * number of values, saturated above IX_HOSTLIST_MAX. */
static int parse_group(struct parse *p, const struct tok *t, const char *s, size_t n,
		       struct range *r, size_t *nr, unsigned long long *count)
{
	size_t i = 0;

	if (n == 0)
		return fail_tok(p, t, "empty brackets");
	*nr = 0;
	*count = 0;
	while (i <= n) {
		const char *item = s + i, *comma = memchr(item, ',', n - i), *dash;
		size_t len = comma ? (size_t)(comma - item) : n - i;
		struct range *x = &r[(*nr)++];

		if (len == 0)
			return fail_tok(p, t, "empty range in brackets");
		dash = memchr(item, '-', len);
		if (dash) {
			size_t a = (size_t)(dash - item);

			if (parse_bound(p, t, item, a, &x->lo) ||
			    parse_bound(p, t, dash + 1, len - a - 1, &x->hi))
				return -1;
			if (x->lo > x->hi)
				return fail_tok(p, t, "range start %.*s is above its end %.*s",
						(int)a, item, (int)(len - a - 1), dash + 1);
			x->width = (int)a;
		} else {
			if (parse_bound(p, t, item, len, &x->lo))
				return -1;
			x->hi = x->lo;
			x->width = (int)len;
		}
		*count += x->hi - x->lo + 1;
		if (*count > IX_HOSTLIST_MAX)
			*count = IX_HOSTLIST_MAX + 1;
		i += len + 1;
	}
	return 0;
}

/* Write the host for the current odometer state into buf. */
static int build_name(struct parse *p, const struct tok *t, const char *s, size_t n,
		      const struct group *g, size_t ng, const struct range *r, const size_t *cur,
		      const unsigned long long *val, size_t tail, char *buf)
{
	size_t len = 0;
	int w;

	for (size_t k = 0; k <= ng; k++) {
		size_t off = k < ng ? g[k].lit_off : tail, lit = k < ng ? g[k].lit_len : n - tail;

		if (len + lit >= IX_HOST_NAME_MAX)
			goto too_long;
		memcpy(buf + len, s + off, lit);
		len += lit;
		if (k == ng)
			break;
		w = snprintf(buf + len, IX_HOST_NAME_MAX - len, "%0*llu", r[g[k].r0 + cur[k]].width,
			     val[k]);
		if (w < 0 || len + (size_t)w >= IX_HOST_NAME_MAX)
			goto too_long;
		len += (size_t)w;
	}
	buf[len] = '\0';
	return 0;
too_long:
	return fail_tok(p, t, "host name longer than %d characters", IX_HOST_NAME_MAX - 1);
}

/* Expand the Slurm expression s[0..n) (no port) as a cartesian product,
 * the last bracket group varying fastest, and add every host. */
static int add_expansion(struct parse *p, const struct tok *t, const char *s, size_t n,
			 uint16_t port)
{
	size_t ng = 0, nr = 0, maxg = 0, maxr = 0, lit = 0, i = 0;
	unsigned long long total = 1;
	struct group *g = NULL;
	struct range *r = NULL;
	size_t *cur = NULL;
	unsigned long long *val = NULL;
	char buf[IX_HOST_NAME_MAX];
	int rc = -1;

	if (n == 0)
		return fail_tok(p, t, "missing host name");
	for (size_t k = 0; k < n; k++) {
		maxg += s[k] == '[';
		maxr += s[k] == '[' || s[k] == ',';
	}
	if (maxg) {
		g = calloc(maxg, sizeof(*g));
		r = calloc(maxr, sizeof(*r));
		cur = calloc(maxg, sizeof(*cur));
		val = calloc(maxg, sizeof(*val));
		if (!g || !r || !cur || !val) {
			ix_fail(p->err, IX_EXIT_FAIL, "host list: out of memory");
			goto out;
		}
	}
	while (i < n) {
		size_t j, gn = 0;
		unsigned long long count = 0;

		if (s[i] == ']') {
			fail_tok(p, t, "unbalanced ']' (no '[' before it)");
			goto out;
		}
		if (s[i] != '[') {
			if (check_chars(p, t, s + i, 1, false))
				goto out;
			i++;
			continue;
		}
		for (j = i + 1; j < n && s[j] != ']'; j++) {
			if (s[j] == '[') {
				fail_tok(p, t, "nested brackets");
				goto out;
			}
		}
		if (j == n) {
			fail_tok(p, t, "unbalanced '[' (no ']' after it)");
			goto out;
		}
		if (parse_group(p, t, s + i + 1, j - i - 1, r + nr, &gn, &count))
			goto out;
		g[ng] = (struct group){ .lit_off = lit, .lit_len = i - lit, .r0 = nr, .nr = gn };
		val[ng] = r[nr].lo;
		ng++;
		nr += gn;
		total *= count;
		if (total > IX_HOSTLIST_MAX)
			total = IX_HOSTLIST_MAX + 1;
		lit = i = j + 1;
	}
	if (total > IX_HOSTLIST_MAX) {
		fail_tok(p, t, "expands to more than %d hosts", IX_HOSTLIST_MAX);
		goto out;
	}
	if (p->out->n + total > IX_HOSTLIST_MAX) {
		fail_tok(p, t, "the list would hold more than %d hosts", IX_HOSTLIST_MAX);
		goto out;
	}
	for (;;) {
		size_t k;

		if (build_name(p, t, s, n, g, ng, r, cur, val, lit, buf) ||
		    add_host(p, t, buf, port))
			goto out;
		/* Odometer step: the last group varies fastest. */
		for (k = ng; k > 0; k--) {
			struct group *x = &g[k - 1];

			if (val[k - 1] < r[x->r0 + cur[k - 1]].hi) {
				val[k - 1]++;
				break;
			}
			cur[k - 1] = cur[k - 1] + 1 < x->nr ? cur[k - 1] + 1 : 0;
			val[k - 1] = r[x->r0 + cur[k - 1]].lo;
			if (cur[k - 1])
				break;
		}
		if (k == 0)
			break;
	}
	rc = 0;
out:
	free(g);
	free(r);
	free(cur);
	free(val);
	return rc;
}

static int parse_list(struct parse *p, const char *s, size_t n, size_t base);

/* Entries of a host file, one line at a time. */
static int read_file(struct parse *p, const struct tok *t, const char *name)
{
	size_t before = p->out->n, cap = 0;
	char *line = NULL;
	ssize_t got;
	FILE *f;
	int rc = 0;

	f = fopen(name, "r");
	if (!f)
		return fail_tok(p, t, "cannot read host file %s: %s", name, strerror(errno));
	p->file = name;
	p->line = 0;
	while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
		char *hash = memchr(line, '#', (size_t)got);
		size_t len = hash ? (size_t)(hash - line) : (size_t)got;

		p->line++;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			len--;
		if (len > 0)
			rc = parse_list(p, line, len, 0);
	}
	p->file = NULL;
	if (rc == 0 && ferror(f))
		rc = fail_tok(p, t, "cannot read host file %s: %s", name, strerror(errno));
	else if (rc == 0 && p->out->n == before)
		rc = fail_tok(p, t, "host file %s holds no hosts", name);
	free(line);
	fclose(f);
	return rc;
}

static int parse_entry(struct parse *p, const struct tok *t)
{
	const char *s = t->s, *colon = NULL, *close;
	size_t n = t->len, colons = 0;
	uint16_t port = p->default_port;
	int depth = 0;

	if (s[0] == '@') {
		char *name;
		int rc;

		if (p->file)
			return fail_tok(p, t, "'@' files cannot be nested");
		if (n == 1)
			return fail_tok(p, t, "missing file name after '@'");
		name = malloc(n);
		if (!name)
			return ix_fail(p->err, IX_EXIT_FAIL, "host list: out of memory");
		memcpy(name, s + 1, n - 1);
		name[n - 1] = '\0';
		rc = read_file(p, t, name);
		free(name);
		return rc;
	}
	/* "[v6]" or "[v6]:port": the first bracket group holds a ':'. */
	close = s[0] == '[' ? memchr(s, ']', n) : NULL;
	if (close && memchr(s, ':', (size_t)(close - s))) {
		size_t rest = n - (size_t)(close - s) - 1;

		if (rest > 0 && close[1] != ':')
			return fail_tok(p, t, "unexpected '%c' after an IPv6 literal's ']'",
					close[1]);
		if (rest > 0 && parse_port(p, t, close + 2, rest - 1, &port))
			return -1;
		return add_v6(p, t, s + 1, (size_t)(close - s) - 1, port);
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '[')
			depth++;
		else if (s[i] == ']' && depth > 0)
			depth--;
		else if (s[i] == ':' && depth == 0 && colons++ == 0)
			colon = s + i;
	}
	if (colons > 1)
		return add_v6(p, t, s, n, port);
	if (colon) {
		size_t at = (size_t)(colon - s);

		if (at == 0)
			return fail_tok(p, t, "missing host name before ':'");
		if (parse_port(p, t, colon + 1, n - at - 1, &port))
			return -1;
		n = at;
	}
	return add_expansion(p, t, s, n, port);
}

/* Split s[0..n) at commas outside brackets; base is the offset of s in the
 * spec, for positions. */
static int parse_list(struct parse *p, const char *s, size_t n, size_t base)
{
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i <= n; i++) {
		struct tok t;
		size_t seg = start, a = start, b = i;

		if (i < n && s[i] == '[')
			depth++;
		else if (i < n && s[i] == ']' && depth > 0)
			depth--;
		if (i < n && (s[i] != ',' || depth > 0))
			continue;
		start = i + 1;
		while (a < b && isspace((unsigned char)s[a]))
			a++;
		while (b > a && isspace((unsigned char)s[b - 1]))
			b--;
		t = (struct tok){ .s = s + a, .len = b - a, .pos = base + a + 1 };
		if (t.len == 0) {
			t.pos = base + seg + 1; /* where the empty entry starts */
			if (p->file)
				return ix_fail(p->err, IX_EXIT_USAGE,
					       "host list: empty entry at %s line %zu", p->file,
					       p->line);
			return ix_fail(p->err, IX_EXIT_USAGE,
				       "host list: empty entry at position %zu%s%s", t.pos,
				       p->origin ? " of " : "", p->origin ? p->origin : "");
		}
		if (parse_entry(p, &t))
			return -1;
	}
	return 0;
}

int ix_hostlist_parse(const char *spec, uint16_t default_port, struct ix_hostlist *out,
		      struct ix_err *err)
{
	struct parse p = { .out = out, .default_port = default_port, .err = err };
	size_t before = out->n;
	int rc;

	if (!spec || !*spec) {
		spec = getenv("SLURM_JOB_NODELIST");
		if (!spec || !*spec)
			return ix_fail(err, IX_EXIT_USAGE,
				       "no hosts given and SLURM_JOB_NODELIST is not set");
		p.origin = "SLURM_JOB_NODELIST";
	}
	rc = parse_list(&p, spec, strlen(spec), 0);
	free(p.set);
	if (rc)
		out->n = before;
	return rc;
}

void ix_hostlist_free(struct ix_hostlist *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
}

void ix_host_format(const struct ix_host *h, char *buf, size_t len)
{
	if (!buf || len == 0)
		return;
	char rank[16] = "";

	if (h->task)
		snprintf(rank, sizeof(rank), "r%u@", h->task - 1);
	if (h->task && h->node[0] && !h->name[0])
		snprintf(buf, len, "%s%s:%u", rank, h->node, (unsigned)h->port);
	else if (h->task && h->node[0] && strcmp(h->node, h->name) != 0)
		snprintf(buf, len, "%s%s(%s):%u", rank, h->node, h->name, (unsigned)h->port);
	else if (strchr(h->name, ':'))
		snprintf(buf, len, "%s[%s]:%u", rank, h->name, (unsigned)h->port);
	else
		snprintf(buf, len, "%s%s:%u", rank, h->name, (unsigned)h->port);
}
