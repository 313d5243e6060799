/* The spool: payloads that could not be delivered yet, one file each, named
 * so that lexical order is arrival order, each written atomically (a reader
 * never sees half a file). Flushing delivers the oldest first and removes
 * an entry only after it was delivered. No network code here: the caller
 * passes the function that delivers one entry. */
#ifndef IX_SPOOL_H
#define IX_SPOOL_H

#include <stddef.h>

#include "probes/core/err.h"

#define IX_SPOOL_SUFFIX       ".ixspool"
#define IX_SPOOL_REJECTED_DIR "rejected" /* subdirectory for entries no endpoint will take */

struct ix_spool_entry {
	char *name;         /* file name inside the spool (set by read) */
	char *url;          /* where it goes; never with user:password */
	char *method;       /* "POST" or "PUT" */
	char *content_type; /* of the body */
	char *format;       /* "webhook", "chat", "pushgateway", "html" */
	char *body;
	size_t len;
};

/* $XDG_STATE_HOME/ixperf/spool, else $HOME/.local/state/ixperf/spool. */
int ix_spool_default_dir(char *buf, size_t len, struct ix_err *err);

/* Whether DIR may serve as a spool: a missing DIR may (put creates it
 * private); an existing one must be a directory owned by the caller that
 * neither group nor others may write to, or anyone could plant entries
 * (with the URL the credentials then go to). Errors say which rule broke
 * (IX_EXIT_USAGE). put and flush check it themselves. */
int ix_spool_check_dir(const char *dir, struct ix_err *err);

/* Store e (url, method, content_type, format, body) as the newest entry:
 * DIR (and its parents) is created mode 0700 when missing; the file is
 * written mode 0600 to a hidden temporary name, fsynced, renamed and the
 * directory fsynced. The new file's name goes to name (may be NULL). */
int ix_spool_put(const char *dir, const struct ix_spool_entry *e, char *name, size_t name_len,
		 struct ix_err *err);

/* The names of the complete entries, oldest first. A missing directory is
 * an empty spool. Free with ix_spool_names_free. */
int ix_spool_list(const char *dir, char ***names, size_t *n, struct ix_err *err);
void ix_spool_names_free(char **names, size_t n);

/* Read one entry; a file that is not a spool entry is an error, and so is
 * an entry not owned by the caller or that group or others may write to. */
int ix_spool_read(const char *dir, const char *name, struct ix_spool_entry *e, struct ix_err *err);
void ix_spool_entry_free(struct ix_spool_entry *e);

/* Trusted entries whose URL is prefix or lies below it (prefix NULL: all). */
int ix_spool_count(const char *dir, const char *prefix, size_t *n, struct ix_err *err);
/* Whether url is prefix itself or a path below it. */
int ix_spool_url_under(const char *url, const char *prefix);

enum ix_spool_outcome {
	IX_SPOOL_DELIVERED, /* the endpoint took it: remove the entry */
	IX_SPOOL_KEEP,      /* not now: keep it and stop, later entries wait behind it */
	IX_SPOOL_REJECTED,  /* never: move it to DIR/rejected/ and go on */
};

/* Deliver one entry; say why in err unless delivered. */
typedef enum ix_spool_outcome (*ix_spool_deliver_fn)(void *arg, const struct ix_spool_entry *e,
						     struct ix_err *err);
/* Something the caller should tell the user (msg names the file). */
typedef void (*ix_spool_warn_fn)(void *arg, const char *msg);

/* Deliver the entries under prefix (NULL: all), oldest first, removing each
 * after the deliverer took it; stop at the first it keeps. Entries that are
 * rejected or unreadable move to DIR/rejected/ and do not hold up the rest.
 * Entries not owned by the caller, or that group or others may write to,
 * are never read nor delivered: each is left where it is and named to
 * warn (may be NULL). A DIR that ix_spool_check_dir refuses is an error.
 * One flush at a time per spool (a lock file, DIR/.lock). *delivered counts
 * the entries delivered; returns 0 when no trusted entry is left under
 * prefix, else -1 with err saying what is left and why.
 * At least once: an entry delivered just before the process dies, before
 * its file is removed, is delivered again by the next flush. */
int ix_spool_flush(const char *dir, const char *prefix, ix_spool_deliver_fn fn,
		   ix_spool_warn_fn warn, void *arg, size_t *delivered, struct ix_err *err);

#endif
