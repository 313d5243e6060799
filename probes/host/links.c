#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/links.h"

#define IX_PATH_MAX      4096
#define IX_IFF_LOOPBACK  0x8           /* IFF_LOOPBACK in the "flags" attribute */
#define IX_ARPHRD_LOOP   772           /* ARPHRD_LOOPBACK in the "type" attribute */
#define IX_SPEED_UNKNOWN 4294967295ULL /* SPEED_UNKNOWN printed unsigned by old kernels */

/* Where each counter lives in the snapshot and in the rates; bytes become
 * bits per second. Index i is the bit 1u << i. */
static const struct {
	size_t counter;
	size_t rate;
	double mul;
} counters[IX_LINK_NCOUNTERS] = {
	{ offsetof(struct ix_link, rx_bytes), offsetof(struct ix_link_rate, rx_bps), 8 },
	{ offsetof(struct ix_link, tx_bytes), offsetof(struct ix_link_rate, tx_bps), 8 },
	{ offsetof(struct ix_link, rx_packets), offsetof(struct ix_link_rate, rx_pps), 1 },
	{ offsetof(struct ix_link, tx_packets), offsetof(struct ix_link_rate, tx_pps), 1 },
	{ offsetof(struct ix_link, rx_errors), offsetof(struct ix_link_rate, rx_errors_ps), 1 },
	{ offsetof(struct ix_link, tx_errors), offsetof(struct ix_link_rate, tx_errors_ps), 1 },
	{ offsetof(struct ix_link, rx_dropped), offsetof(struct ix_link_rate, rx_dropped_ps), 1 },
	{ offsetof(struct ix_link, tx_dropped), offsetof(struct ix_link_rate, tx_dropped_ps), 1 },
	{ offsetof(struct ix_link, symbol_errors), offsetof(struct ix_link_rate, symbol_errors_ps),
	  1 },
	{ offsetof(struct ix_link, link_downed), offsetof(struct ix_link_rate, link_downed_ps), 1 },
};

/* /sys/class/net/<if>/statistics files, in the order of the bits. */
static const char *const net_stats[] = { "rx_bytes",  "tx_bytes",  "rx_packets", "tx_packets",
					 "rx_errors", "tx_errors", "rx_dropped", "tx_dropped" };

/* IB port counters. The PMA counters are fixed-width and saturate rather
 * than wrap: a counter at its maximum no longer counts, so it is unknown.
 * The data counters count 4-octet words. */
static const struct {
	const char *file;
	uint32_t bit;
	uint64_t saturated;
	uint64_t mul;
} ib_stats[] = {
	{ "port_rcv_data", IX_LINK_RX_BYTES, UINT32_MAX, 4 },
	{ "port_xmit_data", IX_LINK_TX_BYTES, UINT32_MAX, 4 },
	{ "port_rcv_packets", IX_LINK_RX_PACKETS, UINT32_MAX, 1 },
	{ "port_xmit_packets", IX_LINK_TX_PACKETS, UINT32_MAX, 1 },
	{ "port_rcv_errors", IX_LINK_RX_ERRORS, UINT16_MAX, 1 },
	{ "port_xmit_discards", IX_LINK_TX_DROPPED, UINT16_MAX, 1 },
	{ "symbol_error", IX_LINK_SYMBOL_ERRORS, UINT16_MAX, 1 },
	{ "link_downed", IX_LINK_LINK_DOWNED, UINT8_MAX, 1 },
};

static uint64_t *counter_of(struct ix_link *l, unsigned i)
{
	return (uint64_t *)((char *)l + counters[i].counter);
}

static const uint64_t *counter_of_c(const struct ix_link *l, unsigned i)
{
	return (const uint64_t *)((const char *)l + counters[i].counter);
}

/* Copy, cutting what does not fit. */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Format a path; -1 when it does not fit. */
__attribute__((format(printf, 3, 4))) static int mkpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* A sysfs attribute, trailing whitespace removed; -1 when unreadable
 * (missing, or an error such as EINVAL from "speed" of a down link). */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) {
		buf[0] = '\0';
		return -1;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return 0;
}

/* A whole unsigned decimal (or, with base 0, hex "0x..") number. */
static int parse_u64(const char *s, int base, uint64_t *out)
{
	unsigned long long v;
	char *end;

	s += strspn(s, " \t");
	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || end == s || s[0] == '\0')
		return -1;
	end += strspn(end, " \t\n");
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int read_u64(const char *path, int base, uint64_t *out)
{
	char buf[64];

	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	return parse_u64(buf, base, out);
}

/* Read <dir>/<file> into the field of counter bit (times mul), unless
 * missing or saturated. */
static void read_counter(struct ix_link *l, const char *dir, const char *file, uint32_t bit,
			 uint64_t saturated, uint64_t mul)
{
	char path[IX_PATH_MAX];
	uint64_t v;
	unsigned i = (unsigned)__builtin_ctz(bit);

	if (mkpath(path, sizeof(path), "%s/%s", dir, file) < 0 || read_u64(path, 10, &v) < 0)
		return;
	if ((saturated && v == saturated) || v > UINT64_MAX / mul)
		return;
	*counter_of(l, i) = v * mul;
	l->known |= bit;
}

/* Version order (eth2 before eth10), then bytes, so equal means equal. */
static int name_cmp(const char *a, const char *b)
{
	int c = strverscmp(a, b);

	return c ? c : strcmp(a, b);
}

static int link_cmp(const void *a, const void *b)
{
	return name_cmp(((const struct ix_link *)a)->name, ((const struct ix_link *)b)->name);
}

static int key_cmp(const void *key, const void *elem)
{
	return name_cmp(key, ((const struct ix_link *)elem)->name);
}

const struct ix_link *ix_links_find(const struct ix_links *ls, const char *name)
{
	if (!ls->n)
		return NULL;
	return bsearch(name, ls->v, ls->n, sizeof(ls->v[0]), key_cmp);
}

/* A new zeroed slot at the end of out. */
static struct ix_link *push_link(struct ix_links *out, size_t *cap, struct ix_err *err)
{
	if (out->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ix_link *v = realloc(out->v, ncap * sizeof(*v));

		if (!v) {
			ix_fail(err, IX_EXIT_FAIL, "out of memory reading links");
			return NULL;
		}
		out->v = v;
		*cap = ncap;
	}
	memset(&out->v[out->n], 0, sizeof(out->v[0]));
	return &out->v[out->n++];
}

/* Speed in Mbit/s; -1, 0, SPEED_UNKNOWN or EINVAL (link down) are unknown. */
static void read_net_speed(struct ix_link *l, const char *dir)
{
	char path[IX_PATH_MAX], buf[32];
	long long v;
	char *end;

	if (mkpath(path, sizeof(path), "%s/speed", dir) < 0 ||
	    read_text(path, buf, sizeof(buf)) < 0)
		return;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || *end || v <= 0 || (unsigned long long)v >= IX_SPEED_UNKNOWN)
		return;
	l->speed_known = true;
	l->speed_bps = (double)v * 1e6;
}

/* Virtual devices live under /sys/devices/virtual/net: the class entry
 * is a symlink there (live sysfs), or that directory exists. */
static bool net_is_virtual(const char *root, const char *name, const char *dir)
{
	char target[IX_PATH_MAX], path[IX_PATH_MAX];
	struct stat st;
	ssize_t n;

	n = readlink(dir, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (strstr(target, "/virtual/"))
			return true;
	}
	if (mkpath(path, sizeof(path), "%s/sys/devices/virtual/net/%s", root, name) < 0)
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void read_net(const char *root, const char *name, const char *dir, struct ix_link *l)
{
	char path[IX_PATH_MAX];
	uint64_t v;

	l->kind = IX_LINK_NET;
	copy_str(l->name, sizeof(l->name), name);
	copy_str(l->dev, sizeof(l->dev), name);
	if (mkpath(path, sizeof(path), "%s/operstate", dir) == 0)
		read_text(path, l->state, sizeof(l->state));
	if (mkpath(path, sizeof(path), "%s/address", dir) == 0)
		read_text(path, l->address, sizeof(l->address));
	if (mkpath(path, sizeof(path), "%s/ifindex", dir) == 0 && read_u64(path, 10, &v) == 0 &&
	    v <= UINT32_MAX)
		l->ifindex = (uint32_t)v;
	if (mkpath(path, sizeof(path), "%s/mtu", dir) == 0 && read_u64(path, 10, &v) == 0 &&
	    v <= UINT32_MAX) {
		l->mtu_known = true;
		l->mtu = (uint32_t)v;
	}
	if (mkpath(path, sizeof(path), "%s/flags", dir) == 0 && read_u64(path, 0, &v) == 0)
		l->is_loopback = (v & IX_IFF_LOOPBACK) != 0;
	else if (mkpath(path, sizeof(path), "%s/type", dir) == 0 && read_u64(path, 10, &v) == 0)
		l->is_loopback = v == IX_ARPHRD_LOOP;
	else
		l->is_loopback = strcmp(name, "lo") == 0;
	l->is_virtual = net_is_virtual(root, name, dir);
	read_net_speed(l, dir);
	if (mkpath(path, sizeof(path), "%s/statistics", dir) < 0)
		return;
	for (unsigned i = 0; i < sizeof(net_stats) / sizeof(net_stats[0]); i++)
		read_counter(l, path, net_stats[i], 1u << i, 0, 1);
}

/* Directory entries that are (or link to) directories. */
static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int read_net_all(const char *root, struct ix_links *out, size_t *cap, struct ix_err *err)
{
	char base[IX_PATH_MAX], dir[IX_PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (mkpath(base, sizeof(base), "%s/sys/class/net", root) < 0)
		return ix_fail(err, IX_EXIT_USAGE, "sysfs root too long");
	d = opendir(base);
	if (!d)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s: %s", base, strerror(errno));
	while ((e = readdir(d))) {
		struct ix_link *l;

		/* Skip ".", ".." and plain files such as bonding_masters. */
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IX_LINKS_NAME_MAX)
			continue;
		if (mkpath(dir, sizeof(dir), "%s/%s", base, e->d_name) < 0 || !is_dir(dir))
			continue;
		l = push_link(out, cap, err);
		if (!l) {
			rc = -1;
			break;
		}
		read_net(root, e->d_name, dir, l);
	}
	closedir(d);
	return rc;
}

/* "4: ACTIVE" -> "ACTIVE"; text without a number is kept. */
static void read_ib_state(const char *path, char *buf, size_t len)
{
	char raw[64];
	const char *s = raw;
	const char *colon;

	buf[0] = '\0';
	if (read_text(path, raw, sizeof(raw)) < 0)
		return;
	colon = strchr(raw, ':');
	if (colon)
		s = colon + 1 + strspn(colon + 1, " \t");
	copy_str(buf, len, s);
}

int ix_links_parse_rate(const char *s, double *bps)
{
	double v = 0, scale = 1;
	bool digits = false;

	/* By hand rather than strtod: the decimal point is always '.' here. */
	s += strspn(s, " \t");
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		digits = true;
	}
	if (*s == '.') {
		double f = 0.1;

		for (s++; *s >= '0' && *s <= '9'; s++, f /= 10) {
			v += (*s - '0') * f;
			digits = true;
		}
	}
	if (!digits)
		return -1;
	s += strspn(s, " \t");
	switch (*s) {
	case 'T':
		scale = 1e12;
		break;
	case 'G':
		scale = 1e9;
		break;
	case 'M':
		scale = 1e6;
		break;
	case 'K':
	case 'k':
		scale = 1e3;
		break;
	default:
		return -1;
	}
	if (strncmp(s + 1, "b/s", 3) != 0)
		return -1;
	*bps = v * scale;
	return 0;
}

static void read_ib_port(const char *devdir, const char *dev, unsigned port, struct ix_link *l)
{
	char pdir[IX_PATH_MAX], path[IX_PATH_MAX], buf[128];

	l->kind = IX_LINK_IB;
	l->port = port;
	copy_str(l->dev, sizeof(l->dev), dev);
	if (mkpath(pdir, sizeof(pdir), "%s/ports/%u", devdir, port) < 0)
		return;
	if (mkpath(path, sizeof(path), "%s/state", pdir) == 0)
		read_ib_state(path, l->state, sizeof(l->state));
	if (mkpath(path, sizeof(path), "%s/phys_state", pdir) == 0)
		read_ib_state(path, l->phys_state, sizeof(l->phys_state));
	if (mkpath(path, sizeof(path), "%s/link_layer", pdir) == 0)
		read_text(path, l->link_layer, sizeof(l->link_layer));
	if (mkpath(path, sizeof(path), "%s/rate", pdir) == 0 &&
	    read_text(path, buf, sizeof(buf)) == 0 &&
	    ix_links_parse_rate(buf, &l->speed_bps) == 0 && l->speed_bps > 0)
		l->speed_known = true;
	else
		l->speed_bps = 0;
	/* RoCE: the network device behind GID 0. */
	if (mkpath(path, sizeof(path), "%s/gid_attrs/ndevs/0", pdir) == 0)
		read_text(path, l->netdev, sizeof(l->netdev));
	if (mkpath(path, sizeof(path), "%s/counters", pdir) < 0)
		return;
	for (unsigned i = 0; i < sizeof(ib_stats) / sizeof(ib_stats[0]); i++)
		read_counter(l, path, ib_stats[i].file, ib_stats[i].bit, ib_stats[i].saturated,
			     ib_stats[i].mul);
}

static int read_ib_dev(const char *devdir, const char *dev, struct ix_links *out, size_t *cap,
		       struct ix_err *err)
{
	char ports[IX_PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (mkpath(ports, sizeof(ports), "%s/ports", devdir) < 0)
		return 0;
	d = opendir(ports);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct ix_link *l;
		uint64_t port;
		char name[IX_LINKS_NAME_MAX];

		if (parse_u64(e->d_name, 10, &port) < 0 || port > 255 ||
		    mkpath(name, sizeof(name), "%s/%u", dev, (unsigned)port) < 0)
			continue;
		l = push_link(out, cap, err);
		if (!l) {
			rc = -1;
			break;
		}
		memcpy(l->name, name, sizeof(name));
		read_ib_port(devdir, dev, (unsigned)port, l);
	}
	closedir(d);
	return rc;
}

static int read_ib_all(const char *root, struct ix_links *out, size_t *cap, struct ix_err *err)
{
	char base[IX_PATH_MAX], dir[IX_PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (mkpath(base, sizeof(base), "%s/sys/class/infiniband", root) < 0)
		return 0;
	d = opendir(base);
	if (!d)
		return 0; /* no RDMA devices (or no driver): nothing to add */
	while ((e = readdir(d)) && rc == 0) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= IX_LINKS_NAME_MAX)
			continue;
		if (mkpath(dir, sizeof(dir), "%s/%s", base, e->d_name) < 0 || !is_dir(dir))
			continue;
		rc = read_ib_dev(dir, e->d_name, out, cap, err);
	}
	closedir(d);
	return rc;
}

int ix_links_read(const char *root, struct ix_links *out, struct ix_err *err)
{
	struct ix_links ls = { 0 };
	size_t cap = 0;

	if (!root)
		root = "";
	if (read_net_all(root, &ls, &cap, err) < 0 || read_ib_all(root, &ls, &cap, err) < 0) {
		ix_links_free(&ls);
		return -1;
	}
	if (ls.n > 1)
		qsort(ls.v, ls.n, sizeof(ls.v[0]), link_cmp);
	*out = ls;
	return 0;
}

void ix_links_free(struct ix_links *ls)
{
	free(ls->v);
	ls->v = NULL;
	ls->n = 0;
}

void ix_links_rate(const struct ix_link *prev, const struct ix_link *cur, int64_t elapsed_ns,
		   struct ix_link_rate *out)
{
	memset(out, 0, sizeof(*out));
	if (!prev || !cur || elapsed_ns <= 0 || prev->kind != cur->kind)
		return;
	/* Same name, another device: its counters started again. */
	if (prev->ifindex && cur->ifindex && prev->ifindex != cur->ifindex) {
		out->reset = true;
		return;
	}
	out->interval_s = (double)elapsed_ns / 1e9;
	for (unsigned i = 0; i < IX_LINK_NCOUNTERS; i++) {
		uint32_t bit = 1u << i;
		uint64_t a = *counter_of_c(prev, i), b = *counter_of_c(cur, i);

		if (!(prev->known & bit) || !(cur->known & bit))
			continue;
		if (b < a) {
			out->reset = true;
			continue;
		}
		*(double *)((char *)out + counters[i].rate) =
			(double)(b - a) * counters[i].mul / out->interval_s;
		out->known |= bit;
	}
	if (cur->speed_known && cur->speed_bps > 0 && (out->known & IX_LINK_RX_BYTES) &&
	    (out->known & IX_LINK_TX_BYTES)) {
		out->util_known = true;
		out->util = fmax(out->rx_bps, out->tx_bps) / cur->speed_bps;
	}
}

void ix_links_history_push(struct ix_link_history *h, double rx_bps, double tx_bps)
{
	h->rx_bps[h->head] = rx_bps;
	h->tx_bps[h->head] = tx_bps;
	h->head = (h->head + 1) % IX_LINKS_HISTORY;
	if (h->count < IX_LINKS_HISTORY)
		h->count++;
}

size_t ix_links_history_get(const struct ix_link_history *h, bool tx, double *out, size_t max)
{
	const double *ring = tx ? h->tx_bps : h->rx_bps;
	size_t n = h->count < max ? h->count : max;
	size_t start = (h->head + IX_LINKS_HISTORY - n) % IX_LINKS_HISTORY;

	for (size_t i = 0; i < n; i++)
		out[i] = ring[(start + i) % IX_LINKS_HISTORY];
	return n;
}

/* Level 1..levels for a value, 0 for nothing to show. Any traffic at all
 * shows as at least the lowest level. */
static unsigned spark_level(double v, double max, unsigned levels)
{
	double l;

	if (!(v > 0) || !(max > 0) || isinf(max))
		return 0;
	l = ceil(v / max * levels);
	if (!(l >= 1))
		return 1;
	return l > levels ? levels : (unsigned)l;
}

static double spark_max(const double *v, size_t n, double max)
{
	if (max > 0)
		return max;
	max = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > max)
			max = v[i];
	return max;
}

size_t ix_sparkline(const double *v, size_t n, double max, char *buf, size_t len)
{
	size_t w = 0;

	if (!len)
		return 0;
	max = spark_max(v, n, max);
	for (size_t i = 0; i < n; i++) {
		unsigned lvl = spark_level(v[i], max, 8);

		if (!lvl) {
			if (w + 1 >= len)
				break;
			buf[w++] = ' ';
			continue;
		}
		if (w + 3 >= len)
			break;
		/* U+2580 + lvl in UTF-8: E2 96 (80 + lvl) */
		buf[w++] = (char)0xe2;
		buf[w++] = (char)0x96;
		buf[w++] = (char)(0x80 + lvl);
	}
	buf[w] = '\0';
	return w;
}

size_t ix_sparkline_ascii(const double *v, size_t n, double max, char *buf, size_t len)
{
	static const char levels[] = "._-=^#";
	size_t w = 0;

	if (!len)
		return 0;
	max = spark_max(v, n, max);
	for (size_t i = 0; i < n && w + 1 < len; i++) {
		unsigned lvl = spark_level(v[i], max, sizeof(levels) - 1);

		buf[w++] = lvl ? levels[lvl - 1] : ' ';
	}
	buf[w] = '\0';
	return w;
}

static void filter_free(struct ix_top_filter *f)
{
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	memset(f, 0, sizeof(*f));
}

int ix_top_model_init(struct ix_top_model *m, const struct ix_top_filter *filter,
		      struct ix_err *err)
{
	memset(m, 0, sizeof(*m));
	if (!filter)
		return 0;
	m->filter.exclude_loopback = filter->exclude_loopback;
	m->filter.exclude_virtual = filter->exclude_virtual;
	if (!filter->nnames)
		return 0;
	m->filter.names = calloc(filter->nnames, sizeof(char *));
	if (!m->filter.names)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < filter->nnames; i++) {
		m->filter.names[i] = strdup(filter->names[i]);
		m->filter.nnames++;
		if (!m->filter.names[i]) {
			filter_free(&m->filter);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
	}
	return 0;
}

static void snaps_free(struct ix_ctr_set *snaps, size_t n)
{
	for (size_t i = 0; snaps && i < n; i++)
		ix_ctr_set_free(&snaps[i]);
	free(snaps);
}

void ix_top_model_free(struct ix_top_model *m)
{
	filter_free(&m->filter);
	ix_links_free(&m->prev);
	snaps_free(m->snaps, m->cur.n);
	ix_links_free(&m->cur);
	free(m->rates);
	free(m->hist);
	free(m->fabric);
	memset(m, 0, sizeof(*m));
}

static bool filter_keeps(const struct ix_top_filter *f, const struct ix_link *l)
{
	if (f->exclude_loopback && l->is_loopback)
		return false;
	if (f->exclude_virtual && l->is_virtual)
		return false;
	if (!f->nnames)
		return true;
	for (size_t i = 0; i < f->nnames; i++)
		if (strcmp(f->names[i], l->name) == 0 || strcmp(f->names[i], l->dev) == 0 ||
		    (l->netdev[0] && strcmp(f->names[i], l->netdev) == 0))
			return true;
	return false;
}

/* Each link's fabric counters, and their rates since the previous
 * snapshot of the link of the same name (the same device: ifindex). */
static int sample_fabric(const struct ix_top_model *m, const char *root,
			 const struct ix_links *next, int64_t elapsed, struct ix_ctr_set *snaps,
			 struct ix_link_fabric *fabric)
{
	for (size_t i = 0; i < next->n; i++) {
		const struct ix_link *l = &next->v[i], *p = ix_links_find(&m->cur, l->name);

		ix_link_fabric_read(root, l, &snaps[i]);
		if (p && p->ifindex && l->ifindex && p->ifindex != l->ifindex)
			p = NULL;
		if (ix_link_fabric_rates(p && m->snaps ? &m->snaps[p - m->cur.v] : NULL, &snaps[i],
					 elapsed, &fabric[i]) < 0)
			return -1;
	}
	return 0;
}

int ix_top_model_sample(struct ix_top_model *m, const char *root, int64_t now_ns,
			struct ix_err *err)
{
	struct ix_links next;
	struct ix_link_rate *rates;
	struct ix_link_history *hist;
	struct ix_link_fabric *fabric;
	struct ix_ctr_set *snaps;
	int64_t elapsed = m->samples ? now_ns - m->cur_ns : 0;
	size_t k = 0;

	if (ix_links_read(root, &next, err) < 0)
		return -1;
	for (size_t i = 0; i < next.n; i++)
		if (filter_keeps(&m->filter, &next.v[i]))
			next.v[k++] = next.v[i];
	next.n = k;
	rates = calloc(next.n ? next.n : 1, sizeof(*rates));
	hist = calloc(next.n ? next.n : 1, sizeof(*hist));
	fabric = calloc(next.n ? next.n : 1, sizeof(*fabric));
	snaps = calloc(next.n ? next.n : 1, sizeof(*snaps));
	if (!rates || !hist || !fabric || !snaps ||
	    sample_fabric(m, root, &next, elapsed, snaps, fabric) < 0) {
		free(rates);
		free(hist);
		free(fabric);
		snaps_free(snaps, next.n);
		ix_links_free(&next);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory sampling links");
	}
	for (size_t i = 0; i < next.n; i++) {
		const struct ix_link *p = ix_links_find(&m->cur, next.v[i].name);
		struct ix_link_rate *r = &rates[i];

		ix_links_rate(p, &next.v[i], elapsed, r);
		if (p)
			hist[i] = m->hist[p - m->cur.v];
		if (!m->samples)
			continue;
		ix_links_history_push(&hist[i], (r->known & IX_LINK_RX_BYTES) ? r->rx_bps : NAN,
				      (r->known & IX_LINK_TX_BYTES) ? r->tx_bps : NAN);
	}
	ix_links_free(&m->prev);
	snaps_free(m->snaps, m->cur.n);
	free(m->rates);
	free(m->hist);
	free(m->fabric);
	m->prev = m->cur;
	m->cur = next;
	m->rates = rates;
	m->hist = hist;
	m->fabric = fabric;
	m->snaps = snaps;
	m->prev_ns = m->cur_ns;
	m->cur_ns = now_ns;
	m->samples++;
	return 0;
}
