/* NUMA nodes, their CPUs, memory and HMAT figures, from sysfs; and what
 * was measured against what was advertised. */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/sysfs.h"
#include "probes/mem/mem.h"

static const char *const kind_names[IX_MEM_NKINDS] = { "read", "write", "nt_write", "copy" };

const char *ix_mem_kind_name(enum ix_mem_kind k)
{
	return (unsigned)k < IX_MEM_NKINDS ? kind_names[k] : "?";
}

int ix_mem_cpulist(const char *s, int *cpus, int max)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0 || a > 65535)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b > 65535)
				return -1;
			s = end;
		}
		for (long c = a; c <= b; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return n;
}

int ix_mem_nodelist(const char *s, uint64_t *mask, struct ix_err *err)
{
	int ids[IX_MEM_MAX_NODES];
	int n;

	*mask = 0;
	if (!strcmp(s, "all"))
		return 0;
	n = ix_mem_cpulist(s, ids, IX_MEM_MAX_NODES);
	if (n <= 0)
		return ix_fail(err, IX_EXIT_USAGE,
			       "'%s' is not a list of NUMA nodes (e.g. 0,2-3 or all)", s);
	for (int i = 0; i < n; i++) {
		if (ids[i] >= IX_MEM_MAX_NODES)
			return ix_fail(err, IX_EXIT_USAGE, "node %d: nodes 0 to %d only", ids[i],
				       IX_MEM_MAX_NODES - 1);
		*mask |= 1ull << ids[i];
	}
	return 0;
}

/* dir/name into out; false when it does not fit. */
static bool join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	return n > 0 && (size_t)n < len;
}

int ix_mem_tests_parse(const char *s, unsigned *out, struct ix_err *err)
{
	static const char *const names[] = { "read", "write",   "nt_write",
					     "copy", "latency", "loaded" };

	*out = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		unsigned bit = len == 3 && !strncmp(s, "all", 3) ? IX_MEM_T_ALL : 0;

		for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == len && !strncmp(s, names[i], len))
				bit = 1u << i;
		if (!bit)
			return ix_fail(err, IX_EXIT_USAGE,
				       "'%.*s' is not one of read, write, nt_write, copy, latency, "
				       "loaded, all",
				       (int)len, s);
		*out |= bit;
		s += len + (s[len] == ',');
	}
	if (!*out)
		return ix_fail(err, IX_EXIT_USAGE, "no test named");
	return 0;
}

/* "MemTotal:" and "MemFree:" of a node's meminfo ("Node 0 MemTotal: 123 kB"). */
static void read_meminfo(const char *dir, struct ix_mem_node *nd)
{
	char path[PATH_MAX], line[256];
	FILE *f;

	if (!join(path, sizeof(path), dir, "meminfo") || !(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kb;
		char *p;

		if ((p = strstr(line, "MemTotal:")) && sscanf(p + 9, "%llu", &kb) == 1) {
			nd->mem_known = true;
			nd->mem_bytes = kb * 1024;
		} else if ((p = strstr(line, "MemFree:")) && sscanf(p + 8, "%llu", &kb) == 1) {
			nd->free_bytes = kb * 1024;
		}
	}
	fclose(f);
}

static int node_cmp(const void *a, const void *b)
{
	return ((const struct ix_mem_node *)a)->id - ((const struct ix_mem_node *)b)->id;
}

int ix_mem_nodes(const char *root, struct ix_mem_result *r, struct ix_err *err)
{
	char base[PATH_MAX];
	struct dirent *e;
	DIR *d;

	r->nnodes = 0;
	if (!ix_sysfs_path(base, sizeof(base), root, "/sys/devices/system/node") ||
	    !(d = opendir(base)))
		return ix_fail(err, IX_EXIT_UNAVAILABLE,
			       "no NUMA nodes under %s/sys/devices/system/node (a kernel "
			       "without NUMA support shows none)",
			       root);
	while ((e = readdir(d)) && r->nnodes < IX_MEM_MAX_NODES) {
		char dir[PATH_MAX], path[PATH_MAX], *end;
		long id = strtol(e->d_name + 4, &end, 10);
		struct ix_mem_node *nd;
		int cpus[1024];
		int n;

		if (strncmp(e->d_name, "node", 4) || end == e->d_name + 4 || *end || id < 0 ||
		    id >= IX_MEM_MAX_NODES)
			continue;
		nd = &r->nodes[r->nnodes++];
		memset(nd, 0, sizeof(*nd));
		nd->id = (int)id;
		if (!join(dir, sizeof(dir), base, e->d_name) ||
		    !join(path, sizeof(path), dir, "cpulist") ||
		    ix_sysfs_read(path, nd->cpus, sizeof(nd->cpus)) < 0)
			nd->cpus[0] = '\0';
		n = ix_mem_cpulist(nd->cpus, cpus, 1024);
		nd->ncpus = n > 0 ? (uint32_t)n : 0;
		read_meminfo(dir, nd);
		ix_hmat_read(dir, 0, &nd->access[0]);
		ix_hmat_read(dir, 1, &nd->access[1]);
	}
	closedir(d);
	if (!r->nnodes)
		return ix_fail(err, IX_EXIT_UNAVAILABLE, "%s holds no node directory", base);
	qsort(r->nodes, r->nnodes, sizeof(r->nodes[0]), node_cmp);
	return 0;
}

const struct ix_mem_node *ix_mem_node(const struct ix_mem_result *r, int id)
{
	for (uint32_t i = 0; i < r->nnodes; i++)
		if (r->nodes[i].id == id)
			return &r->nodes[i];
	return NULL;
}

static double ratio(double measured, double advertised)
{
	return measured > 0 && advertised > 0 ? measured / advertised : -1;
}

void ix_mem_compare(struct ix_mem_result *r)
{
	double slack = r->params.slack;

	for (uint32_t i = 0; i < r->ncells; i++) {
		struct ix_mem_cell *c = &r->cells[i];
		const struct ix_mem_node *t = ix_mem_node(r, c->target);
		const struct ix_hmat *h = NULL;
		double wr;

		c->hmat_class = -1;
		c->ratio_read = c->ratio_write = c->ratio_lat = -1;
		c->slow = false;
		/* Class 1 (CPU initiators) first: these initiators are CPUs. */
		for (int k = 1; k >= 0 && t && !h; k--)
			if (t->access[k].present && c->initiator < IX_MEM_MAX_NODES &&
			    (t->access[k].initiators >> c->initiator & 1)) {
				h = &t->access[k];
				c->hmat_class = k;
			}
		if (!h || !c->measured)
			continue;
		/* The write figure against streaming stores where the CPU has
		 * them: plain stores also read every line first. */
		wr = c->bw[IX_MEM_NTWRITE] > 0 ? c->bw[IX_MEM_NTWRITE] : c->bw[IX_MEM_WRITE];
		c->ratio_read = ratio(c->bw[IX_MEM_READ], (double)h->read_mbps * 1e6);
		c->ratio_write = ratio(wr, (double)h->write_mbps * 1e6);
		c->ratio_lat = ratio(c->lat_ns, (double)h->read_ns);
		c->slow = (c->ratio_read >= 0 && c->ratio_read < 1 - slack) ||
			  (c->ratio_write >= 0 && c->ratio_write < 1 - slack) ||
			  (c->ratio_lat >= 0 && c->ratio_lat > 1 + slack);
	}
}
