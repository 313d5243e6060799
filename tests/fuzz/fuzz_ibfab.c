/*
 * A saved subnet as 'ixperf fabric --baseline FILE' reads it
 * (report/json/read_ibfab.c, ix_json_read_ibfab: an "ib_fabric" result),
 * then judged against itself and rendered as JSON and text, as the
 * command does with what it read.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "probes/ibfab/ibfab.h"
#include "report/json/json.h"
#include "report/json/read.h"
#include "report/text/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct ix_ibfab f;
	struct ix_ibfab_findings fs;
	struct ix_err err = { 0 };
	FILE *null;

	if (!j)
		return 0;
	if (ix_json_read_ibfab(j, &f, &err) == 0) {
		if (ix_ibfab_check(&f, &f, &fs, &err) == 0) {
			json_decref(ix_json_ibfab(&f, &fs, 2));
			null = fopen("/dev/null", "w");
			if (null) {
				ix_text_ibfab(null, &f, &fs, 1, NULL);
				fclose(null);
			}
			ix_ibfab_findings_free(&fs);
		}
		ix_ibfab_free(&f);
	}
	json_decref(j);
	return 0;
}
