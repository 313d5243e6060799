#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LLDPCTL
#include <lldpctl.h>
#endif

#include "probes/host/lldp.h"

/* s, or "" for NULL, cut to fit and kept printable. */
static void copy_str(char *dst, size_t len, const char *s)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ? '?' : s[i];
	dst[i] = '\0';
}

bool ix_lldp_copy(struct ix_neighbor *out, const char *chassis_id, const char *chassis_name,
		  const char *port_descr, const char *port_id)
{
	copy_str(out->chassis, sizeof(out->chassis), chassis_id);
	copy_str(out->name, sizeof(out->name), chassis_name);
	copy_str(out->port, sizeof(out->port), port_descr && port_descr[0] ? port_descr : port_id);
	if (!out->chassis[0])
		return false;
	snprintf(out->source, sizeof(out->source), "lldp");
	return true;
}

#ifdef HAVE_LLDPCTL
/* The library logs to stderr on its own (a host without lldpd, every
 * lookup); the caller says what matters instead. */
static void quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;

static void quiet_init(void)
{
	lldpctl_log_callback(quiet);
}

/* The first neighbour of port into out; false when it has none. */
static bool first_neighbor(lldpctl_atom_t *port, struct ix_neighbor *out)
{
	lldpctl_atom_t *nbrs = lldpctl_atom_get(port, lldpctl_k_port_neighbors), *nb;
	bool found = false;

	if (!nbrs)
		return false;
	/* Walk the whole list: leaving the loop early would keep a reference. */
	lldpctl_atom_foreach(nbrs, nb)
	{
		const char *descr = lldpctl_atom_get_str(nb, lldpctl_k_port_descr);
		lldpctl_atom_t *ch;

		if (found)
			continue;
		ch = lldpctl_atom_get(nb, lldpctl_k_port_chassis);
		if (!ch)
			continue;
		found = ix_lldp_copy(
			out, lldpctl_atom_get_str(ch, lldpctl_k_chassis_id),
			lldpctl_atom_get_str(ch, lldpctl_k_chassis_name), descr,
			descr && descr[0] ? NULL : lldpctl_atom_get_str(nb, lldpctl_k_port_id));
		lldpctl_atom_dec_ref(ch);
	}
	lldpctl_atom_dec_ref(nbrs);
	return found;
}

int ix_lldp_neighbor(const char *iface, struct ix_neighbor *out, char *why, size_t whylen)
{
	const char *sock = getenv("IXPERF_LLDPD_SOCKET");
	lldpctl_atom_t *ifs, *it;
	lldpctl_conn_t *conn;
	bool found = false;

	memset(out, 0, sizeof(*out));
	snprintf(why, whylen, "%s", "");
	if (!iface || !iface[0] || strcmp(iface, "lo") == 0)
		return -1;
	pthread_once(&quiet_once, quiet_init);
	conn = lldpctl_new_name(sock && sock[0] ? sock : lldpctl_get_default_transport(), NULL,
				NULL, NULL);
	if (!conn) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	ifs = lldpctl_get_interfaces(conn);
	if (!ifs) {
		snprintf(why, whylen, "lldpd does not answer: %s",
			 lldpctl_strerror(lldpctl_last_error(conn)));
		lldpctl_release(conn);
		return -1;
	}
	lldpctl_atom_foreach(ifs, it)
	{
		const char *name = lldpctl_atom_get_str(it, lldpctl_k_interface_name);
		lldpctl_atom_t *port;

		if (found || !name || strcmp(name, iface) != 0)
			continue;
		port = lldpctl_get_port(it);
		if (port) {
			found = first_neighbor(port, out);
			lldpctl_atom_dec_ref(port);
		}
	}
	lldpctl_atom_dec_ref(ifs);
	lldpctl_release(conn);
	if (!found) {
		memset(out, 0, sizeof(*out));
		snprintf(why, whylen, "lldpd knows no neighbour on %s", iface);
		return -1;
	}
	return 0;
}
#else
int ix_lldp_neighbor(const char *iface, struct ix_neighbor *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof(*out));
	snprintf(why, whylen, "built without liblldpctl");
	return -1;
}
#endif
