/*
 * Wire diagnostics: what a packet capture says about a test. Counts are
 * those Wireshark's TCP analysis gives (tcp.analysis.retransmission,
 * duplicate_ack, out_of_order, zero_window) and, for RoCEv2 (UDP 4791),
 * ECN-CE marked packets, CNPs (BTH opcode 0x81) and packets per QP.
 * Plain functions over bytes: no libpcap here, so they test offline.
 */
#ifndef IX_WIRESTAT_H
#define IX_WIRESTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/core/wirefig.h"

struct ix_pkt;
struct ix_wire_ctx; /* flow table and counters */

struct ix_wire_ctx *ix_wire_new(void);
void ix_wire_free(struct ix_wire_ctx *c);
/* Decode one captured packet (linktype: pcap's DLT_* number), count it.
 * ts_ns is its capture time. out (may be NULL) receives the decoded
 * headers. Returns an enum ix_pkt_status. */
int ix_wire_feed(struct ix_wire_ctx *c, int linktype, const uint8_t *data, size_t caplen,
		 size_t wirelen, int64_t ts_ns, struct ix_pkt *out);
/* The counts so far (present, iface, filter and dropped left untouched). */
void ix_wire_get(const struct ix_wire_ctx *c, struct ix_wire_figures *out);

#endif
