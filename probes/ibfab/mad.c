/* The subnet through its management datagrams (probes/ibfab/ibfab.h):
 * discovery with libibnetdisc (directed-route SMPs, as ibnetdiscover),
 * the PMA counters of every cabled port with libibmad (LID-routed GMPs,
 * as perfquery). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/ibfab/ibfab.h"

#ifndef HAVE_IBNETDISC

int ix_ibfab_discover(struct ix_ibfab *f, const char *ca, int port, struct ix_err *err)
{
	(void)ca;
	(void)port;
	ix_ibfab_init(f);
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "this ixperf was built without libibnetdisc and libibmad: no InfiniBand "
		       "fabric discovery (apt-get install libibnetdisc-dev libibmad-dev, rebuild)");
}

int ix_ibfab_read_counters(struct ix_ibfab *f, const char *ca, int port, int slot,
			   unsigned timeout_ms, struct ix_err *err)
{
	(void)f;
	(void)ca;
	(void)port;
	(void)slot;
	(void)timeout_ms;
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "this ixperf was built without libibmad: no port counters");
}

int ix_ibfab_read_routes(struct ix_ibfab *f, const char *ca, int port, unsigned timeout_ms,
			 struct ix_err *err)
{
	(void)f;
	(void)ca;
	(void)port;
	(void)timeout_ms;
	return ix_fail(err, IX_EXIT_UNAVAILABLE,
		       "this ixperf was built without libibmad: no forwarding tables");
}

#else /* HAVE_IBNETDISC */

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#define CAP_EXT_SPEEDS 0x4000u /* PortInfo CapabilityMask: IsExtendedSpeedsSupported */

static void port_from(struct ix_ibfab_port *p, const ibnd_node_t *n, const ibnd_port_t *ip)
{
	const ibnd_port_t *p0 = n->ports ? n->ports[0] : NULL;
	/* a switch's capabilities are those of its port 0 */
	const uint8_t *cap_info = n->type == IB_NODE_SWITCH && p0 ? p0->info : ip->info;
	uint32_t cap = mad_get_field((void *)cap_info, 0, IB_PORT_CAPMASK_F);
	void *info = (void *)ip->info;

	p->guid = ip->guid;
	p->lid = n->type == IB_NODE_SWITCH ? (p0 ? p0->base_lid : n->smalid) : ip->base_lid;
	p->state = (uint8_t)mad_get_field(info, 0, IB_PORT_STATE_F);
	p->phys = (uint8_t)mad_get_field(info, 0, IB_PORT_PHYS_STATE_F);
	p->width_active = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	p->width_enabled = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ENABLED_F);
	p->width_supported = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	p->speed_active = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	p->speed_enabled = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_ENABLED_F);
	p->speed_supported = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_SUPPORTED_F);
	if (cap & CAP_EXT_SPEEDS) {
		p->ext_active = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
		p->ext_enabled = (uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
		p->ext_supported =
			(uint8_t)mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
	}
}

int ix_ibfab_discover(struct ix_ibfab *f, const char *ca, int port, struct ix_err *err)
{
	struct ibnd_config cfg = { .timeout_ms = 500, .retries = 2 };
	ibnd_fabric_t *fab;
	ibnd_node_t *n;
	uint32_t i;

	ix_ibfab_init(f);
	fab = ibnd_discover_fabric((char *)ca, port, NULL, &cfg);
	if (!fab)
		return ix_fail(err, IX_EXIT_FAIL,
			       "no InfiniBand subnet answered through %s port %d (an active port "
			       "and access to /dev/infiniband/umad* are needed)",
			       ca ? ca : "the first adapter", port);
	for (n = fab->nodes; n; n = n->next)
		if (!ix_ibfab_add(f, n->guid, n->type == IB_NODE_SWITCH, n->nodedesc,
				  (uint8_t)n->numports))
			goto oom;
	for (n = fab->nodes, i = 0; n; n = n->next, i++) {
		struct ix_ibfab_node *nd = &f->nodes[i];

		for (int p = 0; p <= n->numports && n->ports; p++) {
			const ibnd_port_t *ip = n->ports[p];
			struct ix_ibfab_port *pt = &nd->ports[p];

			if (!ip)
				continue;
			port_from(pt, n, ip);
			if (ip->remoteport && ip->remoteport->node) {
				pt->peer_node = ix_ibfab_find(f, ip->remoteport->node->guid);
				pt->peer_port = (uint8_t)ip->remoteport->portnum;
			}
		}
		nd->lid = nd->ports[nd->is_switch ? 0 : (nd->nports ? 1 : 0)].lid;
	}
	if (fab->from_node)
		snprintf(f->via, sizeof(f->via), "%.40s port %d", ca ? ca : "local adapter",
			 fab->from_portnum);
	ibnd_destroy_fabric(fab);
	return 0;
oom:
	ibnd_destroy_fabric(fab);
	ix_ibfab_free(f);
	return ix_fail(err, IX_EXIT_FAIL, "out of memory for the subnet");
}

/* One port's PortCounters and, where answered, PortCountersExtended. */
static void read_port(struct ix_ibfab_counters *c, uint16_t lid, unsigned num, unsigned timeout,
		      const struct ibmad_port *mp)
{
	static const struct {
		enum ix_ibfab_ctr k;
		enum MAD_FIELDS f;
	} basic[] = {
		{ IX_IBC_SYMBOL_ERRORS, IB_PC_ERR_SYM_F },
		{ IX_IBC_LINK_RECOVERS, IB_PC_LINK_RECOVERS_F },
		{ IX_IBC_LINK_DOWNED, IB_PC_LINK_DOWNED_F },
		{ IX_IBC_RCV_ERRORS, IB_PC_ERR_RCV_F },
		{ IX_IBC_RCV_REMOTE_PHYS, IB_PC_ERR_PHYSRCV_F },
		{ IX_IBC_RCV_SWITCH_RELAY, IB_PC_ERR_SWITCH_REL_F },
		{ IX_IBC_XMIT_DISCARDS, IB_PC_XMT_DISCARDS_F },
		{ IX_IBC_XMIT_CONSTRAINT, IB_PC_ERR_XMTCONSTR_F },
		{ IX_IBC_RCV_CONSTRAINT, IB_PC_ERR_RCVCONSTR_F },
		{ IX_IBC_LOCAL_INTEGRITY, IB_PC_ERR_LOCALINTEG_F },
		{ IX_IBC_EXCESS_OVERRUN, IB_PC_ERR_EXCESS_OVR_F },
		{ IX_IBC_VL15_DROPPED, IB_PC_VL15_DROPPED_F },
		{ IX_IBC_XMIT_WAIT, IB_PC_XMT_WAIT_F },
		{ IX_IBC_XMIT_DATA, IB_PC_XMT_BYTES_F },
		{ IX_IBC_RCV_DATA, IB_PC_RCV_BYTES_F },
		{ IX_IBC_XMIT_PKTS, IB_PC_XMT_PKTS_F },
		{ IX_IBC_RCV_PKTS, IB_PC_RCV_PKTS_F },
	};
	uint8_t buf[1024];
	ib_portid_t id;

	memset(c, 0, sizeof(*c));
	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, lid, 0, 0);
	memset(buf, 0, sizeof(buf));
	if (!lid) {
		snprintf(c->error, sizeof(c->error), "the port has no LID");
		return;
	}
	if (!pma_query_via(buf, &id, (int)num, timeout, IB_GSI_PORT_COUNTERS, mp)) {
		snprintf(c->error, sizeof(c->error), "no answer from LID %u port %u in %u ms", lid,
			 num, timeout);
		return;
	}
	for (size_t i = 0; i < sizeof(basic) / sizeof(basic[0]); i++)
		c->v[basic[i].k] = mad_get_field(buf, 0, basic[i].f);
	c->valid = true;
	memset(buf, 0, sizeof(buf));
	if (pma_query_via(buf, &id, (int)num, timeout, IB_GSI_PORT_COUNTERS_EXT, mp)) {
		c->v[IX_IBC_XMIT_DATA] = mad_get_field64(buf, 0, IB_PC_EXT_XMT_BYTES_F);
		c->v[IX_IBC_RCV_DATA] = mad_get_field64(buf, 0, IB_PC_EXT_RCV_BYTES_F);
		c->v[IX_IBC_XMIT_PKTS] = mad_get_field64(buf, 0, IB_PC_EXT_XMT_PKTS_F);
		c->v[IX_IBC_RCV_PKTS] = mad_get_field64(buf, 0, IB_PC_EXT_RCV_PKTS_F);
		c->extended = true;
	}
}

static struct ibmad_port *open_mad(const char *ca, int port, const char *what, struct ix_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SA_CLASS, IB_PERFORMANCE_CLASS };
	struct ibmad_port *mp = mad_rpc_open_port((char *)ca, port, classes, 3);

	if (!mp)
		ix_fail(err, IX_EXIT_FAIL, "cannot open the management port of %s port %d for %s",
			ca ? ca : "the first adapter", port, what);
	return mp;
}

int ix_ibfab_read_counters(struct ix_ibfab *f, const char *ca, int port, int slot,
			   unsigned timeout_ms, struct ix_err *err)
{
	struct ibmad_port *mp;

	if (slot < 0 || slot > 1)
		return ix_fail(err, IX_EXIT_FAIL, "internal error: counter slot %d", slot);
	mp = open_mad(ca, port, "the counters", err);
	if (!mp)
		return -1;
	for (uint32_t i = 0; i < f->n; i++) {
		struct ix_ibfab_node *nd = &f->nodes[i];

		for (uint32_t p = 1; p <= nd->nports; p++)
			if (nd->ports[p].peer_node >= 0)
				read_port(&nd->ports[p].ctr[slot], nd->ports[p].lid, p, timeout_ms,
					  mp);
	}
	mad_rpc_close_port(mp);
	return 0;
}

/* One switch's table, LIDs 0 .. LinearFDBTop; false when it does not
 * answer (nd keeps none). */
static bool read_lft(struct ix_ibfab_node *nd, unsigned timeout, const struct ibmad_port *mp)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t id;
	uint32_t top;

	memset(&id, 0, sizeof(id));
	ib_portid_set(&id, nd->ports[0].lid, 0, 0);
	memset(buf, 0, sizeof(buf));
	if (!nd->ports[0].lid || !smp_query_via(buf, &id, IB_ATTR_SWITCH_INFO, 0, timeout, mp))
		return false;
	top = mad_get_field(buf, 0, IB_SW_LINEAR_FDB_TOP_F);
	if (top >= 0xc000) /* unicast LIDs only */
		top = 0xbfff;
	nd->lft = malloc(top + 1);
	if (!nd->lft)
		return false;
	memset(nd->lft, IX_IBFAB_NO_ROUTE, top + 1);
	for (uint32_t block = 0; block * 64 <= top; block++) {
		memset(buf, 0, sizeof(buf));
		if (!smp_query_via(buf, &id, IB_ATTR_LINEARFORWTBL, block, timeout, mp)) {
			free(nd->lft);
			nd->lft = NULL;
			return false;
		}
		for (uint32_t k = 0; k < 64 && block * 64 + k <= top; k++)
			nd->lft[block * 64 + k] = buf[k];
	}
	nd->nlft = top + 1;
	return true;
}

int ix_ibfab_read_routes(struct ix_ibfab *f, const char *ca, int port, unsigned timeout_ms,
			 struct ix_err *err)
{
	struct ibmad_port *mp = open_mad(ca, port, "the forwarding tables", err);
	int read = 0;

	if (!mp)
		return -1;
	for (uint32_t i = 0; i < f->n; i++) {
		struct ix_ibfab_node *nd = &f->nodes[i];

		free(nd->lft);
		nd->lft = NULL;
		nd->nlft = 0;
		if (nd->is_switch)
			read += read_lft(nd, timeout_ms, mp);
	}
	mad_rpc_close_port(mp);
	return read;
}

#endif /* HAVE_IBNETDISC */
