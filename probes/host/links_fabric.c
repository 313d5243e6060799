/* Each link's fabric counters as per-second rates ("ixperf top"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probes/host/fabric.h"
#include "probes/host/links.h"

static const char *const labels[IX_CC_N] = {
	[IX_CC_NONE] = "other",
	[IX_CC_DISCARD] = "drops",
	[IX_CC_PAUSE_RX] = "pause rx",
	[IX_CC_PAUSE_TX] = "pause tx",
	[IX_CC_ECN] = "ecn",
	[IX_CC_CNP_SENT] = "cnp sent",
	[IX_CC_CNP_HANDLED] = "cnp handled",
	[IX_CC_RETRANS] = "retrans",
	[IX_CC_SEQ_ERR] = "seq err",
	[IX_CC_RNR] = "rnr nak",
	[IX_CC_XMIT_WAIT] = "xmit wait",
	[IX_CC_ERROR] = "errors",
	[IX_CC_LINK] = "link events",
	[IX_CC_PAUSE_TIME] = "pause time",
};

#define ALARMS                                                                        \
	((1u << IX_CC_DISCARD) | (1u << IX_CC_PAUSE_RX) | (1u << IX_CC_PAUSE_TX) |    \
	 (1u << IX_CC_CNP_SENT) | (1u << IX_CC_CNP_HANDLED) | (1u << IX_CC_RETRANS) | \
	 (1u << IX_CC_ERROR) | (1u << IX_CC_LINK))

void ix_link_fabric_read(const char *root, const struct ix_link *l, struct ix_ctr_set *out)
{
	struct ix_fabric_where w = { 0 };

	if (l->kind == IX_LINK_IB) {
		w.rdma_dev = l->dev;
		w.port = l->port;
		w.sources = (1u << IX_SRC_HW) | (1u << IX_SRC_PORT);
	} else {
		w.iface = l->name;
		w.sources = (1u << IX_SRC_NETDEV) | (1u << IX_SRC_ETHTOOL) | (1u << IX_SRC_QDISC);
	}
	ix_fabric_snapshot(root, &w, out);
}

/* Keep c among the ntop largest growths, largest first (names break ties,
 * so the order does not depend on the order read). */
static void keep_top(struct ix_link_fabric *f, const struct ix_ctr *c)
{
	size_t i = f->ntop;

	while (i > 0 &&
	       (f->top[i - 1].delta < c->value ||
		(f->top[i - 1].delta == c->value && strcmp(f->top[i - 1].name, c->name) > 0)))
		i--;
	if (i >= IX_LINK_FABRIC_TOP)
		return;
	if (f->ntop < IX_LINK_FABRIC_TOP)
		f->ntop++;
	memmove(&f->top[i + 1], &f->top[i], (f->ntop - 1 - i) * sizeof(f->top[0]));
	memcpy(f->top[i].name, c->name, sizeof(f->top[i].name));
	f->top[i].source = c->source;
	f->top[i].cls = c->cls;
	f->top[i].delta = c->value;
}

int ix_link_fabric_rates(const struct ix_ctr_set *prev, const struct ix_ctr_set *cur,
			 int64_t elapsed_ns, struct ix_link_fabric *out)
{
	struct ix_ctr_set moved;
	struct ix_ctr_sum sum;

	memset(out, 0, sizeof(*out));
	if (!prev || !cur || elapsed_ns <= 0 || !prev->valid || !cur->valid)
		return 0;
	if (ix_ctr_delta(prev, cur, &moved) < 0) {
		ix_ctr_set_free(&moved);
		return -1;
	}
	out->valid = true;
	out->sources = moved.sources;
	out->truncated = moved.truncated;
	out->interval_s = (double)elapsed_ns / 1e9;
	out->nmoved = moved.n;
	ix_ctr_summarize(&moved, &sum);
	out->has = sum.has;
	for (int k = 1; k < IX_CC_N; k++)
		if (sum.has & (1u << k))
			out->rate[k] = (double)sum.v[k] / out->interval_s;
	for (size_t i = 0; i < moved.n; i++)
		keep_top(out, &moved.v[i]);
	ix_ctr_set_free(&moved);
	return 0;
}

bool ix_link_fabric_alarm(enum ix_ctr_class c)
{
	return c < IX_CC_N && (ALARMS & (1u << c));
}

const char *ix_link_fabric_label(enum ix_ctr_class c)
{
	return c < IX_CC_N ? labels[c] : "?";
}

/* Events per second in a few characters: "0.5", "12", "4200", "12k", "3M". */
static int fmt_rate(double v, char *buf, size_t len)
{
	static const char *const sfx[] = { "", "k", "M", "G", "T" };
	unsigned k = 0;

	if (v < 9.95 && v != floor(v))
		return snprintf(buf, len, "%.1f", v);
	while (v >= 9999.5 && k + 1 < sizeof(sfx) / sizeof(sfx[0])) {
		v /= 1e3;
		k++;
	}
	if (k && v < 9.95)
		return snprintf(buf, len, "%.1f%s", v, sfx[k]);
	return snprintf(buf, len, "%.0f%s", v, sfx[k]);
}

size_t ix_link_fabric_clause(const struct ix_link_fabric *f, enum ix_ctr_class c, char *buf,
			     size_t len)
{
	char rate[32];
	int n;

	if (len)
		buf[0] = '\0';
	if (!f->valid || c >= IX_CC_N || c == IX_CC_NONE || !(f->has & (1u << c)))
		return 0;
	fmt_rate(f->rate[c], rate, sizeof(rate));
	n = snprintf(buf, len, "%s %s/s", labels[c], rate);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
}

/* Append s at off when it fits whole; the new offset. */
static size_t append(char *buf, size_t len, size_t off, const char *s)
{
	size_t n = strlen(s);

	if (off + n >= len)
		return off;
	memcpy(buf + off, s, n + 1);
	return off + n;
}

size_t ix_link_fabric_text(const struct ix_link_fabric *f, const char *sep, char *buf, size_t len)
{
	size_t off = 0;
	char c[64];

	if (!len)
		return 0;
	buf[0] = '\0';
	for (int k = 1; k < IX_CC_N; k++) {
		if (!ix_link_fabric_clause(f, (enum ix_ctr_class)k, c, sizeof(c)))
			continue;
		if (off)
			off = append(buf, len, off, sep);
		off = append(buf, len, off, c);
	}
	return off;
}

size_t ix_link_fabric_names(const struct ix_link_fabric *f, size_t max, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t i = 0; f->valid && i < f->ntop && i < max; i++) {
		if (off)
			off = append(buf, len, off, ", ");
		off = append(buf, len, off, f->top[i].name);
	}
	return off;
}
