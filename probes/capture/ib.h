/*
 * InfiniBand transport headers: what an opcode is (its role, its name),
 * the AETH syndrome and the RNR timer. The decoders of the Local and
 * Global Route Headers, the Base Transport Header and the extended headers
 * its opcode names (RETH, AETH, DETH, ...) are ib.c's too, declared with
 * the other decoders in pkt.h.
 */
#ifndef IX_IB_H
#define IX_IB_H

#include <stddef.h>
#include <stdint.h>

/* What a packet is to its queue pair's connection. */
enum ix_ib_role {
	IX_IB_UNKNOWN = 0, /* reserved or vendor opcode */
	IX_IB_REQUEST,     /* requester to responder: SEND, WRITE, READ request, atomics */
	IX_IB_RESPONSE,    /* responder to requester: ACK, READ response, atomic ACK */
	IX_IB_CNP,         /* RoCEv2 congestion notification */
};
int ix_ib_role(uint8_t opcode);

/* The opcode's name as tshark spells it ("RC Send Only", "RC Acknowledge",
 * "CNP"), in buf (40 bytes hold any); NULL for reserved and vendor
 * opcodes. */
const char *ix_ib_opcode_name(uint8_t opcode, char *buf, size_t len);

/* The AETH syndrome: its kind, and the NAK code or RNR timer in its low
 * five bits. */
enum ix_ib_aeth_kind {
	IX_IB_AETH_ACK = 0,
	IX_IB_AETH_RNR_NAK = 1,
	IX_IB_AETH_RESERVED = 2,
	IX_IB_AETH_NAK = 3,
};
#define IX_IB_AETH_KIND(s)  (((s) >> 5) & 3)
#define IX_IB_AETH_VALUE(s) ((s)&0x1f)

/* NAK codes (the value of a NAK syndrome). */
#define IX_IB_NAK_PSN_SEQ    0 /* PSN sequence error: the responder saw a gap */
#define IX_IB_NAK_INV_REQ    1 /* invalid request */
#define IX_IB_NAK_REM_ACCESS 2 /* remote access error */
#define IX_IB_NAK_REM_OP     3 /* remote operational error */
#define IX_IB_NAK_INV_RD_REQ 4 /* invalid RD request */

/* The RNR NAK timer's value in ns: how long the requester waits before it
 * sends again (the IBA's table; 0 stands for 655.36 ms). */
int64_t ix_ib_rnr_timer_ns(uint8_t value);

#endif
