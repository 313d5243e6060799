/* Unit tests for probes/ctl/ifwire.c: the interface counters request and
 * reply, and what a hostile reply is refused for. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/ctl/ifwire.h"

Test(ifwire, request_round_trip)
{
	json_t *j = ix_ifstats_request();
	struct ix_err err = { 0 };

	cr_assert_eq(ix_ifstats_request_parse(j, &err), 0);
	json_object_set_new(j, "extra", json_true());
	cr_assert_eq(ix_ifstats_request_parse(j, &err), -1);
	json_decref(j);
}

Test(ifwire, reply_round_trip)
{
	struct ix_ifstat v[2] = { { "eth0", true, true, 1, 2, 3, 4 },
				  { "swp51", false, false, 5, 6, 7, 8 } };
	static struct ix_ifstat out[IX_IFSTAT_MAX];
	struct ix_err err = { 0 };
	uint32_t n;
	bool trunc;
	json_t *j = ix_ifstats_reply(v, 2, true);

	cr_assert_eq(ix_ifstats_reply_parse(j, out, &n, &trunc, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 2);
	cr_assert(trunc);
	cr_assert_str_eq(out[1].name, "swp51");
	cr_assert_eq(out[1].tx_bytes, 6);
	cr_assert(out[0].control && out[0].up && !out[1].up);
	json_decref(j);
}

static int parse_text(const char *text, struct ix_err *err)
{
	static struct ix_ifstat out[IX_IFSTAT_MAX];
	json_t *j = json_loads(text, 0, NULL);
	uint32_t n;
	bool trunc;
	int rc;

	cr_assert_not_null(j);
	rc = ix_ifstats_reply_parse(j, out, &n, &trunc, err);
	json_decref(j);
	return rc;
}

Test(ifwire, hostile_replies_are_refused)
{
	struct ix_err err = { 0 };
	const char *e = "\"up\":true,\"control\":false,\"rx_bytes\":1,\"tx_bytes\":1,"
			"\"rx_packets\":1,\"tx_packets\":1}";
	char buf[512];

	cr_assert_eq(parse_text("{\"version\":2,\"ifaces\":[]}", &err), -1);
	snprintf(buf, sizeof(buf), "{\"version\":1,\"ifaces\":[{\"name\":\"a\\u001b[2J\",%s]}", e);
	cr_assert_eq(parse_text(buf, &err), -1);
	cr_assert(strstr(err.msg, "entry 0 is malformed"));
	snprintf(buf, sizeof(buf),
		 "{\"version\":1,\"ifaces\":[{\"name\":\"averyverylongname0\",%s]}", e);
	cr_assert_eq(parse_text(buf, &err), -1);
	snprintf(buf, sizeof(buf),
		 "{\"version\":1,\"ifaces\":[{\"name\":\"a\",%s,{\"name\":\"a\",%s]}", e, e);
	cr_assert_eq(parse_text(buf, &err), -1);
	cr_assert(strstr(err.msg, "listed twice"));
	cr_assert_eq(parse_text("{\"version\":1,\"ifaces\":[{\"name\":\"a\",\"up\":true,"
				"\"control\":false,\"rx_bytes\":-1,\"tx_bytes\":1,"
				"\"rx_packets\":1,\"tx_packets\":1}]}",
				&err),
		     -1);
}
