/* The PCIe link behind each link of the live monitor, as metrics: its
 * speed and width as trained and as both ends could train them, its
 * health, its AER counters. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/prom/prom.h"

/* The function whose network devices or RDMA devices name link l; -1. */
static int function_of(const struct ix_pci *pci, const struct ix_link *l)
{
	for (size_t i = 0; i < pci->n; i++) {
		const struct ix_pci_dev *d = &pci->v[i];

		for (size_t k = 0; l->kind == IX_LINK_NET && k < d->nnetdevs; k++)
			if (!strcmp(d->netdevs[k], l->name))
				return (int)i;
		for (size_t k = 0; l->kind == IX_LINK_IB && k < d->nrdma; k++)
			if (!strcmp(d->rdma[k], l->dev))
				return (int)i;
	}
	return -1;
}

static double gen_gts(int gen)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };

	return gen > 0 && gen < (int)(sizeof(gts) / sizeof(gts[0])) ? gts[gen] : 0;
}

const char *ix_prom_pcie_health(const struct ix_pci_dev *d)
{
	if (d->aer_known && (d->aer_nonfatal || d->aer_fatal))
		return "uncorrectable";
	if (!d->link.present)
		return "unknown";
	return d->link.downtrained ? "downtrained" : "ok";
}

enum pg { P_GTS, P_WIDTH, P_EXP_GTS, P_EXP_WIDTH, P_N };

static bool pcie_value(const struct ix_pci_dev *d, enum pg g, double *v)
{
	const struct ix_pci_link *l = &d->link;

	switch (g) {
	case P_GTS:
		*v = l->speed_gts * 1e9;
		break;
	case P_WIDTH:
		*v = l->width;
		break;
	case P_EXP_GTS:
		*v = gen_gts(l->expected_gen) * 1e9;
		break;
	default:
		*v = l->expected_width;
		break;
	}
	return l->present && *v > 0;
}

static const struct {
	const char *name, *help;
} pg_names[P_N] = {
	[P_GTS] = { "ixperf_pcie_link_speed_transfers_per_second",
		    "PCIe link speed per lane as trained (16e9 is 16 GT/s, Gen4)." },
	[P_WIDTH] = { "ixperf_pcie_link_width_lanes", "PCIe link width as trained." },
	[P_EXP_GTS] = { "ixperf_pcie_link_capable_speed_transfers_per_second",
			"PCIe link speed per lane both ends of the link support." },
	[P_EXP_WIDTH] = { "ixperf_pcie_link_capable_width_lanes",
			  "PCIe link width both ends of the link support." },
};

/* Link l's labels, and extra_name="extra" when extra_name is set. */
static size_t labels(const struct ix_link *l, struct ix_prom_label *v, char *port, size_t plen,
		     const char *extra_name, const char *extra)
{
	size_t n = ix_prom_link_labels(l, v, port, plen);

	if (extra_name)
		v[n++] = (struct ix_prom_label){ extra_name, extra };
	return n;
}

void ix_prom_pcie(FILE *f, const struct ix_top_model *m, const struct ix_pci *pci)
{
	static const char *const health[] = { "ok", "downtrained", "uncorrectable", "unknown" };
	static const char *const aer[] = { "correctable", "nonfatal", "fatal" };
	int *fn = m->cur.n ? calloc(m->cur.n, sizeof(*fn)) : NULL;
	struct ix_prom_label lv[IX_PROM_LABELS_MAX];
	char port[16];
	bool head;
	double v;
	size_t n;

	if (!fn)
		return;
	for (size_t i = 0; i < m->cur.n; i++)
		fn[i] = function_of(pci, &m->cur.v[i]);
	for (int g = 0; g < P_N; g++) {
		head = false;
		for (size_t i = 0; i < m->cur.n; i++) {
			if (fn[i] < 0 || !pcie_value(&pci->v[fn[i]], (enum pg)g, &v))
				continue;
			if (!head)
				ix_prom_family(f, pg_names[g].name, IX_PROM_GAUGE,
					       pg_names[g].help);
			head = true;
			n = labels(&m->cur.v[i], lv, port, sizeof(port), NULL, NULL);
			ix_prom_sample(f, pg_names[g].name, lv, n, v);
		}
	}
	head = false;
	for (size_t i = 0; i < m->cur.n; i++) {
		const char *h;

		if (fn[i] < 0)
			continue;
		if (!head)
			ix_prom_family(f, "ixperf_pcie_link_health", IX_PROM_GAUGE,
				       "1 for the class that says the PCIe link's health, 0 for "
				       "the others: ok, downtrained (below what both ends "
				       "support), uncorrectable (non-fatal or fatal AER errors "
				       "counted), unknown (the link could not be read).");
		head = true;
		h = ix_prom_pcie_health(&pci->v[fn[i]]);
		for (size_t k = 0; k < sizeof(health) / sizeof(health[0]); k++) {
			n = labels(&m->cur.v[i], lv, port, sizeof(port), "class", health[k]);
			ix_prom_sample(f, "ixperf_pcie_link_health", lv, n, !strcmp(h, health[k]));
		}
	}
	head = false;
	for (size_t i = 0; i < m->cur.n; i++) {
		const struct ix_pci_dev *d = fn[i] >= 0 ? &pci->v[fn[i]] : NULL;
		const uint64_t cnt[] = { d ? d->aer_cor : 0, d ? d->aer_nonfatal : 0,
					 d ? d->aer_fatal : 0 };

		if (!d || !d->aer_known)
			continue;
		if (!head)
			ix_prom_family(f, "ixperf_pcie_aer_errors_total", IX_PROM_COUNTER,
				       "AER errors the PCIe function counted, by class: "
				       "correctable, nonfatal, fatal.");
		head = true;
		for (size_t k = 0; k < 3; k++) {
			n = labels(&m->cur.v[i], lv, port, sizeof(port), "class", aer[k]);
			ix_prom_sample_u64(f, "ixperf_pcie_aer_errors_total", lv, n, cnt[k]);
		}
	}
	free(fn);
}
