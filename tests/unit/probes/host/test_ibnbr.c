/* Unit tests for probes/host/ibnbr.c. A subnet to ask is in
 * tests/integration/ibfabric_sim.sh (ibsim, every host's first hop held
 * against ibnetdiscover); here, a port that cannot be asked. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/host/ibnbr.h"

Test(ibnbr, an_adapter_that_is_not_there_says_why_and_leaves_nothing)
{
	struct ix_neighbor nb;
	char why[160] = "";

	memset(&nb, 0x5a, sizeof(nb));
	cr_assert_eq(ix_ib_neighbor("ixperf_no_such_hca", 1, &nb, why, sizeof(why)), -1);
	cr_expect(why[0], "no reason given");
	cr_expect_str_eq(nb.source, "");
	cr_expect_str_eq(nb.chassis, "");
	/* asked again: the same answer, kept */
	memset(&nb, 0x5a, sizeof(nb));
	cr_assert_eq(ix_ib_neighbor("ixperf_no_such_hca", 1, &nb, why, sizeof(why)), -1);
	cr_expect(why[0]);
	cr_expect_str_eq(nb.source, "");
}
