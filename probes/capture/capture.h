/*
 * Packet captures through libpcap, decoded into wire diagnostics
 * (probes/capture/wirestat.h): live on an interface while a probe runs, or from a
 * saved file. Builds without libpcap get the same functions, which answer
 * IX_EXIT_UNAVAILABLE, so callers need no #ifdef.
 */
#ifndef IX_CAPTURE_H
#define IX_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/capture/pkt.h"
#include "probes/capture/wirestat.h"
#include "probes/core/err.h"

#define IX_CAPTURE_SNAPLEN_HEADERS 256   /* default: headers only */
#define IX_CAPTURE_SNAPLEN_FULL    65535 /* default when the capture is kept */
#define IX_CAPTURE_BUFFER          (32 * 1024 * 1024)

struct ix_capture_opts {
	const char *iface;     /* interface, or "any" */
	const char *filter;    /* BPF; NULL = every packet */
	const char *pcap_path; /* keep the capture in this file; NULL = no */
	int snaplen;           /* 0 = IX_CAPTURE_SNAPLEN_HEADERS, or _FULL with pcap_path */
	/* Every packet, on the capture thread, after it was counted. status is
	 * an enum ix_pkt_status; p is only meaningful when it is IX_PKT_OK.
	 * wirelen is its length on the wire (an ERSPAN copy's: the frame's). */
	void (*on_packet)(void *arg, const struct ix_pkt *p, int status, uint32_t wirelen,
			  int64_t ts_ns);
	void *arg;
	bool promisc;
};

struct ix_capture;

/*
 * Start capturing: open the interface, set the filter, open the file, and
 * start a thread that decodes every packet. Errors: no such interface or a
 * bad filter is IX_EXIT_USAGE; no permission (CAP_NET_RAW) or a build
 * without libpcap is IX_EXIT_UNAVAILABLE; anything else IX_EXIT_FAIL.
 */
int ix_capture_start(struct ix_capture **out, const struct ix_capture_opts *o, struct ix_err *err);
/*
 * The same for a test with the given peers: without o->filter, the filter
 * is "host A or host B ..." over the addresses the hosts resolve to, or
 * none when that does not fit in struct ix_wire_figures' filter.
 */
int ix_capture_start_hosts(struct ix_capture **out, const struct ix_capture_opts *o,
			   const char *const *hosts, size_t nhosts, struct ix_err *err);
/* The figures so far (thread-safe; for live views). */
void ix_capture_snapshot(struct ix_capture *c, struct ix_wire_figures *out);
/*
 * Stop the thread, decode what is still buffered, add the kernel's and the
 * interface's drops, finish the file (renamed into place) and free c. out
 * (may be NULL) gets the figures, present set, even when -1 is returned
 * (the capture failed midway, or the file could not be written).
 */
int ix_capture_stop(struct ix_capture *c, struct ix_wire_figures *out, struct ix_err *err);

/*
 * Decode a saved capture (pcap or pcapng), keeping the packets filter
 * (NULL = all) selects. A file that is not a capture is IX_EXIT_FAIL with
 * out->present false; one cut short inside a record is IX_EXIT_FAIL with
 * out holding the complete records before the cut (present true) and the
 * error saying where it stopped. A bad filter is IX_EXIT_USAGE.
 */
int ix_capture_read_file(const char *path, const char *filter, struct ix_wire_figures *out,
			 struct ix_err *err);

/* "host A or host B ..." over the addresses the hosts resolve to; when it
 * does not fit in len, "" and IX_EXIT_USAGE (never no filter at all). */
int ix_capture_host_filter(const char *const *hosts, size_t nhosts, char *buf, size_t len,
			   struct ix_err *err);

#endif
