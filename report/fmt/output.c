#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report/fmt/output.h"

/* Create path's temporary sibling, "PATH.XXXXXX", the way any tool creates
 * a file: mode 0666 less the umask (applied by the kernel). */
static int create_temp(const char *path, char *tmp, size_t len, struct ix_err *err)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct timespec ts;
	uint64_t x;
	int n;

	n = snprintf(tmp, len, "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= len)
		return ix_fail(err, IX_EXIT_USAGE, "output path too long: %s", path);
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40) ^
	    (uint64_t)(uintptr_t)tmp;
	for (int tries = 0; tries < 1000; tries++) {
		int fd;

		for (int i = 0; i < 6; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			tmp[n - 6 + i] = set[(x >> 33) % (sizeof(set) - 1)];
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd
				       : ix_fail(err, IX_EXIT_FAIL, "cannot create %s: %s", tmp,
						 strerror(errno));
	}
	return ix_fail(err, IX_EXIT_FAIL, "cannot create a temporary file next to %s", path);
}

/* Hand the written temporary file its place: the permissions of the file
 * it replaces, on disk, renamed over path. Closes fd. */
static int install_temp(const char *path, const char *tmp, int fd, struct ix_err *err)
{
	struct stat st;

	/* A file replaced keeps its permissions. */
	if ((stat(path, &st) == 0 && S_ISREG(st.st_mode) && fchmod(fd, st.st_mode & 0777) < 0) ||
	    fsync(fd) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
	return 0;
}

int ix_output_atomic(const char *path, const char *data, size_t len, struct ix_err *err)
{
	char tmp[4096];
	size_t off = 0;
	int fd;

	fd = create_temp(path, tmp, sizeof(tmp), err);
	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
			close(fd);
			unlink(tmp);
			return -1;
		}
		off += (size_t)w;
	}
	if (install_temp(path, tmp, fd, err) < 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int ix_output_atomic_stream(const char *path, int (*write_fn)(FILE *f, void *arg), void *arg,
			    struct ix_err *err)
{
	char tmp[4096];
	FILE *f;
	int fd, rc;

	fd = create_temp(path, tmp, sizeof(tmp), err);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	rc = write_fn(f, arg);
	/* The stream is flushed and left; the descriptor installs the file. */
	if (rc < 0 || fflush(f) != 0 || ferror(f)) {
		ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path,
			rc < 0 ? "the document could not be written" : strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fd = dup(fileno(f));
	fclose(f);
	if (fd < 0 || install_temp(path, tmp, fd, err) < 0) {
		if (fd < 0)
			ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
