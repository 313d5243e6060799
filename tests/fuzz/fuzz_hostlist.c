/*
 * Host lists (probes/cluster/hostlist.h): comma lists, Slurm ranges, port
 * overrides and '@' host files. The input up to its first NUL byte is the
 * spec; what follows is the content of the host file "h" in the fuzzer's
 * own temporary directory, which is the working directory while the spec
 * is parsed, so "@h" reads it. Specs that name a host file by a path with
 * '/' are skipped: a file name is always looked up in that directory.
 */
#include "config.h"

#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/cluster/hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[4096];
static int dir_fd = -1, cwd_fd = -1;

static void cleanup(void)
{
	if (dir[0]) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/h", dir);
		unlink(path);
		rmdir(dir);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/ixfuzz-hosts.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || (dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(dir);
		exit(1);
	}
	atexit(cleanup);
	unsetenv("SLURM_JOB_NODELIST");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t speclen = nul ? (size_t)(nul - data) : size;
	struct ix_hostlist l = { 0 };
	struct ix_err err;
	char *spec;
	FILE *f;

	if (memchr(data, '@', speclen) && memchr(data, '/', speclen))
		return 0;
	spec = malloc(speclen + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, speclen);
	spec[speclen] = '\0';
	if (fchdir(dir_fd) < 0)
		abort();
	f = fopen("h", "wb");
	if (f) {
		if (nul)
			fwrite(nul + 1, 1, size - speclen - 1, f);
		fclose(f);
	}
	if (ix_hostlist_parse(spec, 5201, &l, &err) == 0) {
		char buf[IX_HOST_NAME_MAX + 16];

		for (size_t i = 0; i < l.n; i++)
			ix_host_format(&l.v[i], buf, sizeof(buf));
	}
	if (fchdir(cwd_fd) < 0)
		abort();
	ix_hostlist_free(&l);
	free(spec);
	return 0;
}
