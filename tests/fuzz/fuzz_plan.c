/*
 * Plans for 'ixperf run' (report/plan/plan.h): INI text parsed as a plan
 * file is, the settings checked and the defaults filled.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ix_plan plan;
	struct ix_err err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (ix_plan_parse_string(text, "fuzz.ini", &plan, &err) == 0) {
		for (uint32_t i = 0; i < plan.nchecks; i++)
			(void)ix_check_probe_name(plan.checks[i].probe);
		ix_plan_free(&plan);
	}
	free(text);
	return 0;
}
