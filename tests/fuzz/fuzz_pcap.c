/*
 * Captured packets, decoded by the wire diagnostics (probes/capture).
 * An input that starts with a pcap or pcapng magic number is a capture
 * file: it is written to a temporary file and read back with
 * ix_capture_read_file, as 'ixperf wire FILE' reads one. Any other input
 * is packets fed straight to the decoders, as the live capture thread
 * feeds them: the first byte picks the link type, then each record is a
 * 2-byte big-endian captured length, a 2-byte count of bytes cut off on
 * the wire, and the captured bytes. Decoded IP packets also go to the
 * talkers matrix ('ixperf top').
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/capture/capture.h"
#include "probes/capture/pkt.h"
#include "probes/capture/talkers.h"
#include "probes/capture/wirestat.h"
#include "probes/core/wirefig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[4096], file[4200];

static void cleanup(void)
{
	if (file[0])
		unlink(file);
	if (dir[0])
		rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/ixfuzz-pcap.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(1);
	}
	snprintf(file, sizeof(file), "%s/in.pcap", dir);
	atexit(cleanup);
	return 0;
}

static const int linktypes[] = {
	IX_PKT_DLT_EN10MB,  IX_PKT_DLT_LINUX_SLL, IX_PKT_DLT_LINUX_SLL2, IX_PKT_DLT_RAW,
	IX_PKT_DLT_RAW_101, IX_PKT_DLT_IPV4,      IX_PKT_DLT_IPV6,       IX_PKT_DLT_NULL,
	IX_PKT_DLT_LOOP,    IX_PKT_DLT_ERF,       IX_PKT_DLT_IPOIB,      IX_PKT_DLT_INFINIBAND,
};
#define NLINK (sizeof(linktypes) / sizeof(linktypes[0]))

static int is_capture(const uint8_t *d, size_t n)
{
	static const uint8_t magics[][4] = {
		{ 0xd4, 0xc3, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0xc3, 0xd4 }, /* pcap, microseconds */
		{ 0x4d, 0x3c, 0xb2, 0xa1 }, { 0xa1, 0xb2, 0x3c, 0x4d }, /* pcap, nanoseconds */
		{ 0x0a, 0x0d, 0x0d, 0x0a },                             /* pcapng */
	};

	for (size_t i = 0; n >= 4 && i < sizeof(magics) / sizeof(magics[0]); i++)
		if (memcmp(d, magics[i], 4) == 0)
			return 1;
	return 0;
}

static void read_capture(const uint8_t *data, size_t size)
{
	struct ix_wire_figures out;
	struct ix_err err;
	FILE *f = fopen(file, "wb");

	if (!f)
		return;
	if (fwrite(data, 1, size, f) != size) {
		fclose(f);
		return;
	}
	if (fclose(f) != 0)
		return;
	(void)ix_capture_read_file(file, NULL, &out, &err);
}

static void feed_packets(const uint8_t *data, size_t size)
{
	int linktype = linktypes[data[0] % NLINK];
	struct ix_wire_ctx *w = ix_wire_new();
	struct ix_talkers *t = ix_talkers_new(4, NULL);
	struct ix_talkers_view v;
	struct ix_talkers_pair top[8];
	struct ix_wire_figures fig;
	int64_t ts = 1000000000;
	size_t off = 1;

	memset(&v, 0, sizeof(v));
	while (w && t && size - off >= 4) {
		size_t caplen = (size_t)data[off] << 8 | data[off + 1];
		size_t cut = (size_t)data[off + 2] << 8 | data[off + 3];
		struct ix_pkt p;

		off += 4;
		if (caplen > size - off)
			caplen = size - off;
		if (ix_wire_feed(w, linktype, data + off, caplen, caplen + cut, ts, &p) ==
			    IX_PKT_OK ||
		    p.family)
			(void)ix_talkers_add(t, p.family, p.src, p.dst, caplen + cut, ts);
		off += caplen;
		ts += 1000 + (int64_t)cut * 1000;
	}
	if (w) {
		memset(&fig, 0, sizeof(fig));
		ix_wire_get(w, &fig);
	}
	if (t && ix_talkers_snapshot(t, ts, &v, NULL) == 0) {
		(void)ix_talkers_top(&v, top, sizeof(top) / sizeof(top[0]));
		ix_talkers_view_free(&v);
	}
	ix_talkers_free(t);
	ix_wire_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (is_capture(data, size))
		read_capture(data, size);
	else
		feed_packets(data, size);
	return 0;
}
