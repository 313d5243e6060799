/* The metrics exporter: a listener, a model sampled on a timer (and, when
 * the exporter samples it, at each scrape), and the renderers of prom.h at
 * each scrape. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/core/clock.h"
#include "probes/host/pci.h"
#include "probes/net/http.h"
#include "probes/net/httpd.h"
#include "report/prom/export.h"
#include "report/prom/prom.h"

struct ix_prom_export {
	struct ix_prom_export_config cfg;
	struct ix_httpd *httpd;
	struct ix_top_model own;
	bool owns_model;
	int64_t sampled_ns; /* the last successful sample; 0: none */
	int64_t tried_ns;   /* the last sample, successful or not */
	uint64_t failures;  /* samples that failed */
	bool samples_own;   /* ix_prom_export_step samples the model */
};

/* A scrape of a headless exporter reads the links again when its reading
 * is older than this. Counters served an interval old would alias
 * against the scrapes: a rate() over 10 s of 1 s scrapes would count 8 or
 * 10 seconds' bytes over 9 (11 % off). */
#define FRESH_NS 100000000LL

static int render_cb(void *arg, char **body, size_t *len)
{
	return ix_prom_export_render(arg, body, len);
}

/* Physical links; every link where there are only virtual ones. */
static int own_model(struct ix_prom_export *e, struct ix_err *err)
{
	struct ix_top_filter f = { .exclude_loopback = true, .exclude_virtual = true };

	if (ix_top_model_init(&e->own, &f, err) < 0)
		return -1;
	e->owns_model = true;
	if (ix_top_model_sample(&e->own, e->cfg.sysfs, ix_now_ns(), err) < 0)
		return -1;
	if (!e->own.cur.n) {
		ix_top_model_free(&e->own);
		if (ix_top_model_init(&e->own, NULL, err) < 0) {
			e->owns_model = false;
			return -1;
		}
		if (ix_top_model_sample(&e->own, e->cfg.sysfs, ix_now_ns(), err) < 0)
			return -1;
	}
	e->cfg.model = &e->own;
	return 0;
}

int ix_prom_export_open(struct ix_prom_export **out, const struct ix_prom_export_config *cfg,
			struct ix_err *err)
{
	struct ix_prom_export *e = calloc(1, sizeof(*e));
	struct ix_httpd_config hc = { .render = render_cb };
	char host[256];

	*out = NULL;
	if (!e)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	e->cfg = *cfg;
	hc.arg = e;
	hc.title = cfg->title;
	hc.host = host;
	if (ix_http_parse_listen(cfg->listen, host, sizeof(host), &hc.port, err) < 0 ||
	    (!cfg->model && own_model(e, err) < 0) || ix_httpd_open(&e->httpd, &hc, err) < 0) {
		ix_prom_export_close(e);
		return -1;
	}
	e->sampled_ns = e->tried_ns = ix_now_ns();
	*out = e;
	return 0;
}

uint16_t ix_prom_export_port(const struct ix_prom_export *e)
{
	return ix_httpd_port(e->httpd);
}

void ix_prom_export_serve(struct ix_prom_export *e, int64_t until_ns)
{
	ix_httpd_serve(e->httpd, until_ns);
}

void ix_prom_export_sampled(struct ix_prom_export *e)
{
	e->sampled_ns = e->tried_ns = ix_now_ns();
}

/* Read the links into the model; a failure keeps the last reading (whose
 * age the metrics show), and the next try is due as after a success. */
static void sample(struct ix_prom_export *e)
{
	struct ix_err err = { 0 };

	if (ix_top_model_sample(e->cfg.model, e->cfg.sysfs, ix_now_ns(), &err) < 0)
		e->failures++;
	else
		e->sampled_ns = ix_now_ns();
	e->tried_ns = ix_now_ns();
}

void ix_prom_export_step(struct ix_prom_export *e, double interval_s)
{
	int64_t due;

	e->samples_own = true;
	due = e->tried_ns + ix_seconds_to_ns(interval_s);
	if (ix_now_ns() < due) {
		ix_httpd_serve(e->httpd, due); /* a scrape may sample, moving due */
		return;
	}
	sample(e);
}

int ix_prom_export_render(struct ix_prom_export *e, char **body, size_t *len)
{
	struct ix_pci pci = { 0 };
	struct ix_err err = { 0 };
	bool have_pci;
	FILE *f;

	if (e->samples_own && ix_now_ns() - e->tried_ns > FRESH_NS)
		sample(e);
	have_pci = ix_pci_read(e->cfg.sysfs ? e->cfg.sysfs : "", &pci, &err) == 0;
	f = open_memstream(body, len);

	if (!f) {
		if (have_pci)
			ix_pci_free(&pci);
		return -1;
	}
	ix_prom_links(f, e->cfg.model, have_pci ? &pci : NULL);
	if (e->cfg.agent) {
		struct ix_agent_stats st;

		ix_agent_stats_read(e->cfg.agent, &st);
		ix_prom_agent(f, &st);
	}
	ix_prom_family(f, "ixperf_sample_age_seconds", IX_PROM_GAUGE,
		       "Time since the links were last read: the counters above are this old.");
	ix_prom_sample(f, "ixperf_sample_age_seconds", NULL, 0,
		       (double)(ix_now_ns() - e->sampled_ns) / 1e9);
	ix_prom_family(f, "ixperf_sample_failures_total", IX_PROM_COUNTER,
		       "Times the links could not be read (the last reading is kept).");
	ix_prom_sample_u64(f, "ixperf_sample_failures_total", NULL, 0, e->failures);
	if (have_pci)
		ix_pci_free(&pci);
	if (fclose(f) != 0) {
		free(*body);
		*body = NULL;
		return -1;
	}
	return 0;
}

void ix_prom_export_close(struct ix_prom_export *e)
{
	if (!e)
		return;
	ix_httpd_close(e->httpd);
	if (e->owns_model)
		ix_top_model_free(&e->own);
	free(e);
}
