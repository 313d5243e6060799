#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/cluster/blockread.h"
#include "probes/host/fabric.h"
#include "probes/core/clock.h"
#include "probes/ctl/client.h"
#include "probes/ctl/wire.h"
#include "probes/net/net.h"
#include "probes/net/proto.h"
#include "probes/net/transport.h"

#define REPLY_TIMEOUT_S 10.0
#define SCRATCH         (256u * 1024)

struct sender {
	struct ix_client c;
	struct ix_stream s;
	uint64_t left; /* bytes still due this round */
};

static int open_sender(struct sender *sd, const struct ix_read_params *p,
		       const struct ix_transport *tp, struct ix_err *err)
{
	json_t *req = json_pack("{s:s,s:o}", "kind", "block", "block", ix_wire_read_params(p));
	int rc;

	ix_stream_init(&sd->s, 0, IX_DIR_REVERSE, false);
	rc = ix_client_connect(&sd->c, err);
	if (rc == 0)
		rc = ix_client_negotiate(&sd->c, req, &sd->s, 1, tp, NULL, NULL, 0, err);
	if (rc == 0)
		rc = ix_client_send(&sd->c, IX_MSG_START, err);
	json_decref(req);
	return rc;
}

/* One round: a request to every sender, then read until all answered. */
static int one_round(struct sender *sd, uint32_t n, struct pollfd *pfd, uint64_t sru,
		     uint8_t *scratch, int64_t deadline, struct ix_err *err)
{
	uint8_t req[8];
	uint32_t pending = n;

	for (int i = 0; i < 8; i++)
		req[i] = (uint8_t)(sru >> (56 - 8 * i));
	for (uint32_t i = 0; i < n; i++) {
		sd[i].left = sru;
		if (ix_net_write_full(sd[i].s.fd, req, sizeof(req), deadline, err) < 0)
			return ix_fail_prefix(err, "sender %s", sd[i].c.host);
	}
	while (pending) {
		int rc;

		for (uint32_t i = 0; i < n; i++) {
			pfd[i].fd = sd[i].left ? sd[i].s.fd : -1;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
		}
		rc = poll(pfd, n, ix_ms_until(deadline));
		if (rc == 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "a round took longer than its timeout (%u senders silent)",
				       pending);
		if (rc < 0 && errno != EINTR)
			return ix_fail(err, IX_EXIT_FAIL, "poll: %s", strerror(errno));
		for (uint32_t i = 0; i < n; i++) {
			ssize_t got;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = recv(sd[i].s.fd, scratch,
				   sd[i].left < SCRATCH ? (size_t)sd[i].left : SCRATCH,
				   MSG_DONTWAIT);
			if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
				return ix_fail(err, IX_EXIT_FAIL, "sender %s went away mid-round",
					       sd[i].c.host);
			if (got < 0)
				continue;
			sd[i].left -= (uint64_t)got;
			if (!sd[i].left)
				pending--;
		}
	}
	return 0;
}

/* A sender's counters from its RESULT, into the senders' sum. */
static void sender_counters(json_t *res, struct ix_read_figures *f)
{
	struct ix_ctr_set s;
	struct ix_ctr_sum sum;
	struct ix_err e = { 0 };

	if (ix_ctr_parse(json_object_get(res, "counters"), &s, &e) < 0 || !s.valid)
		return;
	ix_ctr_summarize(&s, &sum);
	ix_ctr_sum_add(&f->at_senders, &sum);
	f->counters = true;
	ix_ctr_set_free(&s);
}

/* STOP each sender and add its retransmits (sender-side TCP_INFO). */
static void collect(struct sender *sd, uint32_t n, struct ix_read_figures *f)
{
	uint64_t retr = 0;
	bool have = false;

	for (uint32_t i = 0; i < n; i++) {
		struct ix_err e = { 0 };
		struct ix_stream_end end;
		json_t *res;

		if (sd[i].s.fd >= 0)
			shutdown(sd[i].s.fd, SHUT_WR);
		if (ix_client_send(&sd[i].c, IX_MSG_STOP, &e) < 0 ||
		    ix_client_expect(&sd[i].c, IX_MSG_RESULT, &res, REPLY_TIMEOUT_S, &e) < 0)
			continue;
		if (ix_wire_parse_stream_end(
			    json_object_get(json_array_get(json_object_get(res, "streams"), 0),
					    "end"),
			    &end) == 0 &&
		    end.retransmits.valid) {
			retr += end.retransmits.v;
			have = true;
		}
		sender_counters(res, f);
		json_decref(res);
	}
	if (have)
		f->retransmits = ix_u64(retr);
}

static void summarize(struct ix_samples *rounds, uint64_t sru, uint32_t n,
		      struct ix_read_figures *f)
{
	ix_stats_compute(rounds, &f->round);
	f->rounds = rounds->seen;
	f->bytes = rounds->seen * sru * n;
	f->seconds = rounds->sum / 1e9;
	f->goodput_bps = f->seconds > 0 ? (double)f->bytes * 8.0 / f->seconds : 0;
	for (size_t i = 0; i < rounds->n; i++) {
		bool rto = rounds->v[i] >= IX_RTO_MIN_NS;
		/* Slow: far over the median, and long enough to matter (on a
		 * microsecond loopback round a scheduler hiccup is not a stall). */
		bool slow = f->round.valid && rounds->v[i] > IX_SLOW_ROUND_FACTOR * f->round.p50 &&
			    rounds->v[i] >= IX_SLOW_ROUND_MIN_NS;

		f->rto_rounds += rto;
		f->slow_rounds += slow;
		f->stalled_rounds += rto || slow;
	}
}

int ix_read_run(const struct ix_read_params *p, const struct ix_host *senders, uint32_t n,
		const struct ix_token *token, struct ix_read_figures *f, struct ix_err *err)
{
	const struct ix_transport *tp = ix_transport_find(p->path);
	struct sender *sd = calloc(n ? n : 1, sizeof(*sd));
	struct pollfd *pfd = calloc(n ? n : 1, sizeof(*pfd));
	uint8_t *scratch = malloc(SCRATCH);
	struct ix_samples rounds;
	struct ix_ctr_set ctr0, ctr1, moved;
	int rc = 0;

	ix_ctr_set_init(&ctr0);
	memset(f, 0, sizeof(*f));
	f->senders = n;
	if (ix_samples_init(&rounds) < 0 || !sd || !pfd || !scratch) {
		rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto out;
	}
	if (!tp || !(tp->caps & IX_CAP_BLOCKS)) {
		rc = ix_fail(err, IX_EXIT_USAGE, "synchronised reads need a reliable path (tcp)");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		sd[i].c = (struct ix_client){
			.host = senders[i].name, .port = senders[i].port, .token = token, .fd = -1
		};
		sd[i].s.fd = -1;
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		char name[IX_HOST_NAME_MAX + 16];

		ix_host_format(&senders[i], name, sizeof(name));
		if ((rc = open_sender(&sd[i], p, tp, err)) < 0)
			ix_fail_prefix(err, "sender %s", name);
	}
	if (rc == 0 && n > 0)
		ix_fabric_snapshot_socket(sd[0].c.fd, &ctr0); /* towards the first sender */
	for (uint32_t r = 0; rc == 0 && r < p->warmup_rounds + p->rounds; r++) {
		int64_t t0 = ix_now_ns();

		if (p->stop && atomic_load(p->stop)) {
			rc = ix_fail(err, IX_EXIT_FAIL, "stopped after %u rounds", r);
			break;
		}
		if (p->deadline_ns && t0 >= p->deadline_ns) {
			rc = ix_fail(err, IX_EXIT_FAIL, "over the time limit after %u rounds", r);
			break;
		}
		rc = one_round(sd, n, pfd, p->sru, scratch, t0 + ix_seconds_to_ns(p->timeout_s),
			       err);
		if (rc == 0 && r >= p->warmup_rounds &&
		    ix_samples_add(&rounds, (uint64_t)(ix_now_ns() - t0)) < 0)
			rc = ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (rc == 0) {
		ix_fabric_snapshot_socket(sd[0].c.fd, &ctr1);
		ix_ctr_delta(&ctr0, &ctr1, &moved);
		if (moved.valid) {
			ix_ctr_summarize(&moved, &f->at_receiver);
			f->counters = true;
		}
		ix_ctr_set_free(&ctr1);
		ix_ctr_set_free(&moved);
		collect(sd, n, f);
	}
	ix_ctr_set_free(&ctr0);
	summarize(&rounds, p->sru, n, f);
out:
	for (uint32_t i = 0; sd && i < n; i++) {
		ix_streams_close(&sd[i].s, 1);
		ix_client_close(&sd[i].c);
	}
	f->complete = rc == 0;
	if (rc < 0)
		snprintf(f->error, sizeof(f->error), "%s", err->msg);
	ix_samples_free(&rounds);
	free(scratch);
	free(pfd);
	free(sd);
	return rc;
}
