/* Fabric counters: classes of the drivers' names, deltas, sums, sentences. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/counters.h"

static const char *const source_names[IX_SRC_N] = { "netdev", "ethtool", "qdisc", "hw_counters",
						    "port_counters" };

static const struct {
	const char *key, *text;
} classes[IX_CC_N] = {
	[IX_CC_NONE] = { "none", "other" },
	[IX_CC_DISCARD] = { "discards", "drops" },
	[IX_CC_PAUSE_RX] = { "pause_rx", "pause frames received" },
	[IX_CC_PAUSE_TX] = { "pause_tx", "pause frames sent" },
	[IX_CC_ECN] = { "ecn_marked", "ECN-marked packets" },
	[IX_CC_CNP_SENT] = { "cnp_sent", "CNPs sent" },
	[IX_CC_CNP_HANDLED] = { "cnp_handled", "CNPs handled" },
	[IX_CC_RETRANS] = { "retransmissions", "retransmissions or ACK timeouts" },
	[IX_CC_SEQ_ERR] = { "sequence_errors", "out-of-sequence packets" },
	[IX_CC_RNR] = { "rnr_naks", "RNR NAKs" },
	[IX_CC_XMIT_WAIT] = { "xmit_wait", "ticks waiting for credits" },
	[IX_CC_ERROR] = { "errors", "errors" },
	[IX_CC_LINK] = { "link_events", "link downs or recoveries" },
	[IX_CC_PAUSE_TIME] = { "pause_time", "units of time paused" },
};

/*
 * Known names. A pattern's '#' stands for one or more digits and '*' for
 * anything; a pattern of source IX_SRC_N matches in every source. The
 * first match wins, so exceptions come before the rules they break.
 */
#define ANY IX_SRC_N
static const struct {
	uint8_t source;
	const char *pattern;
	uint8_t cls;
} known[] = {
	/* The kernel's netdev statistics: the totals only (rx_errors
	 * already holds rx_crc_errors, rx_frame_errors...). */
	{ IX_SRC_NETDEV, "rx_dropped", IX_CC_DISCARD },
	{ IX_SRC_NETDEV, "tx_dropped", IX_CC_DISCARD },
	{ IX_SRC_NETDEV, "rx_missed_errors", IX_CC_DISCARD },
	{ IX_SRC_NETDEV, "rx_nohandler", IX_CC_DISCARD },
	{ IX_SRC_NETDEV, "rx_errors", IX_CC_ERROR },
	{ IX_SRC_NETDEV, "tx_errors", IX_CC_ERROR },
	{ IX_SRC_NETDEV, "*", IX_CC_NONE },
	/* A root qdisc: "tbf_drops", "htb_overlimits" (shaping, no loss). */
	{ IX_SRC_QDISC, "*_drops", IX_CC_DISCARD },
	{ IX_SRC_QDISC, "*", IX_CC_NONE },
	/* InfiniBand port counters (PMA), any driver. */
	{ IX_SRC_PORT, "port_xmit_wait", IX_CC_XMIT_WAIT },
	{ IX_SRC_PORT, "port_xmit_discards", IX_CC_DISCARD },
	{ IX_SRC_PORT, "excessive_buffer_overrun_errors", IX_CC_DISCARD },
	{ IX_SRC_PORT, "VL15_dropped", IX_CC_DISCARD },
	{ IX_SRC_PORT, "port_rcv_switch_relay_errors", IX_CC_DISCARD },
	{ IX_SRC_PORT, "port_rcv_constraint_errors", IX_CC_DISCARD },
	{ IX_SRC_PORT, "port_xmit_constraint_errors", IX_CC_DISCARD },
	{ IX_SRC_PORT, "port_rcv_errors", IX_CC_ERROR },
	{ IX_SRC_PORT, "symbol_error", IX_CC_ERROR },
	{ IX_SRC_PORT, "local_link_integrity_errors", IX_CC_ERROR },
	{ IX_SRC_PORT, "port_rcv_remote_physical_errors", IX_CC_ERROR },
	{ IX_SRC_PORT, "link_error_recovery", IX_CC_LINK },
	{ IX_SRC_PORT, "link_downed", IX_CC_LINK },
	{ IX_SRC_PORT, "*", IX_CC_NONE },
	/* mlx5 hw_counters (RoCE and InfiniBand). */
	{ ANY, "np_cnp_sent", IX_CC_CNP_SENT },
	{ ANY, "rp_cnp_handled", IX_CC_CNP_HANDLED },
	{ ANY, "rp_cnp_ignored", IX_CC_NONE },
	{ ANY, "np_ecn_marked_roce_packets", IX_CC_ECN },
	{ ANY, "out_of_buffer", IX_CC_DISCARD },
	{ ANY, "out_of_sequence", IX_CC_SEQ_ERR },
	{ ANY, "packet_seq_err", IX_CC_SEQ_ERR },
	{ ANY, "implied_nak_seq_err", IX_CC_SEQ_ERR },
	{ ANY, "duplicate_request", IX_CC_SEQ_ERR },
	{ ANY, "local_ack_timeout_err", IX_CC_RETRANS },
	{ ANY, "roce_adp_retrans", IX_CC_RETRANS },
	{ ANY, "roce_adp_retrans_to", IX_CC_RETRANS },
	{ ANY, "roce_slow_restart", IX_CC_RETRANS },
	{ ANY, "roce_slow_restart_cnps", IX_CC_NONE },
	{ ANY, "roce_slow_restart_trans", IX_CC_NONE },
	{ ANY, "rnr_nak_retry_err", IX_CC_RNR },
	{ ANY, "*_flush_error", IX_CC_NONE }, /* work flushed when a QP closes */
	/* rdma_rxe hw_counters. */
	{ ANY, "completer_retry_err", IX_CC_RETRANS },
	{ ANY, "retry_exceeded_err", IX_CC_RETRANS },
	{ ANY, "retry_rnr_exceeded_err", IX_CC_RNR },
	{ ANY, "rcvd_seq_err", IX_CC_SEQ_ERR },
	{ ANY, "out_of_seq_request", IX_CC_SEQ_ERR },
	{ ANY, "rcvd_rnr_err", IX_CC_RNR },
	{ ANY, "send_rnr_err", IX_CC_RNR },
	{ ANY, "send_err", IX_CC_DISCARD }, /* refused by the egress (a full qdisc) */
	{ ANY, "link_downed", IX_CC_LINK },
	{ ANY, "ack_deferred", IX_CC_NONE },
	{ ANY, "lifespan", IX_CC_NONE },
	/* bnxt_re hw_counters. */
	{ ANY, "to_retransmits", IX_CC_RETRANS },
	{ ANY, "max_retry_exceeded", IX_CC_RETRANS },
	{ ANY, "missing_resp", IX_CC_RETRANS },
	{ ANY, "seq_err_naks_rcvd", IX_CC_SEQ_ERR },
	{ ANY, "dup_req", IX_CC_SEQ_ERR },
	{ ANY, "dup_reqs", IX_CC_SEQ_ERR },
	{ ANY, "rnr_naks_rcvd", IX_CC_RNR },
	{ ANY, "tx_cnp_pkts", IX_CC_CNP_SENT },
	{ ANY, "cnp_tx_pkts", IX_CC_CNP_SENT },
	{ ANY, "np_cnp_pkts", IX_CC_CNP_SENT },
	{ ANY, "rx_cnp_pkts", IX_CC_CNP_HANDLED },
	{ ANY, "cnp_rx_pkts", IX_CC_CNP_HANDLED },
	{ ANY, "rx_ecn_marked_pkts", IX_CC_ECN },
	{ ANY, "cnp_tx_bytes", IX_CC_NONE },
	{ ANY, "cnp_rx_bytes", IX_CC_NONE },
	{ ANY, "recoverable_errors", IX_CC_ERROR },
	{ ANY, "unrecoverable_err", IX_CC_ERROR },
	/* irdma hw_counters (Intel E810 RoCE and iWARP). */
	{ ANY, "cnpSent", IX_CC_CNP_SENT },
	{ ANY, "cnpHandled", IX_CC_CNP_HANDLED },
	{ ANY, "cnpIgnored", IX_CC_NONE },
	{ ANY, "RxECNMrkd", IX_CC_ECN },
	{ ANY, "tcpRetransSegs", IX_CC_RETRANS },
	{ ANY, "RetransSegs", IX_CC_RETRANS },
	{ ANY, "ip4InDiscards", IX_CC_DISCARD },
	{ ANY, "ip6InDiscards", IX_CC_DISCARD },
	{ ANY, "RNR sent", IX_CC_RNR },
	{ ANY, "RNR received", IX_CC_RNR },
	/* mlx5 ethtool. */
	{ ANY, "rx_prio#_pause", IX_CC_PAUSE_RX },
	{ ANY, "tx_prio#_pause", IX_CC_PAUSE_TX },
	{ ANY, "rx_prio#_pause_duration", IX_CC_PAUSE_TIME },
	{ ANY, "tx_prio#_pause_duration", IX_CC_PAUSE_TIME },
	{ ANY, "*_pause_transition", IX_CC_NONE },
	{ ANY, "rx_pause_ctrl_phy", IX_CC_PAUSE_RX },
	{ ANY, "tx_pause_ctrl_phy", IX_CC_PAUSE_TX },
	{ ANY, "tx_pause_storm_*", IX_CC_ERROR },
	{ ANY, "rx_prio#_marked", IX_CC_ECN },
	{ ANY, "rx_ecn_mark", IX_CC_ECN },
	{ ANY, "rx_prio#_buf_discard", IX_CC_DISCARD },
	{ ANY, "rx_prio#_cong_discard", IX_CC_DISCARD },
	{ ANY, "rx_discards_phy", IX_CC_DISCARD },
	{ ANY, "tx_discards_phy", IX_CC_DISCARD },
	{ ANY, "rx_out_of_buffer", IX_CC_DISCARD },
	{ ANY, "rx_buffer_passed_thres_phy", IX_CC_NONE },
	{ ANY, "rx_corrected_bits_phy", IX_CC_NONE },
	{ ANY, "link_down_events_phy", IX_CC_LINK },
	/* bnxt_en ethtool. */
	{ ANY, "rx_pfc_ena_frames_pri#", IX_CC_PAUSE_RX },
	{ ANY, "tx_pfc_ena_frames_pri#", IX_CC_PAUSE_TX },
	{ ANY, "rx_pause_frames", IX_CC_PAUSE_RX },
	{ ANY, "tx_pause_frames", IX_CC_PAUSE_TX },
	{ ANY, "rx_pfc_frames", IX_CC_PAUSE_RX },
	{ ANY, "tx_pfc_frames", IX_CC_PAUSE_TX },
	{ ANY, "*_pfc_xon2xoff_*", IX_CC_NONE },
	{ ANY, "rx_fcs_err_frames", IX_CC_ERROR },
	{ ANY, "link_down_events", IX_CC_LINK },
	/* ice ethtool (port statistics end in ".nic", dropped before matching). */
	{ ANY, "rx_priority_#_xoff", IX_CC_PAUSE_RX },
	{ ANY, "tx_priority_#_xoff", IX_CC_PAUSE_TX },
	{ ANY, "link_xoff_rx", IX_CC_PAUSE_RX },
	{ ANY, "link_xoff_tx", IX_CC_PAUSE_TX },
	{ ANY, "*_xon", IX_CC_NONE },
	{ ANY, "*_xon_*", IX_CC_NONE },
	{ ANY, "*xon2xoff*", IX_CC_NONE },
	{ ANY, "illegal_bytes", IX_CC_ERROR },
	{ ANY, "rx_oversize", IX_CC_ERROR },
	{ ANY, "rx_undersize", IX_CC_ERROR },
	{ ANY, "rx_fragments", IX_CC_ERROR },
	{ ANY, "rx_jabber", IX_CC_ERROR },
};

/* '#': one or more digits; '*': any run. */
static bool match(const char *p, const char *s)
{
	for (; *p; p++) {
		if (*p == '*') {
			for (const char *t = s;; t++) {
				if (match(p + 1, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (*p == '#') {
			if (!isdigit((unsigned char)*s))
				return false;
			while (isdigit((unsigned char)*s))
				s++;
			continue;
		}
		if (*p != *s)
			return false;
		s++;
	}
	return *s == '\0';
}

static bool has(const char *lower, const char *word)
{
	return strstr(lower, word) != NULL;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* What the words of an unknown name say. */
static enum ix_ctr_class by_words(const char *name)
{
	char low[IX_CTR_NAME_MAX];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[i] = '\0';
	if (has(low, "bytes") || has(low, "octets"))
		return IX_CC_NONE;
	if (has(low, "pause") || has(low, "xoff")) {
		if (has(low, "duration") || has(low, "time"))
			return IX_CC_PAUSE_TIME;
		if (strncmp(low, "tx", 2) == 0 || has(low, "_tx"))
			return IX_CC_PAUSE_TX;
		return IX_CC_PAUSE_RX;
	}
	if (has(low, "discard") || has(low, "drop"))
		return IX_CC_DISCARD;
	if (has(low, "ecn") && (has(low, "mark") || has(low, "ce_")))
		return IX_CC_ECN;
	if (has(low, "retrans") || has(low, "timeout"))
		return IX_CC_RETRANS;
	if (has(low, "err"))
		return IX_CC_ERROR;
	return IX_CC_NONE;
}

enum ix_ctr_class ix_ctr_classify(enum ix_ctr_source src, const char *name)
{
	char base[IX_CTR_NAME_MAX];

	snprintf(base, sizeof(base), "%s", name);
	if (ends_with(base, ".nic"))
		base[strlen(base) - 4] = '\0';
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((known[i].source == ANY || known[i].source == src) &&
		    match(known[i].pattern, base))
			return (enum ix_ctr_class)known[i].cls;
	return by_words(base);
}

void ix_ctr_set_init(struct ix_ctr_set *s)
{
	memset(s, 0, sizeof(*s));
}

void ix_ctr_set_free(struct ix_ctr_set *s)
{
	free(s->v);
	ix_ctr_set_init(s);
}

int ix_ctr_set_copy(struct ix_ctr_set *dst, const struct ix_ctr_set *src)
{
	*dst = *src;
	dst->v = NULL;
	dst->cap = 0;
	if (src->n == 0)
		return 0;
	dst->v = malloc(src->n * sizeof(*dst->v));
	if (!dst->v) {
		dst->n = 0;
		dst->truncated = true;
		return -1;
	}
	memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
	dst->cap = src->n;
	return 0;
}

static int push(struct ix_ctr_set *s, const struct ix_ctr *c, size_t max)
{
	if (s->n >= max) {
		s->truncated = true;
		return -1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct ix_ctr *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			s->truncated = true;
			return -1;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *c;
	return 0;
}

int ix_ctr_set_add(struct ix_ctr_set *s, enum ix_ctr_source src, const char *name, uint64_t value)
{
	struct ix_ctr c = { .source = (uint8_t)src, .value = value };

	snprintf(c.name, sizeof(c.name), "%s", name);
	c.cls = (uint8_t)ix_ctr_classify(src, c.name);
	s->valid = true;
	s->sources |= 1u << src;
	return push(s, &c, IX_CTR_MAX);
}

/* The counter of before matching after->v[i]: the same index when the
 * sets were read alike (the usual case), else a search. */
static const struct ix_ctr *counterpart(const struct ix_ctr_set *before, const struct ix_ctr *c,
					size_t i)
{
	if (i < before->n && before->v[i].source == c->source &&
	    strcmp(before->v[i].name, c->name) == 0)
		return &before->v[i];
	for (size_t j = 0; j < before->n; j++)
		if (before->v[j].source == c->source && strcmp(before->v[j].name, c->name) == 0)
			return &before->v[j];
	return NULL;
}

int ix_ctr_delta(const struct ix_ctr_set *before, const struct ix_ctr_set *after,
		 struct ix_ctr_set *moved)
{
	int n = 0;

	ix_ctr_set_init(moved);
	if (!before->valid || !after->valid)
		return 0;
	moved->valid = true;
	snprintf(moved->iface, sizeof(moved->iface), "%s", after->iface);
	snprintf(moved->rdma, sizeof(moved->rdma), "%s", after->rdma);
	moved->sources = before->sources & after->sources;
	moved->truncated = before->truncated || after->truncated;
	for (size_t i = 0; i < after->n; i++) {
		const struct ix_ctr *a = &after->v[i], *b;
		struct ix_ctr d;

		if (a->cls == IX_CC_NONE)
			continue;
		b = counterpart(before, a, i);
		if (!b || a->value <= b->value)
			continue;
		d = *a;
		d.value = a->value - b->value;
		if (push(moved, &d, IX_CTR_MOVED_MAX) < 0) {
			if (moved->n < IX_CTR_MOVED_MAX)
				return -1; /* out of memory */
			continue;
		}
		n++;
	}
	return n;
}

void ix_ctr_summarize(const struct ix_ctr_set *s, struct ix_ctr_sum *sum)
{
	uint64_t per[IX_SRC_N][IX_CC_N];

	memset(sum, 0, sizeof(*sum));
	memset(per, 0, sizeof(per));
	for (size_t i = 0; i < s->n; i++) {
		const struct ix_ctr *c = &s->v[i];

		if (c->source < IX_SRC_N && c->cls < IX_CC_N) {
			uint64_t *p = &per[c->source][c->cls];

			*p = *p > UINT64_MAX - c->value ? UINT64_MAX : *p + c->value;
		}
	}
	for (int k = 1; k < IX_CC_N; k++)
		for (int src = 0; src < IX_SRC_N; src++)
			if (per[src][k] > sum->v[k]) {
				sum->v[k] = per[src][k];
				sum->has |= 1u << k;
			}
}

void ix_ctr_sum_add(struct ix_ctr_sum *a, const struct ix_ctr_sum *b)
{
	for (int k = 0; k < IX_CC_N; k++)
		a->v[k] = a->v[k] > UINT64_MAX - b->v[k] ? UINT64_MAX : a->v[k] + b->v[k];
	a->has |= b->has;
}

size_t ix_ctr_sum_sentence(const struct ix_ctr_sum *s, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = '\0';
	for (int k = 1; k < IX_CC_N; k++)
		if ((s->has & (1u << k)) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64 " %s",
						off ? ", " : "", s->v[k],
						ix_ctr_class_text((enum ix_ctr_class)k));
	return off < len ? off : (len ? len - 1 : 0);
}

json_t *ix_ctr_sum_json(const struct ix_ctr_sum *s)
{
	json_t *o = json_object();

	for (int k = 1; k < IX_CC_N; k++)
		if (s->has & (1u << k))
			json_object_set_new(o, classes[k].key,
					    json_integer((json_int_t)(s->v[k] & INT64_MAX)));
	return o;
}

int ix_ctr_sum_parse(json_t *j, struct ix_ctr_sum *s)
{
	memset(s, 0, sizeof(*s));
	if (!json_is_object(j))
		return -1;
	for (int k = 1; k < IX_CC_N; k++) {
		json_t *v = json_object_get(j, classes[k].key);

		if (!v)
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return -1;
		s->v[k] = (uint64_t)json_integer_value(v);
		s->has |= 1u << k;
	}
	return 0;
}

uint64_t ix_ctr_sum_pauses(const struct ix_ctr_sum *s)
{
	return s->v[IX_CC_PAUSE_RX] + s->v[IX_CC_PAUSE_TX];
}

uint64_t ix_ctr_sum_cnps(const struct ix_ctr_sum *s)
{
	return s->v[IX_CC_CNP_SENT] + s->v[IX_CC_CNP_HANDLED];
}

const char *ix_ctr_source_name(enum ix_ctr_source src)
{
	return src < IX_SRC_N ? source_names[src] : "?";
}

int ix_ctr_source_parse(const char *name, size_t len)
{
	for (int i = 0; i < IX_SRC_N; i++)
		if (strlen(source_names[i]) == len && strncmp(source_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *ix_ctr_class_key(enum ix_ctr_class c)
{
	return c < IX_CC_N ? classes[c].key : "?";
}

const char *ix_ctr_class_text(enum ix_ctr_class c)
{
	return c < IX_CC_N ? classes[c].text : "?";
}

#define NAMES_PER_CLAUSE 2

/* The counters of class k, largest first, NAMES_PER_CLAUSE at most. */
static size_t clause(const struct ix_ctr_set *s, int k, uint64_t total, char *buf, size_t len)
{
	const struct ix_ctr *top[NAMES_PER_CLAUSE] = { NULL };
	size_t shown = 0, more = 0, off;

	for (size_t i = 0; i < s->n; i++) {
		const struct ix_ctr *c = &s->v[i];
		size_t j;

		if (c->cls != k)
			continue;
		more++;
		for (j = 0; j < NAMES_PER_CLAUSE; j++)
			if (!top[j] || c->value > top[j]->value)
				break;
		if (j == NAMES_PER_CLAUSE)
			continue;
		memmove(&top[j + 1], &top[j], (NAMES_PER_CLAUSE - 1 - j) * sizeof(top[0]));
		top[j] = c;
	}
	off = (size_t)snprintf(buf, len, "%" PRIu64 " %s (", total,
			       ix_ctr_class_text((enum ix_ctr_class)k));
	for (size_t j = 0; j < NAMES_PER_CLAUSE && top[j]; j++, shown++)
		off += (size_t)snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,
					"%s%s %s %" PRIu64, j ? ", " : "",
					ix_ctr_source_name((enum ix_ctr_source)top[j]->source),
					top[j]->name, top[j]->value);
	if (more > shown)
		off += (size_t)snprintf(buf + (off < len ? off : len), off < len ? len - off : 0,
					" and %zu more", more - shown);
	off += (size_t)snprintf(buf + (off < len ? off : len), off < len ? len - off : 0, ")");
	return off;
}

size_t ix_ctr_sentence(const struct ix_ctr_set *moved, char *buf, size_t len)
{
	struct ix_ctr_sum sum;
	size_t off = 0;
	bool first = true;

	if (len)
		buf[0] = '\0';
	ix_ctr_summarize(moved, &sum);
	if (!sum.has)
		return 0;
	for (int k = 1; k < IX_CC_N; k++) {
		if (!(sum.has & (1u << k)))
			continue;
		if (first && moved->iface[0] && moved->rdma[0])
			off += (size_t)snprintf(buf, len, "%s (%s): ", moved->iface, moved->rdma);
		else if (first && (moved->iface[0] || moved->rdma[0]))
			off += (size_t)snprintf(
				buf, len, "%s: ", moved->iface[0] ? moved->iface : moved->rdma);
		else if (!first)
			off += (size_t)snprintf(buf + (off < len ? off : len),
						off < len ? len - off : 0, ", ");
		first = false;
		off += clause(moved, k, sum.v[k], buf + (off < len ? off : len),
			      off < len ? len - off : 0);
	}
	return off < len ? off : (len ? len - 1 : 0);
}

json_t *ix_ctr_json(const struct ix_ctr_set *s)
{
	json_t *o, *srcs, *mv, *sm;
	struct ix_ctr_sum sum;
	char key[IX_CTR_NAME_MAX + 16];

	if (!s->valid)
		return json_null();
	srcs = json_array();
	for (int i = 0; i < IX_SRC_N; i++)
		if (s->sources & (1u << i))
			json_array_append_new(srcs, json_string(source_names[i]));
	mv = json_object();
	for (size_t i = 0; i < s->n; i++) {
		snprintf(key, sizeof(key), "%s:%s",
			 ix_ctr_source_name((enum ix_ctr_source)s->v[i].source), s->v[i].name);
		json_object_set_new(mv, key, json_integer((json_int_t)(s->v[i].value & INT64_MAX)));
	}
	ix_ctr_summarize(s, &sum);
	sm = ix_ctr_sum_json(&sum);
	o = json_pack("{s:s,s:s,s:o,s:o,s:o}", "iface", s->iface, "rdma", s->rdma, "sources", srcs,
		      "moved", mv, "summary", sm);
	if (s->truncated)
		json_object_set_new(o, "truncated", json_true());
	return o;
}

/* Printable ASCII; a counter's name (a file name in sysfs) has no '/'. */
static bool printable(const char *s, size_t n, bool name)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ||
		    (name && s[i] == '/'))
			return false;
	return n > 0;
}

static int set_string(json_t *o, const char *k, char *out, size_t len, struct ix_err *err)
{
	json_t *v = json_object_get(o, k);
	const char *s = json_string_value(v);

	if (!v)
		return 0;
	if (!s || strlen(s) >= len || (*s && !printable(s, strlen(s), false)))
		return ix_fail(err, IX_EXIT_FAIL, "counters: '%s' is not a short printable string",
			       k);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int ix_ctr_parse(json_t *j, struct ix_ctr_set *s, struct ix_err *err)
{
	json_t *mv, *v;
	const char *k;

	ix_ctr_set_init(s);
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return ix_fail(err, IX_EXIT_FAIL, "counters: not an object");
	if (set_string(j, "iface", s->iface, sizeof(s->iface), err) < 0 ||
	    set_string(j, "rdma", s->rdma, sizeof(s->rdma), err) < 0)
		return -1;
	v = json_object_get(j, "sources");
	if (v) {
		size_t i;
		json_t *e;

		if (!json_is_array(v))
			return ix_fail(err, IX_EXIT_FAIL, "counters: 'sources' is not an array");
		json_array_foreach(v, i, e)
		{
			const char *n = json_string_value(e);
			int src = n ? ix_ctr_source_parse(n, strlen(n)) : -1;

			if (src < 0)
				return ix_fail(err, IX_EXIT_FAIL,
					       "counters: source %zu is not a known source", i);
			s->sources |= 1u << src;
		}
	}
	mv = json_object_get(j, "moved");
	if (mv && !json_is_object(mv))
		return ix_fail(err, IX_EXIT_FAIL, "counters: 'moved' is not an object");
	if (mv && json_object_size(mv) > IX_CTR_MOVED_MAX)
		return ix_fail(err, IX_EXIT_FAIL, "counters: more than %d moved", IX_CTR_MOVED_MAX);
	s->valid = true;
	s->truncated = json_is_true(json_object_get(j, "truncated"));
	json_object_foreach(mv, k, v)
	{
		const char *colon = strchr(k, ':');
		struct ix_ctr c = { 0 };
		int src;

		if (!colon || (src = ix_ctr_source_parse(k, (size_t)(colon - k))) < 0 ||
		    strlen(colon + 1) >= IX_CTR_NAME_MAX ||
		    !printable(colon + 1, strlen(colon + 1), true))
			goto bad_name;
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			ix_ctr_set_free(s);
			return ix_fail(err, IX_EXIT_FAIL,
				       "counters: '%.80s' is not a non-negative integer", k);
		}
		memcpy(c.name, colon + 1, strlen(colon + 1) + 1);
		c.source = (uint8_t)src;
		c.cls = (uint8_t)ix_ctr_classify((enum ix_ctr_source)src, c.name);
		c.value = (uint64_t)json_integer_value(v);
		if (push(s, &c, IX_CTR_MOVED_MAX) < 0) {
			ix_ctr_set_free(s);
			return ix_fail(err, IX_EXIT_FAIL, "counters: out of memory");
		}
	}
	return 0;
bad_name:
	ix_ctr_set_free(s);
	return ix_fail(err, IX_EXIT_FAIL,
		       "counters: '%.80s' is not SOURCE:NAME (netdev, ethtool, qdisc, hw_counters, "
		       "port_counters)",
		       k);
}
