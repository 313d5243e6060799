/* The socket watchdog: a thread that sleeps until the last beat plus the
 * timeout, and shuts the socket down when no beat came meanwhile. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "probes/core/clock.h"
#include "probes/net/watchdog.h"

struct ix_watchdog {
	int fd;
	int64_t timeout_ns;
	_Atomic int64_t beat; /* the last progress, ix_now_ns */
	atomic_bool fired;
	bool quit; /* under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC, as ix_now_ns */
	pthread_t thread;
};

static void *watch(void *arg)
{
	struct ix_watchdog *w = arg;

	pthread_mutex_lock(&w->mu);
	while (!w->quit) {
		int64_t due = atomic_load_explicit(&w->beat, memory_order_relaxed) + w->timeout_ns;
		struct timespec ts;

		if (ix_now_ns() >= due) {
			atomic_store(&w->fired, true);
			shutdown(w->fd, SHUT_RDWR);
			break;
		}
		ts.tv_sec = due / IX_NSEC_PER_SEC;
		ts.tv_nsec = due % IX_NSEC_PER_SEC;
		pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int ix_watchdog_start(struct ix_watchdog **out, int fd, int64_t timeout_ns, struct ix_err *err)
{
	struct ix_watchdog *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	if (!w)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	w->fd = fd;
	w->timeout_ns = timeout_ns > 0 ? timeout_ns : 1;
	atomic_init(&w->beat, ix_now_ns());
	atomic_init(&w->fired, false);
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&w->thread, NULL, watch, w);
	if (rc != 0) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return ix_fail(err, IX_EXIT_FAIL, "cannot start the reply watchdog: %s",
			       strerror(rc));
	}
	*out = w;
	return 0;
}

void ix_watchdog_beat(struct ix_watchdog *w, int64_t now_ns)
{
	atomic_store_explicit(&w->beat, now_ns, memory_order_relaxed);
}

bool ix_watchdog_fired(const struct ix_watchdog *w)
{
	return atomic_load(&w->fired);
}

void ix_watchdog_stop(struct ix_watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
