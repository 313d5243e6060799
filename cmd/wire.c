/* ixperf wire FILE...: wire diagnostics of saved packet captures. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "report/json/json.h"
#include "report/text/text.h"

struct wire_opts {
	const char *filter;
	bool json;
	const char *output;
	bool help;
};

static const struct ix_option wire_options[] = {
	{ 0, "filter", IX_OPT_STRING, offsetof(struct wire_opts, filter), "BPF",
	  "decode only the packets this BPF filter keeps (tcpdump syntax)", 0, 0 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct wire_opts, json), NULL,
	  "one JSON document on stdout (diagnostics on stderr)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct wire_opts, output), "FILE",
	  "write the report to FILE atomically instead of stdout", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct wire_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_wire_spec = {
	.name = "wire",
	.usage = "[OPTIONS] FILE...",
	.summary = "Wire diagnostics of saved packet captures: TCP retransmissions, ECN, RoCE",
	.opts = wire_options,
	.nopts = IX_OPTS_END(wire_options),
	.epilog = "FILE is a pcap or pcapng capture (ixperf bw/lat/incast --pcap, tcpdump -w,\n"
		  "tshark -w); - reads one from standard input. One result per file, in order.\n"
		  "Exit status: 0 every file read to its end, 1 a file could not be (the others\n"
		  "are still reported), 2 a bad command line or filter, 3 built without libpcap.\n"
		  "Examples:\n"
		  "  ixperf wire bw.pcap\n"
		  "  ixperf wire --filter 'tcp port 5301' --json -o wire.json a.pcap b.pcap\n",
};

struct wire_file {
	const char *path;
	struct ix_wire_figures w;
	struct ix_err err; /* code 0: read to its end */
};

static json_t *file_json(const struct wire_file *f)
{
	return json_pack("{s:s,s:s,s:b,s:o,s:o}", "kind", "wire", "file", f->path, "complete",
			 f->err.code == 0, "error",
			 f->err.code ? json_string(f->err.msg) : json_null(), "wire",
			 ix_json_wire(&f->w));
}

static void file_text(FILE *out, const struct wire_file *f)
{
	if (!f->w.present)
		return; /* not a capture at all: said on stderr */
	fprintf(out, "ixperf wire: %s\n", f->path);
	ix_text_wire(out, &f->w);
	if (f->err.code)
		ix_text_why(out, "INCOMPLETE", f->err.msg);
}

int cmd_wire(int argc, char **argv, const struct ix_env *env)
{
	struct wire_opts o = { 0 };
	struct ix_err err = { 0 };
	struct wire_file *files;
	struct ix_sink sink;
	size_t n, failed = 0;
	bool help;
	int pos, rc = IX_EXIT_OK;

	if (ix_opts_parse(&ix_wire_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("wire", &err);
	if (help) {
		ix_opts_help(&ix_wire_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos >= argc) {
		ix_fail(&err, IX_EXIT_USAGE, "missing FILE (a pcap or pcapng capture)");
		return ix_report_error("wire", &err);
	}
	n = (size_t)(argc - pos);
	files = calloc(n, sizeof(*files));
	if (!files)
		return IX_EXIT_FAIL;
	if (ix_sink_open(&sink, o.output, &err) < 0) {
		free(files);
		return ix_report_error("wire", &err);
	}
	for (size_t i = 0; i < n; i++) {
		struct wire_file *f = &files[i];

		f->path = argv[pos + (int)i];
		if (ix_capture_read_file(f->path, o.filter, &f->w, &f->err) == 0)
			continue;
		if (f->err.code == IX_EXIT_USAGE || f->err.code == IX_EXIT_UNAVAILABLE) {
			/* A bad filter or no libpcap: no file can be read. */
			rc = ix_report_error("wire", &f->err);
			goto out;
		}
		ix_report_error("wire", &f->err);
		if (!failed++)
			err = f->err;
	}
	if (failed > 1)
		ix_fail(&err, IX_EXIT_FAIL, "%zu of %zu capture files could not be read", failed,
			n);
	if (o.json) {
		json_t *arr = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(arr, file_json(&files[i]));
		ix_sink_put_json(&sink, ix_json_document("wire", env->argc, env->argv, arr,
							 failed ? err.msg : NULL));
	} else {
		for (size_t i = 0; i < n; i++)
			file_text(sink.f, &files[i]);
	}
	rc = failed ? IX_EXIT_FAIL : IX_EXIT_OK;
	if (ix_sink_commit(&sink, &err) < 0)
		rc = ix_report_error("wire", &err);
	free(files);
	return rc;
out:
	if (sink.path) {
		fclose(sink.f);
		free(sink.buf);
	}
	free(files);
	return rc;
}
