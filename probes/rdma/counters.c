/* An RDMA port's hw_counters: snapshots, deltas and what they mean. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/rdma/counters.h"

/* The counters that tell why a run was slow, by driver name. rdma_rxe
 * (drivers/infiniband/sw/rxe/rxe_hw_counters.c) and mlx5
 * (Documentation of mlx5 "hw_counters"); others are shown by name only. */
static const struct {
	const char *name, *meaning;
} meanings[] = {
	/* rdma_rxe */
	{ "completer_retry_err", "retransmissions after an ACK timeout" },
	{ "retry_exceeded_err", "QPs out of transport retries" },
	{ "retry_rnr_exceeded_err", "QPs out of RNR retries" },
	{ "rcvd_seq_err", "sequence-error NAKs received" },
	{ "out_of_seq_request", "out-of-sequence requests received" },
	{ "duplicate_request", "duplicate (retransmitted) requests received" },
	{ "rcvd_rnr_err", "RNR NAKs received (the peer had no receive posted)" },
	{ "send_rnr_err", "RNR NAKs sent (no receive posted here)" },
	{ "send_err", "packets that could not be sent" },
	{ "link_downed", "link downs" },
	/* mlx5 */
	{ "local_ack_timeout_err", "ACK timeouts (retransmissions)" },
	{ "out_of_sequence", "out-of-sequence packets received" },
	{ "packet_seq_err", "sequence-error NAKs received" },
	{ "implied_nak_seq_err", "implied sequence-error NAKs" },
	{ "rnr_nak_retry_err", "QPs out of RNR retries" },
	{ "out_of_buffer", "drops: no receive WQE (out of buffer)" },
	{ "req_cqe_error", "requester completions with an error" },
	{ "resp_cqe_error", "responder completions with an error" },
	{ "req_remote_access_errors", "remote access errors (requester)" },
	{ "resp_remote_access_errors", "remote access errors (responder)" },
	{ "rx_icrc_encapsulated", "packets with a bad ICRC" },
	{ "roce_adp_retrans", "adaptive retransmissions" },
	{ "roce_slow_restart", "slow restarts after retransmissions" },
	{ "np_cnp_sent", "CNPs sent (congestion seen here)" },
	{ "rp_cnp_handled", "CNPs handled (the peer saw congestion)" },
	{ "np_ecn_marked_roce_packets", "ECN-marked RoCE packets received" },
};

const char *ix_rdma_counter_meaning(const char *name)
{
	for (size_t i = 0; i < sizeof(meanings) / sizeof(meanings[0]); i++)
		if (strcmp(meanings[i].name, name) == 0)
			return meanings[i].meaning;
	return NULL;
}

static bool good_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= IX_RDMA_COUNTER_NAME)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ix_rdma_counter *)a)->name,
		      ((const struct ix_rdma_counter *)b)->name);
}

static bool read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	FILE *f = fopen(path, "r");
	unsigned long long x;

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return false;
	*v = x;
	return true;
}

void ix_rdma_counters_read(const char *root, const char *dev, unsigned port,
			   struct ix_rdma_counters *c)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	struct dirent *e;
	DIR *d;

	memset(c, 0, sizeof(*c));
	snprintf(dir, sizeof(dir), "%s/sys/class/infiniband/%s/ports/%u/hw_counters",
		 root ? root : "", dev, port);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) && c->n < IX_RDMA_MAX_COUNTERS) {
		uint64_t v;

		if (!good_name(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!read_u64(path, &v))
			continue;
		snprintf(c->v[c->n].name, sizeof(c->v[c->n].name), "%s", e->d_name);
		c->v[c->n++].value = v;
	}
	closedir(d);
	qsort(c->v, c->n, sizeof(c->v[0]), by_name);
	c->valid = true;
}

void ix_rdma_counters_delta(const struct ix_rdma_counters *before,
			    const struct ix_rdma_counters *after, struct ix_rdma_counters *delta)
{
	memset(delta, 0, sizeof(*delta));
	if (!before->valid || !after->valid)
		return;
	delta->valid = true;
	for (size_t i = 0; i < after->n; i++)
		for (size_t j = 0; j < before->n; j++) {
			if (strcmp(after->v[i].name, before->v[j].name) != 0)
				continue;
			if (after->v[i].value >= before->v[j].value) {
				delta->v[delta->n] = after->v[i];
				delta->v[delta->n++].value -= before->v[j].value;
			}
			break;
		}
}

json_t *ix_rdma_counters_json(const struct ix_rdma_counters *c)
{
	json_t *o;

	if (!c->valid)
		return json_null();
	o = json_object();
	for (size_t i = 0; i < c->n; i++)
		json_object_set_new(o, c->v[i].name, json_integer((json_int_t)c->v[i].value));
	return o;
}

int ix_rdma_counters_parse(json_t *j, struct ix_rdma_counters *c, struct ix_err *err)
{
	const char *k;
	json_t *v;

	memset(c, 0, sizeof(*c));
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: 'counters' is not an object");
	if (json_object_size(j) > IX_RDMA_MAX_COUNTERS)
		return ix_fail(err, IX_EXIT_FAIL, "RESULT: more than %d counters",
			       IX_RDMA_MAX_COUNTERS);
	json_object_foreach(j, k, v)
	{
		if (!good_name(k))
			return ix_fail(err, IX_EXIT_FAIL,
				       "RESULT: a counter's name is not [a-z0-9_]");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return ix_fail(err, IX_EXIT_FAIL,
				       "RESULT: counter '%s' is not a non-negative integer", k);
		snprintf(c->v[c->n].name, sizeof(c->v[c->n].name), "%s", k);
		c->v[c->n++].value = (uint64_t)json_integer_value(v);
	}
	qsort(c->v, c->n, sizeof(c->v[0]), by_name);
	c->valid = true;
	return 0;
}
