/* Members of a saved document, checked (members.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt/safe.h"
#include "report/json/members.h"

const char *ix_member_type(const json_t *v)
{
	switch (v ? json_typeof(v) : JSON_NULL) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return v ? "null" : "missing";
	}
}

int ix_member_bad_type(struct ix_err *err, const char *where, const char *key, const char *want,
		       const json_t *v)
{
	return ix_fail(err, IX_EXIT_FAIL, "%s%s%s is %s, not %s", where, *where && *key ? "." : "",
		       key, ix_member_type(v), want);
}

bool ix_member_null(const json_t *v, int flags)
{
	return (v && json_is_null(v) && flags != IX_MEMBER_REQUIRED) ||
	       (!v && flags == IX_MEMBER_NULLABLE);
}

/* A number in [lo, hi]. */
int ix_member_num(json_t *o, const char *where, const char *key, int flags, double lo, double hi,
		  double *out, struct ix_err *err)
{
	json_t *v = key[0] ? json_object_get(o, key) : o;
	double x;

	*out = 0;
	if (ix_member_null(v, flags))
		return 0;
	if (!json_is_number(v))
		return ix_member_bad_type(err, where, key, flags ? "a number or null" : "a number",
					  v);
	x = json_number_value(v);
	if (!isfinite(x) || x < lo || x > hi)
		return ix_fail(err, IX_EXIT_FAIL, "%s%s%s is %g, out of range %g to %g", where,
			       *where && *key ? "." : "", key, x, lo, hi);
	*out = x;
	return 0;
}

/* A whole number in [0, max]. */
int ix_member_count(json_t *o, const char *where, const char *key, int flags, uint64_t max,
		    uint64_t *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (ix_member_null(v, flags))
		return 0;
	if (!json_is_integer(v))
		return ix_member_bad_type(err, where, key,
					  flags ? "a whole number or null" : "a whole number", v);
	if (json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
		return ix_fail(err, IX_EXIT_FAIL, "%s%s%s is %lld, out of range 0 to %llu", where,
			       *where && *key ? "." : "", key, (long long)json_integer_value(v),
			       (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int ix_member_u32(json_t *o, const char *where, const char *key, uint32_t *out, struct ix_err *err)
{
	uint64_t v;

	if (ix_member_count(o, where, key, IX_MEMBER_REQUIRED, UINT32_MAX, &v, err) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int ix_member_opt_u64(json_t *o, const char *where, const char *key, struct ix_opt_u64 *out,
		      struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	out->valid = v && !json_is_null(v);
	return ix_member_count(o, where, key, IX_MEMBER_NULLABLE, INT64_MAX, &out->v, err);
}

int ix_member_bool(json_t *o, const char *where, const char *key, bool *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return ix_member_bad_type(err, where, key, "true or false", v);
	*out = json_is_true(v);
	return 0;
}

/* A string (or, as flags allow, null or absent: *out NULL). */
int ix_member_str(json_t *o, const char *where, const char *key, int flags, const char **out,
		  struct ix_err *err)
{
	json_t *v = key[0] ? json_object_get(o, key) : o;

	*out = NULL;
	if (ix_member_null(v, flags))
		return 0;
	if (!json_is_string(v))
		return ix_member_bad_type(err, where, key, flags ? "a string or null" : "a string",
					  v);
	*out = json_string_value(v);
	return 0;
}

/* Into a buffer, made safe for a terminal (cut to fit). */
int ix_member_text(json_t *o, const char *where, const char *key, int flags, char *buf, size_t len,
		   struct ix_err *err)
{
	const char *s;

	if (ix_member_str(o, where, key, flags, &s, err) < 0)
		return -1;
	ix_text_safe(s ? s : "", buf, len);
	return 0;
}

int ix_member_per_host(json_t *o, const char *key, uint32_t n, json_t **out, struct ix_err *err)
{
	if (ix_member_array(o, "", key, n, out, err) < 0)
		return -1;
	if (json_array_size(*out) != n)
		return ix_fail(err, IX_EXIT_FAIL, "%s has %zu entries for %u hosts", key,
			       json_array_size(*out), n);
	return 0;
}

int ix_member_array(json_t *o, const char *where, const char *key, size_t max, json_t **out,
		    struct ix_err *err)
{
	json_t *v = key[0] ? json_object_get(o, key) : o;

	*out = v;
	if (!json_is_array(v))
		return ix_member_bad_type(err, where, key, "an array", v);
	if (json_array_size(v) > max)
		return ix_fail(err, IX_EXIT_FAIL, "%s%s%s has %zu entries, more than %zu", where,
			       *where && *key ? "." : "", key, json_array_size(v), max);
	return 0;
}

int ix_member_object(json_t *o, const char *where, const char *key, json_t **out,
		     struct ix_err *err)
{
	json_t *v = json_object_get(o, key);

	*out = v;
	return json_is_object(v) ? 0 : ix_member_bad_type(err, where, key, "an object", v);
}

char *ix_member_strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *d = malloc(len);

	if (d)
		ix_text_safe(s, d, len);
	return d;
}

/* ---- hosts ------------------------------------------------------------------------ */

/* Digits of s[0..n) as a number no larger than max; -1 when not. */
static long long digits(const char *s, size_t n, long long max)
{
	long long v = 0;

	if (n == 0 || n > 10)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : -1;
}

static int copy_part(char *dst, const char *s, size_t n)
{
	if (n >= IX_HOST_NAME_MAX)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* A host as ix_host_format writes it: "name:port", "[v6]:port",
 * "rN@name:port", "rN@node(addr):port". 0 when h formats back to s. */
static int host_parse(const char *s, struct ix_host *h)
{
	const char *p = s, *end = strrchr(s, ':'), *at, *open;
	char back[IX_HOST_NAME_MAX * 2 + 32];
	long long v;

	memset(h, 0, sizeof(*h));
	if (!end || (v = digits(end + 1, strlen(end + 1), 65535)) < 0)
		return -1;
	h->port = (uint16_t)v;
	at = strchr(s, '@');
	if (s[0] == 'r' && at && at < end &&
	    (v = digits(s + 1, (size_t)(at - s - 1), (long long)UINT32_MAX - 1)) >= 0) {
		h->task = (uint32_t)v + 1;
		p = at + 1;
	}
	open = memchr(p, '(', (size_t)(end - p));
	if (end - p >= 2 && p[0] == '[' && end[-1] == ']') {
		if (copy_part(h->name, p + 1, (size_t)(end - p - 2)) < 0)
			return -1;
	} else if (h->task && open && end[-1] == ')') {
		if (copy_part(h->node, p, (size_t)(open - p)) < 0 ||
		    copy_part(h->name, open + 1, (size_t)(end - open - 2)) < 0)
			return -1;
	} else if (copy_part(h->name, p, (size_t)(end - p)) < 0) {
		return -1;
	}
	ix_host_format(h, back, sizeof(back));
	return strcmp(back, s) == 0 ? 0 : -1;
}

int ix_member_host_add(struct ix_member_hosts *hs, const char *s, const char *where,
		       struct ix_err *err)
{
	char safe[IX_HOST_NAME_MAX];
	struct ix_host h;

	if (host_parse(s, &h) < 0) {
		ix_text_safe(s, safe, sizeof(safe));
		return ix_fail(err, IX_EXIT_FAIL, "%s: '%s' is not a host:port", where, safe);
	}
	if (hs->l->n == hs->l->cap) {
		size_t cap = hs->l->cap ? 2 * hs->l->cap : 16;
		struct ix_host *v;

		if (hs->l->n >= IX_HOSTLIST_MAX)
			return ix_fail(err, IX_EXIT_FAIL, "%s: more than %d hosts", where,
				       IX_HOSTLIST_MAX);
		v = realloc(hs->l->v, cap * sizeof(*v));
		if (!v)
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		hs->l->v = v;
		hs->l->cap = cap;
	}
	if (json_object_set_new(hs->index, s, json_integer((json_int_t)hs->l->n)) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	hs->l->v[hs->l->n++] = h;
	return 0;
}

/* The position of the host named by o[key] (add: a new one is added). */
int ix_member_host_of(struct ix_member_hosts *hs, json_t *o, const char *where, const char *key,
		      bool add, uint32_t *out, struct ix_err *err)
{
	char at[128], safe[IX_HOST_NAME_MAX];
	const char *s;
	json_t *i;

	if (ix_member_str(o, where, key, IX_MEMBER_REQUIRED, &s, err) < 0)
		return -1;
	i = json_object_get(hs->index, s);
	snprintf(at, sizeof(at), "%s%s%s", where, *where && *key ? "." : "", key);
	if (!i && add && ix_member_host_add(hs, s, at, err) < 0)
		return -1;
	i = json_object_get(hs->index, s);
	if (!i) {
		ix_text_safe(s, safe, sizeof(safe));
		return ix_fail(err, IX_EXIT_FAIL, "%s: '%s' is not one of the hosts", at, safe);
	}
	*out = (uint32_t)json_integer_value(i);
	return 0;
}
