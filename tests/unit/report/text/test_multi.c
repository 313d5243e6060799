/* Unit tests for report/text/multi.c: mesh and incast results as text,
 * from hand-built structs (tests/unit/report/fixtures.h); and the UDP
 * summary line of report/text/text.c, its zero-copy and data-thread lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/text/text.h"
#include "tests/unit/report/fixtures.h"

Test(mesh, text_names_the_suspect)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	mesh(&r, cells, nodes, errs, sus);
	ix_text_mesh(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "SUSPECT: n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "1 bad pair(s)"), "%s", buf);
	cr_assert_not_null(
		strstr(buf, "bandwidth 1.00 Gbit/s < 0.7 x median 5.00 Gbit/s (20%) (confirmed)"),
		"the bad pair says why: %s", buf);
	cr_assert_not_null(strstr(buf, "Pair latency baseline 5.00 us (median, p50 of 2 pairs"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "n1:5301 -> n3:6000"), "%s", buf);
	cr_assert_not_null(strstr(buf, "INCOMPLETE: 1 pair(s) not measured"), "%s", buf);
	free(buf);
}

Test(incast, text_of_a_stream_sweep)
{
	struct ix_incast_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	incast(&r);
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "8.00 Gbit/s"), "%s", buf);
	cr_assert_not_null(strstr(buf, "Diagnosis: goodput holds"), "%s", buf);
	free(buf);
}

/* A step's and a flow's error come from the agents: no escape goes out. */
Test(incast, text_makes_the_agents_errors_safe)
{
	struct ix_incast_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ix_incast_step st;
	struct ix_incast_flow fl[2];

	incast(&r);
	st = r.steps[0];
	memcpy(fl, st.flows, sizeof(fl));
	st.flows = fl;
	st.ok = false;
	snprintf(st.error, sizeof(st.error),
		 "agent: \x1b[2J\x9b"
		 "31mstep");
	fl[1].ok = false;
	snprintf(fl[1].error, sizeof(fl[1].error),
		 "\xc2\x9b"
		 "0mflow");
	r.steps = &st;
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "FAILED: agent: ?[2J?31mstep"), "%s", buf);
	cr_assert_not_null(strstr(buf, " ?0mflow"), "%s", buf);
	cr_assert_null(strchr(buf, '\x1b'), "%s", buf);
	cr_assert_null(strchr(buf, '\x9b'), "%s", buf);
	free(buf);
}

/* The node table gives each host's ceiling and its share; a host at a
 * PCIe ceiling below its line is named; the incast receiver's ceiling and
 * each step's share of it. */
Test(mesh, text_gives_ceilings_and_names_the_bottleneck)
{
	struct ix_mesh_result r;
	struct ix_cell cells[9];
	struct ix_mesh_node nodes[3];
	char *errs[3] = { NULL, NULL, NULL };
	uint32_t sus[1];
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	mesh(&r, cells, nodes, errs, sus);
	cells[0 * 3 + 2].bw_bps = 1.9e9;
	mesh_cells(&r, cells);
	nodes[0].bw_out_bps = 9e9;
	nodes[2].bw_in_bps = 1.9e9;
	nodes[0].link = plain_link("eth0");
	nodes[2].link = slow_pcie("enp59s0f0");
	ix_text_mesh(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "Ceiling  Share\n"), "%s", buf);
	cr_assert_not_null(strstr(buf, "10.0 Gbit/s link    90%"), "%s", buf);
	cr_assert_not_null(strstr(buf, "2.00 Gbit/s PCIe!    95%"), "%s", buf);
	cr_assert_not_null(strstr(buf, "BOTTLENECK: n3:6000: 1.90 Gbit/s is 95% of its NIC's PCIe "
				       "Gen1 x1 link (2.00 Gbit/s), trained below its Gen3 x4 "
				       "capability\n"),
			   "%s", buf);
	free(buf);
}

Test(incast, text_gives_the_receivers_ceiling)
{
	struct ix_incast_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	incast(&r);
	r.receiver_link = plain_link("eth0");
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "Receiver's ceiling: 10.0 Gbit/s, the link on eth0; goodput "
				       "N=2 80.0% of it\n"),
			   "%s", buf);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	r.receiver_link = slow_pcie("enp59s0f0");
	ix_text_incast(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf, "Receiver's ceiling: 2.00 Gbit/s, the PCIe Gen1 x1 link of "
				       "enp59s0f0's NIC (trained below its capability); goodput "
				       "N=2 400.0% of it\n"),
			   "%s", buf);
	free(buf);
}

/* report/text/text.c: a UDP summary names the duplicates next to the
 * out-of-order count when there are any, and leaves them out otherwise. */
static char *udp_summary(uint64_t dup)
{
	struct ix_bw_params p = { .path = "udp", .streams = 1, .mode = IX_MODE_FORWARD };
	struct ix_bw_result r;
	struct ix_unit_choice u = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_bw_result_init(&r, &p);
	r.streams[0].sender = (struct ix_stream_end){
		.valid = true, .bytes = 14720, .seconds = 1, .packets = ix_u64(10)
	};
	r.streams[0].receiver = (struct ix_stream_end){ .valid = true,
							.bytes = 13248,
							.seconds = 1,
							.packets = ix_u64(9),
							.lost = ix_u64(1),
							.out_of_order = ix_u64(2),
							.duplicates = ix_u64(dup),
							.jitter_ns = ix_f64(0) };
	ix_text_bw_summary(f, &r, &u);
	fclose(f);
	ix_bw_result_free(&r);
	return buf;
}

Test(bw, udp_summary_shows_duplicates)
{
	char *buf = udp_summary(3);

	cr_assert_not_null(strstr(buf, "lost 1/10"), "%s", buf);
	cr_assert_not_null(strstr(buf, "2 out of order, 3 duplicates"), "%s", buf);
	free(buf);
	buf = udp_summary(0);
	cr_assert_not_null(strstr(buf, "2 out of order"), "%s", buf);
	cr_assert_null(strstr(buf, "duplicates"), "%s", buf);
	free(buf);
}

/* report/text/text.c: a TCP summary at a NIC's PCIe ceiling below the
 * line rate names it, and says what the fabric counters saw. */
Test(bw, summary_names_the_pcie_ceiling_and_the_counters)
{
	struct ix_bw_params p = { .path = "tcp", .streams = 1, .mode = IX_MODE_FORWARD };
	struct ix_unit_choice u = { 0 };
	struct ix_bw_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ix_bw_result_init(&r, &p);
	r.streams[0].receiver = (struct ix_stream_end){ .valid = true,
							.bytes = 14750000000ull,
							.seconds = 1 }; /* 118 Gbit/s */
	r.streams[0].sender = r.streams[0].receiver;
	r.link = (struct ix_link_limit){
		.iface = "ibp1s0",
		.bps = 400e9,
		.source = "infiniband rate",
		.pcie = { .known = true,
			  .bdf = "0000:01:00.0",
			  .gen = 4,
			  .width = 8,
			  .expected_gen = 5,
			  .expected_width = 16,
			  .bps = 126e9,
			  .downtrained = true },
		.ceiling_bps = 126e9,
		.bottleneck = "pcie",
	};
	r.ctr_local.valid = r.ctr_remote.valid = true;
	snprintf(r.ctr_remote.iface, sizeof(r.ctr_remote.iface), "ibp2s0");
	cr_assert_eq(ix_ctr_set_add(&r.ctr_remote, IX_SRC_PORT, "port_xmit_wait", 5000), 0);
	ix_text_bw_summary(f, &r, &u);
	fclose(f);
	cr_assert_not_null(
		strstr(buf, "(93.7% of the PCIe Gen4 x8 link (126 Gbit/s) of ibp1s0's NIC)"), "%s",
		buf);
	cr_assert_not_null(strstr(buf, "Ceiling: ibp1s0's NIC (0000:01:00.0) is on a PCIe Gen4 x8 "
				       "link, 126 Gbit/s, below the line rate of 400 Gbit/s; the "
				       "goodput sits at it; the link trained below its Gen5 x16 "
				       "capability\n"),
			   "%s", buf);
	cr_assert_not_null(strstr(buf, "Fabric counters: local none moved; remote ibp2s0: 5000 "
				       "ticks waiting for credits (port_counters port_xmit_wait "
				       "5000)\n"),
			   "%s", buf);
	ix_bw_result_free(&r);
	free(buf);
}

/* report/text/text.c: with --zerocopy, a line for each direction's
 * senders: sends, completions, what the kernel copied (all of it on
 * loopback, said in words), and why a stream did not use it. */
Test(bw, zerocopy_lines_per_direction)
{
	struct ix_bw_params p = {
		.path = "tcp", .streams = 2, .mode = IX_MODE_BIDIR, .zerocopy = true
	};
	struct ix_unit_choice u = { 0 };
	struct ix_bw_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct ix_zerocopy all_copied = {
		.asked = true, .used = true, .sends = 100, .completed = 100, .copied = 100
	};

	ix_bw_result_init(&r, &p);
	cr_assert_eq(r.nstreams, 4);
	for (uint32_t i = 0; i < 4; i++) {
		r.streams[i].receiver =
			(struct ix_stream_end){ .valid = true, .bytes = 1000000, .seconds = 1 };
		r.streams[i].sender = r.streams[i].receiver;
		r.streams[i].dir = i < 2 ? IX_DIR_FORWARD : IX_DIR_REVERSE;
	}
	/* Forward: two streams, everything copied. */
	r.streams[0].sender.zerocopy = all_copied;
	r.streams[1].sender.zerocopy = all_copied;
	/* Reverse: one stream from user pages with waits, one refused. */
	r.streams[2].sender.zerocopy = (struct ix_zerocopy){
		.asked = true, .used = true, .sends = 50, .completed = 48, .copied = 0, .waits = 2
	};
	r.streams[3].sender.zerocopy = (struct ix_zerocopy){ .asked = true };
	snprintf(r.streams[3].sender.zerocopy.why, sizeof(r.streams[3].sender.zerocopy.why),
		 "SO_ZEROCOPY refused: Operation not supported");
	ix_text_bw_summary(f, &r, &u);
	fclose(f);
	cr_assert_not_null(strstr(buf,
				  "Zero-copy (sent here): 200 sends, 200 completed, 200 (100%) "
				  "copied by the kernel\n  every send was copied after all"),
			   "%s", buf);
	cr_assert_not_null(
		strstr(buf, "Zero-copy (sent by the server): 50 sends, 48 completed, 0 (0%) copied "
			    "by the kernel, 2 waits for pinned pages; 1 of 2 streams without it "
			    "(SO_ZEROCOPY refused: Operation not supported)\n"),
		"%s", buf);
	free(buf);
	ix_bw_result_free(&r);
}

/* Streams that shared threads: the summary says how many each end ran;
 * a thread a stream at both ends says nothing. */
static void write_summary(FILE *f, const void *r)
{
	struct ix_unit_choice u = { 0 };

	ix_text_bw_summary(f, r, &u);
}

static char *threads_summary(uint32_t local, uint32_t remote, uint32_t asked)
{
	struct ix_bw_params p = { .path = "tcp", .streams = 4, .threads = asked };
	struct ix_bw_result r;
	char *buf;

	ix_bw_result_init(&r, &p);
	for (uint32_t i = 0; i < 4; i++) {
		r.streams[i].receiver =
			(struct ix_stream_end){ .valid = true, .bytes = 1000000, .seconds = 1 };
		r.streams[i].sender = r.streams[i].receiver;
	}
	r.cpu_local = (struct ix_cpu){ .valid = true, .wall_s = 1, .threads = local };
	r.cpu_remote = (struct ix_cpu){ .valid = true, .wall_s = 1, .threads = remote };
	buf = ix_test_render(write_summary, &r);
	ix_bw_result_free(&r);
	return buf;
}

Test(bw, summary_names_shared_threads)
{
	char *buf = threads_summary(1, 0, 0);

	cr_assert_not_null(strstr(buf, "Data threads: local 1, remote -, for 4 stream(s)\n"), "%s",
			   buf);
	free(buf);
	buf = threads_summary(2, 2, 2);
	cr_assert_not_null(strstr(buf, "Data threads: local 2, remote 2, for 4 stream(s) "
				       "(--threads)\n"),
			   "%s", buf);
	free(buf);
	buf = threads_summary(4, 4, 0);
	cr_assert_null(strstr(buf, "Data threads"), "%s", buf);
	free(buf);
}
