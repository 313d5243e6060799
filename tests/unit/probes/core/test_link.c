/* Unit tests for probes/core/link.c: a link as JSON and back, what a
 * malformed one from the wire gets, and the lower end of a path. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/core/link.h"

static struct ix_link_limit downtrained(void)
{
	return (struct ix_link_limit){
		.iface = "ibp1s0",
		.bps = 400e9,
		.source = "infiniband rate",
		.pcie = { .known = true,
			  .bdf = "0000:01:00.0",
			  .gen = 4,
			  .width = 8,
			  .expected_gen = 5,
			  .expected_width = 16,
			  .bps = 126.03e9,
			  .downtrained = true },
		.ceiling_bps = 126.03e9,
		.bottleneck = "pcie",
		.neighbor = { .source = "lldp",
			      .chassis = "02:bd:f8:ed:32:4a",
			      .name = "leaf-a",
			      .port = "swp3" },
	};
}

Test(link, json_round_trip)
{
	struct ix_link_limit a = downtrained(), b;
	json_t *j = ix_link_json(&a);
	struct ix_err err = { 0 };

	cr_assert_eq(ix_link_parse(j, &b, &err), 0, "%s", err.msg);
	cr_assert_str_eq(b.iface, "ibp1s0");
	cr_assert_str_eq(b.source, "infiniband rate");
	cr_assert_float_eq(b.bps, 400e9, 1);
	cr_assert(b.pcie.known);
	cr_assert_str_eq(b.pcie.bdf, "0000:01:00.0");
	cr_assert_eq(b.pcie.gen, 4);
	cr_assert_eq(b.pcie.width, 8);
	cr_assert_eq(b.pcie.expected_gen, 5);
	cr_assert_eq(b.pcie.expected_width, 16);
	cr_assert(b.pcie.downtrained);
	cr_assert_float_eq(b.ceiling_bps, 126.03e9, 1);
	cr_assert_str_eq(b.bottleneck, "pcie");
	cr_assert_str_eq(b.neighbor.source, "lldp");
	cr_assert_str_eq(b.neighbor.chassis, "02:bd:f8:ed:32:4a");
	cr_assert_str_eq(b.neighbor.name, "leaf-a");
	cr_assert_str_eq(b.neighbor.port, "swp3");
	json_decref(j);
}

Test(link, unknown_link_is_null_and_back)
{
	struct ix_link_limit none = { .bps = 0 }, b;
	json_t *j = ix_link_json(&none);

	cr_assert(json_is_null(j));
	cr_assert_eq(ix_link_parse(j, &b, NULL), 0);
	cr_assert_str_eq(b.iface, "");
	cr_assert_eq(ix_link_ceiling(&b), 0);
	json_decref(j);
	cr_assert_eq(ix_link_parse(NULL, &b, NULL), 0);
}

/* What a hostile peer could send is refused with a reason, never kept. */
Test(link, malformed_is_refused)
{
	static const char *bad[] = {
		"[]",
		"{\"bps\": 1e9}",
		"{\"iface\": 7}",
		"{\"iface\": \"eth0\", \"bps\": -1}",
		"{\"iface\": \"eth0\", \"bps\": \"fast\"}",
		"{\"iface\": \"eth0\", \"bottleneck\": \"cpu\"}",
		"{\"iface\": \"eth\\u0001\"}",
		"{\"iface\": \"eth0\", \"pcie\": 3}",
		"{\"iface\": \"eth0\", \"neighbor\": \"leaf-a\"}",
		"{\"iface\": \"eth0\", \"neighbor\": {\"source\": \"cdp\", \"chassis\": \"x\"}}",
		"{\"iface\": \"eth0\", \"neighbor\": {\"source\": \"lldp\", \"chassis\": \"\"}}",
		"{\"iface\": \"eth0\", \"neighbor\": {\"source\": \"lldp\", \"chassis\": \"x\", "
		"\"port\": \"sw\\u001bp1\"}}",
		"{\"iface\": \"eth0\", \"pcie\": {\"bdf\": \"x\", \"gen\": 99999, \"width\": 8, "
		"\"expected_gen\": 4, \"expected_width\": 8, \"bps\": 1}}",
		"{\"iface\": \"eth0\", \"pcie\": {\"bdf\": \"x\", \"gen\": 4, \"width\": 8, "
		"\"expected_gen\": 4, \"expected_width\": 8, \"bps\": 1, \"downtrained\": 1}}",
		"{\"iface\": "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}",
		"{\"iface\": \"ib0\", \"port_guid\": \"0x0x00000000001234\"}",
		"{\"iface\": \"ib0\", \"port_guid\": \"0x00000000001234\"}",
		"{\"iface\": \"ib0\", \"port_guid\": 4660}",
		"{\"iface\": \"ib0\", \"port_guid\": \"0x000000000000123g\"}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *j = json_loads(bad[i], 0, NULL);
		struct ix_link_limit l;
		struct ix_err err = { 0 };

		cr_assert_not_null(j, "%s", bad[i]);
		cr_assert_eq(ix_link_parse(j, &l, &err), -1, "accepted %s", bad[i]);
		cr_assert(strstr(err.msg, "link"), "%s: %s", bad[i], err.msg);
		cr_assert_str_eq(l.iface, "", "%s", bad[i]);
		json_decref(j);
	}
}

Test(link, an_infiniband_port_and_its_switch_round_trip)
{
	struct ix_link_limit a = { .iface = "ib0",
				   .source = "infiniband rate",
				   .port_guid = 0x0002c90300a1b2c3ull,
				   .neighbor = { .source = "ib",
						 .chassis = "ib 0x0002c90300ffee01",
						 .name = "leaf1",
						 .port = "7" } },
			     b;
	struct ix_err err = { 0 };
	json_t *j = ix_link_json(&a);

	cr_assert_str_eq(json_string_value(json_object_get(j, "port_guid")), "0x0002c90300a1b2c3");
	cr_assert_eq(ix_link_parse(j, &b, &err), 0, "%s", err.msg);
	cr_assert_eq(b.port_guid, a.port_guid);
	cr_assert_str_eq(b.neighbor.source, "ib");
	cr_assert_str_eq(b.neighbor.chassis, "ib 0x0002c90300ffee01");
	json_decref(j);
	a.port_guid = 0; /* not InfiniBand: no member */
	j = ix_link_json(&a);
	cr_assert_null(json_object_get(j, "port_guid"));
	json_decref(j);
}

Test(link, the_lower_end_is_the_path_ceiling)
{
	struct ix_link_limit pcie = downtrained(), eth = { .iface = "eth0", .bps = 200e9 },
			     none = { .bps = 0 };

	cr_assert_eq(ix_link_lower(&pcie, &eth), &pcie);
	cr_assert_eq(ix_link_lower(&eth, &pcie), &pcie);
	cr_assert_eq(ix_link_lower(&none, &eth), &eth);
	cr_assert_eq(ix_link_lower(&eth, &none), &eth);
	cr_assert_null(ix_link_lower(&none, &none));
	cr_assert_null(ix_link_lower(NULL, NULL));
	/* A tie keeps the first: this end's. */
	cr_assert_eq(ix_link_lower(&eth, &(struct ix_link_limit){ .bps = 200e9 }), &eth);
	/* No PCIe figure: the line rate is the ceiling. */
	cr_assert_float_eq(ix_link_ceiling(&eth), 200e9, 1);
	cr_assert_float_eq(ix_link_ceiling(&pcie), 126.03e9, 1);
}

/* The ceiling is the lowest of the line, the NIC's PCIe link and, with
 * GPU buffers, the GPU's; the line wins a tie. */
Test(link, settle_picks_the_lowest)
{
	struct ix_link_limit l = { .iface = "eth0", .bps = 100e9 };

	ix_link_settle(&l);
	cr_assert_float_eq(l.ceiling_bps, 100e9, 1);
	cr_assert_str_eq(l.bottleneck, "link");
	l.pcie = (struct ix_link_pcie){ .known = true, .gen = 4, .width = 4, .bps = 63e9 };
	ix_link_settle(&l);
	cr_assert_float_eq(l.ceiling_bps, 63e9, 1);
	cr_assert_str_eq(l.bottleneck, "pcie");
	l.gpu = (struct ix_link_pcie){ .known = true, .gen = 3, .width = 4, .bps = 31.5e9 };
	ix_link_settle(&l);
	cr_assert_float_eq(l.ceiling_bps, 31.5e9, 1);
	cr_assert_str_eq(l.bottleneck, "gpu");
	l.gpu.bps = 100e9;
	l.pcie.bps = 100e9;
	ix_link_settle(&l);
	cr_assert_str_eq(l.bottleneck, "link");
	/* No line rate: the PCIe link alone. */
	l = (struct ix_link_limit){
		.iface = "ib0", .pcie = { .known = true, .gen = 5, .width = 16, .bps = 504e9 }
	};
	ix_link_settle(&l);
	cr_assert_float_eq(l.ceiling_bps, 504e9, 1);
	cr_assert_str_eq(l.bottleneck, "pcie");
	l.pcie.known = false;
	ix_link_settle(&l);
	cr_assert_eq(l.ceiling_bps, 0);
	cr_assert_str_eq(l.bottleneck, "");
}

Test(link, the_gpus_link_round_trips)
{
	struct ix_link_limit a = downtrained(), b;
	json_t *j;

	a.gpu = (struct ix_link_pcie){ .known = true,
				       .bdf = "0000:18:00.0",
				       .gen = 3,
				       .width = 8,
				       .expected_gen = 5,
				       .expected_width = 16,
				       .bps = 63e9,
				       .downtrained = true };
	ix_link_settle(&a);
	j = ix_link_json(&a);
	cr_assert_str_eq(json_string_value(json_object_get(j, "bottleneck")), "gpu");
	cr_assert_eq(ix_link_parse(j, &b, NULL), 0);
	cr_assert(b.gpu.known && b.gpu.downtrained);
	cr_assert_str_eq(b.gpu.bdf, "0000:18:00.0");
	cr_assert_str_eq(b.bottleneck, "gpu");
	json_decref(j);
	/* Host buffers: no gpu_pcie member at all. */
	a.gpu.known = false;
	j = ix_link_json(&a);
	cr_assert_null(json_object_get(j, "gpu_pcie"));
	json_decref(j);
}
