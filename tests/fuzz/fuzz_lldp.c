/*
 * A switch's LLDP announcement as lldpd hands it over (probes/host/lldp.c,
 * ix_lldp_copy): the input is up to four NUL-separated strings, the
 * chassis id, the system name, the port's description and its id; a
 * string the input does not reach is NULL, as lldpd gives an absent one.
 * What is copied must end within its field and be printable.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s\n", what);
		abort();
	}
}

static void printable(const char *s, size_t len)
{
	const char *end = memchr(s, '\0', len);

	must(end != NULL, "a copied string is not terminated");
	for (; s < end; s++)
		must((unsigned char)*s >= 0x20 && (unsigned char)*s <= 0x7e,
		     "a copied string is not printable");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *f[4] = { NULL, NULL, NULL, NULL }, *p;
	struct ix_neighbor n;
	bool found;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* Fields start where the input has bytes left. */
	p = buf;
	for (size_t k = 0; k < 4 && p < buf + size; k++) {
		f[k] = p;
		p += strlen(p) + 1;
	}
	memset(&n, 0x55, sizeof(n));
	memset(n.source, 0, sizeof(n.source));
	found = ix_lldp_copy(&n, f[0], f[1], f[2], f[3]);
	printable(n.chassis, sizeof(n.chassis));
	printable(n.name, sizeof(n.name));
	printable(n.port, sizeof(n.port));
	must(found == (n.chassis[0] != '\0'), "a neighbour without a chassis, or the reverse");
	must(found == (strcmp(n.source, "lldp") == 0), "the source does not say lldp");
	if (f[0] && strlen(f[0]) < sizeof(n.chassis))
		must(strlen(n.chassis) == strlen(f[0]), "a chassis id that fits is cut");
	free(buf);
	return 0;
}
