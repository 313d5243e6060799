/*
 * wirecount: reads a capture file with libpcap, feeds every packet to the
 * wire analysis and prints the counts as key=value lines. A record cut
 * short at the end of the file counts as one malformed packet.
 *
 *   wirecount [-v] FILE
 *
 * -v also prints, for each packet the TCP analysis flags, a line
 * "frame=N" with the counts it raised (frame numbers as in tshark).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include "probes/capture/pkt.h"
#include "probes/capture/wirestat.h"

static void print_flags(uint64_t frame, const struct ix_wire_figures *a,
			const struct ix_wire_figures *b)
{
	if (a->tcp_retransmissions == b->tcp_retransmissions &&
	    a->tcp_dup_acks == b->tcp_dup_acks && a->tcp_out_of_order == b->tcp_out_of_order &&
	    a->tcp_zero_window == b->tcp_zero_window)
		return;
	printf("frame=%" PRIu64 "%s%s%s%s\n", frame,
	       b->tcp_retransmissions != a->tcp_retransmissions ? " retransmission" : "",
	       b->tcp_dup_acks != a->tcp_dup_acks ? " duplicate_ack" : "",
	       b->tcp_out_of_order != a->tcp_out_of_order ? " out_of_order" : "",
	       b->tcp_zero_window != a->tcp_zero_window ? " zero_window" : "");
}

int main(int argc, char **argv)
{
	static struct ix_wire_figures before, fig;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct ix_wire_ctx *c;
	const char *path;
	bool verbose = false;
	int truncated = 0, dlt, rc;
	uint32_t i;
	pcap_t *p;

	if (argc == 3 && strcmp(argv[1], "-v") == 0) {
		verbose = true;
		path = argv[2];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: wirecount [-v] FILE\n");
		return 2;
	}
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fprintf(stderr, "wirecount: %s\n", err);
		return 1;
	}
	c = ix_wire_new();
	if (!c) {
		fprintf(stderr, "wirecount: out of memory\n");
		return 1;
	}
	dlt = pcap_datalink(p);
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		int64_t ts = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec;

		if (verbose)
			ix_wire_get(c, &before);
		ix_wire_feed(c, dlt, data, h->caplen, h->len, ts, NULL);
		if (verbose) {
			ix_wire_get(c, &fig);
			print_flags(fig.packets, &before, &fig);
		}
	}
	if (rc == PCAP_ERROR) {
		/* libpcap stops at a record cut short: count it, keep the rest. */
		fprintf(stderr, "wirecount: %s: %s\n", path, pcap_geterr(p));
		ix_wire_feed(c, dlt, NULL, 0, 0, 0, NULL);
		truncated = 1;
	}
	ix_wire_get(c, &fig);
	printf("packets=%" PRIu64 "\n", fig.packets);
	printf("bytes=%" PRIu64 "\n", fig.bytes);
	printf("malformed=%" PRIu64 "\n", fig.malformed);
	printf("other=%" PRIu64 "\n", fig.other);
	printf("truncated=%d\n", truncated);
	printf("tcp_packets=%" PRIu64 "\n", fig.tcp_packets);
	printf("tcp_flows=%" PRIu64 "\n", fig.tcp_flows);
	printf("tcp_retransmissions=%" PRIu64 "\n", fig.tcp_retransmissions);
	printf("tcp_dup_acks=%" PRIu64 "\n", fig.tcp_dup_acks);
	printf("tcp_out_of_order=%" PRIu64 "\n", fig.tcp_out_of_order);
	printf("tcp_zero_window=%" PRIu64 "\n", fig.tcp_zero_window);
	printf("udp_packets=%" PRIu64 "\n", fig.udp_packets);
	printf("ecn_ce=%" PRIu64 "\n", fig.ecn_ce);
	printf("overlay_packets=%" PRIu64 "\n", fig.overlay_packets);
	printf("overlay_ecn_ce=%" PRIu64 "\n", fig.overlay_ecn_ce);
	printf("roce_packets=%" PRIu64 "\n", fig.roce_packets);
	printf("roce_ecn_ce=%" PRIu64 "\n", fig.roce_ecn_ce);
	printf("roce_cnp=%" PRIu64 "\n", fig.roce_cnp);
	printf("qps=%" PRIu32 "\n", fig.nqps);
	for (i = 0; i < fig.nqps; i++)
		printf("qp.0x%06" PRIx32 "=%" PRIu64 "/%" PRIu64 "\n", fig.qps[i].qp,
		       fig.qps[i].packets, fig.qps[i].ecn_ce);
	printf("qps_other=%" PRIu64 "\n", fig.qps_other);
	ix_wire_free(c);
	pcap_close(p);
	return 0;
}
