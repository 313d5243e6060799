/* Unit tests for report/html/wire.c: a capture's facts and its RDMA table
 * (a row per connection, per host pair when there are several, and the
 * capture's), troubled rows marked, names escaped, and members that do
 * not hold (a connection naming no direction) passed over. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/html/html.h"

static char *page(const char *wire_json)
{
	json_error_t je;
	json_t *w = json_loads(wire_json, 0, &je);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(w, "%s", je.text);
	cr_assert_not_null(f);
	ix_html_wire(f, w);
	fclose(f);
	json_decref(w);
	return buf;
}

#define FLOW(src, dst, qp, req, retr, acks, nak)                                          \
	"{\"src\":\"" src "\",\"dst\":\"" dst "\",\"dest_qp\":" #qp ",\"packets\":10,"    \
	"\"requests\":" #req ",\"retransmitted\":" #retr ",\"retries\":0,"                \
	"\"out_of_sequence\":0,\"acks\":" #acks ",\"rnr_naks\":0,\"ecn_ce\":0,\"cnp\":0," \
	"\"naks\":{\"psn_sequence\":" #nak "},\"gap_max_ns\":1000,\"ack_latency\":null,"  \
	"\"retry_wait\":null,\"ops\":[{\"opcode\":10,\"name\":\"RC RDMA Write Only\","    \
	"\"packets\":10}]}"

Test(html_wire, rdma_rows)
{
	char *out = page("{\"iface\":\"eth0\",\"filter\":\"host <a>\",\"packets\":30,"
			 "\"roce_packets\":30,\"rdma\":{\"flows\":[" FLOW(
				 "10.0.0.1", "10.0.0.2", 34, 10, 2, 0,
				 0) "," FLOW("10.0.0.2", "10.0.0.1", 17, 0, 0, 9,
					     1) "," FLOW("10.0.0.1", "10.0.0.3", 1, 0, 0, 0,
							 0) "],"
							    "\"connections\":[{\"requester\":0,"
							    "\"responder\":1},"
							    "{\"requester\":2,\"responder\":null},{"
							    "\"requester\":7,\"responder\":null}],"
							    "\"host_pairs\":[{\"a\":\"10.0.0.1\","
							    "\"b\":\"10.0.0.2\",\"packets\":20},"
							    "{\"a\":\"10.0.0.1\",\"b\":\"10.0.0."
							    "3\",\"packets\":10}],"
							    "\"total\":{\"packets\":30,"
							    "\"requests\":10,\"retransmitted\":2},"
							    "\"flows_other\":4}}");

	cr_assert(strstr(out, "<h3>Capture on eth0 <span class=\"muted\">(host &lt;a&gt;)</span>"),
		  "%s", out);
	cr_assert(strstr(out, "<tr class=\"warn\"><td>10.0.0.1 QP 0x000011 &rarr; 10.0.0.2 QP "
			      "0x000022<br><span class=\"muted\">RC RDMA Write Only 10</span></td>"
			      "<td>20</td><td>10</td><td>2</td>"),
		  "the connection: its two directions summed, marked: %s", out);
	cr_assert(strstr(out, "<tr><td>10.0.0.1 &rarr; 10.0.0.3 QP 0x000001 <span "
			      "class=\"muted\">(no answer seen)</span>"),
		  "%s", out);
	cr_assert(strstr(out, "<td>between 10.0.0.1 and 10.0.0.3</td>"), "%s", out);
	cr_assert(strstr(out, "<b>the capture</b></td><td>30</td>"), "%s", out);
	cr_assert(strstr(out, "and 4 packets of directions beyond the first 32"), "%s", out);
	cr_assert_eq(strstr(out, "QP 0x000007"), NULL,
		     "a connection naming no direction is skipped");
	free(out);
}

Test(html_wire, tcp_only_and_not_an_object)
{
	char *out = page("{\"iface\":\"lo\",\"filter\":null,\"packets\":5,\"rdma\":null}");

	cr_assert(strstr(out, "<dt>packets</dt><dd>5</dd>"), "%s", out);
	cr_assert_null(strstr(out, "RDMA"), "%s", out);
	free(out);
	out = page("[]");
	cr_assert_str_eq(out, "");
	free(out);
}
