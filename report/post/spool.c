#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include <jansson.h>

#include "report/post/spool.h"

#define NAME_STAMP_DIGITS 16
#define MAX_ENTRY_BYTES   (256u << 20)
#define FLUSH_PASSES      8

int ix_spool_default_dir(char *buf, size_t len, struct ix_err *err)
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	/* The XDG spec says a relative XDG_STATE_HOME is invalid: ignore it. */
	if (state && state[0] == '/')
		n = snprintf(buf, len, "%s/ixperf/spool", state);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.local/state/ixperf/spool", home);
	else
		return ix_fail(err, IX_EXIT_USAGE,
			       "no spool directory: neither XDG_STATE_HOME nor HOME is set; give "
			       "--spool DIR");
	if (n < 0 || (size_t)n >= len)
		return ix_fail(err, IX_EXIT_USAGE, "spool directory path too long");
	return 0;
}

int ix_spool_check_dir(const char *dir, struct ix_err *err)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return ix_fail(err, IX_EXIT_FAIL, "cannot use spool %s: %s", dir, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return ix_fail(err, IX_EXIT_USAGE,
			       "spool %s is not a directory (a symbolic link is not followed)",
			       dir);
	if (st.st_uid != geteuid())
		return ix_fail(err, IX_EXIT_USAGE,
			       "spool directory %s is owned by uid %u, not by you (uid %u): others "
			       "could plant payloads there; give --spool a directory of your own",
			       dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & 022)
		return ix_fail(err, IX_EXIT_USAGE,
			       "spool directory %s is writable by group or others (mode %04o): "
			       "they could plant payloads there; chmod 700 it",
			       dir, (unsigned)(st.st_mode & 07777));
	return 0;
}

/* An entry the caller wrote: its own, writable by no one else. */
static bool trusted(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & 022);
}

static void why_untrusted(const char *path, const struct stat *st, struct ix_err *err)
{
	if (st->st_uid != geteuid())
		ix_fail(err, IX_EXIT_FAIL, "spool entry %s is owned by uid %u, not by you (uid %u)",
			path, (unsigned)st->st_uid, (unsigned)geteuid());
	else
		ix_fail(err, IX_EXIT_FAIL,
			"spool entry %s is writable by group or others (mode %04o)", path,
			(unsigned)(st->st_mode & 07777));
}

static int path_join(char *buf, size_t len, const char *dir, const char *name, struct ix_err *err)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return ix_fail(err, IX_EXIT_USAGE, "spool path too long: %s/%s", dir, name);
	return 0;
}

/* mkdir -p with mode 0700 for the directories it creates. */
static int mkdir_p(const char *dir, struct ix_err *err)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path))
		return ix_fail(err, IX_EXIT_USAGE, "invalid spool directory '%s'", dir);
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return ix_fail(err, IX_EXIT_FAIL, "cannot create %s: %s", path,
				       strerror(errno));
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

/* Make a rename or unlink in dir durable. */
static int sync_dir(const char *dir, struct ix_err *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot open %s: %s", dir, strerror(errno));
	if (fsync(fd) < 0 && errno != EINVAL) {
		int e = errno;
		close(fd);
		return ix_fail(err, IX_EXIT_FAIL, "cannot sync %s: %s", dir, strerror(e));
	}
	close(fd);
	return 0;
}

static int valid_name(const char *name)
{
	size_t n = strlen(name), s = strlen(IX_SPOOL_SUFFIX);

	if (n <= NAME_STAMP_DIGITS + s || strcmp(name + n - s, IX_SPOOL_SUFFIX) != 0)
		return 0;
	for (size_t i = 0; i < NAME_STAMP_DIGITS; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	return name[NAME_STAMP_DIGITS] == '-';
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ix_spool_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int ix_spool_list(const char *dir, char ***names, size_t *n, struct ix_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return ix_fail(err, IX_EXIT_FAIL, "cannot read spool %s: %s", dir, strerror(errno));
	}
	while ((de = readdir(d))) {
		char *copy;

		if (!valid_name(de->d_name))
			continue; /* temporaries are hidden and carry no suffix */
		if (*n == cap) {
			char **grown = realloc(*names, (cap ? 2 * cap : 16) * sizeof(*grown));
			if (!grown)
				goto oom;
			*names = grown;
			cap = cap ? 2 * cap : 16;
		}
		copy = strdup(de->d_name);
		if (!copy)
			goto oom;
		(*names)[(*n)++] = copy;
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return 0;
oom:
	closedir(d);
	ix_spool_names_free(*names, *n);
	*names = NULL;
	*n = 0;
	return ix_fail(err, IX_EXIT_FAIL, "out of memory");
}

/* Microseconds since the epoch, never below the newest entry's stamp, so
 * that a clock stepped back keeps lexical order = arrival order. */
static uint64_t next_stamp(const char *dir)
{
	struct timespec ts;
	uint64_t now, last = 0;
	char **names;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
	if (ix_spool_list(dir, &names, &n, NULL) == 0 && n > 0) {
		last = strtoull(names[n - 1], NULL, 10);
		ix_spool_names_free(names, n);
	}
	return now > last ? now : last + 1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static char *entry_header(const struct ix_spool_entry *e)
{
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	json_t *h;
	char *s;

	gmtime_r(&now, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	h = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:I}", "ixperf_spool", 1, "url", e->url, "method",
		      e->method, "content_type", e->content_type, "format",
		      e->format ? e->format : "", "created", created, "length", (json_int_t)e->len);
	if (!h)
		return NULL;
	/* Compact: strings escape their newlines, so the header is one line. */
	s = json_dumps(h, JSON_COMPACT);
	json_decref(h);
	return s;
}

int ix_spool_put(const char *dir, const struct ix_spool_entry *e, char *name, size_t name_len,
		 struct ix_err *err)
{
	static unsigned counter;
	char fname[128], tmp[4200], path[4200];
	char *hdr;
	int fd, rc = -1;

	if (!e->url || !e->method || !e->content_type)
		return ix_fail(err, IX_EXIT_FAIL, "spool entry without URL, method or type");
	if (mkdir_p(dir, err) < 0 || ix_spool_check_dir(dir, err) < 0)
		return -1;
	snprintf(fname, sizeof(fname), "%0*" PRIu64 "-%010ld-%06u" IX_SPOOL_SUFFIX,
		 NAME_STAMP_DIGITS, next_stamp(dir), (long)getpid(), counter++ % 1000000u);
	if (path_join(path, sizeof(path), dir, fname, err) < 0)
		return -1;
	if (snprintf(tmp, sizeof(tmp), "%s/.tmp-%s.XXXXXX", dir, fname) >= (int)sizeof(tmp))
		return ix_fail(err, IX_EXIT_USAGE, "spool path too long: %s", dir);
	hdr = entry_header(e);
	if (!hdr)
		return ix_fail(err, IX_EXIT_FAIL, "cannot encode the spool header");
	fd = mkstemp(tmp); /* mode 0600 */
	if (fd < 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot create a file in %s: %s", dir, strerror(errno));
		free(hdr);
		return -1;
	}
	if (write_all(fd, hdr, strlen(hdr)) < 0 || write_all(fd, "\n", 1) < 0 ||
	    write_all(fd, e->body, e->len) < 0 || fsync(fd) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		goto out;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	if (sync_dir(dir, err) < 0)
		goto out;
	if (name)
		snprintf(name, name_len, "%s", fname);
	rc = 0;
out:
	if (rc < 0)
		unlink(tmp);
	free(hdr);
	return rc;
}

void ix_spool_entry_free(struct ix_spool_entry *e)
{
	free(e->name);
	free(e->url);
	free(e->method);
	free(e->content_type);
	free(e->format);
	free(e->body);
	memset(e, 0, sizeof(*e));
}

static char *dup_field(json_t *h, const char *key)
{
	const char *s = json_string_value(json_object_get(h, key));
	return s ? strdup(s) : NULL;
}

static int parse_entry(const char *name, char *data, size_t size, struct ix_spool_entry *e,
		       struct ix_err *err)
{
	char *nl = memchr(data, '\n', size);
	json_t *h;
	size_t hlen;
	json_int_t length;

	if (!nl)
		return ix_fail(err, IX_EXIT_FAIL, "spool entry %s has no header line", name);
	hlen = (size_t)(nl - data);
	h = json_loadb(data, hlen, 0, NULL);
	if (!h || json_integer_value(json_object_get(h, "ixperf_spool")) != 1) {
		json_decref(h);
		return ix_fail(err, IX_EXIT_FAIL, "%s is not an ixperf spool entry", name);
	}
	e->name = strdup(name);
	e->url = dup_field(h, "url");
	e->method = dup_field(h, "method");
	e->content_type = dup_field(h, "content_type");
	e->format = dup_field(h, "format");
	length = json_integer_value(json_object_get(h, "length"));
	json_decref(h);
	if (!e->name || !e->url || !e->method || !e->content_type || !e->format)
		return ix_fail(err, IX_EXIT_FAIL, "spool entry %s lacks url, method or type", name);
	e->len = size - hlen - 1;
	if (length < 0 || (size_t)length != e->len)
		return ix_fail(err, IX_EXIT_FAIL, "spool entry %s is truncated", name);
	e->body = malloc(e->len + 1);
	if (!e->body)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	memcpy(e->body, nl + 1, e->len);
	e->body[e->len] = '\0';
	return 0;
}

/* ix_spool_read; *untrusted (may be NULL) tells an entry refused because
 * of its owner or mode from one that cannot be read. */
static int read_entry(const char *dir, const char *name, struct ix_spool_entry *e, bool *untrusted,
		      struct ix_err *err)
{
	char path[4200], *data = NULL;
	struct stat st;
	size_t got = 0;
	int fd, rc = -1;

	memset(e, 0, sizeof(*e));
	if (untrusted)
		*untrusted = false;
	if (path_join(path, sizeof(path), dir, name, err) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_ENTRY_BYTES) {
		ix_fail(err, IX_EXIT_FAIL, "%s is not a spool entry (not a file, or too big)",
			path);
		goto out;
	}
	if (!trusted(&st)) {
		why_untrusted(path, &st, err);
		if (untrusted)
			*untrusted = true;
		goto out;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, data + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ix_fail(err, IX_EXIT_FAIL, "cannot read %s: %s", path,
				r < 0 ? strerror(errno) : "file shrank");
			goto out;
		}
		got += (size_t)r;
	}
	rc = parse_entry(name, data, got, e, err);
out:
	if (rc < 0)
		ix_spool_entry_free(e);
	free(data);
	close(fd);
	return rc;
}

int ix_spool_read(const char *dir, const char *name, struct ix_spool_entry *e, struct ix_err *err)
{
	return read_entry(dir, name, e, NULL, err);
}

int ix_spool_url_under(const char *url, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(url, prefix, n) != 0)
		return 0;
	return n == 0 || prefix[n - 1] == '/' || url[n] == '\0' || url[n] == '/' || url[n] == '?' ||
	       url[n] == '#';
}

int ix_spool_count(const char *dir, const char *prefix, size_t *count, struct ix_err *err)
{
	char **names;
	size_t n;

	*count = 0;
	if (ix_spool_list(dir, &names, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct ix_spool_entry e;
		struct stat st;
		char path[4200];

		if (!prefix) {
			if (path_join(path, sizeof(path), dir, names[i], NULL) == 0 &&
			    lstat(path, &st) == 0 && S_ISREG(st.st_mode) && trusted(&st))
				(*count)++;
			continue;
		}
		if (ix_spool_read(dir, names[i], &e, NULL) < 0)
			continue;
		if (ix_spool_url_under(e.url, prefix))
			(*count)++;
		ix_spool_entry_free(&e);
	}
	ix_spool_names_free(names, n);
	return 0;
}

static int remove_entry(const char *dir, const char *name, struct ix_err *err)
{
	char path[4200];

	if (path_join(path, sizeof(path), dir, name, err) < 0)
		return -1;
	if (unlink(path) < 0 && errno != ENOENT)
		return ix_fail(err, IX_EXIT_FAIL, "cannot remove %s: %s", path, strerror(errno));
	return sync_dir(dir, err);
}

static int reject_entry(const char *dir, const char *name, struct ix_err *err)
{
	char from[4200], rdir[4200], to[8400];

	if (path_join(from, sizeof(from), dir, name, err) < 0 ||
	    path_join(rdir, sizeof(rdir), dir, IX_SPOOL_REJECTED_DIR, err) < 0 ||
	    path_join(to, sizeof(to), rdir, name, err) < 0)
		return -1;
	if (mkdir(rdir, 0700) < 0 && errno != EEXIST)
		return ix_fail(err, IX_EXIT_FAIL, "cannot create %s: %s", rdir, strerror(errno));
	if (rename(from, to) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot move %s to %s: %s", from, rdir,
			       strerror(errno));
	return sync_dir(dir, err);
}

static int lock_spool(const char *dir, int *fd, struct ix_err *err)
{
	char path[4200];

	if (path_join(path, sizeof(path), dir, ".lock", err) < 0)
		return -1;
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (*fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot open %s: %s", path, strerror(errno));
	if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		close(*fd);
		*fd = -1;
		if (e == EWOULDBLOCK)
			return ix_fail(err, IX_EXIT_FAIL,
				       "another ixperf is flushing the spool %s; try again later",
				       dir);
		return ix_fail(err, IX_EXIT_FAIL, "cannot lock %s: %s", path, strerror(e));
	}
	return 0;
}

struct flush_state {
	const char *dir;
	ix_spool_warn_fn warn;
	char **skipped; /* untrusted entries named already */
	size_t nskipped;
	size_t delivered, rejected;
	bool kept;
	struct ix_err why; /* the first reason something was left */
};

/* One entry; returns 1 to go on, 0 to stop. */
static int flush_one(struct flush_state *st, const char *name, const char *prefix,
		     ix_spool_deliver_fn fn, void *arg)
{
	struct ix_spool_entry e;
	struct ix_err e2 = { 0 };
	enum ix_spool_outcome out;
	bool untrusted;
	int rc = read_entry(st->dir, name, &e, &untrusted, &e2);

	if (rc < 0 && untrusted) {
		/* Not ours: neither sent nor moved, whatever URL it names; named
		 * once, however many passes see it. */
		char msg[IX_ERR_MAX + 32], **grown;

		for (size_t i = 0; i < st->nskipped; i++)
			if (strcmp(st->skipped[i], name) == 0)
				return 1;
		grown = realloc(st->skipped, (st->nskipped + 1) * sizeof(*grown));
		if (grown && (grown[st->nskipped] = strdup(name)))
			st->nskipped++;
		if (grown)
			st->skipped = grown;
		snprintf(msg, sizeof(msg), "%s: skipped, not sent", e2.msg);
		if (st->warn)
			st->warn(arg, msg);
		return 1;
	}
	if (rc < 0) {
		if (reject_entry(st->dir, name, &e2) == 0)
			ix_fail_prefix(&e2, "moved to %s/%s/", st->dir, IX_SPOOL_REJECTED_DIR);
		if (!st->rejected++)
			st->why = e2;
		return 1;
	}
	if (prefix && !ix_spool_url_under(e.url, prefix)) {
		ix_spool_entry_free(&e);
		return 1;
	}
	out = fn(arg, &e, &e2);
	ix_spool_entry_free(&e);
	if (out == IX_SPOOL_DELIVERED) {
		if (remove_entry(st->dir, name, &e2) < 0) {
			/* Stop: going on could deliver it twice. */
			st->kept = true;
			st->why = e2;
			return 0;
		}
		st->delivered++;
		return 1;
	}
	if (out == IX_SPOOL_REJECTED) {
		if (reject_entry(st->dir, name, &e2) < 0) {
			st->kept = true;
			st->why = e2;
			return 0;
		}
		ix_fail_prefix(&e2, "%s moved to %s/%s/", name, st->dir, IX_SPOOL_REJECTED_DIR);
		if (!st->rejected++)
			st->why = e2;
		return 1;
	}
	st->kept = true;
	ix_fail_prefix(&e2, "%s", name);
	st->why = e2;
	return 0;
}

int ix_spool_flush(const char *dir, const char *prefix, ix_spool_deliver_fn fn,
		   ix_spool_warn_fn warn, void *arg, size_t *delivered, struct ix_err *err)
{
	struct flush_state st = { .dir = dir, .warn = warn };
	struct stat sb;
	size_t left = 0;
	int lock = -1;

	*delivered = 0;
	if (stat(dir, &sb) < 0 && errno == ENOENT)
		return 0; /* nothing was ever spooled */
	if (ix_spool_check_dir(dir, err) < 0 || lock_spool(dir, &lock, err) < 0)
		return -1;
	/* Passes: entries spooled while we flush are picked up by the next. */
	for (int pass = 0; pass < FLUSH_PASSES && !st.kept; pass++) {
		size_t before = st.delivered + st.rejected, n;
		char **names;

		if (ix_spool_list(dir, &names, &n, err) < 0) {
			close(lock);
			ix_spool_names_free(st.skipped, st.nskipped);
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			if (!flush_one(&st, names[i], prefix, fn, arg))
				break;
		ix_spool_names_free(names, n);
		if (st.delivered + st.rejected == before)
			break;
	}
	close(lock);
	ix_spool_names_free(st.skipped, st.nskipped);
	*delivered = st.delivered;
	if (!st.kept && !st.rejected)
		return 0;
	ix_spool_count(dir, prefix, &left, NULL);
	*err = st.why;
	return ix_fail_prefix(err, "%zu delivered, %zu left in the spool %s", st.delivered, left,
			      dir);
}
