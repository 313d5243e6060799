/*
 * Live and saved packet captures through libpcap, decoded by wirestat.
 * A live capture runs on a thread of its own: non-blocking pcap_dispatch
 * after poll() on the selectable descriptor, with a short timeout so that
 * stopping is prompt; the decoder's counters are guarded by a mutex so
 * live views can read them while it runs.
 *
 * Headers-only captures use immediate mode: every packet is handed over
 * at once, in a ring of fixed-size slots (32 MiB hold over 100000 of
 * 256 bytes). Whole packets would leave that ring a few hundred slots, so
 * captures that keep them use the kernel's block ring instead (packets of
 * any size packed into blocks, handed over when a block fills or POLL_MS
 * after it opened); stopping then waits for the last block.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/capture/capture.h"

/* A term ("host 198.18.0.2") already in the " or "-separated list. */
static bool filter_has(const char *list, const char *term)
{
	size_t n = strlen(term);

	for (const char *p = list; (p = strstr(p, term)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

int ix_capture_host_filter(const char *const *hosts, size_t nhosts, char *buf, size_t len,
			   struct ix_err *err)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < nhosts; i++) {
		struct addrinfo hints, *res, *ai;
		int rc;

		memset(&hints, 0, sizeof(hints));
		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		rc = getaddrinfo(hosts[i], NULL, &hints, &res);
		if (rc != 0)
			return ix_fail(err, IX_EXIT_FAIL, "cannot resolve '%s': %s", hosts[i],
				       gai_strerror(rc));
		for (ai = res; ai; ai = ai->ai_next) {
			char num[NI_MAXHOST], term[NI_MAXHOST + 8], *pct;
			int n;

			if (getnameinfo(ai->ai_addr, ai->ai_addrlen, num, sizeof(num), NULL, 0,
					NI_NUMERICHOST) != 0)
				continue;
			pct = strchr(num, '%'); /* BPF takes no IPv6 scope */
			if (pct)
				*pct = '\0';
			snprintf(term, sizeof(term), "host %s", num);
			if (filter_has(buf, term))
				continue;
			n = snprintf(buf + used, len - used, "%s%s", used ? " or " : "", term);
			if (n < 0 || (size_t)n >= len - used) {
				/* Never capture everything instead. */
				freeaddrinfo(res);
				buf[0] = '\0';
				return ix_fail(err, IX_EXIT_USAGE,
					       "the capture filter for these %zu hosts would be "
					       "longer than %zu bytes; give --capture-filter (such "
					       "as 'net 10.0.0.0/24') to capture their traffic",
					       nhosts, len ? len - 1 : 0);
			}
			used += (size_t)n;
		}
		freeaddrinfo(res);
	}
	return 0;
}

int ix_capture_start_hosts(struct ix_capture **out, const struct ix_capture_opts *o,
			   const char *const *hosts, size_t nhosts, struct ix_err *err)
{
	struct ix_capture_opts co = *o;
	char filter[sizeof(((struct ix_wire_figures *)0)->filter)];

	*out = NULL;
#ifndef HAVE_PCAP
	(void)hosts;
	(void)nhosts;
	(void)filter;
#else
	if (!co.filter) {
		if (ix_capture_host_filter(hosts, nhosts, filter, sizeof(filter), err) < 0)
			return -1;
		co.filter = filter[0] ? filter : NULL;
	}
#endif
	return ix_capture_start(out, &co, err);
}

#ifndef HAVE_PCAP

#define NO_PCAP "wire diagnostics are not available: ixperf was built without libpcap"

int ix_capture_start(struct ix_capture **out, const struct ix_capture_opts *o, struct ix_err *err)
{
	(void)o;
	*out = NULL;
	return ix_fail(err, IX_EXIT_UNAVAILABLE, NO_PCAP);
}

void ix_capture_snapshot(struct ix_capture *c, struct ix_wire_figures *out)
{
	(void)c;
	memset(out, 0, sizeof(*out));
}

int ix_capture_stop(struct ix_capture *c, struct ix_wire_figures *out, struct ix_err *err)
{
	(void)c;
	(void)err;
	if (out)
		memset(out, 0, sizeof(*out));
	return 0;
}

int ix_capture_read_file(const char *path, const char *filter, struct ix_wire_figures *out,
			 struct ix_err *err)
{
	(void)path;
	(void)filter;
	memset(out, 0, sizeof(*out));
	return ix_fail(err, IX_EXIT_UNAVAILABLE, NO_PCAP);
}

#else /* HAVE_PCAP */

#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "probes/core/clock.h"

#define POLL_MS        50                    /* how soon a stop is noticed */
#define STATS_EVERY_NS IX_NSEC_PER_SEC       /* drop counts for live views */
#define DRAIN_NS       (IX_NSEC_PER_SEC / 4) /* the most a stop spends draining */
#define IMMEDIATE_MAX  1024                  /* snaplen up to which immediate mode is used */

struct ix_capture {
	pcap_t *pc;
	int linktype;
	bool nano;   /* timestamps in nanoseconds (else microseconds) */
	bool blocks; /* block ring: packets come POLL_MS late at most */
	int fd;      /* selectable descriptor, -1 when there is none */
	pcap_dumper_t *dump;
	char *path, *tmp; /* the kept file, and its temporary name */
	struct ix_wire_ctx *wire;
	void (*on_packet)(void *arg, const struct ix_pkt *p, int status, uint32_t wirelen,
			  int64_t ts_ns);
	void *arg;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock; /* wire and dropped */
	atomic_bool stop;
	uint64_t dropped;
	bool failed; /* the capture thread hit an error */
	char error[PCAP_ERRBUF_SIZE + 64];
	char iface[sizeof(((struct ix_wire_figures *)0)->iface)];
	char filter[sizeof(((struct ix_wire_figures *)0)->filter)];
};

/* A capture's timestamp in ns. Files may hold any value: one beyond what
 * 64-bit ns hold (about 292 years from 1970) is clamped, not overflowed. */
static int64_t ts_ns(const struct timeval *tv, bool nano)
{
	const int64_t max_s = INT64_MAX / IX_NSEC_PER_SEC - 1;
	int64_t s = tv->tv_sec, sub = tv->tv_usec, unit = nano ? 1 : 1000;

	s = s > max_s ? max_s : s < -max_s ? -max_s : s;
	sub = sub < 0 ? 0 : sub >= IX_NSEC_PER_SEC / unit ? IX_NSEC_PER_SEC / unit - 1 : sub;
	return s * IX_NSEC_PER_SEC + sub * unit;
}

static void on_pcap(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct ix_capture *c = (struct ix_capture *)user;
	int64_t ts = ts_ns(&h->ts, c->nano);
	struct ix_pkt p;
	int status;

	memset(&p, 0, sizeof(p));
	pthread_mutex_lock(&c->lock);
	status = ix_wire_feed(c->wire, c->linktype, bytes, h->caplen, h->len, ts, &p);
	pthread_mutex_unlock(&c->lock);
	if (c->dump)
		pcap_dump((u_char *)c->dump, h, bytes);
	if (c->on_packet)
		c->on_packet(c->arg, &p, status,
			     status != IX_PKT_MALFORMED && p.mirror_len ? p.mirror_len : h->len,
			     ts);
}

/* Decode what is buffered now; -1 when pcap fails (kept in c->error). */
static int dispatch(struct ix_capture *c, int64_t until_ns)
{
	for (;;) {
		int n = pcap_dispatch(c->pc, -1, on_pcap, (u_char *)c);

		if (n == 0 || n == PCAP_ERROR_BREAK)
			return 0;
		if (n < 0) {
			c->failed = true;
			snprintf(c->error, sizeof(c->error), "%s", pcap_geterr(c->pc));
			return -1;
		}
		if (ix_now_ns() >= until_ns || (until_ns == INT64_MAX && atomic_load(&c->stop)))
			return 0;
	}
}

/* After the thread stopped: what the kernel still holds. */
static void drain(struct ix_capture *c)
{
	int64_t until = ix_now_ns() + DRAIN_NS;
	int64_t last_block = ix_now_ns() + 2 * POLL_MS * 1000000LL;

	while (dispatch(c, until) == 0 && ix_now_ns() < until) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

		if (!c->blocks || c->fd < 0 || ix_now_ns() >= last_block)
			return;
		poll(&pfd, 1, ix_ms_until(last_block));
	}
}

static void update_drops(struct ix_capture *c)
{
	struct pcap_stat st;

	if (pcap_stats(c->pc, &st) < 0)
		return;
	pthread_mutex_lock(&c->lock);
	c->dropped = (uint64_t)st.ps_drop + st.ps_ifdrop;
	pthread_mutex_unlock(&c->lock);
}

static void *capture_thread(void *arg)
{
	struct ix_capture *c = arg;
	int64_t next_stats = ix_now_ns() + STATS_EVERY_NS;

	while (!atomic_load(&c->stop)) {
		if (c->fd >= 0) {
			struct pollfd pfd = { .fd = c->fd, .events = POLLIN };

			if (poll(&pfd, 1, POLL_MS) < 0 && errno != EINTR) {
				c->failed = true;
				snprintf(c->error, sizeof(c->error), "poll: %s", strerror(errno));
				break;
			}
		} else {
			usleep(POLL_MS * 1000 / 5);
		}
		if (dispatch(c, INT64_MAX) < 0)
			break;
		if (ix_now_ns() >= next_stats) {
			update_drops(c);
			next_stats = ix_now_ns() + STATS_EVERY_NS;
		}
	}
	return NULL;
}

static bool iface_known(const char *name)
{
	char eb[PCAP_ERRBUF_SIZE];
	pcap_if_t *all, *d;
	bool found = false;

	if (strcmp(name, "any") == 0 || if_nametoindex(name) != 0)
		return true;
	/* Capture devices that are not network interfaces (nflog, usbmon...). */
	if (pcap_findalldevs(&all, eb) < 0)
		return true; /* pcap_activate will tell */
	for (d = all; d && !found; d = d->next)
		found = strcmp(d->name, name) == 0;
	pcap_freealldevs(all);
	return found;
}

static int set_filter(pcap_t *pc, const char *filter, struct ix_err *err)
{
	struct bpf_program prog;
	int rc;

	if (!filter)
		return 0;
	if (pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0)
		return ix_fail(err, IX_EXIT_USAGE, "invalid capture filter '%s': %s", filter,
			       pcap_geterr(pc));
	rc = pcap_setfilter(pc, &prog);
	pcap_freecode(&prog);
	if (rc < 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot set capture filter '%s': %s", filter,
			       pcap_geterr(pc));
	return 0;
}

/* A filter that does not compile is a usage error even where we may not
 * open the interface: check it on an Ethernet link first. */
static int check_filter_offline(const char *filter, struct ix_err *err)
{
	pcap_t *dead;
	int rc;

	if (!filter)
		return 0;
	dead = pcap_open_dead(DLT_EN10MB, IX_CAPTURE_SNAPLEN_FULL);
	if (!dead)
		return 0;
	rc = set_filter(dead, filter, err);
	pcap_close(dead);
	return rc < 0 && err && err->code == IX_EXIT_USAGE ? -1 : 0;
}

static int activate_error(pcap_t *pc, int rc, const struct ix_capture_opts *o, struct ix_err *err)
{
	const char *why = pcap_geterr(pc);
	bool perm = rc == PCAP_ERROR_PERM_DENIED || rc == PCAP_ERROR_PROMISC_PERM_DENIED ||
		    strstr(why, "Operation not permitted") || strstr(why, "Permission denied");

	if (perm) {
		if (check_filter_offline(o->filter, err) < 0)
			return -1;
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "capturing on %s needs CAP_NET_RAW (run as root or `setcap "
			       "cap_net_raw+ep ixperf`)",
			       o->iface);
	}
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE)
		return ix_fail(err, IX_EXIT_USAGE, "no such interface '%s' to capture on",
			       o->iface);
	if (rc == PCAP_ERROR_IFACE_NOT_UP)
		return ix_fail(err, IX_EXIT_USAGE, "cannot capture on '%s': the interface is down",
			       o->iface);
	return ix_fail(err, IX_EXIT_FAIL, "cannot capture on %s: %s", o->iface,
		       why[0] ? why : pcap_statustostr(rc));
}

/* The kept file: written under a temporary name next to it. */
static int open_dump(struct ix_capture *c, const char *path, struct ix_err *err)
{
	size_t n = strlen(path) + sizeof(".XXXXXX");
	FILE *f;
	int fd;

	c->path = strdup(path);
	c->tmp = malloc(n);
	if (!c->path || !c->tmp)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	snprintf(c->tmp, n, "%s.XXXXXX", path);
	fd = mkstemp(c->tmp);
	if (fd < 0) {
		int e = errno;

		free(c->tmp);
		c->tmp = NULL;
		return ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(e));
	}
	fchmod(fd, 0600); /* packets may carry what others must not read */
	f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		return ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, strerror(errno));
	}
	c->dump = pcap_dump_fopen(c->pc, f);
	if (!c->dump) {
		fclose(f);
		return ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", path, pcap_geterr(c->pc));
	}
	return 0;
}

/* Flush, sync and rename the kept file into place. */
static int finish_dump(struct ix_capture *c, struct ix_err *err)
{
	FILE *f = pcap_dump_file(c->dump);
	int rc = 0;

	errno = 0;
	if (pcap_dump_flush(c->dump) < 0 || ferror(f) || fsync(fileno(f)) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", c->path,
			     errno ? strerror(errno) : "write error");
	pcap_dump_close(c->dump);
	c->dump = NULL;
	if (rc == 0 && rename(c->tmp, c->path) < 0)
		rc = ix_fail(err, IX_EXIT_FAIL, "cannot write %s: %s", c->path, strerror(errno));
	if (rc == 0) {
		free(c->tmp);
		c->tmp = NULL;
	}
	return rc;
}

static void capture_free(struct ix_capture *c)
{
	if (!c)
		return;
	if (c->dump)
		pcap_dump_close(c->dump);
	if (c->tmp)
		unlink(c->tmp);
	if (c->pc)
		pcap_close(c->pc);
	if (c->wire)
		ix_wire_free(c->wire);
	pthread_mutex_destroy(&c->lock);
	free(c->tmp);
	free(c->path);
	free(c);
}

static void fill(struct ix_wire_figures *out, const char *iface, const char *filter)
{
	out->present = true;
	snprintf(out->iface, sizeof(out->iface), "%s", iface);
	snprintf(out->filter, sizeof(out->filter), "%s", filter ? filter : "");
}

int ix_capture_start(struct ix_capture **out, const struct ix_capture_opts *o, struct ix_err *err)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	struct ix_capture *c;
	int rc, snaplen = o->snaplen;

	*out = NULL;
	if (!o->iface || !o->iface[0])
		return ix_fail(err, IX_EXIT_USAGE, "no interface to capture on");
	if (strlen(o->iface) >= sizeof(c->iface) || !iface_known(o->iface))
		return ix_fail(err, IX_EXIT_USAGE, "no such interface '%s' to capture on",
			       o->iface);
	if (o->filter && strlen(o->filter) >= sizeof(c->filter))
		return ix_fail(err, IX_EXIT_USAGE, "capture filter too long (at most %zu bytes)",
			       sizeof(c->filter) - 1);
	if (snaplen <= 0)
		snaplen = o->pcap_path ? IX_CAPTURE_SNAPLEN_FULL : IX_CAPTURE_SNAPLEN_HEADERS;
	c = calloc(1, sizeof(*c));
	if (!c)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	pthread_mutex_init(&c->lock, NULL);
	atomic_init(&c->stop, false);
	c->fd = -1;
	c->on_packet = o->on_packet;
	c->arg = o->arg;
	snprintf(c->iface, sizeof(c->iface), "%s", o->iface);
	snprintf(c->filter, sizeof(c->filter), "%s", o->filter ? o->filter : "");
	c->pc = pcap_create(o->iface, eb);
	if (!c->pc) {
		ix_fail(err, IX_EXIT_FAIL, "cannot capture on %s: %s", o->iface, eb);
		goto fail;
	}
	pcap_set_snaplen(c->pc, snaplen);
	pcap_set_promisc(c->pc, o->promisc);
	c->blocks = snaplen > IMMEDIATE_MAX;
	if (c->blocks)
		pcap_set_timeout(c->pc, POLL_MS);
	else
		pcap_set_immediate_mode(c->pc, 1);
	pcap_set_buffer_size(c->pc, IX_CAPTURE_BUFFER);
	pcap_set_tstamp_precision(c->pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(c->pc);
	if (rc < 0) {
		activate_error(c->pc, rc, o, err);
		goto fail;
	}
	c->linktype = pcap_datalink(c->pc);
	c->nano = pcap_get_tstamp_precision(c->pc) == PCAP_TSTAMP_PRECISION_NANO;
	if (set_filter(c->pc, o->filter, err) < 0)
		goto fail;
	if (pcap_setnonblock(c->pc, 1, eb) < 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot capture on %s: %s", o->iface, eb);
		goto fail;
	}
	c->fd = pcap_get_selectable_fd(c->pc);
	if (o->pcap_path && open_dump(c, o->pcap_path, err) < 0)
		goto fail;
	c->wire = ix_wire_new();
	if (!c->wire) {
		ix_fail(err, IX_EXIT_FAIL, "out of memory");
		goto fail;
	}
	if (pthread_create(&c->thread, NULL, capture_thread, c) != 0) {
		ix_fail(err, IX_EXIT_FAIL, "cannot start the capture thread");
		goto fail;
	}
	c->thread_started = true;
	*out = c;
	return 0;
fail:
	capture_free(c);
	return -1;
}

void ix_capture_snapshot(struct ix_capture *c, struct ix_wire_figures *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&c->lock);
	ix_wire_get(c->wire, out);
	out->dropped = c->dropped;
	pthread_mutex_unlock(&c->lock);
	fill(out, c->iface, c->filter);
}

int ix_capture_stop(struct ix_capture *c, struct ix_wire_figures *out, struct ix_err *err)
{
	int rc = 0;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!c)
		return 0;
	atomic_store(&c->stop, true);
	if (c->thread_started)
		pthread_join(c->thread, NULL);
	if (!c->failed)
		drain(c);
	update_drops(c);
	if (out) {
		ix_wire_get(c->wire, out);
		out->dropped = c->dropped;
		fill(out, c->iface, c->filter);
	}
	if (c->failed)
		rc = ix_fail(err, IX_EXIT_FAIL, "capture on %s stopped early: %s", c->iface,
			     c->error);
	if (c->dump && finish_dump(c, rc == 0 ? err : NULL) < 0)
		rc = -1;
	capture_free(c);
	return rc;
}

int ix_capture_read_file(const char *path, const char *filter, struct ix_wire_figures *out,
			 struct ix_err *err)
{
	char eb[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	struct ix_wire_ctx *w;
	const char *base = strrchr(path, '/');
	uint64_t n = 0;
	pcap_t *pc;
	bool nano;
	int rc, linktype;

	memset(out, 0, sizeof(*out));
	pc = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
	if (!pc && strstr(eb, "unknown file format"))
		return ix_fail(err, IX_EXIT_FAIL, "cannot read %s: not a pcap or pcapng capture",
			       path);
	if (!pc && strncmp(eb, path, strlen(path)) == 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read %s", eb);
	if (!pc)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read %s: %s", path, eb);
	if (set_filter(pc, filter, err) < 0) {
		pcap_close(pc);
		return -1;
	}
	w = ix_wire_new();
	if (!w) {
		pcap_close(pc);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	linktype = pcap_datalink(pc);
	nano = pcap_get_tstamp_precision(pc) == PCAP_TSTAMP_PRECISION_NANO;
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		ix_wire_feed(w, linktype, data, h->caplen, h->len, ts_ns(&h->ts, nano), NULL);
		n++;
	}
	if (rc == PCAP_ERROR)
		ix_fail(err, IX_EXIT_FAIL, "%s: cut short after %llu packets: %s", path,
			(unsigned long long)n, pcap_geterr(pc));
	ix_wire_get(w, out);
	fill(out, base ? base + 1 : path, filter);
	ix_wire_free(w);
	pcap_close(pc);
	return rc == PCAP_ERROR ? -1 : 0;
}

#endif /* HAVE_PCAP */
