#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "report/fmt/output.h"

int ix_output_atomic(const char *path, const char *data, size_t len, struct ix_err *err)
{
	char tmp[4096];
	size_t off = 0;
	int fd, n;

	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return ix_fail(err, IX_EXIT_USAGE, "output path too long: %s", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot create %s: %s", tmp, strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}
