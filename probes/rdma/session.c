/* An RDMA test over the control connection: the client's and the agent's
 * sides of the exchange (see session.h). */
#include "config.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "probes/core/clock.h"
#include "probes/core/link.h"
#include "probes/ctl/client.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/rdma/phased.h"
#include "probes/rdma/rdma.h"
#include "probes/rdma/session.h"
#include "probes/rdma/team.h"

#define SETUP_TIMEOUT_S 15.0 /* the peer's device setup */
#define START_TIMEOUT_S 10.0
#define RESULT_GRACE_S  10.0 /* after STOP: the agent's engine timeout and this */
#define STOP_GRACE_S    30.0 /* beyond the test's own length */

void ix_rdma_result_init(struct ix_rdma_result *r, const struct ix_rdma_params *p)
{
	memset(r, 0, sizeof(*r));
	r->params = *p;
	r->latency = p->kind == IX_RDMA_LAT;
	r->local.numa_node = r->remote.numa_node = -1;
	ix_samples_init(&r->lat.samples);
	ix_ctr_set_init(&r->ctr_local);
	ix_ctr_set_init(&r->ctr_remote);
}

void ix_rdma_result_free(struct ix_rdma_result *r)
{
	ix_rdma_bw_figures_free(&r->bw);
	ix_rdma_lat_figures_free(&r->lat);
	ix_ctr_set_free(&r->ctr_local);
	ix_ctr_set_free(&r->ctr_remote);
}

static void add_dir(struct ix_rdma_summary *s, const struct ix_rdma_dir_figures *d)
{
	if (!d->valid)
		return;
	s->valid = true;
	s->messages += d->messages;
	s->bytes += d->bytes;
	if ((double)d->ns / 1e9 > s->seconds)
		s->seconds = (double)d->ns / 1e9;
	s->bits_per_second += d->bits_per_second;
	s->mpps += d->mpps;
}

void ix_rdma_summarize(const struct ix_rdma_result *r, struct ix_rdma_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (r->latency)
		return;
	add_dir(s, &r->bw.tx);
	s->peak_bits_per_second = r->bw.tx.peak_bits_per_second;
	/* Bidirectional: perftest's -b figure is the sum of both directions. */
	if (r->params.bidirectional) {
		add_dir(s, &r->remote_tx);
		s->peak_bits_per_second.valid = false;
	}
}

/* ---- wire forms ---- */

json_t *ix_rdma_port_info_json(const struct ix_rdma_port_info *i)
{
	static const char *const types[] = { "IB", "RoCE v1", "RoCE v2" };
	json_t *o = json_pack("{s:s,s:i,s:s,s:i,s:i,s:s,s:i,s:s,s:s}", "device", i->dev, "port",
			      (int)i->port, "link_layer", i->infiniband ? "InfiniBand" : "Ethernet",
			      "lid", (int)i->lid, "active_mtu", ix_rdma_mtu_bytes(i->active_mtu),
			      "gid", i->gid.text, "gid_index", i->gid.index, "gid_type",
			      types[(unsigned)i->gid.type % 3], "gid_reason", i->gid.reason);

	json_object_set_new(o, "netdev", i->netdev[0] ? json_string(i->netdev) : json_null());
	json_object_set_new(o, "rate_bps", i->rate_bps > 0 ? json_real(i->rate_bps) : json_null());
	json_object_set_new(o, "numa_node",
			    i->numa_node >= 0 ? json_integer(i->numa_node) : json_null());
	json_object_set_new(o, "placement", json_string(i->placement));
	json_object_set_new(o, "threads", json_integer(i->threads ? i->threads : 1));
	json_object_set_new(o, "buffer", json_string(i->buffer));
	json_object_set_new(o, "link", ix_link_json(&i->link));
	return o;
}

static void copy_str(char *dst, size_t n, json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(dst, n, "%s", s ? s : "");
}

/* Informational only: what the peer says about itself is shown, never
 * used to drive the test, so anything missing simply stays empty. */
void ix_rdma_port_info_parse(json_t *j, struct ix_rdma_port_info *i)
{
	json_t *v;

	memset(i, 0, sizeof(*i));
	i->numa_node = -1;
	i->gid.index = -1;
	if (!json_is_object(j))
		return;
	copy_str(i->dev, sizeof(i->dev), j, "device");
	copy_str(i->gid.text, sizeof(i->gid.text), j, "gid");
	copy_str(i->gid.reason, sizeof(i->gid.reason), j, "gid_reason");
	copy_str(i->netdev, sizeof(i->netdev), j, "netdev");
	copy_str(i->placement, sizeof(i->placement), j, "placement");
	if (json_is_integer(v = json_object_get(j, "threads")) && json_integer_value(v) > 0 &&
	    json_integer_value(v) <= IX_RDMA_TEAM_MAX)
		i->threads = (uint32_t)json_integer_value(v);
	copy_str(i->buffer, sizeof(i->buffer), j, "buffer");
	i->infiniband = json_is_string(v = json_object_get(j, "link_layer")) &&
			strcmp(json_string_value(v), "InfiniBand") == 0;
	if (json_is_integer(v = json_object_get(j, "port")) && json_integer_value(v) > 0 &&
	    json_integer_value(v) < 256)
		i->port = (unsigned)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "lid")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) <= 0xffff)
		i->lid = (uint16_t)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "active_mtu")))
		i->active_mtu = ix_rdma_mtu_from_bytes((uint32_t)json_integer_value(v));
	if (json_is_integer(v = json_object_get(j, "gid_index")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) < IX_RDMA_GID_TABLE)
		i->gid.index = (int)json_integer_value(v);
	if (json_is_integer(v = json_object_get(j, "numa_node")) && json_integer_value(v) >= 0 &&
	    json_integer_value(v) < 1024)
		i->numa_node = (int)json_integer_value(v);
	if (json_is_number(v = json_object_get(j, "rate_bps")) && json_number_value(v) > 0)
		i->rate_bps = json_number_value(v);
	if (ix_link_parse(json_object_get(j, "link"), &i->link, NULL) < 0)
		memset(&i->link, 0, sizeof(i->link));
	v = json_object_get(j, "gid_type");
	if (json_is_string(v))
		i->gid.type = strcmp(json_string_value(v), "RoCE v2") == 0   ? IX_RDMA_GID_ROCE_V2
			      : strcmp(json_string_value(v), "RoCE v1") == 0 ? IX_RDMA_GID_ROCE_V1
									     : IX_RDMA_GID_IB;
}

static json_t *dir_json(const struct ix_rdma_dir_figures *d)
{
	if (!d->valid)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:f,s:f}", "messages", (json_int_t)d->messages, "bytes",
			 (json_int_t)d->bytes, "ns", (json_int_t)d->ns, "bits_per_second",
			 d->bits_per_second, "mpps", d->mpps);
}

json_t *ix_rdma_figures_json(bool ok, const char *error, const struct ix_rdma_bw_figures *bw,
			     const struct ix_rdma_lat_figures *lat)
{
	json_t *o = json_pack("{s:b,s:s}", "ok", ok, "error", error ? error : "");

	if (bw)
		json_object_set_new(o, "bw",
				    json_pack("{s:b,s:o,s:o}", "complete", bw->complete, "tx",
					      dir_json(&bw->tx), "rx", dir_json(&bw->rx)));
	if (lat)
		json_object_set_new(o, "lat",
				    json_pack("{s:b,s:I}", "complete", lat->complete, "answers",
					      (json_int_t)lat->iters));
	return o;
}

/* A count or a time from the peer: a non-negative integer below 2^53. */
static int get_count(json_t *o, const char *k, uint64_t *out, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > (json_int_t)1 << 53)
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: '%s' is missing or out of range", k);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int dir_parse(json_t *j, struct ix_rdma_dir_figures *d, struct ix_err *err)
{
	uint64_t ns;

	memset(d, 0, sizeof(*d));
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: a direction is not an object");
	if (get_count(j, "messages", &d->messages, err) < 0 ||
	    get_count(j, "bytes", &d->bytes, err) < 0 || get_count(j, "ns", &ns, err) < 0)
		return -1;
	d->valid = true;
	d->ns = (int64_t)ns;
	/* Derived here, not taken from the peer. */
	d->bits_per_second = ns ? (double)d->bytes * 8e9 / (double)ns : 0;
	d->mpps = ns ? (double)d->messages * 1e3 / (double)ns : 0;
	return 0;
}

int ix_rdma_figures_parse(json_t *j, struct ix_rdma_result *r, struct ix_err *err)
{
	json_t *bw = json_object_get(j, "bw"), *lat = json_object_get(j, "lat");

	if (!json_is_object(j) || !json_is_boolean(json_object_get(j, "ok")))
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: not an RDMA result");
	r->remote_complete = json_is_true(json_object_get(j, "ok"));
	/* The agent's counters: malformed ones are left out, the figures
	 * stand (as for socket tests). */
	ix_ctr_set_free(&r->ctr_remote);
	if (ix_ctr_parse(json_object_get(j, "counters"), &r->ctr_remote, NULL) < 0)
		ix_ctr_set_init(&r->ctr_remote);
	if (json_is_object(bw) && (dir_parse(json_object_get(bw, "tx"), &r->remote_tx, err) < 0 ||
				   dir_parse(json_object_get(bw, "rx"), &r->remote_rx, err) < 0))
		return -1;
	if (lat && !json_is_object(lat))
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: 'lat' is not an object");
	if (!r->remote_complete) {
		const char *e = json_string_value(json_object_get(j, "error"));
		return ix_fail(err, IX_EXIT_FAIL, "the agent's end failed: %.400s",
			       e && e[0] ? e : "no reason given");
	}
	return 0;
}

/* ---- both ends ---- */

static void local_addr(int fd, struct sockaddr_storage *ss)
{
	socklen_t len = sizeof(*ss);

	memset(ss, 0, sizeof(*ss));
	if (getsockname(fd, (struct sockaddr *)ss, &len) != 0)
		ss->ss_family = AF_UNSPEC;
}

/* Probe, check the parameters, create the QPs: this end's endpoint. */
static int prepare(const struct ix_rdma_dev *dev, const char *devname, unsigned port, int fd,
		   struct ix_rdma_params *p, bool requester, struct ix_rdma_port_info *info,
		   struct ix_rdma_endpoint *self, struct ix_err *err)
{
	struct sockaddr_storage local;
	struct ix_rdma_dev_req req = { devname, port, &local, p };
	struct ix_rdma_caps caps;

	local_addr(fd, &local);
	if (dev->ops->probe(dev->ctx, &req, info, &caps, err) < 0 ||
	    ix_rdma_params_check(p, &caps, err) < 0)
		return -1;
	return dev->ops->setup(dev->ctx, p, requester, info, self, err);
}

/* The end of a duration-mode test, agreed over the control connection
 * (engine.h, struct ix_rdma_end): an end whose own work is done sends
 * STOP; an end that serves its peer keeps serving until the peer's STOP
 * arrives. Either end may thus send STOP during the engine's run, and
 * either may receive one. */
struct end_ctl {
	int fd;
	bool sent, seen;
	struct ix_err err; /* a failure of the exchange, reported after the engine */
};

static void end_done(void *ctx)
{
	struct end_ctl *e = ctx;
	json_t *j = json_object();

	if (!e->sent &&
	    ix_frame_send(e->fd, IX_MSG_STOP, j, ix_now_ns() + ix_seconds_to_ns(5), &e->err) < 0)
		ix_fail_prefix(&e->err, "telling the peer this end is done");
	e->sent = true;
	json_decref(j);
}

static bool end_peer_done(void *ctx)
{
	struct end_ctl *e = ctx;
	struct pollfd pfd = { .fd = e->fd, .events = POLLIN };
	uint16_t type;
	json_t *body = NULL;

	if (e->seen)
		return true;
	if (poll(&pfd, 1, 0) <= 0)
		return false;
	e->seen = true; /* a frame, an error or the end of the connection: stop serving */
	if (ix_frame_recv(e->fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(5), &e->err) < 0)
		ix_fail_prefix(&e->err, "waiting for the peer's end");
	else if (type != IX_MSG_STOP)
		ix_fail(&e->err, IX_EXIT_FAIL, "the peer sent %s while the test ran, not STOP",
			ix_msg_name(type));
	json_decref(body);
	return true;
}

/* The port's counters now (left not valid where the device has none). */
static void counters_now(const struct ix_rdma_dev *dev, struct ix_ctr_set *c)
{
	ix_ctr_set_init(c);
	if (dev->ops->counters)
		dev->ops->counters(dev->ctx, c);
}

/* Replace the snapshot c with what moved since it. */
static void counters_since(const struct ix_rdma_dev *dev, struct ix_ctr_set *c)
{
	struct ix_ctr_set after, moved;

	counters_now(dev, &after);
	ix_ctr_delta(c, &after, &moved);
	ix_ctr_set_free(&after);
	ix_ctr_set_free(c);
	*c = moved;
}

static int run_engine(const struct ix_rdma_dev *dev, const struct ix_rdma_params *p,
		      const struct ix_rdma_port_info *info, bool requester, struct end_ctl *end,
		      struct ix_rdma_bw_figures *bw, struct ix_rdma_lat_figures *lat,
		      struct ix_err *err)
{
	struct ix_rdma_run run;
	void *ectx = NULL;
	const struct ix_rdma_ops *ops = dev->ops->engine(dev->ctx, requester, &ectx);
	bool latency = p->kind == IX_RDMA_LAT;

	ix_rdma_run_from_params(p, requester, latency, &run);
	run.end = (struct ix_rdma_end){ end_done, end_peer_done, end };
	if (latency) {
		ix_rdma_lat_figures_free(lat);
		return ix_rdma_engine_run_lat(ops, ectx, &run, lat, err);
	}
	return ix_rdma_team_run_bw(ops, ectx, &run, info->threads, bw, err);
}

/* Same parameters on both ends, field by field (in their wire form). */
static int same_params(const struct ix_rdma_params *a, const struct ix_rdma_params *b,
		       struct ix_err *err)
{
	json_t *ja = ix_rdma_params_json(a), *jb = ix_rdma_params_json(b);
	int same = json_equal(ja, jb);

	json_decref(ja);
	json_decref(jb);
	return same ? 0
		    : ix_fail(err, IX_EXIT_FAIL,
			      "the agent answered with other test parameters than asked "
			      "(an ixperf version mismatch?)");
}

/* ---- client ---- */

/* The 16 bytes a RoCE v2 GID holds for an address: IPv4 mapped. */
static void gid_of_addr(const struct sockaddr_storage *a, uint8_t g[16])
{
	memset(g, 0, 16);
	if (a->ss_family == AF_INET) {
		g[10] = g[11] = 0xff;
		memcpy(g + 12, &((const struct sockaddr_in *)a)->sin_addr, 4);
	} else if (a->ss_family == AF_INET6) {
		memcpy(g, &((const struct sockaddr_in6 *)a)->sin6_addr, 16);
	}
}

/* Whether the control peer ctl is this host: loopback, or one of its own
 * addresses. */
static bool ctl_is_local(const struct sockaddr_storage *ctl, const struct ix_rdma_addr *own,
			 size_t nown)
{
	uint8_t a[16], b[16];

	if (ix_net_is_loopback(ctl))
		return true;
	gid_of_addr(ctl, a);
	for (size_t i = 0; i < nown; i++) {
		gid_of_addr(&own[i].addr, b);
		if (memcmp(a, b, 16) == 0)
			return true;
	}
	return false;
}

int ix_rdma_peer_bound(const struct ix_rdma_endpoint *peer, const struct sockaddr_storage *ctl,
		       const struct ix_rdma_addr *own, size_t nown, struct ix_err *err)
{
	uint8_t want[16], g[16];
	char text[IX_RDMA_GID_TEXT], addr[IX_RDMA_GID_TEXT];

	gid_of_addr(ctl, want);
	if (peer->infiniband) { /* no address to hold a LID to */
		if (ctl_is_local(ctl, own, nown))
			return 0;
		ix_rdma_gid_format(want, addr);
		return ix_fail(
			err, IX_EXIT_FAIL,
			"the peer (%s) is on InfiniBand, where its LID cannot be tied to the "
			"address it speaks from: without a token an InfiniBand RDMA test is "
			"taken from this host only",
			addr);
	}
	if (memcmp(peer->gid, want, 16) == 0)
		return 0;
	/* The peer on this very host: its GID is one of this host's. */
	for (size_t i = 0; ctl_is_local(ctl, own, nown) && i < nown; i++) {
		gid_of_addr(&own[i].addr, g);
		if (memcmp(peer->gid, g, 16) == 0)
			return 0;
	}
	ix_rdma_gid_format(peer->gid, text);
	ix_rdma_gid_format(want, addr);
	return ix_fail(err, IX_EXIT_FAIL,
		       "the peer's RoCE GID %s is not the address it speaks from (%s): without a "
		       "token an RDMA test goes only to the host at the other end of the control "
		       "connection",
		       text, addr);
}

/* Without a token, the agent's RoCE GID must be the address this client
 * reached it at (a hostile agent would aim this NIC elsewhere). */
static int agent_bound(const struct ix_client *c, const struct ix_rdma_endpoint *peer,
		       struct ix_err *err)
{
	struct sockaddr_storage ctl;
	struct ix_rdma_addr *own = NULL;
	struct ix_err aerr = { 0 };
	size_t nown = 0;
	int rc;

	if (!c->unauthenticated)
		return 0;
	if (ix_net_peer_addr(c->fd, &ctl) < 0)
		return ix_fail(err, IX_EXIT_FAIL, "the agent's address cannot be read");
	ix_rdma_addrs_read(&own, &nown, &aerr);
	rc = ix_rdma_peer_bound(peer, &ctl, own, nown, err);
	free(own);
	return rc < 0 ? ix_fail_prefix(err, "the agent's TEST_ACK") : 0;
}

static int client_setup(struct ix_client *c, const struct ix_rdma_dev *dev,
			const struct ix_rdma_endpoint *self, struct ix_rdma_result *r,
			struct ix_rdma_endpoint *peer_out, struct ix_err *err)
{
	struct ix_rdma_endpoint peer;
	json_t *req, *ack;
	int rc, mtu;

	req = json_pack("{s:s,s:o,s:o}", "kind", "rdma", "rdma", ix_rdma_setup_json(self), "device",
			ix_rdma_port_info_json(&r->local));
	rc = ix_frame_send(c->fd, IX_MSG_TEST, req, ix_now_ns() + ix_seconds_to_ns(5), err);
	json_decref(req);
	if (rc < 0 || ix_client_expect(c, IX_MSG_TEST_ACK, &ack, SETUP_TIMEOUT_S, err) < 0)
		return -1;
	rc = ix_rdma_setup_parse(json_object_get(ack, "rdma"), NULL, &peer, err);
	if (rc < 0)
		ix_fail_prefix(err, "the agent's TEST_ACK");
	ix_rdma_port_info_parse(json_object_get(ack, "device"), &r->remote);
	json_decref(ack);
	if (rc < 0 || agent_bound(c, &peer, err) < 0 ||
	    same_params(&r->params, &peer.params, err) < 0)
		return -1;
	mtu = ix_rdma_path_mtu(self->mtu, peer.mtu, r->params.mtu_cap);
	if (mtu < 0)
		return ix_fail(err, IX_EXIT_FAIL, "no common path MTU with the agent");
	if (dev->ops->connect(dev->ctx, &peer, mtu, err) < 0)
		return -1;
	r->path_mtu = mtu; /* connected: from here on the test ran */
	if (peer_out)
		*peer_out = peer;
	return 0;
}

/* A phased test (phased.h): its QPs' numbers, labels and ports, then its
 * phases on the schedule. */
struct phased_req {
	const struct ix_rdma_phases *ph;
	int64_t t0_ns;
	struct ix_rdma_phased *out;
};

static int run_phased(const struct ix_rdma_dev *dev, const struct phased_req *pr,
		      const struct ix_rdma_endpoint *self, const struct ix_rdma_endpoint *peer,
		      struct ix_rdma_result *r, struct ix_err *err)
{
	struct ix_rdma_phased *o = pr->out;
	struct ix_rdma_run run;
	void *ectx = NULL;
	const struct ix_rdma_ops *ops = dev->ops->engine(dev->ctx, true, &ectx);

	o->nqps = self->nqps < IX_RDMA_PHASED_MAX_QPS ? self->nqps : IX_RDMA_PHASED_MAX_QPS;
	o->ready_s = (double)(ix_now_ns() - pr->t0_ns) / 1e9;
	for (uint32_t i = 0; i < o->nqps; i++) {
		o->qpn[i] = self->qps[i].qpn;
		o->remote_qpn[i] = i < peer->nqps ? peer->qps[i].qpn : 0;
		o->flow_label[i] = r->params.sport && r->local.gid.type == IX_RDMA_GID_ROCE_V2
					   ? (uint32_t)r->params.sport - 0xc000 + i
					   : 0;
	}
	ix_rdma_phased_sports(o, r->local.vendor_id);
	ix_rdma_run_from_params(&r->params, true, false, &run);
	return ix_rdma_phased_run(ops, ectx, &run, pr->ph, pr->t0_ns, o, err);
}

static int client_run(struct ix_client *c, const struct ix_rdma_dev *dev, const char *devname,
		      unsigned port, const struct ix_rdma_params *p, const struct phased_req *pr,
		      struct ix_rdma_result *r, struct ix_err *err)
{
	struct ix_rdma_endpoint self, peer;
	struct ix_err rerr = { 0 };
	struct end_ctl end = { .fd = -1 };
	json_t *res = NULL;
	int rc;

	ix_rdma_result_init(r, p);
	peer.nqps = 0;
	snprintf(r->remote_host, sizeof(r->remote_host), "%s", c->server_host);
	snprintf(r->remote_version, sizeof(r->remote_version), "%s", c->server_version);
	if (prepare(dev, devname, port, c->fd, &r->params, true, &r->local, &self, err) < 0 ||
	    client_setup(c, dev, &self, r, &peer, err) < 0 ||
	    ix_client_send(c, IX_MSG_START, err) < 0) {
		rc = -1;
		goto out;
	}
	end.fd = c->fd;
	counters_now(dev, &r->ctr_local); /* before; what moved replaces it */
	rc = pr ? run_phased(dev, pr, &self, &peer, r, err)
		: run_engine(dev, &r->params, &r->local, true, &end, &r->bw, &r->lat, err);
	counters_since(dev, &r->ctr_local);
	if (rc == 0 && end.err.msg[0]) {
		*err = end.err;
		rc = -1;
	}
	/* STOP and the agent's figures even after a failure: they say how far
	 * the other end got. The agent's own STOP (a bidirectional test) may
	 * come first. */
	if ((!end.sent && ix_client_send(c, IX_MSG_STOP, &rerr) < 0 &&
	     ix_fail_prefix(&rerr, "server %s", c->host) < 0) ||
	    ix_client_expect_past(c, IX_MSG_RESULT, IX_MSG_STOP, &res,
				  RESULT_GRACE_S + (double)ix_rdma_stall_timeout_ns() / 1e9,
				  &rerr) < 0 ||
	    ix_rdma_figures_parse(res, r, &rerr) < 0) {
		if (rc == 0) {
			*err = rerr;
			rc = -1;
		}
	}
	json_decref(res);
out:
	r->complete = rc == 0;
	if (rc < 0)
		snprintf(r->error, sizeof(r->error), "%s", err->msg);
	dev->ops->close(dev->ctx);
	return rc;
}

int ix_rdma_client_run(struct ix_client *c, const struct ix_rdma_dev *dev, const char *devname,
		       unsigned port, const struct ix_rdma_params *p, struct ix_rdma_result *r,
		       struct ix_err *err)
{
	return client_run(c, dev, devname, port, p, NULL, r, err);
}

int ix_rdma_client_run_phased(struct ix_client *c, const struct ix_rdma_dev *dev,
			      const char *devname, unsigned port, const struct ix_rdma_params *p,
			      const struct ix_rdma_phases *ph, int64_t t0_ns,
			      struct ix_rdma_phased *out, struct ix_rdma_result *r,
			      struct ix_err *err)
{
	struct phased_req pr = { ph, t0_ns, out };

	memset(out, 0, sizeof(*out));
	return client_run(c, dev, devname, port, p, &pr, r, err);
}

/* ---- agent ---- */

static int expect(int fd, uint16_t want, double timeout_s, struct ix_err *err)
{
	uint16_t type;
	json_t *body;

	if (ix_frame_recv(fd, &type, &body, ix_now_ns() + ix_seconds_to_ns(timeout_s), err) < 0)
		return ix_fail_prefix(err, "the client vanished");
	json_decref(body);
	if (type != want)
		return ix_fail(err, IX_EXIT_FAIL, "expected %s, got %s", ix_msg_name(want),
			       ix_msg_name(type));
	return 0;
}

static int serve_setup(int fd, json_t *req, const struct ix_rdma_serve_cfg *cfg,
		       struct ix_rdma_params *p, struct ix_rdma_port_info *info, struct ix_err *err)
{
	struct ix_rdma_endpoint peer, self;
	struct ix_rdma_params asked;
	json_t *ack;
	int mtu, rc;

	if (ix_rdma_setup_parse(json_object_get(req, "rdma"), &cfg->limits, &peer, err) < 0)
		return -1;
	if (cfg->bind_peer) { /* before anything is allocated or sent */
		struct sockaddr_storage ctl;
		struct ix_rdma_addr *own = NULL;
		struct ix_err aerr = { 0 };
		size_t nown = 0;

		if (ix_net_peer_addr(fd, &ctl) < 0)
			return ix_fail(err, IX_EXIT_FAIL, "the client's address cannot be read");
		ix_rdma_addrs_read(&own, &nown, &aerr);
		rc = ix_rdma_peer_bound(&peer, &ctl, own, nown, err);
		free(own);
		if (rc < 0)
			return -1;
	}
	*p = asked = peer.params;
	if (cfg->claim &&
	    cfg->claim(cfg->claim_arg, ix_rdma_buffer_bytes(p) + ix_rdma_queue_bytes(p), err) < 0)
		return -1;
	if (prepare(cfg->dev, cfg->devname, cfg->port, fd, p, false, info, &self, err) < 0)
		return -1;
	if (same_params(&asked, p, err) < 0)
		return ix_fail(err, IX_EXIT_USAGE, "the test's parameters are incomplete");
	mtu = ix_rdma_path_mtu(self.mtu, peer.mtu, p->mtu_cap);
	if (mtu < 0)
		return ix_fail(err, IX_EXIT_FAIL, "no common path MTU with the client");
	if (cfg->dev->ops->connect(cfg->dev->ctx, &peer, mtu, err) < 0)
		return -1;
	ack = json_pack("{s:o,s:o}", "rdma", ix_rdma_setup_json(&self), "device",
			ix_rdma_port_info_json(info));
	rc = ix_frame_send(fd, IX_MSG_TEST_ACK, ack, ix_now_ns() + ix_seconds_to_ns(5), err);
	json_decref(ack);
	return rc;
}

int ix_rdma_serve(int fd, json_t *req, const struct ix_rdma_serve_cfg *cfg, struct ix_err *err)
{
	struct ix_rdma_params p;
	struct ix_rdma_port_info info;
	struct ix_rdma_bw_figures bw;
	struct ix_rdma_lat_figures lat;
	struct ix_err eerr = { 0 };
	struct end_ctl end = { .fd = fd };
	struct ix_ctr_set counters;
	double wait_s;
	json_t *res;
	int rc, erc;

	memset(&bw, 0, sizeof(bw));
	memset(&lat, 0, sizeof(lat));
	ix_samples_init(&lat.samples);
	ix_ctr_set_init(&counters);
	rc = serve_setup(fd, req, cfg, &p, &info, err);
	if (rc == 0)
		rc = expect(fd, IX_MSG_START, START_TIMEOUT_S, err);
	if (rc < 0)
		goto out;
	counters_now(cfg->dev, &counters);
	erc = run_engine(cfg->dev, &p, &info, false, &end, &bw, &lat, &eerr);
	if (erc == 0 && end.err.msg[0]) {
		eerr = end.err;
		erc = -1;
	}
	/* The client says when its end is done; bounded by the test's length. */
	wait_s = (p.iterations
			  ? (cfg->limits.max_duration_s > 0 ? cfg->limits.max_duration_s : 86400)
			  : p.duration_s + p.warmup_s) +
		 STOP_GRACE_S;
	rc = end.seen ? 0 : expect(fd, IX_MSG_STOP, wait_s, err);
	/* Until the client's end is done: a passive end (write, read) has
	 * counted nothing itself by the time its engine returns. */
	counters_since(cfg->dev, &counters);
	if (rc == 0) {
		res = ix_rdma_figures_json(erc == 0, erc == 0 ? NULL : eerr.msg,
					   p.kind == IX_RDMA_LAT ? NULL : &bw,
					   p.kind == IX_RDMA_LAT ? &lat : NULL);
		json_object_set_new(res, "counters", ix_ctr_json(&counters));
		rc = ix_frame_send(fd, IX_MSG_RESULT, res, ix_now_ns() + ix_seconds_to_ns(5), err);
		json_decref(res);
	}
out:
	cfg->dev->ops->close(cfg->dev->ctx);
	ix_rdma_bw_figures_free(&bw);
	ix_rdma_lat_figures_free(&lat);
	ix_ctr_set_free(&counters);
	return rc;
}
