/* Unit tests for probes/capture/capture.c: saved captures written by the test with
 * pcap_dump (whole, filtered, cut short, not a capture at all), bad
 * filters and interfaces, and a live capture on the loopback (root only);
 * and for its renderers, report/json/wire.c. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/capture/capture.h"
#include "report/json/json.h"
#include "report/text/text.h"

#ifdef HAVE_PCAP

#include <pcap/pcap.h>

static char tmpdir[256];

static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/ixcapture-test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(capture, .init = setup, .fini = teardown);

static void path_in(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* A pcapng file whose packet timestamp is beyond what 64-bit ns hold (a
 * fuzzer found it: tests/fuzz/crashes/pcap): read, not overflowed. */
static const uint8_t huge_timestamp[] = {
	0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0x00, 0x00, 0x00, 0x4d, 0x3c, 0x2b, 0x1a, 0x01, 0x00, 0x00,
	0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1c, 0x01, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x14,
	0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x7f, 0xff, 0xf5, 0xb3, 0x52, 0x20, 0x5a, 0x00, 0x00, 0x00, 0x5a, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xa8,
	0x00, 0x64, 0x81, 0x00, 0x00, 0x6e, 0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x3c,
	0x40, 0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6e, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x02, 0x06, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00, 0x9c, 0x40, 0x14, 0x51,
	0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x50, 0x02, 0xfa, 0xf0, 0xa5, 0x03, 0x00,
	0x00, 0x00, 0x00, 0x7c, 0x00, 0x00, 0x00
};

Test(capture, a_timestamp_beyond_64_bit_ns_is_clamped)
{
	char path[300];
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	FILE *f;

	path_in(path, sizeof(path), "huge-ts.pcapng");
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(huge_timestamp, 1, sizeof(huge_timestamp), f), sizeof(huge_timestamp));
	fclose(f);
	memset(&w, 0, sizeof(w));
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.packets, 1, "the packet is read and counted");
}

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet + IPv4 (198.18.0.1 -> 198.18.0.2) + TCP or UDP + payload. */
static size_t frame(uint8_t *f, int proto, uint16_t sport, uint16_t dport, uint32_t seq,
		    uint8_t flags, size_t payload)
{
	size_t l4 = proto == IPPROTO_TCP ? 20 : 8;
	size_t iplen = 20 + l4 + payload;
	uint8_t *ip = f + 14, *t = ip + 20;
	uint16_t c;

	memset(f, 0, 14 + iplen);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(iplen >> 8);
	ip[3] = (uint8_t)iplen;
	ip[8] = 64;
	ip[9] = (uint8_t)proto;
	memcpy(ip + 12, "\xc6\x12\x00\x01\xc6\x12\x00\x02", 8);
	c = ip_checksum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	t[0] = (uint8_t)(sport >> 8);
	t[1] = (uint8_t)sport;
	t[2] = (uint8_t)(dport >> 8);
	t[3] = (uint8_t)dport;
	if (proto == IPPROTO_TCP) {
		t[4] = (uint8_t)(seq >> 24);
		t[5] = (uint8_t)(seq >> 16);
		t[6] = (uint8_t)(seq >> 8);
		t[7] = (uint8_t)seq;
		t[12] = 5 << 4;
		t[13] = flags;
		t[14] = 0xff; /* window 65535 */
		t[15] = 0xff;
	} else {
		t[4] = (uint8_t)((8 + payload) >> 8);
		t[5] = (uint8_t)(8 + payload);
	}
	return 14 + iplen;
}

#define ACK 0x10
#define PSH 0x08

/* Five TCP segments from 40000 to 80 (the third sent twice) and one UDP
 * datagram to 53. Returns the bytes on the wire. */
static uint64_t write_sample(const char *path)
{
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	uint8_t buf[2048];
	uint64_t total = 0;
	const uint32_t seqs[] = { 1000, 2000, 3000, 3000, 4000 };

	cr_assert_not_null(dead);
	d = pcap_dump_open(dead, path);
	cr_assert_not_null(d, "%s", pcap_geterr(dead));
	for (size_t i = 0; i < 6; i++) {
		struct pcap_pkthdr h = { .ts = { .tv_sec = 1700000000,
						 .tv_usec = (long)i * 1000 } };

		if (i < 5)
			h.len = (bpf_u_int32)frame(buf, IPPROTO_TCP, 40000, 80, seqs[i], ACK | PSH,
						   1000);
		else
			h.len = (bpf_u_int32)frame(buf, IPPROTO_UDP, 5353, 53, 0, 0, 100);
		h.caplen = h.len;
		pcap_dump((u_char *)d, &h, buf);
		total += h.len;
	}
	pcap_dump_close(d);
	pcap_close(dead);
	return total;
}

Test(capture, read_file)
{
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	char path[300];
	uint64_t bytes;

	path_in(path, sizeof(path), "sample.pcap");
	bytes = write_sample(path);
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), 0, "%s", err.msg);
	cr_assert(w.present);
	cr_assert_str_eq(w.iface, "sample.pcap");
	cr_assert_str_eq(w.filter, "");
	cr_assert_eq(w.packets, 6);
	cr_assert_eq(w.bytes, bytes);
	cr_assert_eq(w.tcp_packets, 5);
	cr_assert_eq(w.udp_packets, 1);
	cr_assert_eq(w.malformed, 0);
	cr_assert_eq(w.dropped, 0);
	cr_assert_geq(w.tcp_retransmissions, 1, "the segment sent twice");
}

Test(capture, filter_selects_part)
{
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	char path[300];

	path_in(path, sizeof(path), "sample.pcap");
	write_sample(path);
	cr_assert_eq(ix_capture_read_file(path, "udp port 53", &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.packets, 1);
	cr_assert_eq(w.udp_packets, 1);
	cr_assert_eq(w.tcp_packets, 0);
	cr_assert_str_eq(w.filter, "udp port 53");
	cr_assert_eq(ix_capture_read_file(path, "tcp and dst port 80", &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.packets, 5);
	cr_assert_eq(w.tcp_packets, 5);
	cr_assert_eq(ix_capture_read_file(path, "host 10.1.2.3", &w, &err), 0, "%s", err.msg);
	cr_assert(w.present);
	cr_assert_eq(w.packets, 0);
}

Test(capture, bad_filter_is_usage)
{
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	char path[300];

	path_in(path, sizeof(path), "sample.pcap");
	write_sample(path);
	cr_assert_eq(ix_capture_read_file(path, "tcp and (", &w, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "'tcp and ('"), "%s", err.msg);
	cr_assert_not(w.present);
}

/* A file cut inside its last record: the records before it, and an error
 * that says so. */
Test(capture, truncated_file)
{
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	struct stat st;
	char path[300];

	path_in(path, sizeof(path), "cut.pcap");
	write_sample(path);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size - 50), 0);
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert_not_null(strstr(err.msg, "cut short after 5 packets"), "%s", err.msg);
	cr_assert(w.present);
	cr_assert_eq(w.packets, 5);
	cr_assert_eq(w.tcp_packets, 5);
	cr_assert_eq(w.udp_packets, 0);

	/* Cut inside the second record's header (file header 24 bytes, record
	 * headers 16, the first frame 14 + 20 + 20 + 1000). */
	cr_assert_eq(truncate(path, 24 + 16 + 1054 + 7), 0);
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), -1);
	cr_assert_not_null(strstr(err.msg, "cut short after 1 packets"), "%s", err.msg);
	cr_assert_eq(w.packets, 1);
}

Test(capture, not_a_capture)
{
	struct ix_wire_figures w;
	struct ix_err err = { 0 };
	char path[300];
	FILE *f;

	path_in(path, sizeof(path), "notes.txt");
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("these are not packets, just words long enough for a header\n", f);
	fclose(f);
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_FAIL);
	cr_assert_not_null(strstr(err.msg, "not a pcap or pcapng capture"), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "notes.txt"), "%s", err.msg);
	cr_assert_not(w.present);

	path_in(path, sizeof(path), "missing.pcap");
	cr_assert_eq(ix_capture_read_file(path, NULL, &w, &err), -1);
	cr_assert_not_null(strstr(err.msg, "missing.pcap"), "%s", err.msg);
	cr_assert_not(w.present);
}

Test(capture, no_such_interface)
{
	struct ix_capture_opts o = { .iface = "ixnosuch0" };
	struct ix_capture *c = (struct ix_capture *)&o;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_capture_start(&c, &o, &err), -1);
	cr_assert_null(c);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "'ixnosuch0'"), "%s", err.msg);
}

/* Usage error whether or not we may capture (without the privilege the
 * filter is checked on its own). */
Test(capture, live_bad_filter)
{
	struct ix_capture_opts o = { .iface = "lo", .filter = "port" };
	struct ix_capture *c;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_capture_start(&c, &o, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "%d %s", err.code, err.msg);
	cr_assert_not_null(strstr(err.msg, "'port'"), "%s", err.msg);
}

Test(capture, host_filter)
{
	const char *hosts[] = { "127.0.0.1", "::1", "127.0.0.1" };
	struct ix_err err = { 0 };
	char buf[256], tiny[16];

	cr_assert_eq(ix_capture_host_filter(hosts, 3, buf, sizeof(buf), &err), 0, "%s", err.msg);
	cr_assert_str_eq(buf, "host 127.0.0.1 or host ::1");
	cr_assert_eq(ix_capture_host_filter(hosts, 2, tiny, sizeof(tiny), &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "--capture-filter"), "%s", err.msg);
	cr_assert_str_eq(tiny, "");
}

/* Thirteen hosts overflow the report's 256 bytes: refused, not "capture all". */
Test(capture, many_hosts_refused_not_unfiltered)
{
	const char *hosts[13];
	char names[13][16];
	struct ix_capture_opts o = { .iface = "lo" };
	struct ix_capture *c = NULL;
	struct ix_err err = { 0 };

	for (int i = 0; i < 13; i++) {
		snprintf(names[i], sizeof(names[i]), "198.18.0.%d", 100 + i);
		hosts[i] = names[i];
	}
	cr_assert_eq(ix_capture_start_hosts(&c, &o, hosts, 13, &err), -1);
	cr_assert_null(c);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "%d %s", err.code, err.msg);
	cr_assert_not_null(strstr(err.msg, "13 hosts"), "%s", err.msg);
}

struct counter {
	unsigned udp;
};

static void count_udp(void *arg, const struct ix_pkt *p, int status, uint32_t wirelen,
		      int64_t ts_ns)
{
	struct counter *n = arg;

	if (status == IX_PKT_OK && p->proto == IPPROTO_UDP)
		n->udp++;
}

Test(capture, live_loopback)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct counter seen = { 0 };
	struct ix_capture_opts o = { .iface = "lo", .on_packet = count_udp, .arg = &seen };
	struct ix_wire_figures w, snap, kept;
	struct ix_err err = { 0 };
	struct ix_capture *c;
	char filter[64], path[300];
	const unsigned sent = 25;
	struct stat st;
	mode_t old_mask;
	int rx, tx;

	if (geteuid() != 0)
		cr_skip_test("a live capture needs root (CAP_NET_RAW); CI runs as root");
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	cr_assert(rx >= 0 && tx >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(rx, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(rx, (struct sockaddr *)&a, &alen), 0);
	snprintf(filter, sizeof(filter), "udp and port %u", ntohs(a.sin_port));
	o.filter = filter;
	path_in(path, sizeof(path), "lo.pcap");
	o.pcap_path = path;

	old_mask = umask(022);
	cr_assert_eq(ix_capture_start(&c, &o, &err), 0, "%s", err.msg);
	umask(old_mask);
	for (unsigned i = 0; i < sent; i++)
		cr_assert_eq(sendto(tx, "datagram", 8, 0, (struct sockaddr *)&a, sizeof(a)), 8);
	usleep(100 * 1000);
	ix_capture_snapshot(c, &snap);
	cr_assert(snap.present);
	cr_assert_eq(ix_capture_stop(c, &w, &err), 0, "%s", err.msg);
	close(rx);
	close(tx);

	cr_assert(w.present);
	cr_assert_str_eq(w.iface, "lo");
	cr_assert_str_eq(w.filter, filter);
	cr_assert_geq(w.udp_packets, sent);
	cr_assert_eq(w.tcp_packets, 0);
	cr_assert_geq(w.packets, snap.packets);
	cr_assert_eq(seen.udp, w.udp_packets, "on_packet saw every datagram");
	/* The kept file is in place, complete, and no temporary is left. */
	cr_assert_eq(ix_capture_read_file(path, NULL, &kept, &err), 0, "%s", err.msg);
	cr_assert_eq(kept.packets, w.packets);
	cr_assert_eq(kept.bytes, w.bytes);
	cr_assert_eq(kept.bytes, (uint64_t)w.packets * (14 + 20 + 8 + 8));
	/* Private, whatever the umask: packets may carry secrets. */
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600, "mode %04o", (unsigned)(st.st_mode & 07777));
	{
		char cmd[400];

		snprintf(cmd, sizeof(cmd), "test $(ls '%s' | wc -l) -eq 1", tmpdir);
		cr_assert_eq(system(cmd), 0, "only lo.pcap in %s", tmpdir);
	}
}

#else /* !HAVE_PCAP */

Test(capture, unavailable)
{
	struct ix_capture_opts o = { .iface = "lo" };
	struct ix_capture *c;
	struct ix_wire_figures w;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_capture_start(&c, &o, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
	cr_assert_not_null(strstr(err.msg, "without libpcap"));
	cr_assert_eq(ix_capture_read_file("x.pcap", NULL, &w, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_UNAVAILABLE);
}

#endif

/* ---- report/json/wire.c ------------------------------------------------------ */

static void sample_figures(struct ix_wire_figures *w)
{
	memset(w, 0, sizeof(*w));
	w->present = true;
	snprintf(w->iface, sizeof(w->iface), "eth0");
	snprintf(w->filter, sizeof(w->filter), "host 198.18.0.2");
	w->packets = 2000;
	w->bytes = 2500000;
	w->tcp_packets = 1000;
	w->tcp_retransmissions = 5;
	w->tcp_dup_acks = 7;
	w->udp_packets = 1000;
	w->roce_packets = 900;
	w->roce_cnp = 3;
	w->nqps = 2;
	w->qps[0].qp = 0x11;
	w->qps[0].packets = 600;
	w->qps[1].qp = 0x12;
	w->qps[1].packets = 300;
	w->qps[1].ecn_ce = 4;
}

Test(render, json)
{
	struct ix_wire_figures w;
	json_t *j;

	memset(&w, 0, sizeof(w));
	j = ix_json_wire(&w);
	cr_assert(json_is_null(j), "no capture: null");
	json_decref(j);
	sample_figures(&w);
	j = ix_json_wire(&w);
	cr_assert(json_is_true(json_object_get(j, "present")));
	cr_assert_str_eq(json_string_value(json_object_get(j, "iface")), "eth0");
	cr_assert_str_eq(json_string_value(json_object_get(j, "filter")), "host 198.18.0.2");
	cr_assert_eq(json_integer_value(json_object_get(j, "bytes")), 2500000);
	cr_assert_float_eq(json_real_value(json_object_get(j, "tcp_retransmission_percent")), 0.5,
			   1e-9);
	cr_assert_eq(json_array_size(json_object_get(j, "qps")), 2);
	cr_assert_eq(json_integer_value(json_object_get(
			     json_array_get(json_object_get(j, "qps"), 1), "ecn_ce")),
		     4);
	json_decref(j);

	w.tcp_packets = 0;
	w.tcp_retransmissions = 0;
	w.filter[0] = '\0';
	j = ix_json_wire(&w);
	cr_assert(json_is_null(json_object_get(j, "tcp_retransmission_percent")));
	cr_assert(json_is_null(json_object_get(j, "filter")));
	json_decref(j);
}

Test(render, text)
{
	struct ix_wire_figures w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(&w, 0, sizeof(w));
	ix_text_wire(f, &w);
	fflush(f);
	cr_assert_eq(len, 0, "nothing without a capture");
	sample_figures(&w);
	ix_text_wire(f, &w);
	fclose(f);
	cr_assert_not_null(strstr(buf, "Wire (eth0, filter host 198.18.0.2): 2000 packets"), "%s",
			   buf);
	cr_assert_not_null(strstr(buf, "5 retransmissions (0.5%), 7 dup ACKs"), "%s", buf);
	cr_assert_not_null(strstr(buf, "RoCE 900 packets: 0 ECN-CE, 3 CNPs"), "%s", buf);
	cr_assert_not_null(strstr(buf, "  0x000012            300          4"), "%s", buf);
	free(buf);
}

/* bw and lat results carry "wire" only when a capture was attached. */
Test(render, in_results)
{
	struct ix_bw_params bp = { .path = "tcp", .msg_size = 1024, .streams = 1 };
	struct ix_lat_params lp = { .path = "tcp", .msg_size = 64 };
	struct ix_bw_result b;
	struct ix_lat_result l;
	json_t *j;

	ix_bw_result_init(&b, &bp);
	j = ix_json_bw(&b);
	cr_assert_null(json_object_get(j, "wire"));
	json_decref(j);
	sample_figures(&b.wire);
	j = ix_json_bw(&b);
	cr_assert(json_is_object(json_object_get(j, "wire")));
	json_decref(j);
	ix_bw_result_free(&b);

	ix_lat_result_init(&l, &lp);
	j = ix_json_lat(&l);
	cr_assert_null(json_object_get(j, "wire"));
	json_decref(j);
	sample_figures(&l.wire);
	j = ix_json_lat(&l);
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "wire"), "packets")),
		     2000);
	json_decref(j);
	ix_lat_result_free(&l);
}
