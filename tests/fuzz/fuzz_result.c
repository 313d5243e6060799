/*
 * Result documents as 'ixperf report', 'compare' and 'post' read them, and
 * spool entries as 'post --flush' reads them. The input is written to a
 * file in the fuzzer's temporary directory and loaded with ix_doc_load;
 * a document that loads goes through the figures, the comparison with
 * itself, the post payloads, the HTML page, and then the report and
 * compare commands themselves (text, HTML with itself as history, CSV and
 * JSON; their output goes to stdout, which is /dev/null here). The same
 * file is also read as a spool entry.
 *
 * IX_FUZZ_EXTRA: cmd/report.c cmd/compare.c
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/cmd.h"
#include "report/doc/compare.h"
#include "report/doc/figures.h"
#include "report/doc/verdict.h"
#include "report/html/html.h"
#include "report/post/post.h"
#include "report/post/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char dir[4096], doc_path[4200], hist_dir[4200], hist_path[4300];

static void cleanup(void)
{
	if (!dir[0])
		return;
	unlink(hist_path);
	rmdir(hist_dir);
	unlink(doc_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "%s/ixfuzz-result.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		exit(1);
	}
	snprintf(doc_path, sizeof(doc_path), "%s/doc.json", dir);
	snprintf(hist_dir, sizeof(hist_dir), "%s/history", dir);
	snprintf(hist_path, sizeof(hist_path), "%s/earlier.json", hist_dir);
	if (mkdir(hist_dir, 0700) < 0) {
		perror(hist_dir);
		exit(1);
	}
	atexit(cleanup);
	/* The commands write their reports to stdout. */
	if (!freopen("/dev/null", "w", stdout)) {
		perror("/dev/null");
		exit(1);
	}
	return 0;
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void figures(json_t *doc, const struct ix_figure *v, size_t n)
{
	struct ix_cmp_counts counts;
	struct ix_cmp_row *rows;
	size_t nrows;
	char buf[128];
	struct ix_err err;
	char *csv = NULL;
	size_t csvlen = 0;
	FILE *f;
	double value;

	for (size_t i = 0; i < n; i++) {
		ix_figure_fmt(&v[i], buf, sizeof(buf));
		if (ix_figures_find(v, n, v[i].key) == NULL) {
			fprintf(stderr, "figure '%s' not found by its own key\n", v[i].key);
			abort();
		}
		if (v[i].headline)
			(void)ix_baseline_headline(doc, v[i].check, &value);
	}
	if (ix_figures_compare(v, n, v, n, 0.1, &rows, &nrows, &counts, &err) == 0) {
		for (size_t i = 0; i < nrows; i++)
			json_decref(ix_cmp_row_json(&rows[i]));
		free(rows);
	}
	f = open_memstream(&csv, &csvlen);
	if (f) {
		ix_csv_header(f);
		ix_csv_rows(f, "doc.json", v, n);
		fclose(f);
		free(csv);
	}
}

static void payloads(json_t *doc)
{
	static const enum ix_post_format formats[] = { IX_POST_WEBHOOK, IX_POST_CHAT,
						       IX_POST_PUSHGATEWAY };
	struct ix_post_opts o = { 0 };
	struct ix_err err;

	o.url = "http://127.0.0.1:9091/hook";
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct ix_post_msg m;

		o.format = formats[i];
		if (ix_post_payload(&o, doc, NULL, 0, &m, &err) == 0)
			ix_post_msg_free(&m);
	}
}

static void html(json_t *doc)
{
	json_t *history[1] = { doc };
	struct ix_err err;
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	if (!f)
		return;
	(void)ix_html_render(f, doc, history, 1, &err);
	fclose(f);
	free(page);
}

/* The commands, as run from the command line. */
static void commands(void)
{
	static char report[] = "report", compare[] = "compare", f[] = "-f", html_[] = "html",
		    csv[] = "csv", json[] = "json", hist[] = "--history", j[] = "-J";
	char *runs[][7] = {
		{ report, doc_path, NULL },
		{ report, hist, hist_dir, doc_path, NULL },
		{ report, f, html_, hist, hist_dir, doc_path, NULL },
		{ report, f, csv, doc_path, NULL },
		{ report, f, json, doc_path, NULL },
		{ compare, doc_path, doc_path, NULL },
		{ compare, j, doc_path, doc_path, NULL },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct ix_env env;
		char *argv[7];
		int argc = 0;

		memcpy(argv, runs[i], sizeof(argv));
		while (argv[argc])
			argc++;
		env.argc = argc;
		env.argv = argv;
		if (runs[i][0] == report)
			(void)cmd_report(argc, argv, &env);
		else
			(void)cmd_compare(argc, argv, &env);
	}
	fflush(stdout);
}

static void spool_entry(void)
{
	struct ix_spool_entry e;
	struct ix_err err;

	if (ix_spool_read(dir, "doc.json", &e, &err) == 0) {
		(void)ix_spool_url_under(e.url, "http://127.0.0.1:9091");
		ix_spool_entry_free(&e);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ix_figure *v = NULL;
	struct ix_err err;
	size_t n = 0;
	json_t *doc;

	if (write_file(doc_path, data, size) < 0)
		return 0;
	spool_entry();
	doc = ix_doc_load(doc_path, &err);
	if (!doc)
		return 0;
	(void)ix_doc_is_run(doc);
	if (ix_figures_extract(doc, &v, &n, &err) == 0) {
		figures(doc, v, n);
		free(v);
		payloads(doc);
		html(doc);
		if (write_file(hist_path, data, size) == 0)
			commands();
		unlink(hist_path);
	}
	json_decref(doc);
	return 0;
}
