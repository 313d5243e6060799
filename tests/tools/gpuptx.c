/* gpuptx [--entries]: print the PTX module the CUDA backend loads
 * (probes/gpu/ptx.c), so that tests/integration/gpu_ptx.sh can assemble
 * it with ptxas; with --entries, print the names of its kernels instead,
 * one a line. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/gpu/ptx.h"

int main(int argc, char **argv)
{
	static const char *const entries[] = { IX_GPU_PTX_COPY, IX_GPU_PTX_CHASE, IX_GPU_PTX_SPIN };

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--entries") != 0)) {
		fprintf(stderr, "usage: gpuptx [--entries]\n");
		return 2;
	}
	if (argc == 2)
		for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
			printf("%s\n", entries[i]);
	else
		fputs(ix_gpu_ptx, stdout);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
