#include "config.h"

#include <stdio.h>
#include <string.h>

#include "probes/core/clock.h"
#include "probes/host/fabric.h"
#include "probes/host/inventory.h"
#include "probes/host/linkcache.h"

void ix_link_cache_init(struct ix_link_cache *c, const char *sysroot)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->sysroot, sizeof(c->sysroot), "%s", sysroot ? sysroot : "");
}

void ix_link_cache_destroy(struct ix_link_cache *c)
{
	pthread_mutex_destroy(&c->lock);
}

int ix_link_cache_get(struct ix_link_cache *c, const char *iface, struct ix_link_limit *out)
{
	struct ix_link_cache_entry *e = NULL, *oldest = &c->v[0];
	int64_t now = ix_now_ns();
	int rc;

	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "unknown");
	if (!iface || !iface[0] || strlen(iface) >= sizeof(out->iface))
		return -1;
	if (strcmp(iface, "lo") == 0) {
		snprintf(out->iface, sizeof(out->iface), "lo");
		return -1;
	}
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < IX_LINK_CACHE_N; i++) {
		if (c->v[i].read_ns && strcmp(c->v[i].iface, iface) == 0)
			e = &c->v[i];
		if (c->v[i].read_ns < oldest->read_ns)
			oldest = &c->v[i];
	}
	if (e && now - e->read_ns < (int64_t)IX_LINK_CACHE_TTL_S * IX_NSEC_PER_SEC) {
		*out = e->link;
		rc = e->rc;
		pthread_mutex_unlock(&c->lock);
		return rc;
	}
	pthread_mutex_unlock(&c->lock);
	/* Read outside the lock: tests of other interfaces go on meanwhile. */
	rc = ix_link_limit_of(iface, c->sysroot, out);
	pthread_mutex_lock(&c->lock);
	if (!e || strcmp(e->iface, iface) != 0)
		e = oldest;
	snprintf(e->iface, sizeof(e->iface), "%s", iface);
	e->read_ns = now > 0 ? now : 1;
	e->rc = rc;
	e->link = *out;
	c->reads++;
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int ix_link_cache_socket(struct ix_link_cache *c, int fd, struct ix_link_limit *out)
{
	char iface[64];

	if (ix_fabric_iface_of_socket(fd, iface, sizeof(iface)) < 0) {
		memset(out, 0, sizeof(*out));
		snprintf(out->source, sizeof(out->source), "unknown");
		return -1;
	}
	return ix_link_cache_get(c, iface, out);
}

int ix_link_cache_toward(struct ix_link_cache *c, const char *host, struct ix_link_limit *out)
{
	char iface[64];

	if (ix_route_iface(host, iface, sizeof(iface)) < 0) {
		memset(out, 0, sizeof(*out));
		snprintf(out->source, sizeof(out->source), "unknown");
		return -1;
	}
	return ix_link_cache_get(c, iface, out);
}
