/* Unit tests for report/json/cxl.c: a CXL host's memory devices (PCI
 * function, port, firmware, capacities, endpoint, both ends' protocols,
 * the issue when CXL.mem is off) and its bus (ports with parents and
 * dports, decoders with unread ranges as null, regions); and through
 * ix_json_read_topo what the server's tree needs of them back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/json/json.h"
#include "report/json/read.h"
#include "tests/unit/report/fixtures.h"

static const char *str(json_t *o, const char *path)
{
	json_t *v = json_object_get(o, path);

	cr_assert(json_is_string(v), "%s is not a string", path);
	return json_string_value(v);
}

Test(json_cxl, memdevs)
{
	struct ix_topo t;
	json_t *a, *m, *fb;

	ix_test_cxl_topo(&t, false);
	a = ix_json_cxl_memdevs(&t);
	cr_assert_eq(json_array_size(a), 1);
	m = json_array_get(a, 0);
	cr_assert_str_eq(str(m, "name"), "mem0");
	cr_assert_str_eq(str(m, "pci"), "0000:0d:00.0");
	cr_assert_str_eq(str(m, "port"), "0000:0c:00.0");
	cr_assert_str_eq(str(m, "firmware"), "BWFW VERSION 00");
	cr_assert_str_eq(str(m, "endpoint"), "endpoint2");
	cr_assert(json_is_null(json_object_get(m, "numa_node")));
	cr_assert_eq(json_integer_value(json_object_get(m, "serial")), 7);
	cr_assert_eq(json_integer_value(json_object_get(m, "pmem_bytes")), 256 << 20);
	cr_assert(json_is_true(json_object_get(m, "enabled")));
	cr_assert(json_is_null(json_object_get(m, "issue")));
	fb = json_object_get(json_object_get(m, "flexbus"), "device");
	cr_assert_str_eq(str(fb, "source"), "device");
	cr_assert(json_is_null(json_object_get(fb, "flit68")), "no flit mode in the device DVSEC");
	cr_assert_eq(json_array_size(json_object_get(fb, "enabled")), 2);
	fb = json_object_get(json_object_get(m, "flexbus"), "port");
	cr_assert_str_eq(str(fb, "source"), "flexbus");
	cr_assert(json_is_true(json_object_get(fb, "flit68")));
	json_decref(a);
	ix_topo_free(&t);

	ix_test_cxl_topo(&t, true);
	t.cxl.memdevs[0].port_fb.known = false;
	a = ix_json_cxl_memdevs(&t);
	m = json_array_get(a, 0);
	cr_assert(strstr(str(m, "issue"), "CXL.mem is not enabled"));
	cr_assert(json_is_null(json_object_get(json_object_get(m, "flexbus"), "port")));
	fb = json_object_get(json_object_get(m, "flexbus"), "device");
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(fb, "enabled"), 0)),
			 "io");
	json_decref(a);
	ix_topo_free(&t);
}

Test(json_cxl, bus)
{
	struct ix_topo t;
	json_t *b, *p, *d, *r;

	ix_test_cxl_topo(&t, false);
	b = ix_json_cxl_bus(&t.cxl);
	cr_assert(json_is_true(json_object_get(b, "read")));
	cr_assert(json_is_null(json_object_get(b, "note")));
	p = json_object_get(b, "ports");
	cr_assert_eq(json_array_size(p), 3);
	cr_assert_str_eq(str(json_array_get(p, 1), "kind"), "host_bridge");
	cr_assert_str_eq(str(json_array_get(p, 1), "parent"), "root0");
	cr_assert_str_eq(
		str(json_array_get(json_object_get(json_array_get(p, 1), "dports"), 0), "pci"),
		"0000:0c:00.0");
	cr_assert(
		json_is_null(json_object_get(
			json_array_get(json_object_get(json_array_get(p, 0), "dports"), 0), "pci")),
		"a host bridge's dport is no PCI function");
	cr_assert_str_eq(str(json_array_get(p, 2), "memdev"), "mem0");
	d = json_object_get(b, "decoders");
	cr_assert_eq(json_array_size(d), 3);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(d, 0), "size")), 4ll << 30);
	cr_assert(json_is_null(json_object_get(json_array_get(d, 0), "dpa_size")),
		  "all ones: not read");
	cr_assert(json_is_null(json_object_get(json_array_get(d, 0), "mode")));
	cr_assert_str_eq(str(json_array_get(d, 2), "mode"), "pmem");
	cr_assert_str_eq(str(json_array_get(d, 2), "region"), "region0");
	cr_assert_eq(json_array_size(json_object_get(json_array_get(d, 0), "capabilities")), 2);
	r = json_array_get(json_object_get(b, "regions"), 0);
	cr_assert_str_eq(str(r, "decoder"), "decoder0.0");
	cr_assert(json_is_true(json_object_get(r, "committed")));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(r, "targets"), 0)),
			 "decoder2.0");
	json_decref(b);
	ix_topo_free(&t);
}

Test(json_cxl, read_back)
{
	struct ix_topo t, back;
	struct ix_err err = { 0 };
	json_t *j, *m;

	ix_test_cxl_topo(&t, true);
	j = ix_json_topo(&t);
	cr_assert_eq(ix_json_read_topo(j, &back, &err), 0, "%s", err.msg);
	cr_assert_eq(back.cxl.nmemdevs, 1);
	cr_assert_str_eq(back.cxl.memdevs[0].name, "mem0");
	cr_assert_eq(back.cxl.memdevs[0].pci, 1);
	cr_assert_str_eq(back.cxl.memdevs[0].firmware, "BWFW VERSION 00");
	cr_assert(back.cxl.memdevs[0].dev_fb.known && back.cxl.memdevs[0].port_fb.known);
	cr_assert_eq(back.cxl.memdevs[0].dev_fb.status, IX_FLEXBUS_IO);
	cr_assert_eq(back.cxl.memdevs[0].port_fb.status & 7, IX_FLEXBUS_MEM | IX_FLEXBUS_IO);
	ix_topo_free(&back);
	/* A protocol that is none. */
	m = json_object_get(json_array_get(json_object_get(j, "cxl"), 0), "flexbus");
	json_array_append_new(json_object_get(json_object_get(m, "device"), "enabled"),
			      json_string("teleport"));
	cr_assert_eq(ix_json_read_topo(j, &back, &err), -1);
	cr_assert(strstr(err.msg, "topology.cxl[0].flexbus.device.enabled[1]"), "%s", err.msg);
	json_object_del(json_array_get(json_object_get(j, "cxl"), 0), "name");
	cr_assert_eq(ix_json_read_topo(j, &back, &err), -1);
	cr_assert(strstr(err.msg, "topology.cxl[0]") && strstr(err.msg, "name"), "%s", err.msg);
	json_decref(j);
	ix_topo_free(&t);
}
