/* Rail meshes, every rail at once, and their verdicts. See rails.h. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/cluster/coord.h"
#include "probes/cluster/mesh.h"
#include "probes/cluster/rails.h"
#include "probes/core/clock.h"

/* The rails' rounds in step: each rail's mesh waits for the others after
 * every batch, so that a node's NICs carry their tests together. A rail
 * whose mesh ended leaves the step. */
struct step {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint32_t active, arrived;
	uint64_t gen;
};

static void step_release(struct step *s)
{
	s->arrived = 0;
	s->gen++;
	pthread_cond_broadcast(&s->cv);
}

static void step_wait(struct step *s)
{
	pthread_mutex_lock(&s->mu);
	if (++s->arrived >= s->active) {
		step_release(s);
	} else {
		uint64_t gen = s->gen;

		while (gen == s->gen)
			pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);
}

static void step_leave(struct step *s)
{
	pthread_mutex_lock(&s->mu);
	s->active--;
	if (s->arrived && s->arrived >= s->active)
		step_release(s);
	pthread_mutex_unlock(&s->mu);
}

struct rail_job {
	struct step *step;
	const struct ix_rail *rail;
	struct ix_hostlist ctl; /* each host's node, as the command named it */
	const struct ix_mesh_params *p;
	const struct ix_token *token;
	double timeout_s;
	struct ix_mesh_result *r;
	char *error;
};

static void on_start(void *arg, const struct ix_mesh_result *r)
{
	(void)r;
	step_wait(((struct rail_job *)arg)->step);
}

static void on_progress(void *arg, const struct ix_mesh_result *r, uint32_t round)
{
	(void)r;
	(void)round;
	step_wait(((struct rail_job *)arg)->step);
}

static void *rail_thread(void *arg)
{
	struct rail_job *j = arg;
	struct ix_mesh_hooks hooks = { on_start, on_progress, NULL, j };
	struct ix_coord co = { 0 };
	struct ix_err err = { 0 };

	/* The agents are asked over the nodes' own addresses (the rails may
	 * not route to this machine); the tests run between rail addresses. */
	if (ix_coord_open(&co, &j->ctl, j->token, j->timeout_s, &err) < 0 ||
	    ix_mesh_run(&co, j->p, &j->rail->hosts, j->r, &hooks, &err) < 0)
		snprintf(j->error, IX_ERR_MAX, "%s", err.msg[0] ? err.msg : "cannot run");
	step_leave(j->step);
	ix_coord_close(&co);
	return NULL;
}

int ix_rails_run(const struct ix_rails *rails, const struct ix_hostlist *nodes,
		 const struct ix_mesh_params *p, const struct ix_token *token, double timeout_s,
		 struct ix_rails_result *r, struct ix_err *err)
{
	struct step step = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	struct rail_job job[IX_RAILS_MAX];
	pthread_t th[IX_RAILS_MAX];
	bool started[IX_RAILS_MAX] = { false };
	struct ix_mesh_params rp = *p;
	int64_t t0 = ix_now_ns();

	memset(r, 0, sizeof(*r));
	r->rails = rails;
	r->nodes = nodes;
	r->node = calloc(nodes->n ? nodes->n : 1, sizeof(*r->node));
	if (!r->node)
		return ix_fail(err, IX_EXIT_FAIL, "out of memory");
	rp.from_host_addr = true; /* no test leaves a node by another rail */
	step.active = rails->n;
	for (uint32_t k = 0; k < rails->n; k++) {
		const struct ix_rail *rl = &rails->rail[k];

		job[k] = (struct rail_job){ .step = &step,
					    .rail = rl,
					    .p = &rp,
					    .token = token,
					    .timeout_s = timeout_s,
					    .r = &r->mesh[k],
					    .error = r->error[k] };
		job[k].ctl.v = calloc(rl->hosts.n ? rl->hosts.n : 1, sizeof(*job[k].ctl.v));
		for (size_t h = 0; job[k].ctl.v && h < rl->hosts.n; h++)
			job[k].ctl.v[h] = nodes->v[rl->node[h]];
		job[k].ctl.n = job[k].ctl.cap = job[k].ctl.v ? rl->hosts.n : 0;
		started[k] =
			job[k].ctl.v && pthread_create(&th[k], NULL, rail_thread, &job[k]) == 0;
		if (!started[k]) {
			snprintf(r->error[k], IX_ERR_MAX, "cannot start the rail's thread");
			step_leave(&step);
		}
	}
	for (uint32_t k = 0; k < rails->n; k++) {
		if (started[k])
			pthread_join(th[k], NULL);
		ix_hostlist_free(&job[k].ctl);
	}
	r->wall_s = (double)(ix_now_ns() - t0) / 1e9;
	ix_rails_judge(r, &p->rules);
	return 0;
}

void ix_rails_result_free(struct ix_rails_result *r)
{
	for (uint32_t k = 0; r->rails && k < r->rails->n; k++)
		ix_mesh_result_free(&r->mesh[k]);
	free(r->node);
	memset(r, 0, sizeof(*r));
}

static int dbl_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* A rail's own figures, from its matrix. */
static void rail_figures(const struct ix_mesh_result *m, struct ix_rail_verdict *v)
{
	uint64_t count[4] = { 0 };
	size_t nl = 0;
	double *lat;

	ix_cells_count(&m->cells, count);
	lat = calloc(count[IX_CELL_OK] + 1, sizeof(*lat));

	v->median_bw_bps = m->findings.median_bw_bps;
	v->bad_pairs = m->findings.bad_pairs;
	v->measured = m->pairs_measured;
	v->failed = m->pairs_failed;
	for (uint32_t a = 0; a < m->n; a++)
		for (uint32_t b = 0; b < m->n; b++) {
			struct ix_cell c = ix_cells_get(&m->cells, a, b);

			if (c.state != IX_CELL_OK)
				continue;
			v->have_bw = v->have_bw || ix_cell_has_bw(&c);
			if (lat && ix_cell_has_lat(&c) && nl < count[IX_CELL_OK])
				lat[nl++] = c.lat_p50_ns;
		}
	v->lat_p50_ns = lat ? ix_median(lat, nl) : 0;
	free(lat);
}

/* A reason more why the rail is bad. */
static void say(struct ix_rail_verdict *v, const char *why)
{
	size_t off = strlen(v->reason);

	if (off + 3 < sizeof(v->reason))
		snprintf(v->reason + off, sizeof(v->reason) - off, "%s%.*s", off ? "; " : "",
			 (int)(sizeof(v->reason) - off - 3), why);
	v->bad = true;
}

void ix_rails_judge(struct ix_rails_result *r, const struct ix_mesh_rules *rules)
{
	uint32_t n = r->rails->n, nb = 0, nl = 0;
	double bw[IX_RAILS_MAX], lat[IX_RAILS_MAX];
	char x[48], y[48], why[IX_ERR_MAX + 32];

	r->rules = *rules;
	r->bad_rails = 0;
	r->complete = true;
	for (uint32_t k = 0; k < n; k++) {
		struct ix_rail_verdict *v = &r->verdict[k];

		memset(v, 0, sizeof(*v));
		if (r->error[k][0] || !r->mesh[k].cells.v)
			continue;
		rail_figures(&r->mesh[k], v);
		if (v->have_bw)
			bw[nb++] = v->median_bw_bps;
		if (v->lat_p50_ns > 0)
			lat[nl++] = v->lat_p50_ns;
	}
	qsort(bw, nb, sizeof(bw[0]), dbl_cmp);
	qsort(lat, nl, sizeof(lat[0]), dbl_cmp);
	/* With two rails the reference is the faster one: a mean of two is
	 * dragged down by the bad one. */
	r->ref_bw_bps = nb ? bw[nb / 2] : 0;
	r->ref_lat_ns = nl ? lat[(nl - 1) / 2] : 0;
	for (uint32_t k = 0; k < n; k++) {
		struct ix_rail_verdict *v = &r->verdict[k];

		r->complete = r->complete && !r->error[k][0] && r->mesh[k].complete;
		if (r->error[k][0]) {
			snprintf(why, sizeof(why), "it could not run: %s", r->error[k]);
			say(v, why);
		} else if (!v->measured) {
			say(v, "no pair was measured");
		} else {
			ix_rate_text(v->median_bw_bps, x, sizeof(x));
			if (v->have_bw && nb >= 2 &&
			    v->median_bw_bps < rules->bw_fraction * r->ref_bw_bps) {
				ix_rate_text(r->ref_bw_bps, y, sizeof(y));
				snprintf(why, sizeof(why), "median %s is %.0f%% of the rails' %s",
					 x, 100.0 * v->median_bw_bps / r->ref_bw_bps, y);
				say(v, why);
			}
			if (v->have_bw && rules->min_bw_bps > 0 &&
			    v->median_bw_bps < rules->min_bw_bps) {
				ix_rate_text(rules->min_bw_bps, y, sizeof(y));
				snprintf(why, sizeof(why), "median %s is below the floor of %s", x,
					 y);
				say(v, why);
			}
			if (v->lat_p50_ns > 0 && nl >= 2 &&
			    v->lat_p50_ns > rules->lat_factor * r->ref_lat_ns) {
				snprintf(why, sizeof(why),
					 "latency p50 %.1f us is %.1f x the rails' %.1f us",
					 v->lat_p50_ns / 1e3, v->lat_p50_ns / r->ref_lat_ns,
					 r->ref_lat_ns / 1e3);
				say(v, why);
			}
			if (2 * v->bad_pairs > v->measured) {
				snprintf(why, sizeof(why),
					 "%llu of its %llu measured pairs are bad",
					 (unsigned long long)v->bad_pairs,
					 (unsigned long long)v->measured);
				say(v, why);
			}
		}
		r->bad_rails += v->bad;
	}
	for (size_t i = 0; i < r->nodes->n; i++)
		r->node[i] = (struct ix_rails_node){ 0 };
	for (uint32_t k = 0; k < n; k++) {
		const struct ix_mesh_result *m = &r->mesh[k];

		for (uint32_t h = 0; m->nodes && h < m->n; h++) {
			struct ix_rails_node *nd = &r->node[r->rails->rail[k].node[h]];

			nd->bw_out_bps += m->nodes[h].have_bw_out ? m->nodes[h].bw_out_bps : 0;
			nd->bw_in_bps += m->nodes[h].have_bw_in ? m->nodes[h].bw_in_bps : 0;
			nd->rails += m->nodes[h].measured > 0;
		}
	}
}

int ix_rails_mesh(struct ix_coord *co, const struct ix_hostlist *nodes,
		  const struct ix_rail_spec *spec, const struct ix_mesh_params *p,
		  struct ix_rails_mesh *out, struct ix_err *err)
{
	memset(out, 0, sizeof(*out));
	if (ix_fleet_gather(co, nodes, IX_FLEET_TIMEOUT_S, &out->fleet, err) < 0 ||
	    ix_rails_find(spec, &out->fleet, nodes, &out->rails, err) < 0)
		return -1;
	return ix_rails_run(&out->rails, nodes, p, co->token, co->timeout_s, &out->result, err);
}

void ix_rails_mesh_free(struct ix_rails_mesh *m)
{
	ix_rails_result_free(&m->result);
	ix_rails_free(&m->rails);
	ix_fleet_free(&m->fleet);
}
