/* Results built by hand for the renderer tests (report/json, report/text):
 * the same structs go through both renderers. */
#ifndef IX_TEST_REPORT_FIXTURES_H
#define IX_TEST_REPORT_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "probes/capture/talkers.h"
#include "probes/cluster/fleet.h"
#include "probes/cluster/multi.h"
#include "probes/cluster/rails.h"
#include "probes/host/links.h"
#include "probes/host/topo.h"
#include "probes/mem/mem.h"
#include "tests/unit/data.h"

static struct ix_host hostv[3] = { { "n1", 5301, 0, "" },
				   { "n2", 5301, 0, "" },
				   { "n3", 6000, 0, "" } };
static struct ix_hostlist hosts = { hostv, 3, 3 };

/* r's cells (again) from a plain 3 x 3 array, every ordered pair kept. */
static inline void mesh_cells(struct ix_mesh_result *r, const struct ix_cell *cells)
{
	ix_cells_free(&r->cells);
	cr_assert_eq(ix_cells_load(&r->cells, cells, r->n, IX_CELLS_FULL), 0);
}

/* n1 <-> n2 fast, everything with n3 slow; n3 suspect; one pair failed:
 * cells holds them, copied into r (mesh_cells after a change). */
static inline void mesh(struct ix_mesh_result *r, struct ix_cell *cells, struct ix_mesh_node *nodes,
			char **errs, uint32_t *suspects)
{
	memset(r, 0, sizeof(*r));
	memset(cells, 0, 9 * sizeof(*cells));
	memset(nodes, 0, 3 * sizeof(*nodes));
	r->params.tests = IX_MESH_BW | IX_MESH_LAT;
	r->params.bw.path = "tcp";
	r->params.lat.path = "tcp";
	r->params.rules = (struct ix_mesh_rules){ 0.7, 2.0, 50, 0, 0 };
	r->hosts = &hosts;
	r->n = 3;
	r->nodes = nodes;
	r->node_error = errs;
	for (int i = 0; i < 9; i++)
		cells[i].state = i % 4 == 0 ? IX_CELL_NONE : IX_CELL_PENDING;
	cells[0 * 3 + 1] = (struct ix_cell){ 9e9, 5000, 6000, IX_CELL_OK, 0, 0, 0, 0, 0 };
	cells[0 * 3 + 2] = (struct ix_cell){ 1e9, 5000, 6000, IX_CELL_OK, 1, 1, 0, 0, 0 };
	cells[1 * 3 + 2] = (struct ix_cell){ 0, 0, 0, IX_CELL_FAILED, 0, 0, 0, 0, 0 };
	mesh_cells(r, cells);
	r->findings = (struct ix_mesh_findings){ .bad_pairs = 1,
						 .median_bw_bps = 5e9,
						 .min_lat_ns = 5000,
						 .lat_baseline_ns = 5000,
						 .lat_pairs = 2,
						 .bw_fraction = 0.7,
						 .lat_factor = 2.0,
						 .lat_percentile = 50,
						 .suspects = suspects,
						 .nsuspects = 1 };
	suspects[0] = 2;
	nodes[2].suspect = true;
	nodes[2].bad = 1;
	nodes[2].measured = 1;
	r->rounds = 3;
	r->pairs_planned = 3;
	r->pairs_measured = 2;
	r->pairs_failed = 1;
}

/* A NIC whose PCIe link trained Gen1 x1 of Gen3 x4: 2 Gbit/s, below
 * its 25 Gbit/s line. */
static inline struct ix_link_limit slow_pcie(const char *iface)
{
	struct ix_link_limit l = {
		.bps = 25e9,
		.source = "ethtool speed",
		.pcie = { .known = true,
			  .bdf = "0000:3b:00.0",
			  .gen = 1,
			  .width = 1,
			  .expected_gen = 3,
			  .expected_width = 4,
			  .bps = 2e9,
			  .downtrained = true },
		.ceiling_bps = 2e9,
		.bottleneck = "pcie",
	};

	snprintf(l.iface, sizeof(l.iface), "%s", iface);
	return l;
}

/* A 10 Gbit/s link with no PCIe figure (a virtual function, veth). */
static inline struct ix_link_limit plain_link(const char *iface)
{
	struct ix_link_limit l = {
		.bps = 10e9, .source = "ethtool speed", .ceiling_bps = 10e9, .bottleneck = "link"
	};

	snprintf(l.iface, sizeof(l.iface), "%s", iface);
	return l;
}

/* One stream-mode step of two senders: 8 Gbit/s, Jain index 0.8. */
static inline void incast(struct ix_incast_result *r)
{
	static struct ix_incast_flow flows[2] = { { 1, true, 6e9, { true, 3 }, { false, 0 }, "" },
						  { 2, true, 2e9, { true, 9 }, { false, 0 }, "" } };
	static struct ix_incast_step step = {
		.point = { 2, 8e9, 0, 0, 12 }, .ok = true, .jain = 0.8, .flows = flows, .nflows = 2
	};

	memset(r, 0, sizeof(*r));
	r->hosts = &hosts;
	r->steps = &step;
	r->nsteps = 1;
	r->params.mode = IX_INCAST_STREAM;
	r->params.bw.path = "tcp";
	r->params.read.path = "tcp";
	r->complete = true;
	snprintf(r->diagnosis, sizeof(r->diagnosis), "goodput holds");
}

static inline void model(struct ix_top_model *m, bool both)
{
	char basic[4096];
	struct ix_err err = { 0 };

	snprintf(basic, sizeof(basic), "%s", ix_test_data("sysfs/basic"));
	cr_assert_eq(ix_top_model_init(m, NULL, &err), 0);
	cr_assert_eq(ix_top_model_sample(m, basic, 1000000000, &err), 0, "%s", err.msg);
	if (both)
		cr_assert_eq(ix_top_model_sample(m, ix_test_data("sysfs/basic2"), 3000000000, &err),
			     0, "%s", err.msg);
}

/* a -> b 3000 bytes, b -> a 500, then a -> b 2000 more over 2 s. */
static inline struct ix_talkers *traffic(struct ix_talkers_view *v, bool second)
{
	struct ix_talkers *t = ix_talkers_new(0, NULL);
	uint8_t a[16] = { 10, 0, 0, 1 }, b[16] = { 10, 0, 0, 2 };

	cr_assert_not_null(t);
	ix_talkers_add(t, 4, a, b, 3000, 1);
	ix_talkers_add(t, 4, b, a, 500, 2);
	cr_assert_eq(ix_talkers_snapshot(t, 1000000000, v, NULL), 0);
	if (second) {
		ix_talkers_view_free(v);
		ix_talkers_add(t, 4, a, b, 2000, 3);
		cr_assert_eq(ix_talkers_snapshot(t, 3000000000, v, NULL), 0);
	}
	return t;
}

/* What fn writes to a stream, as a string (free it). */
static inline char *ix_test_render(void (*fn)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fn(f, arg);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* n1, n2 and n3 with one NIC each: n2's on other firmware, n3's trained
 * at Gen4 x8 with its finding (a message with markup in it); n1 and n3
 * agree on everything else. With failed, n1 never answered. */
static inline void fleet(struct ix_fleet_result *r, bool failed)
{
	cr_assert_eq(ix_fleet_init(r, &hosts), 0);
	for (uint32_t i = 0; i < r->n; i++) {
		struct ix_node_inv *inv = &r->nodes[i].inv;
		struct ix_inv_nic *c = &inv->nics[0];

		r->nodes[i].ok = true;
		r->nodes[i].error[0] = '\0';
		snprintf(inv->kernel, sizeof(inv->kernel), "6.1.0-18-amd64");
		snprintf(inv->verbs, sizeof(inv->verbs), "libibverbs.so.1.14.44.0");
		inv->nnics = 1;
		snprintf(c->name, sizeof(c->name), "ibp1s0");
		snprintf(c->bdf, sizeof(c->bdf), "0000:01:00.0");
		snprintf(c->model, sizeof(c->model), "MT4129");
		snprintf(c->fw, sizeof(c->fw), i == 1 ? "28.36.1010" : "28.39.1002");
		snprintf(c->driver, sizeof(c->driver), "mlx5_core");
		c->mtu_known = true;
		c->mtu = 4092;
		c->numa_node = 0;
		c->pcie = (struct ix_inv_pcie){
			true, i == 2 ? 4 : 5, i == 2 ? 8 : 16, 5, 16, i == 2
		};
		/* Its NIC on the rail 10.1.0.0/24, behind leaf-r1. */
		inv->naddrs = 1;
		snprintf(inv->addrs[0].iface, sizeof(inv->addrs[0].iface), "ibp1s0");
		inv->addrs[0].family = AF_INET;
		snprintf(inv->addrs[0].addr, sizeof(inv->addrs[0].addr), "10.1.0.%u", i + 1);
		inv->addrs[0].prefix = 24;
		snprintf(inv->addrs[0].rdma, sizeof(inv->addrs[0].rdma), "mlx5_0");
		snprintf(inv->addrs[0].leaf, sizeof(inv->addrs[0].leaf), "leaf-r1");
	}
	r->nodes[2].inv.nfindings = r->nodes[2].inv.findings_total = 1;
	snprintf(r->nodes[2].inv.findings[0].kind, sizeof(r->nodes[2].inv.findings[0].kind),
		 "pcie_downtrained");
	snprintf(r->nodes[2].inv.findings[0].device, sizeof(r->nodes[2].inv.findings[0].device),
		 "0000:01:00.0");
	snprintf(r->nodes[2].inv.findings[0].message, sizeof(r->nodes[2].inv.findings[0].message),
		 "trained at Gen4 x8 <b>below</b>\x1b[2J Gen5 x16.");
	if (failed) {
		r->nodes[0].ok = false;
		snprintf(r->nodes[0].error, sizeof(r->nodes[0].error),
			 "no answer before the deadline");
	}
	cr_assert_eq(ix_fleet_analyze(r), 0);
}

/* Two rails over n1, n2 and n3 (node i is host i of both): rail 0
 * (10.1.0.0/24 on eth1) the mesh above, rail 1 (10.2.0.0/24 on eth2) the
 * same at a fifth of its median: judged, rail 1 is bad. The meshes' parts
 * are the caller's, two of each. */
struct rails_fixture {
	struct ix_rails rails;
	struct ix_rails_result r;
	struct ix_cell cells[2][9];
	struct ix_mesh_node nodes[2][3];
	char *errs[2][3];
	uint32_t suspects[2][1];
	uint32_t node_of[2][3];
	struct ix_rails_node sums[3];
};

static inline void rails(struct rails_fixture *x)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->rails.how, sizeof(x->rails.how), "subnet");
	x->rails.n = 2;
	x->r.rails = &x->rails;
	x->r.nodes = &hosts;
	x->r.node = x->sums;
	x->r.wall_s = 4.5;
	for (int k = 0; k < 2; k++) {
		struct ix_rail *rl = &x->rails.rail[k];

		snprintf(rl->name, sizeof(rl->name), "10.%d.0.0/24", k + 1);
		snprintf(rl->iface, sizeof(rl->iface), "eth%d", k + 1);
		for (int i = 0; i < 3; i++)
			x->node_of[k][i] = (uint32_t)i;
		rl->node = x->node_of[k];
		rl->hosts.n = 3;
		mesh(&x->r.mesh[k], x->cells[k], x->nodes[k], x->errs[k], x->suspects[k]);
		x->r.mesh[k].complete = true;
		for (int i = 0; i < 3; i++) {
			x->nodes[k][i].have_bw_out = true;
			x->nodes[k][i].bw_out_bps = k ? 1e9 : 5e9;
		}
	}
	x->r.mesh[1].findings.median_bw_bps = 1e9;
	ix_rails_judge(&x->r, &x->r.mesh[0].params.rules);
}

/* A mem result: node 0 (CPUs 0-1, HMAT class 1: 90 ns, 20000 MB/s), node 1
 * (no CPUs, class 0 from node 0: 250 ns, 8000 MB/s), node 2 (no CPUs, no
 * HMAT). 0 -> 0 measured with huge pages and a curve; 0 -> 1 measured over
 * 4 KiB pages, slower than advertised; 0 -> 2 not measured. cells has
 * room for 3. */
/* A measured cell: read, write, nt_write, copy (bytes/s), latency, placed. */
static inline void mem_measured(struct ix_mem_cell *c, const double bw[IX_MEM_NKINDS], double lat,
				double placed)
{
	c->measured = true;
	for (int k = 0; k < IX_MEM_NKINDS; k++)
		c->bw[k] = bw[k];
	c->lat_ns = lat;
	c->placed = placed;
}

static inline void ix_test_mem_result(struct ix_mem_result *r, struct ix_mem_cell *cells)
{
	memset(r, 0, sizeof(*r));
	r->params = (struct ix_mem_params){ .time_s = 0.5, .slack = 0.25, .tests = IX_MEM_T_ALL };
	r->complete = true;
	r->nt_stores = true;
	r->llc_bytes = 32u << 20;
	r->nnodes = 3;
	r->nodes[0] = (struct ix_mem_node){ .id = 0,
					    .cpus = "0-1",
					    .ncpus = 2,
					    .mem_known = true,
					    .mem_bytes = 16ull << 30,
					    .free_bytes = 8ull << 30 };
	r->nodes[0].access[1] = (struct ix_hmat){ .present = true,
						  .read_mbps = 20000,
						  .write_mbps = 20000,
						  .read_ns = 90,
						  .write_ns = 90,
						  .initiators = 1 };
	r->nodes[1] = (struct ix_mem_node){
		.id = 1, .mem_known = true, .mem_bytes = 64ull << 30, .free_bytes = 64ull << 30
	};
	r->nodes[1].access[0] = (struct ix_hmat){ .present = true,
						  .read_mbps = 8000,
						  .write_mbps = 8000,
						  .read_ns = 250,
						  .initiators = 1 };
	r->nodes[2] = (struct ix_mem_node){
		.id = 2, .mem_known = true, .mem_bytes = 1ull << 30, .free_bytes = 10ull << 20
	};
	for (int i = 0; i < 3; i++) {
		cells[i] = (struct ix_mem_cell){ .initiator = 0,
						 .target = i,
						 .threads = 2,
						 .buf_bytes = 64u << 20,
						 .lat_bytes = 256u << 20,
						 .lat_ns = -1,
						 .placed = -1 };
		for (int k = 0; k < IX_MEM_NKINDS; k++)
			cells[i].bw[k] = -1;
	}
	mem_measured(&cells[0], (const double[]){ 18e9, 9e9, 17e9, 8e9 }, 95.5, 1);
	cells[0].pages = (struct ix_mem_pages){
		.page_bytes = 4096, .huge_bytes = 256u << 20, .huge_asked = true, .thp = "madvise"
	};
	cells[0].ncurve = 3;
	cells[0].curve[0] = (struct ix_mem_point){ .lat_ns = 95.5 };
	cells[0].curve[1] =
		(struct ix_mem_point){ .delay_ns = 500, .load_Bps = 4e9, .lat_ns = 101 };
	cells[0].curve[2] = (struct ix_mem_point){ .delay_ns = 0, .load_Bps = 16e9, .lat_ns = 180 };
	mem_measured(&cells[1], (const double[]){ 4e9, 2e9, 3e9, 1.5e9 }, 400, 0.5);
	cells[1].pages =
		(struct ix_mem_pages){ .page_bytes = 4096, .huge_asked = true, .thp = "never" };
	snprintf(cells[2].why, sizeof(cells[2].why),
		 "node 2 has 10 MiB free; the test needs 384 MiB and leaves 64");
	r->cells = cells;
	r->ncells = 3;
	ix_mem_compare(r);
}

/* A host as QEMU's CXL machine lays it out, by hand: root port
 * 0000:0c:00.0 and below it mem0 on 0000:0d:00.0 (Gen1 x1), nodes 0 (CPUs,
 * HMAT 10 ns, 10240 MB/s) and 1 (CPU-less, HMAT class 0 from node 0: 30
 * ns, 5120 MB/s); root0, port1 (a host bridge) and endpoint2; decoders
 * 0.0 (4 GiB window), 1.0 and 2.0 (pmem, region0); region0 committed.
 * With mem_off, mem0's CXL.mem is off while its port has it on. Free t
 * with ix_topo_free. */
static inline void ix_test_cxl_topo(struct ix_topo *t, bool mem_off)
{
	struct ix_cxl *c = &t->cxl;
	const struct ix_pci_link l1 = { .present = true,
					.speed_gts = 2.5,
					.max_speed_gts = 2.5,
					.gen = 1,
					.max_gen = 1,
					.width = 1,
					.max_width = 1,
					.expected_gen = 1,
					.expected_width = 1,
					.bps = 2e9,
					.max_bps = 2e9,
					.expected_bps = 2e9 };

	memset(t, 0, sizeof(*t));
	t->pci.n = 2;
	t->pci.v = calloc(2, sizeof(*t->pci.v));
	t->nnuma = 2;
	t->numa = calloc(2, sizeof(*t->numa));
	c->memdevs = calloc(1, sizeof(*c->memdevs));
	c->ports = calloc(3, sizeof(*c->ports));
	c->decoders = calloc(3, sizeof(*c->decoders));
	c->regions = calloc(1, sizeof(*c->regions));
	cr_assert(t->pci.v && t->numa && c->memdevs && c->ports && c->decoders && c->regions);
	t->pci.v[0] = (struct ix_pci_dev){ .bdf = "0000:0c:00.0",
					   .vendor = 0x8086,
					   .device = 0x7075,
					   .type = IX_PCI_ROOT_PORT,
					   .numa_node = -1,
					   .parent = -1,
					   .sw = -1,
					   .host_bridge = "pci0000:0c",
					   .below_host_bridge = true,
					   .link = l1 };
	t->pci.v[1] = (struct ix_pci_dev){ .bdf = "0000:0d:00.0",
					   .vendor = 0x8086,
					   .device = 0x0d93,
					   .type = IX_PCI_CXL,
					   .driver = "cxl_pci",
					   .numa_node = -1,
					   .parent = 0,
					   .sw = -1,
					   .host_bridge = "pci0000:0c",
					   .depth = 1,
					   .link = l1 };
	t->numa[0] = (struct ix_numa_node){
		.node = 0, .cpus = "0-1", .memory_known = true, .memory_bytes = 1ull << 30
	};
	t->numa[1] = (struct ix_numa_node){ .node = 1,
					    .memory_known = true,
					    .memory_bytes = 1ull << 30 };
	t->numa[0].access[0] = t->numa[0].access[1] = (struct ix_hmat){ .present = true,
									.read_mbps = 10240,
									.write_mbps = 10240,
									.read_ns = 10,
									.write_ns = 10,
									.initiators = 1 };
	t->numa[1].access[0] = (struct ix_hmat){
		.present = true, .read_mbps = 5120, .read_ns = 30, .initiators = 1
	};
	c->tree = true;
	c->nmemdevs = 1;
	c->memdevs[0] = (struct ix_cxl_memdev){ .name = "mem0",
						.host = "0000:0d:00.0",
						.pci = 1,
						.numa_node = -1,
						.firmware = "BWFW VERSION 00",
						.serial_known = true,
						.serial = 7,
						.pmem_bytes = 256ull << 20,
						.enabled = true,
						.endpoint = 2,
						.port = "0000:0c:00.0" };
	c->memdevs[0].dev_fb = (struct ix_cxl_flexbus){
		.known = true, .dvsec = 0, .cap = 0x06, .status = mem_off ? 0x02 : 0x06
	};
	c->memdevs[0].port_fb =
		(struct ix_cxl_flexbus){ .known = true, .dvsec = 7, .cap = 0x26, .status = 0x26 };
	c->nports = 3;
	c->ports[0] = (struct ix_cxl_port){ .name = "root0",
					    .kind = IX_CXL_ROOT,
					    .parent = -1,
					    .host = "ACPI0017:00",
					    .memdev = -1,
					    .ndports = 1 };
	snprintf(c->ports[0].dports[0].name, IX_CXL_NAME, "ACPI0016:00");
	c->ports[1] = (struct ix_cxl_port){ .name = "port1",
					    .kind = IX_CXL_HOST_BRIDGE,
					    .parent = 0,
					    .depth = 1,
					    .enabled = true,
					    .host = "ACPI0016:00",
					    .memdev = -1,
					    .ndports = 1 };
	c->ports[1].dports[0] = (struct ix_cxl_dport){ "0000:0c:00.0", "0000:0c:00.0" };
	c->ports[2] = (struct ix_cxl_port){ .name = "endpoint2",
					    .kind = IX_CXL_ENDPOINT,
					    .parent = 1,
					    .depth = 2,
					    .enabled = true,
					    .host = "mem0",
					    .memdev = 0 };
	c->ndecoders = 3;
	c->decoders[0] = (struct ix_cxl_decoder){ .name = "decoder0.0",
						  .port = 0,
						  .base = 0x290000000ull,
						  .size = 4ull << 30,
						  .dpa_base = UINT64_MAX,
						  .dpa_size = UINT64_MAX,
						  .target_type = "expander",
						  .ram = true,
						  .pmem = true,
						  .ways = 1,
						  .granularity = 256,
						  .ntargets = 1 };
	snprintf(c->decoders[0].targets[0], IX_CXL_NAME, "ACPI0016:00");
	c->decoders[1] = (struct ix_cxl_decoder){ .name = "decoder1.0",
						  .port = 1,
						  .base = 0x290000000ull,
						  .size = 256ull << 20,
						  .dpa_base = UINT64_MAX,
						  .dpa_size = UINT64_MAX,
						  .ways = 1,
						  .granularity = 256,
						  .ntargets = 1,
						  .region = "region0" };
	snprintf(c->decoders[1].targets[0], IX_CXL_NAME, "0000:0c:00.0");
	c->decoders[2] = (struct ix_cxl_decoder){ .name = "decoder2.0",
						  .port = 2,
						  .base = 0x290000000ull,
						  .size = 256ull << 20,
						  .dpa_base = 0,
						  .dpa_size = 256ull << 20,
						  .mode = "pmem",
						  .ways = 1,
						  .granularity = 256,
						  .region = "region0" };
	c->nregions = 1;
	c->regions[0] = (struct ix_cxl_region){ .name = "region0",
						.decoder = "decoder0.0",
						.base = 0x290000000ull,
						.size = 256ull << 20,
						.ways = 1,
						.granularity = 256,
						.committed = true,
						.enabled = true,
						.ntargets = 1 };
	snprintf(c->regions[0].targets[0], IX_CXL_NAME, "decoder2.0");
}

#endif
