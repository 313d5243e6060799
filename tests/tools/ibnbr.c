/* ibnbr [DEV PORT]: the switch port a local InfiniBand port is cabled to,
 * as ix_ib_neighbor reads it ("ib 0xGUID<TAB>NAME<TAB>PORT"), for the
 * tests to hold against ibnetdiscover under ibsim. Exit 1 with why when
 * there is none. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "probes/host/ibnbr.h"

int main(int argc, char **argv)
{
	struct ix_neighbor nb;
	char why[160];

	if (ix_ib_neighbor(argc > 2 ? argv[1] : NULL, argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0,
			   &nb, why, sizeof(why)) < 0) {
		fprintf(stderr, "ibnbr: %s\n", why);
		return 1;
	}
	printf("%s\t%s\t%s\n", nb.chassis, nb.name, nb.port);
	return 0;
}
