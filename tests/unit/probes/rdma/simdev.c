/* The simulated RDMA device (see simdev.h). */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/proto.h"

#include "tests/unit/probes/rdma/simdev.h"

static int sd_probe(void *ctx, const struct ix_rdma_dev_req *req, struct ix_rdma_port_info *info,
		    struct ix_rdma_caps *caps, struct ix_err *err)
{
	struct sim_dev *d = ctx;

	(void)err;
	d->probes++;
	memset(info, 0, sizeof(*info));
	snprintf(info->dev, sizeof(info->dev), "%s", d->name);
	info->port = req->port ? req->port : 1;
	info->infiniband = d->infiniband;
	info->lid = d->infiniband ? 7 : 0;
	info->active_mtu = d->mtu;
	info->numa_node = -1;
	info->gid.index = 3;
	info->gid.raw[10] = info->gid.raw[11] = 0xff;
	info->gid.raw[15] = (uint8_t)d->qpn_base;
	ix_rdma_gid_format(info->gid.raw, info->gid.text);
	snprintf(info->gid.reason, sizeof(info->gid.reason), "simulated");
	*caps = d->caps;
	return 0;
}

static int sd_setup(void *ctx, const struct ix_rdma_params *p, bool requester,
		    struct ix_rdma_port_info *info, struct ix_rdma_endpoint *self,
		    struct ix_err *err)
{
	struct sim_dev *d = ctx;

	(void)requester;
	(void)err;
	d->setups++;
	d->p = *p;
	snprintf(info->placement, sizeof(info->placement), "no placement (simulated)");
	memset(self, 0, sizeof(*self));
	self->infiniband = d->infiniband;
	self->lid = info->lid;
	memcpy(self->gid, info->gid.raw, 16);
	self->gid_index = info->gid.index;
	self->mtu = d->mtu;
	self->nqps = p->qps;
	for (uint32_t i = 0; i < p->qps; i++)
		self->qps[i] = (struct ix_rdma_qp_id){ d->qpn_base + i, 100 + i };
	self->buf_addr = 0x7f0000000000ull;
	self->rkey = 0x1234;
	self->buf_len = p->msg_size;
	self->numa_node = -1;
	self->params = *p;
	d->self = *self;
	return 0;
}

static int sd_connect(void *ctx, const struct ix_rdma_endpoint *peer, int mtu, struct ix_err *err)
{
	struct sim_dev *d = ctx;

	(void)err;
	d->connects++;
	d->peer = *peer;
	d->path_mtu = mtu;
	return 0;
}

/* The simulated NIC plays the peer this end expects for the agreed test. */
static const struct ix_rdma_ops *sd_engine(void *ctx, bool requester, void **ectx)
{
	struct sim_dev *d = ctx;
	const struct ix_rdma_params *p = &d->p;
	bool lat = p->kind == IX_RDMA_LAT;
	uint64_t warm = p->iterations && p->warmup_s > 0 ? p->iterations / 10 : 0;
	struct rdma_sim_cfg c;

	rdma_sim_cfg_default(&c);
	c.qps = lat ? 1 : p->qps;
	c.sq_depth = ix_rdma_sq_depth(p);
	c.rq_depth = p->rx_depth ? p->rx_depth : 1;
	c.fast_forward = true;
	if (lat) {
		c.rate = 0;
		c.echo = true;
		c.echo_opcode = (enum ix_rdma_opcode)p->op;
		c.echo_starts = !requester;
		c.echo_start_ns = 3000;
		c.echo_limit = p->iterations ? p->iterations + warm : 0;
	} else if (!requester) {
		c.in_msgs = (p->iterations + warm) / (d->peer_vanishes ? 2 : 1);
		c.in_len = (uint32_t)p->msg_size;
		c.in_opcode = (enum ix_rdma_opcode)p->op;
	}
	if (d->vanish_after) {
		c.vanish = true;
		c.vanish_after = d->vanish_after;
	}
	d->sim_up = rdma_sim_init(&d->sim, &c) == 0;
	*ectx = &d->sim;
	return &rdma_sim_ops;
}

static void sd_close(void *ctx)
{
	struct sim_dev *d = ctx;

	d->closes++;
	if (d->sim_up)
		rdma_sim_free(&d->sim);
	d->sim_up = false;
}

const struct ix_rdma_dev_ops sim_dev_ops = { sd_probe,  sd_setup, sd_connect,
					     sd_engine, sd_close, NULL };

struct sim_dev sim_dev(const char *name, uint32_t qpn_base, int mtu)
{
	struct sim_dev d = { .name = name, .mtu = mtu, .qpn_base = qpn_base };

	d.caps = (struct ix_rdma_caps){ .max_qp_wr = 32768,
					.max_sge = 30,
					.max_inline_data = 512,
					.max_qp = 64,
					.max_qp_rd_atom = 16,
					.max_mr_size = 1ull << 40,
					.max_msg_size = 1ull << 30 };
	return d;
}

static void *agent_main(void *arg)
{
	struct agent_end *a = arg;
	uint16_t type;
	json_t *req;

	a->d = (struct ix_rdma_dev){ &sim_dev_ops, a->dev };
	a->cfg.dev = &a->d;
	if (ix_frame_recv(a->fd, &type, &req, ix_now_ns() + ix_seconds_to_ns(5), &a->err) < 0) {
		a->rc = -1;
		return NULL;
	}
	if (a->vanish_after_start) {
		/* Answer the setup, then disappear. */
		struct ix_rdma_endpoint peer;
		json_t *ack;

		if (ix_rdma_setup_parse(json_object_get(req, "rdma"), NULL, &peer, &a->err) < 0)
			memset(&peer, 0, sizeof(peer));
		ack = json_pack("{s:o}", "rdma", ix_rdma_setup_json(&peer));
		ix_frame_send(a->fd, IX_MSG_TEST_ACK, ack, ix_now_ns() + ix_seconds_to_ns(1),
			      &a->err);
		json_decref(ack);
		json_decref(req);
		req = NULL;
		if (ix_frame_recv(a->fd, &type, &req, ix_now_ns() + ix_seconds_to_ns(5), &a->err) ==
		    0)
			a->saw_start = type == IX_MSG_START;
		close(a->fd);
		a->fd = -1;
		json_decref(req);
		return NULL;
	}
	a->rc = ix_rdma_serve(a->fd, req, &a->cfg, &a->err);
	if (a->rc < 0)
		ix_frame_send_error(a->fd, a->err.msg);
	json_decref(req);
	return NULL;
}

void sim_pair_run(struct sim_pair *t, const struct ix_rdma_params *p)
{
	int sv[2];
	pthread_t th;

	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		t->rc = -1;
		snprintf(t->err.msg, sizeof(t->err.msg), "socketpair failed");
		return;
	}
	t->agent.fd = sv[1];
	t->agent.dev = &t->adev;
	memset(&t->cl, 0, sizeof(t->cl));
	t->cl.fd = sv[0];
	t->cl.host = "sim-agent";
	snprintf(t->cl.server_host, sizeof(t->cl.server_host), "sim-agent");
	t->d = (struct ix_rdma_dev){ &sim_dev_ops, &t->cdev };
	if (pthread_create(&th, NULL, agent_main, &t->agent) != 0) {
		close(sv[0]);
		close(sv[1]);
		t->rc = -1;
		return;
	}
	t->rc = ix_rdma_client_run(&t->cl, &t->d, NULL, 0, p, &t->r, &t->err);
	close(sv[0]);
	pthread_join(th, NULL);
	if (t->agent.fd >= 0)
		close(t->agent.fd);
}
