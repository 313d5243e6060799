/*
 * The kernel's rtnetlink answers as the live fabric snapshot reads them
 * (probes/host/fabric.c, ix_fabric_parse_rtnl): the first byte picks the
 * answer (bit 0: an RTM_GETQDISC dump, else an RTM_GETLINK answer) and
 * the interface asked about (the rest, 0 to 127); the rest of the input is
 * one read of the answer's bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s\n", what);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ix_ctr_set s;

	if (size < 1)
		return 0;
	ix_ctr_set_init(&s);
	(void)ix_fabric_parse_rtnl(data + 1, size - 1, data[0] & 1, data[0] >> 1, &s);
	for (size_t i = 0; i < s.n; i++)
		must(memchr(s.v[i].name, '\0', sizeof(s.v[i].name)) != NULL && s.v[i].name[0],
		     "a counter without a proper name");
	ix_ctr_set_free(&s);
	return 0;
}
