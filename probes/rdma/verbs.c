#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "probes/rdma/verbs.h"

/* The queue-pair count, a pure parameter check made before any device is
 * touched (and so also where ixperf is built without libibverbs). */
static int check_qps(const struct ix_verbs_open_opts *o, struct ix_err *err)
{
	if (o->qps < 1 || o->qps > IX_VERBS_MAX_QPS)
		return ix_fail(err, IX_EXIT_USAGE, "between 1 and %d queue pairs",
			       IX_VERBS_MAX_QPS);
	if (o->cqs > o->qps)
		return ix_fail(err, IX_EXIT_USAGE, "%u completion queues for %u queue pairs",
			       o->cqs, o->qps);
	return 0;
}

#ifdef HAVE_IBVERBS

#include <infiniband/verbs.h>

struct ix_verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[IX_VERBS_MAX_QPS];
	uint32_t ncqs;
	struct ibv_qp *qp[IX_VERBS_MAX_QPS];
	uint32_t psn[IX_VERBS_MAX_QPS]; /* each send queue's first PSN, as the peer was told */
	uint32_t nqps;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t buf_size;
	unsigned port;
	bool ethernet;
	uint32_t inline_max;
	uint64_t raddr; /* the peer's buffer, from ix_verbs_connect */
	uint32_t rrkey;
	uint64_t roff;   /* added to the offset on the peer's side */
	bool device_mem; /* buf is GPU memory registered through a dmabuf */
};

static const char *const check_hint =
	"check 'rdma link', that the HCA's driver and ib_uverbs are loaded, and /dev/infiniband";

int ix_verbs_devices(char (*names)[64], size_t max, size_t *n, struct ix_err *err)
{
	int count = 0;
	struct ibv_device **list = ibv_get_device_list(&count);

	*n = 0;
	if (!list)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no RDMA device: %s (%s); %s",
			       errno == ENOSYS ? "this kernel has no RDMA support"
					       : "the verbs library cannot list devices",
			       strerror(errno), check_hint);
	for (int i = 0; i < count && *n < max; i++)
		snprintf(names[(*n)++], 64, "%s", ibv_get_device_name(list[i]));
	ibv_free_device_list(list);
	if (!*n)
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no RDMA device: ibv_get_device_list() found none; %s", check_hint);
	return 0;
}

static const char *port_state(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

/* Devices do not report their inline limit: create RC QPs asking for less
 * and less until one is accepted, as perftest does. */
static uint32_t probe_inline(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = pd ? ibv_create_cq(ctx, 1, NULL, NULL, 0) : NULL;
	uint32_t got = 0;

	for (uint32_t want = 1024; cq && want >= 16 && !got; want /= 2) {
		struct ibv_qp_init_attr ia = { .send_cq = cq,
					       .recv_cq = cq,
					       .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 1,
							.max_recv_wr = 1,
							.max_send_sge = 1,
							.max_recv_sge = 1,
							.max_inline_data = want } };
		struct ibv_qp *qp = ibv_create_qp(pd, &ia);

		if (qp) {
			got = ia.cap.max_inline_data >= want ? ia.cap.max_inline_data : want;
			ibv_destroy_qp(qp);
		}
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	return got;
}

int ix_verbs_ports(struct ix_verbs_port *out, size_t max, size_t *n, struct ix_err *err)
{
	char names[16][64];
	size_t ndev;
	int count = 0;
	struct ibv_device **list;

	*n = 0;
	if (ix_verbs_devices(names, 16, &ndev, err) < 0)
		return -1;
	list = ibv_get_device_list(&count);
	for (int i = 0; list && i < count && *n < max; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		uint32_t inl;

		if (!ctx)
			continue;
		if (ibv_query_device(ctx, &da) != 0)
			da.phys_port_cnt = 0;
		inl = da.phys_port_cnt ? probe_inline(ctx) : 0;
		for (unsigned p = 1; p <= da.phys_port_cnt && *n < max; p++) {
			struct ibv_port_attr pa;
			struct ix_verbs_port *o = &out[*n];

			if (ibv_query_port(ctx, (uint8_t)p, &pa) != 0)
				continue;
			memset(o, 0, sizeof(*o));
			snprintf(o->dev, sizeof(o->dev), "%s", ibv_get_device_name(list[i]));
			o->port = p;
			o->active = pa.state == IBV_PORT_ACTIVE;
			snprintf(o->state, sizeof(o->state), "%s", port_state(pa.state));
			o->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
			o->lid = pa.lid;
			o->active_mtu = (int)pa.active_mtu;
			o->max_qp_wr = (uint32_t)da.max_qp_wr;
			o->max_sge = (uint32_t)da.max_sge;
			o->max_qp = (uint32_t)(da.max_qp < IX_VERBS_MAX_QPS ? da.max_qp
									    : IX_VERBS_MAX_QPS);
			o->max_qp_rd_atom = (uint32_t)da.max_qp_rd_atom;
			o->max_inline = inl;
			o->max_mr_size = da.max_mr_size;
			o->max_msg_size = pa.max_msg_sz;
			o->vendor_id = da.vendor_id;
			(*n)++;
		}
		ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
	return 0;
}

/* The device and port to use: the asked ones, or the first ACTIVE port. */
static int pick(struct ix_verbs *v, const struct ix_verbs_open_opts *o, struct ix_verbs_local *l,
		struct ix_err *err)
{
	int count = 0;
	struct ibv_device **list = ibv_get_device_list(&count);
	char down[160] = "";

	if (!list || !count) {
		if (list)
			ibv_free_device_list(list);
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no RDMA device: ibv_get_device_list() found none; %s", check_hint);
	}
	for (int i = 0; i < count && !v->ctx; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx;
		struct ibv_device_attr da;

		if (o->dev && strcmp(o->dev, name) != 0)
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			snprintf(down, sizeof(down),
				 "%s cannot be opened (%s: permissions on "
				 "/dev/infiniband/uverbs*?)",
				 name, strerror(errno));
			continue;
		}
		if (ibv_query_device(ctx, &da) != 0)
			da.phys_port_cnt = 0;
		for (unsigned p = 1; p <= da.phys_port_cnt && !v->ctx; p++) {
			struct ibv_port_attr pa;

			if ((o->port && p != o->port) || ibv_query_port(ctx, (uint8_t)p, &pa) != 0)
				continue;
			if (pa.state != IBV_PORT_ACTIVE) {
				snprintf(down, sizeof(down), "port %s/%u is %s", name, p,
					 port_state(pa.state));
				continue;
			}
			v->ctx = ctx;
			v->port = p;
			v->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
			snprintf(l->dev, sizeof(l->dev), "%s", name);
			l->port = p;
			l->ethernet = v->ethernet;
			l->lid = pa.lid;
			l->active_mtu = (int)pa.active_mtu;
		}
		if (!v->ctx)
			ibv_close_device(ctx);
	}
	ibv_free_device_list(list);
	if (v->ctx)
		return 0;
	if (o->dev && !down[0])
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "no RDMA device called '%s'; %s", o->dev,
			       check_hint);
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "no ACTIVE RDMA port%s%s: check the cable, the switch port and, on "
		       "InfiniBand, that a subnet manager runs ('ibstat')",
		       down[0] ? ": " : "", down);
}

/* The remote rights o asks for, as ibverbs flags. */
static int remote_access(const struct ix_verbs_open_opts *o)
{
	return (o->access & IX_VERBS_ACCESS_REMOTE_WRITE ? IBV_ACCESS_REMOTE_WRITE : 0) |
	       (o->access & IX_VERBS_ACCESS_REMOTE_READ ? IBV_ACCESS_REMOTE_READ : 0);
}

static int register_buffer(struct ix_verbs *v, const struct ix_verbs_open_opts *o)
{
	int access = IBV_ACCESS_LOCAL_WRITE | remote_access(o);

	if (v->device_mem)
		v->mr = ibv_reg_dmabuf_mr(v->pd, 0, v->buf_size, o->dmabuf_addr, o->dmabuf_fd,
					  access);
	else
		v->mr = ibv_reg_mr(v->pd, v->buf, v->buf_size, access);
	return v->mr ? 0 : -1;
}

/* A queue pair's first packet sequence number: 24 random bits from the
 * kernel (a guessable PSN lets a third party inject into the flow). */
static uint32_t random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint32_t)random(); /* no getrandom: the old way */
	return v & 0xffffff;
}

int ix_verbs_open(struct ix_verbs **out, const struct ix_verbs_open_opts *o,
		  struct ix_verbs_local *l, struct ix_err *err)
{
	struct ix_verbs *v;
	int cqe;
	bool ok;

	*out = NULL;
	memset(l, 0, sizeof(*l));
	if (check_qps(o, err) < 0)
		return -1;
	if (!(v = calloc(1, sizeof(*v))))
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	if (pick(v, o, l, err) < 0) {
		free(v);
		return -1;
	}
	v->buf_size = o->buf_size ? o->buf_size : 4096;
	v->inline_max = o->inline_max;
	v->device_mem = o->dmabuf;
	v->ncqs = o->cqs ? o->cqs : 1;
	/* Each CQ holds every completion its QPs can have outstanding. */
	cqe = (int)((o->tx_depth + o->rx_depth) * ((o->qps + v->ncqs - 1) / v->ncqs));
	if (v->device_mem)
		v->buf = (uint8_t *)(uintptr_t)o->dmabuf_addr;
	else if (posix_memalign((void **)&v->buf, 4096, v->buf_size) != 0)
		v->buf = NULL;
	ok = v->buf && (v->pd = ibv_alloc_pd(v->ctx)) && register_buffer(v, o) == 0;
	for (uint32_t k = 0; ok && k < v->ncqs; k++)
		ok = (v->cq[k] = ibv_create_cq(v->ctx, cqe > 0 ? cqe : 1, NULL, NULL, 0)) != NULL;
	if (!ok) {
		ix_fail(err, errno == EPERM || errno == ENOMEM ? IX_EXIT_UNAVAILABLE : IX_EXIT_FAIL,
			"%s/%u: cannot set up the buffer or the completion queues: %s%s", l->dev,
			l->port, strerror(errno),
			errno == ENOMEM ? " (the locked-memory limit: ulimit -l)" : "");
		ix_verbs_close(v);
		return -1;
	}
	if (!v->device_mem)
		memset(v->buf, 0, v->buf_size);
	for (uint32_t i = 0; i < o->qps; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = v->cq[i % v->ncqs],
			.recv_cq = v->cq[i % v->ncqs],
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = o->tx_depth,
				 .max_recv_wr = o->rx_depth ? o->rx_depth : 1,
				 .max_send_sge = 1,
				 .max_recv_sge = 1,
				 .max_inline_data = o->inline_max },
		};
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
					 .pkey_index = 0,
					 .port_num = (uint8_t)v->port,
					 .qp_access_flags = (unsigned)remote_access(o) };

		v->qp[i] = ibv_create_qp(v->pd, &ia);
		if (!v->qp[i] || ibv_modify_qp(v->qp[i], &a,
					       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						       IBV_QP_ACCESS_FLAGS) != 0) {
			ix_fail(err, IX_EXIT_FAIL, "%s/%u: cannot create queue pair %u: %s", l->dev,
				l->port, i, strerror(errno));
			ix_verbs_close(v);
			return -1;
		}
		v->nqps++;
		l->qpn[i] = v->qp[i]->qp_num;
		v->psn[i] = random_psn();
		l->psn[i] = v->psn[i];
	}
	l->nqps = v->nqps;
	l->addr = (uint64_t)(uintptr_t)v->buf;
	l->rkey = v->mr->rkey;
	l->length = v->buf_size;
	*out = v;
	return 0;
}

int ix_verbs_connect(struct ix_verbs *v, const struct ix_verbs_remote *r,
		     const struct ix_verbs_path *p, struct ix_err *err)
{
	if (r->nqps != v->nqps)
		return ix_fail(err, IX_EXIT_FAIL, "the peer has %u queue pairs, this end %u",
			       r->nqps, v->nqps);
	v->raddr = r->addr;
	v->rrkey = r->rkey;
	for (uint32_t i = 0; i < v->nqps; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = (enum ibv_mtu)p->mtu,
			.dest_qp_num = r->qpn[i],
			.rq_psn = r->psn[i],
			.max_dest_rd_atomic = p->max_rd_atomic ? p->max_rd_atomic : 1,
			.min_rnr_timer = 12,
			.ah_attr = { .dlid = r->lid,
				     .sl = p->service_level,
				     .port_num = (uint8_t)v->port },
		};

		if (r->ethernet || p->gid_index >= 0) {
			a.ah_attr.is_global = 1;
			memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
			a.ah_attr.grh.sgid_index = (uint8_t)(p->gid_index >= 0 ? p->gid_index : 0);
			a.ah_attr.grh.hop_limit = 64;
			a.ah_attr.grh.traffic_class = p->traffic_class;
			if (r->ethernet && p->flow_label)
				a.ah_attr.grh.flow_label = (p->flow_label + i) & 0xfffff;
		}
		if (ibv_modify_qp(v->qp[i], &a,
				  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
					  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
					  IBV_QP_MIN_RNR_TIMER) != 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "queue pair %u cannot reach the peer (RTR): %s", i,
				       strerror(errno));
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
					  .timeout = 14,
					  .retry_cnt = 7,
					  .rnr_retry = 7,
					  .sq_psn = v->psn[i],
					  .max_rd_atomic =
						  p->max_rd_atomic ? p->max_rd_atomic : 1 };
		if (ibv_modify_qp(v->qp[i], &a,
				  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					  IBV_QP_MAX_QP_RD_ATOMIC) != 0)
			return ix_fail(err, IX_EXIT_FAIL, "queue pair %u cannot send (RTS): %s", i,
				       strerror(errno));
	}
	return 0;
}

int ix_verbs_post_send(struct ix_verbs *v, uint32_t qp, enum ix_verbs_op op, uint64_t offset,
		       uint32_t length, bool signaled, bool use_inline, uint64_t wr_id,
		       struct ix_err *err)
{
	static const enum ibv_wr_opcode codes[] = {
		[IX_VERBS_WRITE] = IBV_WR_RDMA_WRITE,
		[IX_VERBS_READ] = IBV_WR_RDMA_READ,
		[IX_VERBS_SEND] = IBV_WR_SEND,
		[IX_VERBS_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	struct ibv_sge sge = { .addr = (uint64_t)(uintptr_t)(v->buf + offset),
			       .length = length,
			       .lkey = v->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (qp >= v->nqps || offset + length > v->buf_size || op > IX_VERBS_WRITE_IMM)
		return ix_fail(err, IX_EXIT_FAIL, "work request outside the queue pairs or buffer");
	wr.opcode = codes[op];
	wr.send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
			(use_inline && length <= v->inline_max ? IBV_SEND_INLINE : 0);
	/* Writes and reads land at the same offset of the peer's buffer,
	 * shifted by roff. */
	wr.wr.rdma.remote_addr = v->raddr + offset + v->roff;
	wr.wr.rdma.rkey = v->rrkey;
	if (op == IX_VERBS_WRITE_IMM)
		wr.imm_data = (uint32_t)wr_id;
	if (ibv_post_send(v->qp[qp], &wr, &bad) != 0)
		return ix_fail(err, IX_EXIT_FAIL, "posting to queue pair %u failed: %s", qp,
			       strerror(errno));
	return 0;
}

int ix_verbs_post_recv(struct ix_verbs *v, uint32_t qp, uint64_t offset, uint32_t length,
		       uint64_t wr_id, struct ix_err *err)
{
	struct ibv_sge sge = { .addr = (uint64_t)(uintptr_t)(v->buf + offset),
			       .length = length,
			       .lkey = v->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (qp >= v->nqps || offset + length > v->buf_size)
		return ix_fail(err, IX_EXIT_FAIL, "receive outside the queue pairs or buffer");
	if (ibv_post_recv(v->qp[qp], &wr, &bad) != 0)
		return ix_fail(err, IX_EXIT_FAIL, "posting a receive on queue pair %u failed: %s",
			       qp, strerror(errno));
	return 0;
}

int ix_verbs_poll(struct ix_verbs *v, uint32_t cq, struct ix_verbs_wc *out, int max,
		  struct ix_err *err)
{
	struct ibv_wc wc[32];
	int n;

	if (cq >= v->ncqs)
		return ix_fail(err, IX_EXIT_FAIL, "completion queue %u of %u", cq, v->ncqs);
	n = ibv_poll_cq(v->cq[cq], max < 32 ? max : 32, wc);
	if (n < 0)
		return ix_fail(err, IX_EXIT_FAIL, "polling completion queue %u failed", cq);
	for (int i = 0; i < n; i++) {
		out[i].wr_id = wc[i].wr_id;
		out[i].status = (int)wc[i].status;
		out[i].recv = (wc[i].opcode & IBV_WC_RECV) != 0;
		out[i].byte_len = wc[i].byte_len;
		out[i].qp = 0;
		for (uint32_t q = cq; q < v->nqps; q += v->ncqs)
			if (v->qp[q]->qp_num == wc[i].qp_num) {
				out[i].qp = q;
				break;
			}
		/* Named only when it failed: this is the hot path of every test. */
		out[i].status_name[0] = '\0';
		if (wc[i].status != IBV_WC_SUCCESS)
			snprintf(out[i].status_name, sizeof(out[i].status_name), "%s",
				 ibv_wc_status_str(wc[i].status));
	}
	return n;
}

void ix_verbs_remote_offset(struct ix_verbs *v, uint64_t off)
{
	v->roff = off;
}

uint32_t ix_verbs_cqs(const struct ix_verbs *v)
{
	return v->ncqs;
}

volatile uint8_t *ix_verbs_buffer(struct ix_verbs *v)
{
	return v->device_mem ? NULL : v->buf;
}

void ix_verbs_close(struct ix_verbs *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < IX_VERBS_MAX_QPS; i++)
		if (v->qp[i])
			ibv_destroy_qp(v->qp[i]);
	for (uint32_t k = 0; k < IX_VERBS_MAX_QPS; k++)
		if (v->cq[k])
			ibv_destroy_cq(v->cq[k]);
	if (v->mr)
		ibv_dereg_mr(v->mr);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->ctx)
		ibv_close_device(v->ctx);
	if (!v->device_mem)
		free(v->buf);
	free(v);
}

#else /* !HAVE_IBVERBS */

static int unavailable(struct ix_err *err)
{
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "RDMA is not available: ixperf was built without libibverbs "
		       "(install libibverbs-dev and rebuild)");
}

int ix_verbs_devices(char (*names)[64], size_t max, size_t *n, struct ix_err *err)
{
	(void)names;
	(void)max;
	*n = 0;
	return unavailable(err);
}

int ix_verbs_ports(struct ix_verbs_port *out, size_t max, size_t *n, struct ix_err *err)
{
	(void)out;
	(void)max;
	*n = 0;
	return unavailable(err);
}

int ix_verbs_open(struct ix_verbs **out, const struct ix_verbs_open_opts *o,
		  struct ix_verbs_local *local, struct ix_err *err)
{
	(void)local;
	*out = NULL;
	if (check_qps(o, err) < 0)
		return -1;
	return unavailable(err);
}

int ix_verbs_connect(struct ix_verbs *v, const struct ix_verbs_remote *r,
		     const struct ix_verbs_path *p, struct ix_err *err)
{
	(void)v;
	(void)r;
	(void)p;
	return unavailable(err);
}

int ix_verbs_post_send(struct ix_verbs *v, uint32_t qp, enum ix_verbs_op op, uint64_t offset,
		       uint32_t length, bool signaled, bool use_inline, uint64_t wr_id,
		       struct ix_err *err)
{
	(void)v;
	(void)qp;
	(void)op;
	(void)offset;
	(void)length;
	(void)signaled;
	(void)use_inline;
	(void)wr_id;
	return unavailable(err);
}

int ix_verbs_post_recv(struct ix_verbs *v, uint32_t qp, uint64_t offset, uint32_t length,
		       uint64_t wr_id, struct ix_err *err)
{
	(void)v;
	(void)qp;
	(void)offset;
	(void)length;
	(void)wr_id;
	return unavailable(err);
}

int ix_verbs_poll(struct ix_verbs *v, uint32_t cq, struct ix_verbs_wc *wc, int max,
		  struct ix_err *err)
{
	(void)v;
	(void)cq;
	(void)wc;
	(void)max;
	return unavailable(err);
}

void ix_verbs_remote_offset(struct ix_verbs *v, uint64_t off)
{
	(void)v;
	(void)off;
}

uint32_t ix_verbs_cqs(const struct ix_verbs *v)
{
	(void)v;
	return 1;
}

volatile uint8_t *ix_verbs_buffer(struct ix_verbs *v)
{
	(void)v;
	return NULL;
}

void ix_verbs_close(struct ix_verbs *v)
{
	(void)v;
}

#endif
