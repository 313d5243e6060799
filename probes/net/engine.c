/* Stream threads: start, pace, join, and turn what they recorded into figures. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/net/net.h"
#include "probes/net/transport.h"

void ix_stream_init(struct ix_stream *s, uint32_t id, enum ix_dir dir, bool sending)
{
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->dir = dir;
	s->sending = sending;
	s->fd = -1;
}

void ix_stream_mark_warm(struct ix_stream *s, int64_t now, uint64_t bytes, uint64_t packets)
{
	s->warm_t = now;
	s->warm_bytes = bytes;
	s->warm_packets = packets;
}

bool ix_stream_pace(struct ix_stream *s, int64_t t0, uint64_t sent, int64_t now)
{
	int64_t due;
	struct timespec ts;

	if (!s->rate_bps)
		return true;
	due = t0 + (int64_t)((double)sent * 8.0 * 1e9 / (double)s->rate_bps);
	while (due > now) {
		if (ix_stream_stopped(s))
			return false;
		if (s->send_until && now >= s->send_until)
			return true;
		/* Sleep in slices so a stop request is seen within 50 ms. */
		if (due - now > 50 * 1000000LL)
			due = now + 50 * 1000000LL;
		ts.tv_sec = due / IX_NSEC_PER_SEC;
		ts.tv_nsec = due % IX_NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		now = ix_now_ns();
		due = t0 + (int64_t)((double)sent * 8.0 * 1e9 / (double)s->rate_bps);
	}
	return true;
}

static void *stream_main(void *arg)
{
	struct ix_stream *s = arg;
	int rc;

	/* Precise pacing needs a small timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (s->echo) {
		rc = s->tp->echo(s);
	} else if (s->blocks) {
		rc = s->tp->serve_blocks(s);
	} else if (s->sending) {
		rc = s->tp->send(s);
		if (s->tp->finish)
			s->tp->finish(s);
	} else
		rc = s->tp->recv(s);
	if (rc < 0)
		s->failed = true;
	if (getrusage(RUSAGE_THREAD, &s->ru) == 0)
		s->ru_valid = true;
	return NULL;
}

/* Streams that one thread can carry among others. */
static bool muxable(const struct ix_stream *s)
{
	return s->tp && s->tp->mux && !s->echo && !s->blocks && !s->rate_bps && !s->zerocopy;
}

uint32_t ix_bw_threads(uint32_t asked, uint32_t streams, int ncpus, bool same_host)
{
	uint32_t half = ncpus > 1 ? (uint32_t)ncpus / 2 : 1;

	if (streams == 0)
		return 0;
	if (asked)
		return asked < streams ? asked : streams;
	if (same_host || streams > 2 * (uint32_t)(ncpus > 1 ? ncpus : 1))
		return streams;
	return streams < half ? streams : half;
}

/* The CPUs this process may run on. */
static int cpus_here(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void *group_main(void *arg)
{
	struct ix_stream_group *g = arg;

	g->s[0]->tp->mux(g->s, g->n); /* each stream's failure marked on it */
	if (getrusage(RUSAGE_THREAD, &g->s[0]->ru) == 0)
		g->s[0]->ru_valid = true;
	return NULL;
}

/* Start the thread of group g of s's muxable streams of one direction
 * (stream j of them on group j % ng). */
static int start_group(struct ix_stream *s, uint32_t n, bool sending, uint32_t g, uint32_t ng)
{
	struct ix_stream_group *grp = calloc(1, sizeof(*grp));
	uint32_t j = 0;
	int rc;

	if (!grp || !(grp->s = calloc(n, sizeof(*grp->s)))) {
		free(grp);
		return ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		if (muxable(&s[i]) && s[i].sending == sending && j++ % ng == g)
			grp->s[grp->n++] = &s[i];
	grp->s[0]->group = grp;
	if (grp->n == 1)
		rc = pthread_create(&grp->s[0]->thread, NULL, stream_main, grp->s[0]);
	else
		rc = pthread_create(&grp->s[0]->thread, NULL, group_main, grp);
	if (rc == 0)
		grp->s[0]->running = true;
	return rc;
}

int ix_streams_start(struct ix_stream *s, uint32_t n, struct ix_err *err)
{
	uint32_t started = 0;
	int rc = 0, ncpus = cpus_here();
	bool same = false;

	for (uint32_t i = 0; i < n; i++)
		if (muxable(&s[i]) && s[i].fd >= 0) {
			same = ix_net_peer_local(s[i].fd);
			break;
		}
	for (int dir = 0; dir < 2 && rc == 0; dir++) {
		uint32_t m = 0, ng;

		for (uint32_t i = 0; i < n; i++)
			m += muxable(&s[i]) && s[i].sending == (dir == 0);
		ng = ix_bw_threads(s[0].threads, m, ncpus, same);
		for (uint32_t g = 0; g < ng && rc == 0; g++, started++)
			rc = start_group(s, n, dir == 0, g, ng);
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		if (muxable(&s[i]))
			continue;
		rc = pthread_create(&s[i].thread, NULL, stream_main, &s[i]);
		if (rc == 0) {
			s[i].running = true;
			started++;
		}
	}
	if (rc != 0) {
		/* The ones already running use s: they end before it is
		 * given back. */
		ix_streams_stop(s, n);
		ix_streams_join(s, n);
		return ix_fail(err, IX_EXIT_FAIL, "cannot start stream thread %u: %s", started + 1,
			       strerror(rc));
	}
	return 0;
}

static void group_free(struct ix_stream *s)
{
	if (s->group) {
		free(s->group->s);
		free(s->group);
		s->group = NULL;
	}
}

bool ix_streams_done(struct ix_stream *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].running && pthread_tryjoin_np(s[i].thread, NULL) == EBUSY)
			return false;
		s[i].running = false;
		group_free(&s[i]);
	}
	return true;
}

void ix_streams_stop(struct ix_stream *s, uint32_t n)
{
	if (!n)
		return;
	/* Sequentially consistent, against the loop's store of
	 * wakes_by_shutdown then load of stop: either it sees the stop, or
	 * this sees its flag. */
	atomic_store(s[0].stop, 1);
	for (uint32_t i = 0; i < n; i++)
		if (s[i].fd >= 0 && atomic_load(&s[i].wakes_by_shutdown))
			shutdown(s[i].fd, SHUT_RD);
}

void ix_streams_join(struct ix_stream *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].running)
			pthread_join(s[i].thread, NULL);
		s[i].running = false;
		group_free(&s[i]);
	}
}

/* a - b, or 0 when a baseline taken earlier is larger than the total. */
static uint64_t since(uint64_t total, uint64_t base)
{
	return total > base ? total - base : 0;
}

void ix_stream_end_fill(struct ix_stream *s, struct ix_stream_end *e)
{
	uint64_t bytes = atomic_load(&s->c.bytes);
	uint64_t packets = atomic_load(&s->c.packets);
	uint64_t buf;

	memset(e, 0, sizeof(*e));
	e->valid = true;
	if (s->warm_t && s->last_t > s->warm_t) {
		e->bytes = bytes - s->warm_bytes;
		e->seconds = (double)(s->last_t - s->warm_t) / 1e9;
	}
	if (s->tp->caps & IX_CAP_DATAGRAM) {
		e->packets = ix_u64(since(packets, s->warm_packets));
		if (!s->sending) {
			e->out_of_order =
				ix_u64(since(atomic_load(&s->c.out_of_order), s->warm_ooo));
			e->duplicates = ix_u64(since(atomic_load(&s->c.duplicates), s->warm_dup));
			e->jitter_ns = ix_f64((double)atomic_load(&s->c.jitter_ns));
			e->lost = ix_u64(since(atomic_load(&s->c.gaps), s->warm_gaps));
		}
	}
	if (s->sending && s->tp->sender_info) {
		/* sender_info reports totals since the connection opened; the
		 * baseline was taken by the data thread, joined by now. */
		s->tp->sender_info(s, e);
		if (e->retransmits.valid)
			e->retransmits.v = since(e->retransmits.v, s->warm_retrans);
	}
	snprintf(e->io, sizeof(e->io), "%s", s->io);
	e->io_batch = s->io_batch;
	if (s->sending)
		e->zerocopy = s->zc;
	buf = s->fd >= 0 ? ix_net_buffer_size(s->fd, s->sending) : 0;
	if (buf)
		e->sock_buffer = ix_u64(buf);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

uint32_t ix_streams_threads(const struct ix_stream *s, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		k += s[i].ru_valid;
	return k;
}

void ix_streams_cpu(struct ix_stream *s, uint32_t n, int64_t wall_ns, struct ix_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
	for (uint32_t i = 0; i < n; i++) {
		if (!s[i].ru_valid)
			continue;
		cpu->valid = true;
		cpu->user_s += tv_s(s[i].ru.ru_utime);
		cpu->system_s += tv_s(s[i].ru.ru_stime);
	}
	cpu->wall_s = (double)wall_ns / 1e9;
	cpu->threads = ix_streams_threads(s, n);
}

void ix_bw_layout(const struct ix_bw_params *p, bool client, struct ix_stream *s, uint32_t *n)
{
	uint32_t k = 0;

	for (int d = IX_DIR_FORWARD; d <= IX_DIR_REVERSE; d++) {
		if ((d == IX_DIR_FORWARD && p->mode == IX_MODE_REVERSE) ||
		    (d == IX_DIR_REVERSE && p->mode == IX_MODE_FORWARD))
			continue;
		for (uint32_t i = 0; i < p->streams; i++, k++) {
			bool sending = (d == IX_DIR_FORWARD) == client;
			ix_stream_init(&s[k], k, (enum ix_dir)d, sending);
			s[k].msg_size = p->msg_size;
			s[k].rate_bps = sending ? p->rate_bps : 0;
			s[k].local_port = p->src_port ? (uint16_t)(p->src_port + k) : 0;
			/* --bytes is per direction: split it over the streams. */
			s[k].byte_limit = sending ? p->bytes / p->streams +
							    (i < p->bytes % p->streams ? 1 : 0)
						  : 0;
		}
	}
	*n = k;
}

uint64_t ix_bw_mem(const struct ix_bw_params *p, const struct ix_transport *tp)
{
	uint64_t n = (uint64_t)p->streams * (p->mode == IX_MODE_BIDIR ? 2 : 1);
	uint64_t m = ix_stream_buf_bytes(p->msg_size);

	if (tp && tp->stream_mem > m)
		m = tp->stream_mem;
	return n * (m + ix_net_window_bytes(p->window));
}

void ix_bw_arm(struct ix_stream *s, uint32_t n, const struct ix_bw_params *p,
	       const struct ix_transport *tp, atomic_int *stop, int64_t t_start)
{
	for (uint32_t i = 0; i < n; i++) {
		s[i].tp = tp;
		s[i].stop = stop;
		s[i].t_start = t_start;
		s[i].warm_until = t_start + ix_seconds_to_ns(p->warmup_s);
		s[i].send_until =
			p->bytes ? 0 : t_start + ix_seconds_to_ns(p->warmup_s + p->duration_s);
		s[i].no_offload = p->no_offload;
		s[i].zerocopy = p->zerocopy;
		s[i].threads = p->threads;
	}
}

void ix_streams_close(struct ix_stream *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].fd >= 0)
			close(s[i].fd);
		s[i].fd = -1;
	}
}
