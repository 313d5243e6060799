/*
 * What an RDMA test's peer answers (probes/rdma/session.c): the input is
 * a JSON document, read as the client reads the agent's RESULT
 * (ix_rdma_figures_parse: figures, counters, its error) and its TEST_ACK's
 * description of the agent's device (ix_rdma_port_info_parse), given the
 * whole document and, as a TEST_ACK holds it, its "device" member.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "probes/rdma/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s\n", what);
		abort();
	}
}

/* Every string of the description ends within its field. */
static void check_info(const struct ix_rdma_port_info *i)
{
	must(memchr(i->dev, '\0', sizeof(i->dev)) && memchr(i->netdev, '\0', sizeof(i->netdev)) &&
		     memchr(i->gid.text, '\0', sizeof(i->gid.text)) &&
		     memchr(i->placement, '\0', sizeof(i->placement)) &&
		     memchr(i->buffer, '\0', sizeof(i->buffer)),
	     "a port description's string is not terminated");
	must(i->numa_node >= -1 && i->numa_node < 1024, "a NUMA node out of range");
	must(i->port < 256, "a port out of range");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ix_rdma_result r;
	static struct ix_rdma_port_info info;
	struct ix_rdma_params p;
	struct ix_err err;
	json_error_t jerr;
	json_t *j = json_loadb((const char *)data, size, 0, &jerr);

	if (!j)
		return 0;
	memset(&p, 0, sizeof(p));
	p.kind = size % 2 ? IX_RDMA_LAT : IX_RDMA_BW;
	ix_rdma_result_init(&r, &p);
	if (ix_rdma_figures_parse(j, &r, &err) == 0)
		must(r.remote_complete, "a failed end parses as complete");
	else
		must(err.msg[0] != '\0', "a refused RESULT without a reason");
	must(!r.remote_tx.valid || (r.remote_tx.bits_per_second >= 0 && r.remote_tx.mpps >= 0),
	     "negative figures");
	ix_rdma_port_info_parse(j, &info);
	check_info(&info);
	ix_rdma_port_info_parse(json_object_get(j, "device"), &info);
	check_info(&info);
	ix_rdma_result_free(&r);
	json_decref(j);
	return 0;
}
