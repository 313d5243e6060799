/* The RDMA session's device on real hardware: port choice, GID and
 * placement from sysfs (setup.c), queue pairs and buffers through the
 * verbs layer (verbs.c), and the engine's operations of rdma.c. */
#include "config.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "probes/gpu/gpu.h"
#include "probes/host/fabric.h"
#include "probes/host/inventory.h"
#include "probes/host/links.h"
#include "probes/host/sysfs.h"
#include "probes/host/topo.h"
#include "probes/host/ibnbr.h"
#include "probes/rdma/access.h"
#include "probes/rdma/rdma.h"
#include "probes/rdma/session.h"
#include "probes/rdma/team.h"

#define MAX_PORTS 64

struct hw_dev {
	char root[PATH_MAX];
	struct ix_verbs_port port; /* the one chosen */
	struct ix_rdma_gid gid;
	struct ix_rdma_params p;
	struct ix_verbs *v;
	struct ix_rdma_hw engine;
	cpu_set_t saved; /* the thread's CPUs before placement */
	bool pinned;
	/* GPUDirect RDMA: the buffer in GPU gpu's memory, -1: host memory. */
	int gpu;
	struct ix_gpu_ctx gctx;
	struct ix_gpu_buf gbuf;
	bool gpu_open, gbuf_alloc;
	int dmabuf_fd;
	/* gpu auto: what was found ("nearest mlx5_2 (PIX)", "no GPU here") */
	char gpu_auto[64];
};

static double port_rate(const char *root, const struct ix_verbs_port *p)
{
	char path[PATH_MAX + 96], buf[64];
	double bps;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%.63s/ports/%u/rate", root, p->dev,
		 p->port);
	if (ix_sysfs_read(path, buf, sizeof(buf)) < 0 || ix_links_parse_rate(buf, &bps) < 0)
		return 0;
	return bps;
}

/* The port: the asked one; else, among ACTIVE ports whose GID can be
 * chosen, the one whose netdev holds the control connection's address;
 * else the first of them. */
static int choose(struct hw_dev *h, const struct ix_rdma_dev_req *req, struct ix_err *err)
{
	struct ix_verbs_port ports[MAX_PORTS];
	struct ix_rdma_addr *addrs = NULL;
	size_t n, naddrs = 0;
	const char *ifname;
	char down[200] = "";
	struct ix_err first = { 0 };
	int best = -1;

	if (ix_verbs_ports(ports, MAX_PORTS, &n, err) < 0)
		return -1;
	if (ix_rdma_addrs_read(&addrs, &naddrs, err) < 0)
		return -1;
	ifname = ix_rdma_addr_ifname(req->local, addrs, naddrs);
	for (size_t i = 0; i < n; i++) {
		struct ix_rdma_gid g;
		struct ix_err e = { 0 };

		if ((req->dev && strcmp(req->dev, ports[i].dev) != 0) ||
		    (req->port && req->port != ports[i].port))
			continue;
		if (!ports[i].active) {
			snprintf(down, sizeof(down), "port %.63s/%u is %.23s", ports[i].dev,
				 ports[i].port, ports[i].state);
			continue;
		}
		if (ix_rdma_pick_gid(h->root, ports[i].dev, ports[i].port, req->local, addrs,
				     naddrs, &req->params->gid, &g, &e) < 0) {
			if (!first.msg[0])
				first = e;
			continue;
		}
		if (best < 0 || (ifname && strcmp(g.netdev, ifname) == 0 &&
				 strcmp(h->gid.netdev, ifname) != 0)) {
			best = (int)i;
			h->gid = g;
		}
	}
	free(addrs);
	if (best >= 0) {
		h->port = ports[best];
		return 0;
	}
	if (first.msg[0]) {
		*err = first;
		return -1;
	}
	if (down[0])
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no ACTIVE RDMA port: %s; check the cable, the switch port and, on "
			       "InfiniBand, that a subnet manager runs ('ibstat')",
			       down);
	if (req->dev)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no RDMA device '%.63s'%s: check 'rdma link'", req->dev,
			       req->port ? " with that port" : "");
	return ix_fail(err, IX_EXIT_UNAVAILABLE, "no RDMA port found: check 'rdma link'");
}

static int hw_probe(void *ctx, const struct ix_rdma_dev_req *req, struct ix_rdma_port_info *info,
		    struct ix_rdma_caps *caps, struct ix_err *err)
{
	struct hw_dev *h = ctx;

	memset(info, 0, sizeof(*info));
	if (choose(h, req, err) < 0)
		return -1;
	snprintf(info->dev, sizeof(info->dev), "%s", h->port.dev);
	info->port = h->port.port;
	info->infiniband = !h->port.ethernet;
	info->lid = h->port.lid;
	info->vendor_id = h->port.vendor_id;
	info->active_mtu = h->port.active_mtu;
	info->rate_bps = port_rate(h->root, &h->port);
	info->gid = h->gid;
	info->numa_node = ix_rdma_numa_of(h->root, h->port.dev);
	snprintf(info->netdev, sizeof(info->netdev), "%s", h->gid.netdev);
	*caps = (struct ix_rdma_caps){ .max_qp_wr = h->port.max_qp_wr,
				       .max_sge = h->port.max_sge,
				       .max_inline_data = h->port.max_inline,
				       .max_qp = h->port.max_qp,
				       .max_qp_rd_atom = h->port.max_qp_rd_atom,
				       .max_mr_size = h->port.max_mr_size,
				       .max_msg_size = h->port.max_msg_size };
	return 0;
}

/* Buffers and the polling thread on the NIC's node: the thread is pinned
 * before the buffer is first touched, so its pages land there too. */
static int place(struct hw_dev *h, const struct ix_rdma_params *p, struct ix_rdma_port_info *info,
		 struct ix_err *err)
{
	struct ix_rdma_placement pl;

	if (ix_rdma_placement(h->root, h->port.dev, p->numa, p->numa_node, &pl, err) < 0)
		return -1;
	snprintf(info->placement, sizeof(info->placement), "%s", pl.reason);
	if (pl.node < 0 || pl.ncpus <= 0)
		return 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(h->saved), &h->saved) == 0 &&
	    pthread_setaffinity_np(pthread_self(), sizeof(pl.cpus), &pl.cpus) == 0)
		h->pinned = true;
	else
		snprintf(info->placement, sizeof(info->placement),
			 "not placed: the thread cannot move to node %d's CPUs", pl.node);
	return 0;
}

/* The threads of a bandwidth run at this end, on the CPUs it was placed
 * on: none beyond one at a passive end (write and read's responder). */
static uint32_t team_size(const struct ix_rdma_params *p, bool requester)
{
	cpu_set_t cpus;
	int n = 1;

	if (p->kind == IX_RDMA_LAT || (!requester && !p->bidirectional &&
				       (p->op == IX_RDMA_OP_WRITE || p->op == IX_RDMA_OP_READ)))
		return 1;
	if (pthread_getaffinity_np(pthread_self(), sizeof(cpus), &cpus) == 0)
		n = CPU_COUNT(&cpus);
	return ix_rdma_team_threads(p->threads, p->qps, n);
}

static bool write_lat(const struct ix_rdma_params *p)
{
	return p->kind == IX_RDMA_LAT && p->op == IX_RDMA_OP_WRITE;
}

/* GPU memory for the buffer, exported as a dmabuf the NIC registers. */
static int gpu_buffer(struct hw_dev *h, const struct ix_rdma_params *p,
		      struct ix_rdma_port_info *info, struct ix_verbs_open_opts *o,
		      struct ix_err *err)
{
	if (write_lat(p))
		return ix_fail(err, IX_EXIT_USAGE,
			       "write latency watches its buffer from the CPU, which GPU memory "
			       "does not allow: use --op send or read with GPU buffers");
	if (ix_gpu_open(&h->gctx, NULL, NULL, err) < 0)
		return ix_fail_prefix(err, "GPU buffers");
	h->gpu_open = true;
	if (h->gpu >= h->gctx.ndevices)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "GPU %d does not exist (%d found by %s)",
			       h->gpu, h->gctx.ndevices, h->gctx.info.name);
	if (!(h->gctx.info.caps & IX_GPU_CAP_DMABUF))
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "GPU %d cannot export its memory as a dmabuf (driver too old, or "
			       "no dmabuf support in this kernel): GPUDirect RDMA needs it",
			       h->gpu);
	if (h->gctx.be->alloc(h->gctx.g, IX_GPU_MEM_DEVICE, h->gpu, o->buf_size, &h->gbuf, err) < 0)
		return -1;
	h->gbuf_alloc = true;
	if (h->gctx.be->dmabuf_fd(h->gctx.g, &h->gbuf, &h->dmabuf_fd, err) < 0)
		return -1;
	o->dmabuf = true;
	o->dmabuf_fd = h->dmabuf_fd;
	o->dmabuf_addr = h->gbuf.dev;
	snprintf(info->buffer, sizeof(info->buffer), "GPU %d (%.40s) memory through a dmabuf%s%s",
		 h->gpu, h->gctx.dev[h->gpu].name, h->gpu_auto[0] ? ", " : "", h->gpu_auto);
	return 0;
}

/* gpu auto: the GPU nearest the chosen device by PCIe path, as the GPU
 * backend numbers it; host memory where there is none (said). */
static void gpu_auto(struct hw_dev *h)
{
	struct ix_topo t;
	struct ix_err err = { 0 };
	enum ix_path path = IX_PATH_SYS;
	int pci = -1;

	h->gpu = -1;
	snprintf(h->gpu_auto, sizeof(h->gpu_auto), "gpu auto: the PCI bus cannot be read");
	if (ix_topo_scan(h->root, &t, &err) < 0)
		return;
	pci = ix_topo_nearest_gpu(&t, h->port.dev, &path);
	if (pci < 0 && h->gid.netdev[0]) /* soft-RoCE: the NIC under it */
		pci = ix_topo_nearest_gpu(&t, h->gid.netdev, &path);
	if (pci < 0) {
		snprintf(h->gpu_auto, sizeof(h->gpu_auto), "gpu auto: %s",
			 t.ngpus ? "no GPU near "
				   "the device"
				 : "no GPU here");
	} else if (ix_gpu_open(&h->gctx, NULL, NULL, &err) < 0) {
		snprintf(h->gpu_auto, sizeof(h->gpu_auto), "gpu auto: GPU %.16s does not open",
			 t.pci.v[pci].bdf);
	} else {
		for (int i = 0; i < h->gctx.ndevices && h->gpu < 0; i++)
			if (strcasecmp(h->gctx.dev[i].pci_bus_id, t.pci.v[pci].bdf) == 0)
				h->gpu = i;
		snprintf(h->gpu_auto, sizeof(h->gpu_auto),
			 h->gpu < 0 ? "gpu auto: %.16s is no "
				      "GPU of %.16s"
				    : "nearest %.16s (%s)",
			 h->gpu < 0 ? t.pci.v[pci].bdf : h->port.dev,
			 h->gpu < 0 ? h->gctx.info.name : ix_path_name(path));
		ix_gpu_close(&h->gctx);
	}
	ix_topo_free(&t);
}

static int hw_setup(void *ctx, const struct ix_rdma_params *p, bool requester,
		    struct ix_rdma_port_info *info, struct ix_rdma_endpoint *self,
		    struct ix_err *err)
{
	struct hw_dev *h = ctx;
	struct ix_verbs_open_opts o = { .dev = h->port.dev,
					.port = h->port.port,
					.qps = p->qps,
					.tx_depth = ix_rdma_sq_depth(p),
					.rx_depth = p->rx_depth,
					.inline_max =
						(uint32_t)(p->inline_size > 0 ? p->inline_size : 0),
					.buf_size = ix_rdma_buffer_bytes(p),
					.access = ix_rdma_mr_access(p, requester),
					.numa_node = info->numa_node };
	struct ix_verbs_local l;

	h->p = *p;
	if (h->gpu == IX_RDMA_GPU_AUTO)
		gpu_auto(h);
	snprintf(info->buffer, sizeof(info->buffer), "host memory%s%s%s",
		 h->gpu_auto[0] ? " (" : "", h->gpu_auto, h->gpu_auto[0] ? ")" : "");
	if (place(h, p, info, err) < 0 || (h->gpu >= 0 && gpu_buffer(h, p, info, &o, err) < 0))
		return -1;
	info->threads = team_size(p, requester);
	o.cqs = info->threads;
	if (ix_verbs_open(&h->v, &o, &l, err) < 0)
		return -1;
	memset(self, 0, sizeof(*self));
	self->infiniband = !l.ethernet;
	self->lid = l.ethernet ? 0 : l.lid;
	memcpy(self->gid, h->gid.raw, 16);
	self->gid_index = h->gid.index;
	self->mtu = l.active_mtu;
	self->nqps = l.nqps;
	for (uint32_t i = 0; i < l.nqps; i++)
		self->qps[i] = (struct ix_rdma_qp_id){ l.qpn[i], l.psn[i] };
	self->buf_addr = l.addr;
	self->rkey = l.rkey;
	self->buf_len = l.length;
	self->numa_node = info->numa_node;
	self->params = *p;
	/* The ceiling, once the buffer's place is known. */
	ix_link_of_rdma(h->root, h->port.dev, h->gid.netdev, info->rate_bps,
			h->gpu >= 0 ? h->gctx.dev[h->gpu].pci_bus_id : NULL, &info->link);
	/* InfiniBand: the GID's low half is the port GUID (the subnet's name
	 * for this port); RoCE GIDs are addresses. */
	for (int b = 8; !l.ethernet && b < 16; b++)
		info->link.port_guid = info->link.port_guid << 8 | h->gid.raw[b];
	/* and the switch it is cabled to, as the subnet says (no lldpd) */
	if (!l.ethernet && !info->link.neighbor.source[0] && !h->root[0]) {
		char why[128];

		(void)ix_ib_neighbor(h->port.dev, h->port.port, &info->link.neighbor, why,
				     sizeof(why));
	}
	return 0;
}

static int hw_connect(void *ctx, const struct ix_rdma_endpoint *peer, int mtu, struct ix_err *err)
{
	struct hw_dev *h = ctx;
	struct ix_verbs_remote r = { .ethernet = !peer->infiniband,
				     .lid = peer->lid,
				     .nqps = peer->nqps,
				     .addr = peer->buf_addr,
				     .rkey = peer->rkey };
	struct ix_verbs_path path = { .mtu = mtu,
				      .gid_index = h->port.ethernet ? h->gid.index : -1,
				      .traffic_class = h->p.traffic_class,
				      .service_level = h->p.service_level,
				      .max_rd_atomic = (uint8_t)(h->p.rd_atom ? h->p.rd_atom : 1),
				      .flow_label = h->p.sport && h->gid.type == IX_RDMA_GID_ROCE_V2
							    ? (uint32_t)h->p.sport - 0xc000
							    : 0 };

	if (peer->nqps > IX_VERBS_MAX_QPS)
		return ix_fail(err, IX_EXIT_FAIL, "the peer has %u queue pairs, more than %d",
			       peer->nqps, IX_VERBS_MAX_QPS);
	if (peer->infiniband != !h->port.ethernet)
		return ix_fail(err, IX_EXIT_FAIL, "link layers differ: this end is %s, the peer %s",
			       h->port.ethernet ? "Ethernet (RoCE)" : "InfiniBand",
			       peer->infiniband ? "InfiniBand" : "Ethernet (RoCE)");
	memcpy(r.gid, peer->gid, 16);
	for (uint32_t i = 0; i < peer->nqps; i++) {
		r.qpn[i] = peer->qps[i].qpn;
		r.psn[i] = peer->qps[i].psn;
	}
	if (write_lat(&h->p) && peer->buf_len < 2 * h->p.msg_size)
		return ix_fail(err, IX_EXIT_FAIL,
			       "the peer's buffer has no room for write latency's second message");
	if (ix_verbs_connect(h->v, &r, &path, err) < 0)
		return -1;
	if (write_lat(&h->p))
		ix_verbs_remote_offset(h->v, h->p.msg_size);
	return 0;
}

static const struct ix_rdma_ops *hw_engine(void *ctx, bool requester, void **ectx)
{
	struct hw_dev *h = ctx;

	(void)requester;
	h->engine = (struct ix_rdma_hw){ .v = h->v,
					 .size = (uint32_t)h->p.msg_size,
					 .opcode = (enum ix_rdma_opcode)h->p.op,
					 .watch_writes = write_lat(&h->p) };
	ix_tsc_init(&h->engine.tsc, IX_RDMA_SLOW_CLOCK_NS);
	for (uint32_t k = 0; k < IX_RDMA_TEAM_MAX; k++)
		h->engine.tsc_cq[k] = h->engine.tsc;
	*ectx = &h->engine;
	return &ix_rdma_hw_ops;
}

static void hw_close(void *ctx)
{
	struct hw_dev *h = ctx;

	ix_verbs_close(h->v);
	h->v = NULL;
	if (h->dmabuf_fd >= 0)
		close(h->dmabuf_fd);
	h->dmabuf_fd = -1;
	if (h->gbuf_alloc)
		h->gctx.be->free(h->gctx.g, &h->gbuf);
	h->gbuf_alloc = false;
	if (h->gpu_open)
		ix_gpu_close(&h->gctx);
	h->gpu_open = false;
	if (h->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(h->saved), &h->saved);
	h->pinned = false;
}

/* Every source: the port's hw_counters and port counters, and for RoCE
 * its GID's network device (netdev, ethtool with PFC per priority, the
 * root qdisc). */
static void hw_counters(void *ctx, struct ix_ctr_set *out)
{
	struct hw_dev *h = ctx;
	struct ix_fabric_where w = { .iface = h->gid.netdev,
				     .rdma_dev = h->port.dev,
				     .port = h->port.port };

	ix_fabric_snapshot(h->root, &w, out);
}

static const struct ix_rdma_dev_ops hw_ops = { hw_probe,  hw_setup, hw_connect,
					       hw_engine, hw_close, hw_counters };

int ix_rdma_hw_dev_new(struct ix_rdma_dev *d, const char *root, int gpu, struct ix_err *err)
{
	struct hw_dev *h = calloc(1, sizeof(*h));

	if (!h)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	snprintf(h->root, sizeof(h->root), "%s", root ? root : "");
	h->gpu = gpu;
	h->dmabuf_fd = -1;
	d->ops = &hw_ops;
	d->ctx = h;
	return 0;
}

void ix_rdma_hw_dev_free(struct ix_rdma_dev *d)
{
	if (d->ctx)
		hw_close(d->ctx);
	free(d->ctx);
	d->ctx = NULL;
}
