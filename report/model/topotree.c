#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/topotree.h"

bool ix_tree_shown(const struct ix_topo *t, size_t i)
{
	const struct ix_pci_dev *d = &t->pci.v[i];

	if (d->type != IX_PCI_OTHER || d->nnetdevs || d->nrdma)
		return true;
	for (size_t k = 0; k < t->pci.n; k++)
		if (t->pci.v[k].parent == (int)i)
			return true;
	return false;
}

static struct ix_tree_node *add(struct ix_tree *tr, size_t *cap, enum ix_tree_kind kind, int parent,
				int depth)
{
	struct ix_tree_node *n;

	if (tr->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct ix_tree_node *v = realloc(tr->v, nc * sizeof(*v));

		if (!v)
			return NULL;
		tr->v = v;
		*cap = nc;
	}
	n = &tr->v[tr->n++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->pci = -1;
	n->parent = parent;
	n->depth = depth;
	if (parent >= 0)
		tr->v[parent].nchildren++;
	if (depth > tr->max_depth)
		tr->max_depth = depth;
	return n;
}

static bool link_up(const char *state)
{
	return strcmp(state, "up") == 0 || strcmp(state, "ACTIVE") == 0 ||
	       strcmp(state, "unknown") == 0;
}

static void set_issue(struct ix_tree_node *n, enum ix_tree_health h, const char *tag,
		      const char *text)
{
	if (h <= n->health && n->issue[0])
		return;
	n->health = h;
	snprintf(n->tag, sizeof(n->tag), "%s", tag);
	snprintf(n->issue, sizeof(n->issue), "%.*s", (int)sizeof(n->issue) - 1, text);
}

/* A CXL memory device on function i: its name, the protocols its link
 * runs and its firmware after what it is; its link's CXL trouble. */
static void describe_cxl(struct ix_tree_node *n, const struct ix_topo *t, size_t i, size_t len)
{
	for (size_t k = 0; k < t->cxl.nmemdevs; k++) {
		const struct ix_cxl_memdev *m = &t->cxl.memdevs[k];
		char proto[32], issue[384];

		if (m->pci != (int)i)
			continue;
		if (len < sizeof(n->what))
			len += (size_t)snprintf(
				n->what + len, sizeof(n->what) - len, " %s%s%s%s%s", m->name,
				m->dev_fb.known ? " CXL." : "",
				m->dev_fb.known
					? ix_cxl_protocols(m->dev_fb.status, proto, sizeof(proto))
					: "",
				m->firmware[0] ? " fw " : "", m->firmware);
		/* The issue without the name and address the row shows. */
		if (ix_cxl_link_issue(m, issue, sizeof(issue)))
			set_issue(n, IX_TREE_BAD, "CXL LINK",
				  strstr(issue, "): ") ? strstr(issue, "): ") + 3 : issue);
	}
}

/* What a function is, its link and its health. */
static void describe(struct ix_tree_node *n, const struct ix_topo *t, size_t i)
{
	const struct ix_pci_dev *d = &t->pci.v[i];
	char s[128];
	size_t len;

	snprintf(n->name, sizeof(n->name), "%s", d->bdf);
	snprintf(n->ids, sizeof(n->ids), "%04x:%04x", d->vendor, d->device);
	len = (size_t)snprintf(n->what, sizeof(n->what), "%s", ix_pci_type_name(d->type));
	for (size_t k = 0; k < d->nnetdevs && len < sizeof(n->what); k++)
		len += (size_t)snprintf(n->what + len, sizeof(n->what) - len, " %s", d->netdevs[k]);
	for (size_t k = 0; k < d->nrdma && len < sizeof(n->what); k++)
		len += (size_t)snprintf(n->what + len, sizeof(n->what) - len, " %s", d->rdma[k]);
	describe_cxl(n, t, i, len);
	if (d->link.present) {
		n->has_link = true;
		n->gen = d->link.gen;
		n->width = d->link.width;
		n->expected_gen = d->link.expected_gen;
		n->expected_width = d->link.expected_width;
		n->link_bps = d->link.bps;
		n->retimers = d->link.retimers_known ? d->link.retimers : 0;
		snprintf(n->link, sizeof(n->link), "Gen%d x%d%s", n->gen, n->width,
			 n->retimers > 1 ? " +2R"
			 : n->retimers   ? " +R"
					 : "");
	}
	if (d->link.downtrained) {
		snprintf(s, sizeof(s), "downtrained: Gen%d x%d of Gen%d x%d", d->link.gen,
			 d->link.width, d->link.expected_gen, d->link.expected_width);
		set_issue(n, IX_TREE_BAD, "DOWNTRAINED", s);
	}
	if (d->aer_known && (d->aer_fatal || d->aer_nonfatal)) {
		snprintf(s, sizeof(s), "AER: %llu fatal, %llu non-fatal",
			 (unsigned long long)d->aer_fatal, (unsigned long long)d->aer_nonfatal);
		set_issue(n, IX_TREE_BAD, "AER ERRORS", s);
	} else if (d->aer_known && d->aer_cor) {
		snprintf(s, sizeof(s), "AER: %llu corrected", (unsigned long long)d->aer_cor);
		set_issue(n, IX_TREE_WARN, "AER corrected", s);
	}
	for (size_t k = 0; k < t->nifaces; k++)
		if (t->ifaces[k].pci == (int)i && !link_up(t->ifaces[k].link->state)) {
			snprintf(s, sizeof(s), "%s %s", t->ifaces[k].link->name,
				 t->ifaces[k].link->state);
			set_issue(n, IX_TREE_WARN, "PORT DOWN", s);
		}
	for (size_t k = 0; k < t->nports; k++)
		if (t->ports[k].pci == (int)i && !link_up(t->ports[k].link->state)) {
			snprintf(s, sizeof(s), "%s %s", t->ports[k].link->name,
				 t->ports[k].link->state);
			set_issue(n, IX_TREE_WARN, "PORT DOWN", s);
		}
}

/* Function i and what is shown below it. */
static int subtree(struct ix_tree *tr, size_t *cap, const struct ix_topo *t, size_t i, int parent,
		   int depth)
{
	struct ix_tree_node *n = add(tr, cap, IX_TREE_PCI, parent, depth);
	int me = (int)tr->n - 1;

	if (!n)
		return -1;
	n->pci = (int)i;
	n->type = t->pci.v[i].type;
	describe(n, t, i);
	for (size_t k = 0; k < t->pci.n; k++)
		if (t->pci.v[k].parent == (int)i && ix_tree_shown(t, k) &&
		    subtree(tr, cap, t, k, me, depth + 1) < 0)
			return -1;
	return 0;
}

/* The NUMA node of a host bridge: its first function's that has one. */
static int bridge_numa(const struct ix_topo *t, const char *hb)
{
	for (size_t i = 0; i < t->pci.n; i++)
		if (strcmp(t->pci.v[i].host_bridge, hb) == 0 && t->pci.v[i].numa_node >= 0)
			return t->pci.v[i].numa_node;
	return -1;
}

/* Host bridges in NUMA node numa (-1: unknown), each with its functions. */
static int bridges(struct ix_tree *tr, size_t *cap, const struct ix_topo *t, int numa, int parent,
		   int depth)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		const char *hb = t->pci.v[i].host_bridge;
		struct ix_tree_node *n;
		bool seen = false;
		int me;

		if (t->pci.v[i].parent >= 0 || bridge_numa(t, hb) != numa)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = t->pci.v[k].parent < 0 && strcmp(t->pci.v[k].host_bridge, hb) == 0;
		if (seen)
			continue;
		if (!(n = add(tr, cap, IX_TREE_BRIDGE, parent, depth)))
			return -1;
		me = (int)tr->n - 1;
		snprintf(n->name, sizeof(n->name), "%s", hb[0] ? hb : "?");
		snprintf(n->what, sizeof(n->what), "%s",
			 hb[0] ? "host bridge" : "place in the PCI tree unknown");
		for (size_t k = i; k < t->pci.n; k++)
			if (t->pci.v[k].parent < 0 && strcmp(t->pci.v[k].host_bridge, hb) == 0 &&
			    ix_tree_shown(t, k) && subtree(tr, cap, t, k, me, depth + 1) < 0)
				return -1;
	}
	return 0;
}

static bool numa_has_bridges(const struct ix_topo *t, int numa)
{
	for (size_t i = 0; i < t->pci.n; i++)
		if (t->pci.v[i].parent < 0 && bridge_numa(t, t->pci.v[i].host_bridge) == numa)
			return true;
	return false;
}

/* What the first screen is for: a GPU, a NIC or an HCA. */
static bool endpoint(const struct ix_tree_node *n)
{
	return n->kind == IX_TREE_PCI &&
	       (n->type == IX_PCI_GPU || n->type == IX_PCI_NIC || n->type == IX_PCI_IB);
}

/* Mark each parent's last child, each node's worst health below, and the
 * endpoints below it. */
static void finish(struct ix_tree *tr)
{
	for (size_t i = 0; i < tr->n; i++) {
		tr->v[i].last = true;
		for (size_t k = i + 1; k < tr->n && tr->v[k].depth >= tr->v[i].depth; k++)
			if (tr->v[k].depth == tr->v[i].depth) {
				tr->v[i].last = false;
				break;
			}
		tr->v[i].worst = tr->v[i].health;
		snprintf(tr->v[i].worst_tag, sizeof(tr->v[i].worst_tag), "%s", tr->v[i].tag);
	}
	for (size_t i = tr->n; i-- > 0;) {
		int p = tr->v[i].parent;

		if (p >= 0)
			tr->v[p].endpoints += tr->v[i].endpoints + endpoint(&tr->v[i]);
		if (p >= 0 && tr->v[i].worst > tr->v[p].worst) {
			tr->v[p].worst = tr->v[i].worst;
			memcpy(tr->v[p].worst_tag, tr->v[i].worst_tag, sizeof(tr->v[p].worst_tag));
		}
	}
}

int ix_tree_build(const struct ix_topo *t, struct ix_tree *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k <= t->nnuma; k++) {
		int numa = k < t->nnuma ? t->numa[k].node : -1;
		struct ix_tree_node *n;

		if (!numa_has_bridges(t, numa))
			continue;
		if (!(n = add(out, &cap, IX_TREE_NUMA, -1, 0)))
			goto oom;
		if (numa >= 0) {
			snprintf(n->name, sizeof(n->name), "NUMA %d", numa);
			snprintf(n->what, sizeof(n->what), "cpus %.90s",
				 t->numa[k].cpus[0] ? t->numa[k].cpus : "none");
		} else {
			snprintf(n->name, sizeof(n->name), "NUMA ?");
			snprintf(n->what, sizeof(n->what), "node not known");
		}
		if (bridges(out, &cap, t, numa, (int)out->n - 1, 1) < 0)
			goto oom;
	}
	finish(out);
	return 0;
oom:
	ix_tree_free(out);
	return -1;
}

void ix_tree_free(struct ix_tree *tr)
{
	free(tr->v);
	memset(tr, 0, sizeof(*tr));
}

static bool names_link(const struct ix_pci_dev *d, const struct ix_link *l)
{
	for (size_t k = 0; k < d->nnetdevs; k++)
		if (strcmp(l->name, d->netdevs[k]) == 0 ||
		    (l->netdev[0] && strcmp(l->netdev, d->netdevs[k]) == 0 && !l->port))
			return true;
	for (size_t k = 0; k < d->nrdma; k++)
		if (l->port && strcmp(l->dev, d->rdma[k]) == 0)
			return true;
	return false;
}

void ix_tree_load(struct ix_tree *tr, const struct ix_topo *t, const struct ix_top_model *m)
{
	double *rx = calloc(tr->n ? tr->n : 1, sizeof(*rx)),
	       *tx = calloc(tr->n ? tr->n : 1, sizeof(*tx));
	bool *known = calloc(tr->n ? tr->n : 1, sizeof(*known));

	if (!rx || !tx || !known)
		goto out;
	for (size_t i = 0; i < tr->n; i++) {
		const struct ix_pci_dev *d;

		if (tr->v[i].measured)
			continue;
		tr->v[i].load_known = false;
		if (tr->v[i].pci < 0)
			continue;
		d = &t->pci.v[tr->v[i].pci];
		for (size_t k = 0; k < m->cur.n; k++) {
			const struct ix_link_rate *r = &m->rates[k];

			if (!names_link(d, &m->cur.v[k]) ||
			    !(r->known & (IX_LINK_RX_BYTES | IX_LINK_TX_BYTES)))
				continue;
			known[i] = true;
			rx[i] += r->known & IX_LINK_RX_BYTES ? r->rx_bps : 0;
			tx[i] += r->known & IX_LINK_TX_BYTES ? r->tx_bps : 0;
		}
	}
	/* Children come after their parents: add each to its parent, last
	 * first, and every level carries the sum of what is below it. */
	for (size_t i = tr->n; i-- > 0;) {
		int p = tr->v[i].parent;

		if (p >= 0 && known[i]) {
			known[p] = true;
			rx[p] += rx[i];
			tx[p] += tx[i];
		}
	}
	for (size_t i = 0; i < tr->n; i++) {
		struct ix_tree_node *n = &tr->v[i];

		if (n->measured)
			continue;
		n->load_known = known[i];
		n->load_bps = rx[i] > tx[i] ? rx[i] : tx[i];
		n->load = n->has_link && n->link_bps > 0 ? n->load_bps / n->link_bps : 0;
	}
out:
	free(rx);
	free(tx);
	free(known);
}

int ix_tree_measured(struct ix_tree *tr, const struct ix_topo *t, const char *bdf, double bps)
{
	int k = ix_pci_find(&t->pci, bdf);

	for (size_t i = 0; k >= 0 && i < tr->n; i++) {
		struct ix_tree_node *n = &tr->v[i];

		if (n->pci != k)
			continue;
		n->measured = n->load_known = true;
		n->load_bps = bps;
		n->load = n->has_link && n->link_bps > 0 ? bps / n->link_bps : 0;
		return 0;
	}
	return -1;
}

/* The value of GPU g in a host<->GPU test's matrix (a "host" row or
 * column), in bytes/s; 0 when absent. */
static double host_copy(json_t *test, size_t g)
{
	json_t *rows = json_object_get(test, "rows"), *cols = json_object_get(test, "columns");
	json_t *m = json_object_get(json_object_get(test, "matrix"), "value");
	json_t *host = json_string("host"), *v = NULL;

	if (json_equal(json_array_get(rows, 0), host) && json_array_size(rows) == 1)
		v = json_array_get(json_array_get(m, 0), g);
	else if (json_equal(json_array_get(cols, 0), host) && json_array_size(cols) == 1)
		v = json_array_get(json_array_get(m, g), 0);
	json_decref(host);
	return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0;
}

size_t ix_tree_measured_doc(struct ix_tree *tr, const struct ix_topo *t, json_t *doc)
{
	json_t *r, *d, *tst;
	size_t i, g, k, found = 0;

	json_array_foreach(json_object_get(doc, "results"), i, r)
	{
		const char *kind = json_string_value(json_object_get(r, "kind"));

		if (!kind || strcmp(kind, "gpu") != 0)
			continue;
		json_array_foreach(json_object_get(r, "devices"), g, d)
		{
			const char *bdf = json_string_value(json_object_get(d, "pci_bus_id"));
			double best = 0;

			json_array_foreach(json_object_get(r, "tests"), k, tst)
			{
				const char *ref =
					json_string_value(json_object_get(tst, "reference"));
				double v;

				if (!ref || strcmp(ref, "pcie_link") != 0)
					continue;
				v = host_copy(tst, g);
				best = v > best ? v : best;
			}
			if (bdf && best > 0 && ix_tree_measured(tr, t, bdf, best * 8) == 0)
				found++;
		}
	}
	return found;
}

/* The first node after i's subtree. */
static size_t past(const struct ix_tree *tr, size_t i)
{
	size_t k = i + 1;

	while (k < tr->n && tr->v[k].depth > tr->v[i].depth)
		k++;
	return k;
}

bool ix_tree_seen(const struct ix_tree *tr, size_t i)
{
	for (int p = tr->v[i].parent; p >= 0; p = tr->v[p].parent)
		if (tr->v[p].folded && (tr->v[p].hides_issues || tr->v[i].worst == IX_TREE_OK))
			return false;
	return true;
}

size_t ix_tree_visible(const struct ix_tree *tr, size_t *rows, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n; i++) {
		if (!ix_tree_seen(tr, i)) {
			/* Nothing below a hidden node is seen either. */
			i = past(tr, i) - 1;
			continue;
		}
		if (n < max)
			rows[n] = i;
		n++;
	}
	return n;
}

bool ix_tree_last_seen(const struct ix_tree *tr, size_t i)
{
	for (size_t k = past(tr, i); k < tr->n && tr->v[k].depth >= tr->v[i].depth; k = past(tr, k))
		if (tr->v[k].depth == tr->v[i].depth && ix_tree_seen(tr, k))
			return false;
	return true;
}

/* The classes a fold counts, in the order a summary names them; the
 * last two only connect others and count only when nothing else does. */
static const struct {
	enum ix_pci_type type;
	const char *one, *many;
} classes[] = {
	{ IX_PCI_GPU, "GPU", "GPU" },
	{ IX_PCI_NIC, "NIC", "NIC" },
	{ IX_PCI_IB, "HCA", "HCA" },
	{ IX_PCI_NVME, "NVMe", "NVMe" },
	{ IX_PCI_CXL, "CXL", "CXL" },
	{ IX_PCI_OTHER, "other", "other" },
	{ IX_PCI_BRIDGE, "bridge", "bridges" },
	{ IX_PCI_ROOT_PORT, "port", "ports" },
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))
#define NCOUNTED (NCLASSES - 2)

static size_t class_of(const struct ix_tree_node *n)
{
	if (n->kind != IX_TREE_PCI)
		return NCLASSES; /* a host bridge below a NUMA node: counted by its own */
	for (size_t c = 0; c < NCOUNTED + 1; c++)
		if (n->type == classes[c].type)
			return c;
	return NCLASSES - 1; /* root and switch ports */
}

size_t ix_tree_summary(const struct ix_tree *tr, size_t i, char *buf, size_t len)
{
	size_t count[NCLASSES + 1] = { 0 }, off = 0, end;
	bool named = false;

	if (!len)
		return 0;
	buf[0] = '\0';
	if (i >= tr->n || !tr->v[i].folded)
		return 0;
	end = past(tr, i);
	for (size_t k = i + 1; k < end; k++) {
		int a = tr->v[k].parent;

		if (ix_tree_seen(tr, k))
			continue;
		/* Counted by the fold that hides it: its nearest visible
		 * folded ancestor. */
		while (a > (int)i && !(tr->v[a].folded && ix_tree_seen(tr, (size_t)a)))
			a = tr->v[a].parent;
		if (a == (int)i)
			count[class_of(&tr->v[k])]++;
	}
	for (size_t c = 0; c < NCLASSES && off < len; c++) {
		if (!count[c] || (c >= NCOUNTED && named))
			continue;
		named |= c < NCOUNTED;
		off += (size_t)snprintf(buf + off, len - off, "%s%zu %s", off ? ", " : "", count[c],
					count[c] > 1 ? classes[c].many : classes[c].one);
	}
	return off < len ? off : len - 1;
}

/* One stage of folding: nodes with endpoints below (or without), the
 * deepest first, healthy before troubled, until vis fits in rows. */
static size_t fold_stage(struct ix_tree *tr, size_t rows, size_t vis, bool with_endpoints)
{
	for (int d = tr->max_depth; d >= 0; d--)
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < tr->n && vis > rows; i++) {
				struct ix_tree_node *n = &tr->v[i];

				if (n->depth != d || !n->nchildren || n->folded ||
				    (n->endpoints > 0) != with_endpoints ||
				    (!pass && n->worst != IX_TREE_OK))
					continue;
				n->folded = true;
				vis = ix_tree_visible(tr, NULL, 0);
			}
	return vis;
}

/* Undo i's fold in stage 0 (hiding its problems), in stage 1 (the fold
 * of a node with endpoints below) or in stage 2 (any), where the rows
 * still fit. */
static size_t reopen(struct ix_tree *tr, size_t i, size_t rows, size_t vis, int stage)
{
	struct ix_tree_node *n = &tr->v[i];
	bool hides = n->hides_issues, folded = n->folded;
	size_t now;

	if (!n->folded || (stage == 0 && !n->hides_issues) || (stage == 1 && !n->endpoints))
		return vis;
	n->hides_issues = false;
	n->folded = stage == 0;
	now = ix_tree_visible(tr, NULL, 0);
	if (now <= rows)
		return now;
	n->hides_issues = hides;
	n->folded = folded;
	return vis;
}

void ix_tree_fit(struct ix_tree *tr, size_t rows)
{
	size_t vis;

	ix_tree_unfold(tr);
	vis = ix_tree_visible(tr, NULL, 0);
	vis = fold_stage(tr, rows, vis, false);
	vis = fold_stage(tr, rows, vis, true);
	/* Still too many: the problems are hidden too, behind a tag. */
	for (int d = tr->max_depth; d >= 0; d--)
		for (size_t i = 0; i < tr->n && vis > rows; i++)
			if (tr->v[i].depth == d && tr->v[i].folded && !tr->v[i].hides_issues &&
			    tr->v[i].worst != IX_TREE_OK) {
				tr->v[i].hides_issues = true;
				vis = ix_tree_visible(tr, NULL, 0);
			}
	/* Rows left over: open what still fits again, the problems first,
	 * then the endpoints, then the rest, the top first. */
	for (int stage = 0; stage < 3; stage++)
		for (size_t i = 0; i < tr->n; i++)
			vis = reopen(tr, i, rows, vis, stage);
}

void ix_tree_toggle(struct ix_tree *tr, size_t i)
{
	if (i < tr->n && tr->v[i].nchildren) {
		tr->v[i].folded = !tr->v[i].folded;
		tr->v[i].hides_issues = false;
	}
}

void ix_tree_unfold(struct ix_tree *tr)
{
	for (size_t i = 0; i < tr->n; i++)
		tr->v[i].folded = tr->v[i].hides_issues = false;
}
