/* Error reports passed down by callers: no global errno-like state. */
#ifndef IX_ERR_H
#define IX_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Exit codes shared by every command (documented in ixperf(1)). */
enum ix_exit {
	IX_EXIT_OK = 0,
	IX_EXIT_FAIL = 1,        /* runtime failure */
	IX_EXIT_USAGE = 2,       /* bad command line */
	IX_EXIT_UNAVAILABLE = 3, /* path asked for is not available here */
	IX_EXIT_THRESHOLD = 4,   /* a threshold failed (plans) */
	IX_EXIT_POST = 5,        /* all passed, but a --post target did not take the result */
};

#define IX_ERR_MAX 512

struct ix_err {
	int code; /* one of enum ix_exit, set with the message */
	char msg[IX_ERR_MAX];
};

/* Fill err (if not NULL) and return -1, so callers can "return ix_fail(...)". */
int ix_fail(struct ix_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ix_vfail(struct ix_err *err, int code, const char *fmt, va_list ap);
/* Prefix an existing message with more context. */
int ix_fail_prefix(struct ix_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
