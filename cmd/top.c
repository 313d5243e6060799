/* ixperf top: a live monitor of this host's links, the traffic matrix of
 * a capture, or the heatmap of a running mesh (--mesh FILE). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/capture/capture.h"
#include "probes/capture/talkers.h"
#include "probes/core/clock.h"
#include "probes/host/links.h"
#include "probes/net/http.h"
#include "report/json/json.h"
#include "report/text/text.h"
#include "probes/host/topo.h"
#include "report/model/topotree.h"
#include "report/prom/export.h"
#include "report/tui/heat_state.h"
#include "report/tui/top.h"
#include "report/tui/topotree.h"
#include "report/tui/tui.h"

struct top_opts {
	double interval_s;
	bool once;
	bool json;
	const char *output;
	uint64_t count;
	const char *iface;
	bool all;
	const char *sysfs;
	const char *capture;
	const char *filter;
	const char *mesh;
	bool topo;
	const char *measured;
	bool counters;
	const char *listen;
	bool help;
};

static const struct ix_option top_options[] = {
	{ 'i', "interval", IX_OPT_SECONDS, offsetof(struct top_opts, interval_s), "SECONDS",
	  "time between refreshes (default 1)", 0.05, 3600 },
	{ 0, "once", IX_OPT_FLAG, offsetof(struct top_opts, once), NULL,
	  "print one snapshot (rates over one interval) instead of a screen", 0, 0 },
	{ 'n', "count", IX_OPT_UINT, offsetof(struct top_opts, count), "N",
	  "snapshots to print without a screen (default 1)", 1, 1e9 },
	{ 'J', "json", IX_OPT_FLAG, offsetof(struct top_opts, json), NULL,
	  "snapshots as JSON documents, one per line (implies --once)", 0, 0 },
	{ 'o', "output", IX_OPT_STRING, offsetof(struct top_opts, output), "FILE",
	  "write the snapshot to FILE atomically instead of stdout", 0, 0 },
	{ 0, "iface", IX_OPT_STRING, offsetof(struct top_opts, iface), "LIST",
	  "only these interfaces or InfiniBand devices (comma list)", 0, 0 },
	{ 'a', "all", IX_OPT_FLAG, offsetof(struct top_opts, all), NULL,
	  "also loopback and virtual devices (bridges, veth, tunnels)", 0, 0 },
	{ 0, "sysfs", IX_OPT_STRING, offsetof(struct top_opts, sysfs), "ROOT",
	  "read ROOT/sys instead of /sys (saved trees, tests)", 0, 0 },
	{ 0, "capture", IX_OPT_STRING, offsetof(struct top_opts, capture), "IFACE",
	  "capture on IFACE (or 'any') and show who talks to whom; needs CAP_NET_RAW", 0, 0 },
	{ 0, "capture-filter", IX_OPT_STRING, offsetof(struct top_opts, filter), "BPF",
	  "only packets this BPF filter selects (as tcpdump)", 0, 0 },
	{ 0, "mesh", IX_OPT_STRING, offsetof(struct top_opts, mesh), "FILE",
	  "show the heatmap of a mesh's state file ('ixperf mesh --state FILE') or result, of "
	  "a saved 'ixperf gpu' result (GPU x GPU) or of an 'ixperf coll' result (its pair "
	  "scan)",
	  0, 0 },
	{ 0, "topo", IX_OPT_FLAG, offsetof(struct top_opts, topo), NULL,
	  "draw this server's PCI tree (as 'ixperf topo'), each link coloured by what its NICs "
	  "carry now and by its health",
	  0, 0 },
	{ 0, "measured", IX_OPT_STRING, offsetof(struct top_opts, measured), "FILE",
	  "with --topo: each GPU's link loaded with its best host<->GPU copy in FILE (the JSON "
	  "of 'ixperf gpu' or 'ixperf bw --path pcie') instead of live counters",
	  0, 0 },
	{ 0, "counters", IX_OPT_FLAG, offsetof(struct top_opts, counters), NULL,
	  "with --json: every fabric counter read, with its value (fabric.read)", 0, 0 },
	{ 0, "listen", IX_OPT_STRING, offsetof(struct top_opts, listen), "ADDR:PORT",
	  "serve the links' counters as Prometheus metrics at http://ADDR:PORT/metrics (':PORT': "
	  "every address, [ADDR]:PORT for IPv6, port 0: a free one); without a terminal, nothing "
	  "else is shown",
	  0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct top_opts, help), NULL, "show this help", 0, 0 },
};

const struct ix_cmd_spec ix_top_spec = {
	.name = "top",
	.usage = "[OPTIONS]",
	.summary = "Watch this host's links live: rates, utilisation, errors, who talks to whom",
	.opts = top_options,
	.nopts = IX_OPTS_END(top_options),
	.epilog = "Links: network devices (/sys/class/net) and InfiniBand/RoCE ports\n"
		  "(/sys/class/infiniband). Fabric counters per second: a network device's\n"
		  "netdev, ethtool and root qdisc counters, a port's hw_counters and port\n"
		  "counters (drops, pause frames, ECN marks, CNPs, retransmissions, errors).\n"
		  "Without a terminal on stdout, or with --once or --json, one snapshot is\n"
		  "printed instead of a screen.\n"
		  "Keys: q quit, p pause, t traffic matrix (with --capture), arrows scroll;\n"
		  "in a heatmap: arrows move, b/l bandwidth or latency, +/- zoom;\n"
		  "in the tree (--topo): up/down move, left/right or Enter fold and unfold,\n"
		  "e unfold all, c fold to fit the screen.\n"
		  "Examples:\n"
		  "  ixperf top\n"
		  "  ixperf top --capture eth0 --capture-filter 'tcp port 5301'\n"
		  "  ixperf top --once --json --iface eth0,mlx5_0\n"
		  "  ixperf top --mesh /tmp/mesh.json\n"
		  "  ixperf top --topo\n"
		  "  ixperf top --listen 127.0.0.1:9310\n",
};

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct top {
	const struct top_opts *o;
	struct ix_top_model model;
	struct ix_talkers *talkers;
	struct ix_capture *cap;
	struct ix_talkers_view view;
	bool have_view;
	struct ix_prom_export *exp; /* --listen */
	char host[256];
};

static void on_packet(void *arg, const struct ix_pkt *p, int status, uint32_t wirelen,
		      int64_t ts_ns)
{
	struct top *tp = arg;

	(void)ts_ns;
	if (status != IX_PKT_MALFORMED && p && p->family)
		ix_talkers_add(tp->talkers, p->family, p->src, p->dst, wirelen, ix_now_ns());
}

static int split_names(const char *list, struct ix_top_filter *f, struct ix_err *err)
{
	char *copy = strdup(list), *save = NULL, *tok;

	if (!copy)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char **v = realloc(f->names, (f->nnames + 1) * sizeof(*v));

		if (!v || !(v[f->nnames] = strdup(tok))) {
			f->names = v ? v : f->names;
			free(copy);
			return ix_fail(err, IX_EXIT_FAIL, "out of memory");
		}
		f->names = v;
		f->nnames++;
	}
	free(copy);
	if (!f->nnames)
		return ix_fail(err, IX_EXIT_USAGE, "invalid value for --iface: no interface named");
	return 0;
}

/* A saved tree (--sysfs) with a PCI bus but no sys/class/net. */
static bool tree_without_net(const char *root)
{
	char net[PATH_MAX], pci[PATH_MAX];
	struct stat st;

	if (!root || !*root ||
	    snprintf(net, sizeof(net), "%s/sys/class/net", root) >= (int)sizeof(net) ||
	    snprintf(pci, sizeof(pci), "%s/sys/bus/pci/devices", root) >= (int)sizeof(pci))
		return false;
	return stat(net, &st) < 0 && errno == ENOENT && stat(pci, &st) == 0;
}

static int top_open(struct top *tp, struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	struct ix_top_filter f = { .exclude_loopback = !o->all && !o->iface,
				   .exclude_virtual = !o->all && !o->iface };
	int rc;

	if (o->iface && split_names(o->iface, &f, err) < 0)
		rc = -1;
	else
		rc = ix_top_model_init(&tp->model, &f, err);
	for (size_t i = 0; i < f.nnames; i++)
		free(f.names[i]);
	free(f.names);
	if (rc < 0)
		return -1;
	/* --topo on a saved tree of PCI functions alone: nothing to sample. */
	if (o->topo && !o->iface && tree_without_net(o->sysfs))
		return 0;
	if (ix_top_model_sample(&tp->model, o->sysfs, ix_now_ns(), err) < 0)
		return -1;
	/* Every name asked for must exist: a typo is not an empty screen. */
	for (size_t k = 0; k < tp->model.filter.nnames; k++) {
		const char *name = tp->model.filter.names[k];
		bool found = false;

		for (size_t i = 0; i < tp->model.cur.n && !found; i++) {
			const struct ix_link *l = &tp->model.cur.v[i];

			found = !strcmp(l->name, name) || !strcmp(l->dev, name) ||
				!strcmp(l->netdev, name);
		}
		if (!found)
			return ix_fail(err, IX_EXIT_USAGE,
				       "invalid value for --iface: no link called '%s'", name);
	}
	if (!o->iface && !tp->model.cur.n && !o->all) {
		/* Only virtual devices here (containers): show them. */
		ix_top_model_free(&tp->model);
		if (ix_top_model_init(&tp->model, NULL, err) < 0 ||
		    ix_top_model_sample(&tp->model, o->sysfs, ix_now_ns(), err) < 0)
			return -1;
	}
	tp->model.fabric_all = o->counters;
	if (o->capture) {
		struct ix_capture_opts co = {
			.iface = o->capture, .filter = o->filter, .on_packet = on_packet, .arg = tp
		};

		tp->talkers = ix_talkers_new(0, err);
		if (!tp->talkers || ix_capture_start(&tp->cap, &co, err) < 0)
			return -1;
		ix_talkers_snapshot(tp->talkers, ix_now_ns(), &tp->view, err);
		tp->have_view = true;
	}
	return 0;
}

static void top_close(struct top *tp)
{
	struct ix_err err = { 0 };

	if (tp->cap)
		ix_capture_stop(tp->cap, NULL, &err);
	if (tp->have_view)
		ix_talkers_view_free(&tp->view);
	ix_talkers_free(tp->talkers);
	ix_top_model_free(&tp->model);
}

static int sample(struct top *tp, struct ix_err *err)
{
	if (ix_top_model_sample(&tp->model, tp->o->sysfs, ix_now_ns(), err) < 0)
		return -1;
	if (tp->talkers) {
		ix_talkers_view_free(&tp->view); /* a snapshot replaces the view */
		if (ix_talkers_snapshot(tp->talkers, ix_now_ns(), &tp->view, err) < 0)
			return -1;
	}
	return 0;
}

/* The tree's loads: a tree without network devices or RDMA ports (a saved
 * tree of its PCI functions alone) carries none to sample. */
static int topo_sample(struct top *tp, const struct ix_topo *topo, struct ix_err *err)
{
	return topo->links.n ? sample(tp, err) : 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_requested)
		;
}

/* --once, --json, or no terminal: snapshots over one interval each. */
static int print_snapshots(struct top *tp, const struct ix_env *env, struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	uint64_t count = o->count ? o->count : 1;

	for (uint64_t k = 0; k < count && !stop_requested; k++) {
		struct ix_sink sink;

		sleep_s(o->interval_s);
		if (sample(tp, err) < 0 || ix_sink_open(&sink, o->output, err) < 0)
			return -1;
		if (o->json) {
			json_t *links = ix_json_links(&tp->model), *results = json_array(), *doc;

			json_object_set_new(links, "kind", json_string("links"));
			json_array_append_new(results, links);
			if (tp->talkers) {
				json_t *tk = ix_json_talkers(&tp->view);
				struct ix_wire_figures w = { 0 };

				ix_capture_snapshot(tp->cap, &w);
				json_object_set_new(tk, "kind", json_string("talkers"));
				json_object_set_new(tk, "iface", json_string(o->capture));
				json_object_set_new(tk, "filter",
						    o->filter ? json_string(o->filter)
							      : json_null());
				json_object_set_new(tk, "dropped",
						    json_integer((json_int_t)w.dropped));
				json_array_append_new(results, tk);
			}
			doc = ix_json_document("top", env->argc, env->argv, results, NULL);
			json_dumpf(doc, sink.f, JSON_COMPACT);
			fputc('\n', sink.f);
			json_decref(doc);
		} else {
			if (k)
				fputc('\n', sink.f);
			ix_text_links(sink.f, &tp->model);
			if (tp->talkers) {
				fprintf(sink.f, "\ntraffic on %s%s%s:\n", o->capture,
					o->filter ? ", filter " : "", o->filter ? o->filter : "");
				ix_text_talkers(sink.f, &tp->view, 20);
			}
		}
		if (ix_sink_commit(&sink, err) < 0)
			return -1;
		fflush(stdout);
	}
	return 0;
}

/* The talkers matrix as a heatmap: bit/s between hosts, blank where none. */
static void talkers_heat(const struct ix_talkers_view *v, const char *iface, struct ix_heat_src *s)
{
	if (ix_heat_src_alloc(s, (uint32_t)v->n, IX_CELLS_FULL) < 0)
		return;
	for (size_t i = 0; i < v->n; i++) {
		free(s->names[i]);
		s->names[i] = strdup(v->hosts[i].addr);
		if (!s->names[i])
			s->names[i] = strdup("?");
	}
	for (size_t i = 0; i < v->n * v->n; i++) {
		double bps = v->rate_known ? v->rate[i] * 8 : 0;
		struct ix_cell c = { .state = bps > 0 ? IX_CELL_OK : IX_CELL_NONE,
				     .bw_bps = (float)bps };

		ix_cells_set(&s->cells, (uint32_t)(i / v->n), (uint32_t)(i % v->n), &c);
	}
	s->both = true;
	s->done = true;
	s->tests = IX_MESH_BW;
	snprintf(s->title, sizeof(s->title), "traffic matrix on %s (row sends to column)", iface);
}

static int screen(struct top *tp, struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	struct ix_tui t;
	struct ix_heat_view hv = { 0 };
	struct ix_heat_src hs = { 0 };
	size_t first = 0;
	bool matrix = false, paused = false, dirty = true;
	int64_t next = ix_now_ns();
	char title[512];

	if (ix_tui_open(&t, err) < 0)
		return -1;
	while (!stop_requested) {
		int key = ix_tui_key(&t, 50);
		enum ix_heat_action a;

		if (tp->exp)
			ix_prom_export_serve(tp->exp, ix_now_ns());
		if (key == 'q' || key == 'Q')
			break;
		if (key == 'p' || key == ' ')
			paused = !paused;
		else if (key == 't' && tp->talkers)
			matrix = !matrix;
		else if (matrix && ix_tui_heat_action(key, &a))
			ix_heat_act(&hv, &hs, a);
		else if (!matrix && key == IX_KEY_DOWN && first + 1 < tp->model.cur.n)
			first++;
		else if (!matrix && key == IX_KEY_UP && first)
			first--;
		dirty |= key != IX_KEY_NONE;
		if (!paused && ix_now_ns() >= next) {
			next = ix_now_ns() + (int64_t)(o->interval_s * 1e9);
			if (sample(tp, err) < 0)
				break;
			if (tp->exp)
				ix_prom_export_sampled(tp->exp);
			dirty = true;
		}
		if (!dirty)
			continue;
		dirty = false;
		if (matrix) {
			talkers_heat(&tp->view, o->capture, &hs);
			ix_tui_heat_draw(&t, &hv, &hs, paused,
					 "arrows move  +/- zoom  t links  p pause  q quit");
		} else {
			struct ix_wire_figures w = { 0 };
			char cap[160] = "";

			if (tp->cap) {
				ix_capture_snapshot(tp->cap, &w);
				snprintf(cap, sizeof(cap),
					 "  capture on %s: %llu packets, %llu dropped", o->capture,
					 (unsigned long long)w.packets,
					 (unsigned long long)w.dropped);
			}
			snprintf(title, sizeof(title), "ixperf top  %s  every %gs  %zu links%s%s",
				 tp->host, o->interval_s, tp->model.cur.n, cap,
				 paused ? "  PAUSED" : "");
			ix_tui_top_draw(
				&t, &(struct ix_tui_top){
					    .title = title,
					    .keys = tp->talkers ? "up/down scroll  t traffic "
								  "matrix  p pause  q quit"
								: "up/down scroll  p pause  q quit",
					    .model = &tp->model,
					    .talkers = tp->talkers ? &tp->view : NULL,
					    .first = first,
				    });
		}
	}
	ix_tui_close(&t);
	ix_heat_src_free(&hs);
	return err->code ? -1 : 0;
}

static int load_mesh(const char *path, struct ix_heat_src *s, struct ix_err *err)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!doc && jerr.line > 0)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read %s: line %d: %s", path, jerr.line,
			       jerr.text);
	if (!doc)
		return ix_fail(err, IX_EXIT_FAIL, "cannot read %s: %s", path, jerr.text);
	rc = ix_heat_src_load(s, doc, err);
	json_decref(doc);
	return rc < 0 ? ix_fail_prefix(err, "%s", path) : 0;
}

/* --mesh FILE: reload the state file when it changes. */
static int mesh_screen(const struct top_opts *o, struct ix_err *err)
{
	struct ix_heat_src s = { 0 };
	struct ix_heat_view v = { 0 };
	struct ix_tui t;
	struct timespec seen = { 0, 0 };
	bool paused = false, dirty = true;
	int64_t next = 0;

	if (load_mesh(o->mesh, &s, err) < 0)
		return -1;
	v.metric = s.tests == IX_MESH_LAT ? IX_HEAT_LAT : IX_HEAT_BW;
	if (ix_tui_open(&t, err) < 0) {
		ix_heat_src_free(&s);
		return -1;
	}
	while (!stop_requested) {
		int key = ix_tui_key(&t, 50);
		enum ix_heat_action a;
		struct stat st;

		if (key == 'q' || key == 'Q')
			break;
		if (key == 'p' || key == ' ')
			paused = !paused;
		else if (ix_tui_heat_action(key, &a))
			ix_heat_act(&v, &s, a);
		dirty |= key != IX_KEY_NONE;
		if (!paused && ix_now_ns() >= next) {
			struct ix_err lerr = { 0 };

			next = ix_now_ns() + (int64_t)(o->interval_s * 1e9);
			/* A file replaced mid-read is read again next time. */
			if (stat(o->mesh, &st) == 0 &&
			    (st.st_mtim.tv_sec != seen.tv_sec ||
			     st.st_mtim.tv_nsec != seen.tv_nsec) &&
			    load_mesh(o->mesh, &s, &lerr) == 0) {
				seen = st.st_mtim;
				dirty = true;
			}
		}
		if (dirty)
			ix_tui_heat_draw(
				&t, &v, &s, paused,
				s.done ? "the mesh is over  arrows move  b/l  +/- zoom  q quit"
				       : "arrows move  b bandwidth  l latency  +/- zoom  p "
					 "freeze  q quit");
		dirty = false;
	}
	ix_tui_close(&t);
	ix_heat_src_free(&s);
	return 0;
}

/* --topo's folding keys on the tree, at node. */
static void tree_key(struct ix_tree *tree, int key, size_t node, int rows)
{
	switch (key) {
	case '\n':
	case '\r':
	case '+':
	case '-':
		ix_tree_toggle(tree, node);
		break;
	case IX_KEY_RIGHT:
		if (tree->v[node].folded)
			ix_tree_toggle(tree, node);
		break;
	case IX_KEY_LEFT:
		if (tree->v[node].nchildren)
			tree->v[node].folded = true;
		else if (tree->v[node].parent >= 0)
			tree->v[tree->v[node].parent].folded = true;
		break;
	case 'e':
		ix_tree_unfold(tree);
		break;
	case 'c':
		ix_tree_fit(tree, (size_t)rows);
		break;
	default:
		break;
	}
}

/* The cursor's node stays on the screen; returns the visible count. */
static size_t tree_place(const struct ix_tree *tree, size_t *rows, size_t max, size_t *cursor,
			 size_t *first, int h)
{
	size_t n = ix_tree_visible(tree, rows, max);

	if (n > max)
		n = max;
	if (*cursor >= n)
		*cursor = n ? n - 1 : 0;
	if (*cursor < *first)
		*first = *cursor;
	if (h > 0 && *cursor >= *first + (size_t)h)
		*first = *cursor - (size_t)h + 1;
	return n;
}

static int topo_screen(struct top *tp, struct ix_tree *tree, const struct ix_topo *topo,
		       struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	static size_t rows[IX_TREE_ROWS_MAX];
	size_t first = 0, cursor = 0, nvis = 0, node = 0;
	bool paused = false, dirty = true;
	int64_t next = ix_now_ns() + (int64_t)(o->interval_s * 1e9);
	struct ix_tui t;
	char title[512];

	if (ix_tui_open(&t, err) < 0)
		return -1;
	ix_tree_fit(tree, (size_t)ix_tui_tree_rows(t.h));
	while (!stop_requested) {
		int key = ix_tui_key(&t, 50), h = ix_tui_tree_rows(t.h);

		nvis = tree_place(tree, rows, IX_TREE_ROWS_MAX, &cursor, &first, h);
		node = nvis ? rows[cursor] : 0;
		if (key == 'q' || key == 'Q')
			break;
		if (key == 'p' || key == ' ')
			paused = !paused;
		else if (key == IX_KEY_DOWN && cursor + 1 < nvis)
			cursor++;
		else if (key == IX_KEY_UP && cursor)
			cursor--;
		else if (key == IX_KEY_PGDOWN)
			cursor = cursor + (size_t)h < nvis ? cursor + (size_t)h
				 : nvis                    ? nvis - 1
							   : 0;
		else if (key == IX_KEY_PGUP)
			cursor = cursor > (size_t)h ? cursor - (size_t)h : 0;
		else if (key == IX_KEY_HOME)
			cursor = 0;
		else if (nvis)
			tree_key(tree, key, node, h);
		dirty |= key != IX_KEY_NONE;
		if (!paused && ix_now_ns() >= next) {
			next = ix_now_ns() + (int64_t)(o->interval_s * 1e9);
			if (topo_sample(tp, topo, err) < 0)
				break;
			ix_tree_load(tree, topo, &tp->model);
			dirty = true;
		}
		if (!dirty)
			continue;
		dirty = false;
		nvis = tree_place(tree, rows, IX_TREE_ROWS_MAX, &cursor, &first, h);
		snprintf(title, sizeof(title),
			 "ixperf top --topo  %s  every %gs  %zu PCI functions, %zu rows%s%s%s",
			 tp->host, o->interval_s, topo->pci.n, nvis,
			 o->measured ? "  measured: " : "", o->measured ? o->measured : "",
			 paused ? "  PAUSED" : "");
		ix_tui_tree_draw(
			&t, &(struct ix_tui_tree){
				    .title = title,
				    .keys = "up/down move  left/right/Enter fold  e unfold all  "
					    "c fit  p pause  q quit",
				    .tree = tree,
				    .first = first,
				    .cursor = cursor,
			    });
	}
	ix_tui_close(&t);
	return err->code ? -1 : 0;
}

/* --measured FILE: each GPU's best copy over its PCIe link, from the
 * tests measured against that link. */
static int load_measured(const char *path, struct ix_tree *tree, const struct ix_topo *topo,
			 struct ix_err *err)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	size_t found;

	if (!doc)
		return ix_fail(err, IX_EXIT_USAGE, "--measured %s: %s", path, jerr.text);
	found = ix_tree_measured_doc(tree, topo, doc);
	json_decref(doc);
	if (!found)
		return ix_fail(err, IX_EXIT_USAGE,
			       "--measured %s: no host<->GPU bandwidth of a GPU in this tree "
			       "(a JSON result of 'ixperf gpu' on this host?)",
			       path);
	return 0;
}

/* --topo: the tree on a screen, or once as text (loads over one interval). */
static int topo_run(struct top *tp, struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	struct ix_topo topo;
	struct ix_tree tree;
	struct ix_sink sink;
	int rc;

	if (ix_topo_scan(o->sysfs ? o->sysfs : "", &topo, err) < 0)
		return -1;
	if (ix_tree_build(&topo, &tree) < 0) {
		ix_topo_free(&topo);
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	}
	if (o->measured && load_measured(o->measured, &tree, &topo, err) < 0) {
		rc = -1;
	} else if (!o->once) {
		rc = topo_screen(tp, &tree, &topo, err);
	} else {
		sleep_s(o->interval_s);
		rc = topo_sample(tp, &topo, err);
		if (rc == 0)
			ix_tree_load(&tree, &topo, &tp->model);
		if (rc == 0 && (rc = ix_sink_open(&sink, o->output, err)) == 0) {
			ix_text_tree(sink.f, &tree);
			rc = ix_sink_commit(&sink, err);
		}
	}
	ix_tree_free(&tree);
	ix_topo_free(&topo);
	return rc;
}

/* --listen: the metrics listener; headless without a terminal (the
 * exporter samples the links), else beside the screen. */
static int listen_run(struct top *tp, struct ix_err *err)
{
	const struct top_opts *o = tp->o;
	struct ix_prom_export_config ec = {
		.listen = o->listen, .title = "ixperf top", .sysfs = o->sysfs, .model = &tp->model
	};
	int rc = 0;

	if (ix_prom_export_open(&tp->exp, &ec, err) < 0)
		return ix_fail_prefix(err, "--listen");
	fprintf(stderr, "ixperf top: metrics listening on port %u (GET /metrics)\n",
		ix_prom_export_port(tp->exp));
	if (isatty(STDOUT_FILENO))
		rc = screen(tp, err);
	else
		while (!stop_requested)
			ix_prom_export_step(tp->exp, o->interval_s);
	ix_prom_export_close(tp->exp);
	tp->exp = NULL;
	return rc;
}

int cmd_top(int argc, char **argv, const struct ix_env *env)
{
	struct top_opts o = { 0 };
	struct top tp = { 0 };
	struct ix_err err = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	bool help;
	int pos, rc;

	if (ix_opts_parse(&ix_top_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("top", &err);
	if (help) {
		ix_opts_help(&ix_top_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc)
		return ix_fail(&err, IX_EXIT_USAGE, "unexpected argument '%s'", argv[pos]),
		       ix_report_error("top", &err);
	if (o.filter && !o.capture)
		return ix_fail(&err, IX_EXIT_USAGE, "--capture-filter needs --capture IFACE"),
		       ix_report_error("top", &err);
	if (o.mesh && (o.capture || o.json || o.once))
		return ix_fail(&err, IX_EXIT_USAGE,
			       "--mesh is a screen of its own: use 'ixperf report' for files"),
		       ix_report_error("top", &err);
	if (o.measured && !o.topo)
		return ix_fail(&err, IX_EXIT_USAGE, "--measured goes with --topo"),
		       ix_report_error("top", &err);
	if (o.topo && (o.mesh || o.capture || o.json || o.count))
		return ix_fail(&err, IX_EXIT_USAGE,
			       "--topo draws the tree alone (without --mesh, --capture, --json or "
			       "--count; 'ixperf topo --json' has it as JSON)"),
		       ix_report_error("top", &err);
	if (o.listen && (o.mesh || o.capture || o.json || o.once || o.count || o.output || o.topo))
		return ix_fail(&err, IX_EXIT_USAGE,
			       "--listen serves the links alone (without --mesh, --capture, "
			       "--topo, --json, --once, --count or --output)"),
		       ix_report_error("top", &err);
	if (o.listen) {
		char host[256];
		uint16_t port;

		if (ix_http_parse_listen(o.listen, host, sizeof(host), &port, &err) < 0)
			return ix_fail_prefix(&err, "--listen"), ix_report_error("top", &err);
	}
	if (o.interval_s <= 0)
		o.interval_s = o.mesh ? 0.5 : 1;
	if (o.json || o.output || o.count)
		o.once = true;
	if (!o.once && !o.mesh && !isatty(STDOUT_FILENO))
		o.once = true;
	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.mesh) {
		rc = mesh_screen(&o, &err);
		return rc < 0 ? ix_report_error("top", &err) : IX_EXIT_OK;
	}
	tp.o = &o;
	if (gethostname(tp.host, sizeof(tp.host)) < 0)
		snprintf(tp.host, sizeof(tp.host), "?");
	tp.host[sizeof(tp.host) - 1] = '\0';
	rc = top_open(&tp, &err);
	if (rc == 0 && o.listen)
		rc = listen_run(&tp, &err);
	else if (rc == 0 && o.topo)
		rc = topo_run(&tp, &err);
	else if (rc == 0)
		rc = o.once ? print_snapshots(&tp, env, &err) : screen(&tp, &err);
	top_close(&tp);
	return rc < 0 ? ix_report_error("top", &err) : IX_EXIT_OK;
}
