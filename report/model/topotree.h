/*
 * The server as a tree to draw: NUMA nodes, their host bridges, and below
 * them the PCI functions that matter (root and switch ports, GPUs, NICs,
 * NVMe, CXL, anything others hang from), each with the link above it as
 * trained (and the retimers on it), its health (downtrained, AER errors, a
 * port not up, a CXL link without CXL.mem) and what it carries now (the
 * NICs' counters, summed up the tree against each link's bandwidth). Nodes
 * are in drawing order (depth first), so a renderer walks the visible ones
 * and places them; folding hides a subtree behind its top node, which then
 * says what it holds ("2 GPU, 1 NIC") and the worst health below it. A
 * fold keeps the rows with a problem (and the way down to them) in sight,
 * unless the screen cannot hold them.
 */
#ifndef IX_TOPOTREE_H
#define IX_TOPOTREE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "probes/host/links.h"
#include "probes/host/topo.h"

enum ix_tree_kind {
	IX_TREE_NUMA,   /* a NUMA node (a socket's, or a CPU-less one) */
	IX_TREE_BRIDGE, /* a host bridge: a root complex, or a VMD domain */
	IX_TREE_PCI,    /* a PCI function */
};

enum ix_tree_health {
	IX_TREE_OK,
	IX_TREE_WARN, /* corrected AER errors, a port not up */
	IX_TREE_BAD,  /* downtrained, uncorrected AER errors */
};

struct ix_tree_node {
	enum ix_tree_kind kind;
	int pci;    /* IX_TREE_PCI: index in the topo's functions; else -1 */
	int parent; /* node index, -1 at the top */
	int depth;
	int nchildren;
	bool last;             /* the last child of its parent (for the drawing's corners) */
	bool folded;           /* its subtree is hidden, but for the rows with a problem */
	bool hides_issues;     /* folded, and those too are hidden */
	enum ix_pci_type type; /* IX_TREE_PCI: the function's type */
	int endpoints;         /* GPUs, NICs and HCAs below it (itself aside) */
	char name[48];         /* "NUMA 0", "pci0000:00", a BDF */
	char what[96];         /* "switch_down", "gpu", "ib ibp25s0 mlx5_0", "cpus 0-31" */
	char ids[16];          /* PCI vendor:device, "" above the functions */
	/* The link above it, as trained and as both ends could. */
	bool has_link;
	int gen, width, expected_gen, expected_width;
	double link_bps; /* per direction, after encoding */
	int retimers;    /* on it, as either end reports (0 where none or not known) */
	/* Its label: "Gen5 x16", marked "Gen5 x16 +R" with a retimer on it and
	 * "Gen5 x16 +2R" with two; "" without a link. */
	char link[24];
	/* What it carries now: the busier direction of the NICs at or below
	 * it, and that as a share of link_bps (when it has one). */
	bool load_known;
	double load_bps, load;
	bool measured; /* load_bps is a measured figure (ixperf gpu), not live */
	enum ix_tree_health health;
	char issue[96];            /* its own, "" when healthy */
	char tag[24];              /* the same in a word or two ("DOWNTRAINED", "PORT DOWN") */
	enum ix_tree_health worst; /* the worst at or below it */
	char worst_tag[24];        /* the tag of that worst, "" when all is well */
};

struct ix_tree {
	struct ix_tree_node *v;
	size_t n;
	int max_depth;
};

/* Whether PCI function i of t gets a row: a kind the fabric cares about,
 * a netdev or RDMA device, or others hanging from it (a VMD controller,
 * a bridge). 'ixperf topo' lists the same. */
bool ix_tree_shown(const struct ix_topo *t, size_t i);
/* Lay out t (its PCI tree, NUMA nodes, interfaces and RDMA ports).
 * Returns -1 when out of memory. */
int ix_tree_build(const struct ix_topo *t, struct ix_tree *out);
void ix_tree_free(struct ix_tree *tr);
/* Loads from the links' latest rates (ix_top_model); links are matched to
 * functions by netdev and RDMA device names. Loads not seen stay unknown. */
void ix_tree_load(struct ix_tree *tr, const struct ix_topo *t, const struct ix_top_model *m);
/* A measured figure for the link of the PCI function at bdf (the best
 * host<->GPU copy of 'ixperf gpu' or 'bw --path pcie', in bit/s), shown
 * as its load from then on instead of the counters'. Returns -1 when no
 * node is that function. */
int ix_tree_measured(struct ix_tree *tr, const struct ix_topo *t, const char *bdf, double bps);
/* The measured figures of a document of 'ixperf gpu --json' (its results
 * of kind gpu): each GPU's best host<->GPU copy among the tests against
 * its PCIe link (reference "pcie_link"), as ix_tree_measured takes it.
 * Returns how many GPUs of the document are nodes of the tree. */
size_t ix_tree_measured_doc(struct ix_tree *tr, const struct ix_topo *t, json_t *doc);
/* The most visible rows a renderer lists (a screen scrolls through them). */
#define IX_TREE_ROWS_MAX 8192

/* The visible nodes in drawing order: at most max indexes into rows;
 * returns how many are visible in all. */
size_t ix_tree_visible(const struct ix_tree *tr, size_t *rows, size_t max);
/* Whether node i is visible (no fold above it hides it). */
bool ix_tree_seen(const struct ix_tree *tr, size_t i);
/* Whether no later child of i's parent is visible (the drawing's corner). */
bool ix_tree_last_seen(const struct ix_tree *tr, size_t i);
/* What the fold at i hides (what is not visible below it, but for what a
 * visible fold further down hides and counts), counted by class: "2 GPU, 1 NIC", "4 NVMe",
 * "3 HCA, 1 other"; functions that only connect others (ports, bridges)
 * count only where nothing else is hidden ("2 ports"). "" when nothing
 * below i is hidden. Returns the length written. */
size_t ix_tree_summary(const struct ix_tree *tr, size_t i, char *buf, size_t len);
/* Unfold every node, then fold by priority until the visible nodes fit in
 * rows. Subtrees without a GPU, NIC or HCA below (storage, a BMC, other
 * leaves) fold first, then those with them, each the deepest first and
 * healthy before troubled; a fold keeps the rows with a problem in sight.
 * Only when that is still too many, folds hide those rows too (their
 * folded ancestor shows the worst tag below), the deepest first. */
void ix_tree_fit(struct ix_tree *tr, size_t rows);
/* Fold or unfold node i (nothing for a node without children). */
void ix_tree_toggle(struct ix_tree *tr, size_t i);
/* Unfold every node. */
void ix_tree_unfold(struct ix_tree *tr);

#endif
