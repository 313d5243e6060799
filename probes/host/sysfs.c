#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/sysfs.h"

bool ix_sysfs_path(char *buf, size_t len, const char *root, const char *rel)
{
	int n = snprintf(buf, len, "%s%s", root ? root : "", rel);

	return n > 0 && (size_t)n < len;
}

int ix_sysfs_read(const char *path, char *buf, size_t len)
{
	/* open/read rather than stdio: discovery reads thousands of these. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	size_t n;

	if (fd < 0 || len < 2) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	got = read(fd, buf, len - 1);
	close(fd);
	if (got <= 0) {
		errno = got < 0 ? errno : ENODATA;
		return -1;
	}
	buf[got] = '\0';
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	if (!n) {
		errno = ENODATA;
		return -1;
	}
	return 0;
}

int ix_sysfs_read_long(const char *path, long *out)
{
	char buf[64], *end;
	long v;

	if (ix_sysfs_read(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf || *end) {
		errno = EINVAL;
		return -1;
	}
	*out = v;
	return 0;
}

/* Resolve "." and ".." in an absolute path, as text. */
static void normalize(char *path)
{
	char out[PATH_MAX];
	size_t o = 0;
	const char *in = path;

	while (*in) {
		size_t n = strcspn(in, "/");

		if (n == 2 && in[0] == '.' && in[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--; /* the slash before the dropped component */
			while (o > 0 && out[o - 1] != '/')
				o--;
		} else if (n && !(n == 1 && in[0] == '.') && o + n + 1 < sizeof(out)) {
			memcpy(out + o, in, n);
			o += n;
			out[o++] = '/';
		} else if (!n && o == 0) {
			out[o++] = '/';
		}
		in += n + (in[n] == '/');
	}
	if (o > 1 && out[o - 1] == '/')
		o--;
	out[o] = '\0';
	memcpy(path, out, o + 1);
}

/* A sysfs link's target as text: the link's directory joined with its
 * relative target. sysfs links point at real directories, so this is the
 * real path without a readlink per component (realpath's cost). */
static bool resolve_link(const char *path, char *out, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (n <= 0 || target[0] == '/' || !slash)
		return false;
	target[n] = '\0';
	if (snprintf(out, len, "%.*s/%s", (int)(slash - path), path, target) >= (int)len)
		return false;
	normalize(out);
	/* A target that is itself a link (a loop, or a link chain) takes the
	 * slow path. */
	return lstat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

int ix_sysfs_device_path(const char *root, const char *path, char *rel, size_t len)
{
	char real[PATH_MAX], base[PATH_MAX], devs[PATH_MAX];
	size_t bl;

	if (!ix_sysfs_path(devs, sizeof(devs), root, "/sys/devices"))
		return -1;
	if (path[0] == '/' && resolve_link(path, real, sizeof(real))) {
		snprintf(base, sizeof(base), "%s", devs);
		normalize(base);
		bl = strlen(base);
		if (strncmp(real, base, bl) == 0 && (real[bl] == '/' || real[bl] == '\0')) {
			if (snprintf(rel, len, "%s", real[bl] ? real + bl + 1 : "") >= (int)len) {
				errno = ENAMETOOLONG;
				return -1;
			}
			return 0;
		}
	}
	if (!realpath(path, real))
		return -1;
	if (!realpath(devs, base)) {
		errno = ENOENT;
		return -1;
	}
	bl = strlen(base);
	if (strncmp(real, base, bl) != 0 || (real[bl] != '/' && real[bl] != '\0')) {
		errno = EXDEV;
		return -1;
	}
	if (snprintf(rel, len, "%s", real[bl] ? real + bl + 1 : "") >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int ix_sysfs_link_name(const char *path, char *buf, size_t len)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	const char *slash;

	if (n <= 0)
		return -1;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%s", slash ? slash + 1 : target);
	return buf[0] ? 0 : -1;
}

bool ix_sysfs_is_bdf(const char *s)
{
	/* DOMAIN:bb:dd.f in hex. The kernel prints the domain with %04x, so
	 * one above ffff (behind an Intel VMD controller: "10000:e1:00.0") is
	 * longer, up to 8 digits; devices are 00-1f, functions 0-7. */
	static const char shape[] = ":xx:xx.x";
	size_t n = 0;

	while (n < 8 && isxdigit((unsigned char)s[n]))
		n++;
	if (n < 4)
		return false;
	s += n;
	for (size_t i = 0; i < sizeof(shape) - 1; i++) {
		if (shape[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	}
	return s[sizeof(shape) - 1] == '\0' && strchr("01", s[4]) && s[7] >= '0' && s[7] <= '7';
}
