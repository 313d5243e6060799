#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/core/err.h"

int ix_vfail(struct ix_err *err, int code, const char *fmt, va_list ap)
{
	if (err) {
		err->code = code;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	}
	return -1;
}

int ix_fail(struct ix_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ix_vfail(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int ix_fail_prefix(struct ix_err *err, const char *fmt, ...)
{
	char buf[sizeof(err->msg)];
	size_t n;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (n + 2 < sizeof(buf)) {
		memcpy(buf + n, ": ", 2);
		n += 2;
		/* Truncate the old message rather than the context. */
		memcpy(buf + n, err->msg, sizeof(buf) - n - 1);
		buf[sizeof(buf) - 1] = '\0';
	}
	memcpy(err->msg, buf, sizeof(buf));
	return -1;
}
