/* Documents written as they are produced: the layout of jansson's
 * JSON_INDENT(2), with the values too large to hold (a mesh's matrices)
 * written by their producers where their placeholders stand. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/json/json.h"

#define REAL_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(10))

struct writer {
	FILE *f;
	const struct ix_json_lazy *lazy;
	size_t nlazy;
};

void ix_json_indent(FILE *f, int depth)
{
	fputc('\n', f);
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
}

void ix_json_put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04X", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

void ix_json_put_real(FILE *f, double v)
{
	char buf[40];
	char *e;
	int n = snprintf(buf, sizeof(buf) - 3, "%.10g", v);

	if (n < 0 || (size_t)n >= sizeof(buf) - 3) {
		fputs("null", f);
		return;
	}
	/* As jansson writes a real: never an integer's look, and the
	 * exponent without '+' or leading zeros. */
	if (!strchr(buf, '.') && !strchr(buf, 'e'))
		memcpy(buf + n, ".0", 3);
	if ((e = strchr(buf, 'e'))) {
		char *d = e + 1, *s;

		if (*d == '-')
			d++;
		s = d;
		while (*s == '+' || (*s == '0' && s[1]))
			s++;
		memmove(d, s, strlen(s) + 1);
	}
	fputs(buf, f);
}

static int write_value(struct writer *w, const json_t *v, int depth);

static const struct ix_json_lazy *lazy_at(const struct writer *w, const json_t *v)
{
	for (size_t i = 0; i < w->nlazy; i++)
		if (w->lazy[i].at == v)
			return &w->lazy[i];
	return NULL;
}

static int write_scalar(struct writer *w, const json_t *v)
{
	char *s = json_dumps(v, REAL_FLAGS);

	if (!s)
		return -1;
	fputs(s, w->f);
	free(s);
	return 0;
}

static int write_object(struct writer *w, const json_t *v, int depth)
{
	const char *key;
	json_t *x;
	bool first = true;

	if (json_object_size(v) == 0) {
		fputs("{}", w->f);
		return 0;
	}
	fputc('{', w->f);
	json_object_foreach((json_t *)v, key, x)
	{
		if (!first)
			fputc(',', w->f);
		first = false;
		ix_json_indent(w->f, depth + 1);
		ix_json_put_string(w->f, key);
		fputs(": ", w->f);
		if (write_value(w, x, depth + 1) < 0)
			return -1;
	}
	ix_json_indent(w->f, depth);
	fputc('}', w->f);
	return 0;
}

static int write_array(struct writer *w, const json_t *v, int depth)
{
	size_t i;
	json_t *x;

	if (json_array_size(v) == 0) {
		fputs("[]", w->f);
		return 0;
	}
	fputc('[', w->f);
	json_array_foreach(v, i, x)
	{
		if (i)
			fputc(',', w->f);
		ix_json_indent(w->f, depth + 1);
		if (write_value(w, x, depth + 1) < 0)
			return -1;
	}
	ix_json_indent(w->f, depth);
	fputc(']', w->f);
	return 0;
}

static int write_value(struct writer *w, const json_t *v, int depth)
{
	const struct ix_json_lazy *l = lazy_at(w, v);

	if (l)
		return l->write(w->f, depth, l->arg);
	if (json_is_object(v))
		return write_object(w, v, depth);
	if (json_is_array(v))
		return write_array(w, v, depth);
	return write_scalar(w, v);
}

int ix_json_write_value(FILE *f, const json_t *v, int depth, const struct ix_json_lazy *lazy,
			size_t nlazy)
{
	struct writer w = { f, lazy, nlazy };

	return write_value(&w, v, depth) < 0 || ferror(f) ? -1 : 0;
}

int ix_json_write(FILE *f, const json_t *doc, const struct ix_json_lazy *lazy, size_t nlazy)
{
	if (ix_json_write_value(f, doc, 0, lazy, nlazy) < 0)
		return -1;
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}
