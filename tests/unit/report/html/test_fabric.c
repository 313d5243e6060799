/* Unit tests for report/html/fabric.c: tests/data/mesh.json (4 hosts) given
 * two leaf switches as LLDP neighbours and the pairs between them slowed
 * down here (made-up figures): the SVG holds every host, marks both
 * uplinks and keeps a hostile switch name as text; a mesh that does not
 * read back says why instead. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/html/html.h"

static json_t *doc;

static json_t *mesh_doc(void)
{
	char path[512], *top = getenv("top_srcdir");
	json_error_t jerr;
	json_t *r, *bw;

	snprintf(path, sizeof(path), "%s/tests/data/mesh.json", top && *top ? top : ".");
	doc = json_load_file(path, 0, &jerr);
	cr_assert_not_null(doc, "%s: %s", path, jerr.text);
	r = json_array_get(json_object_get(doc, "results"), 0);
	bw = json_object_get(json_object_get(r, "matrix"), "bw_bps");
	for (size_t a = 0; a < 4; a++) {
		json_t *nd = json_array_get(json_object_get(r, "nodes"), a);
		char chassis[32], port[16];

		for (size_t b = 0; b < 4; b++)
			if (json_is_number(json_array_get(json_array_get(bw, a), b)))
				json_array_set_new(json_array_get(bw, a), b,
						   json_real(a / 2 == b / 2 ? 10e9 : 1e9));
		snprintf(chassis, sizeof(chassis), "02:00:00:00:00:0%zu", a / 2);
		snprintf(port, sizeof(port), "swp%zu", a + 1);
		json_object_set_new(nd, "link",
				    json_pack("{s:s,s:n,s:s,s:n,s:n,s:n,s:{s:s,s:s,s:s,s:s}}",
					      "iface", "eth0", "bps", "source", "unknown", "pcie",
					      "ceiling_bps", "bottleneck", "neighbor", "source",
					      "lldp", "chassis", chassis, "name",
					      a / 2 ? "<b>leaf-b" : "leaf-a", "port", port));
	}
	return r;
}

/* The fabric's HTML of r into *buf (the caller frees it). */
static void html_of(json_t *r, char **buf)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);

	cr_assert_not_null(f);
	ix_html_fabric(f, r);
	fclose(f);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0, at = 0;
	const char *p;

	while ((p = strstr(s + at, what)) != NULL) {
		n++;
		at = (size_t)(p - s) + 1;
	}
	return n;
}

Test(fabric, the_svg)
{
	json_t *r = mesh_doc();
	char *buf = NULL;

	html_of(r, &buf);
	cr_assert_not_null(strstr(buf, "<h3>Fabric (4 hosts under 2 switches, from LLDP)</h3>"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "<svg class=\"fabric\""), "%s", buf);
	cr_assert_eq(count(buf, "<rect class=\"host\""), 4, "%s", buf);
	cr_assert_not_null(strstr(buf, "<g class=\"sw bad\"><title>leaf-a uplink: out 1.00 Gbit/s"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "<g class=\"sw bad\"><title>&lt;b&gt;leaf-b uplink: "), "%s",
			   buf);
	cr_assert_null(strstr(buf, "<b>leaf"), "the switch's name stays text: %s", buf);
	cr_assert_not_null(strstr(buf, "<title>127.0.0.1:6201 on leaf-a port swp1: out "), "%s",
			   buf);
	cr_assert_eq(count(buf, "<li><b>BAD</b> "), 2, "%s", buf);
	free(buf);
	json_decref(doc);
}

Test(fabric, a_mesh_that_does_not_read_back)
{
	json_t *r = mesh_doc();
	char *buf = NULL;

	json_object_set_new(json_object_get(r, "matrix"), "state", json_string("x"));
	html_of(r, &buf);
	cr_assert_not_null(strstr(buf, "<p class=\"muted\">fabric not drawn: "), "%s", buf);
	cr_assert_null(strstr(buf, "<svg"), "%s", buf);
	free(buf);
	json_decref(doc);
}
