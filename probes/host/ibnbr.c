/* The switch port behind a local InfiniBand port (probes/host/ibnbr.h). */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "probes/core/clock.h"
#include "probes/host/ibnbr.h"

#ifndef HAVE_IBNETDISC

int ix_ib_neighbor(const char *dev, int port, struct ix_neighbor *out, char *why, size_t whylen)
{
	(void)dev;
	(void)port;
	memset(out, 0, sizeof(*out));
	snprintf(why, whylen, "this ixperf was built without libibmad");
	return -1;
}

#else

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define SMP_TIMEOUT_MS 200
#define KEEP_NS        (60 * 1000000000LL)
#define CACHE          8

/* The last answers, per adapter port. */
static struct {
	char dev[64];
	int port;
	int64_t at;
	int rc;
	struct ix_neighbor nb;
	char why[128];
} cache[CACHE];
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

static int ask(const char *dev, int port, struct ix_neighbor *out, char *why, size_t whylen)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	uint8_t info[IB_SMP_DATA_SIZE] = { 0 }, desc[IB_SMP_DATA_SIZE + 1] = { 0 };
	struct ibmad_port *mp;
	ib_portid_t id;
	char path[16];
	int via = port, rc = -1, fd;

	/* no umad here: say so before libibmad warns on stderr */
	fd = open("/sys/class/infiniband_mad/abi_version", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "no InfiniBand management access here (ib_umad not loaded)");
		return -1;
	}
	close(fd);
	mp = mad_rpc_open_port((char *)dev, port, classes, 2);
	if (!mp) {
		snprintf(why, whylen, "cannot open the management port of %s port %d",
			 dev ? dev : "the first adapter", port);
		return -1;
	}
	if (!via) { /* the first active port, as the management port took it */
		umad_port_t up;

		if (umad_get_port((char *)dev, 0, &up) < 0) {
			snprintf(why, whylen, "no active port on %s", dev ? dev : "any adapter");
			goto out;
		}
		via = up.portnum;
		umad_release_port(&up);
	}
	memset(&id, 0, sizeof(id));
	snprintf(path, sizeof(path), "0,%d", via);
	if (str2drpath(&id.drpath, path, 0, 0) < 0) {
		snprintf(why, whylen, "bad directed route %s", path);
		goto out;
	}
	if (!smp_query_via(info, &id, IB_ATTR_NODE_INFO, 0, SMP_TIMEOUT_MS, mp) ||
	    !smp_query_via(desc, &id, IB_ATTR_NODE_DESC, 0, SMP_TIMEOUT_MS, mp)) {
		snprintf(why, whylen, "no answer through port %d in %d ms", via, SMP_TIMEOUT_MS);
		goto out;
	}
	/* a cable arrives at a switch's external port, never at its port 0 */
	if (mad_get_field(info, 0, IB_NODE_TYPE_F) != IB_NODE_SWITCH ||
	    !mad_get_field(info, 0, IB_NODE_LOCAL_PORT_F)) {
		snprintf(why, whylen, "port %d is not cabled to a switch", via);
		goto out;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "ib");
	snprintf(out->chassis, sizeof(out->chassis), "ib 0x%016llx",
		 (unsigned long long)mad_get_field64(info, 0, IB_NODE_GUID_F));
	/* the switch's own text: printable ASCII only */
	for (size_t i = 0; i < sizeof(out->name) - 1 && desc[i]; i++)
		out->name[i] = desc[i] >= 0x20 && desc[i] < 0x7f ? (char)desc[i] : '?';
	snprintf(out->port, sizeof(out->port), "%u", mad_get_field(info, 0, IB_NODE_LOCAL_PORT_F));
	rc = 0;
out:
	mad_rpc_close_port(mp);
	return rc;
}

int ix_ib_neighbor(const char *dev, int port, struct ix_neighbor *out, char *why, size_t whylen)
{
	int64_t now = ix_now_ns();
	int k, oldest = 0, rc;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&cache_mu);
	for (k = 0; k < CACHE; k++) {
		if (cache[k].at && strcmp(cache[k].dev, dev ? dev : "") == 0 &&
		    cache[k].port == port && now - cache[k].at < KEEP_NS)
			break;
		if (cache[k].at < cache[oldest].at)
			oldest = k;
	}
	if (k < CACHE) {
		*out = cache[k].nb;
		snprintf(why, whylen, "%s", cache[k].why);
		rc = cache[k].rc;
		pthread_mutex_unlock(&cache_mu);
		return rc;
	}
	pthread_mutex_unlock(&cache_mu);
	rc = ask(dev, port, out, why, whylen);
	pthread_mutex_lock(&cache_mu);
	snprintf(cache[oldest].dev, sizeof(cache[oldest].dev), "%s", dev ? dev : "");
	cache[oldest].port = port;
	cache[oldest].at = now;
	cache[oldest].rc = rc;
	cache[oldest].nb = *out;
	snprintf(cache[oldest].why, sizeof(cache[oldest].why), "%s", rc < 0 ? why : "");
	pthread_mutex_unlock(&cache_mu);
	return rc;
}

#endif
