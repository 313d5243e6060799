/*
 * Host lists shared by every multi-host command:
 *   comma lists            "a,b,c"
 *   Slurm ranges           "node[01-16,20],gpu[1-4]" (zero padding kept)
 *   files                  "@hosts.txt" (one entry per line, '#' comments)
 *   port overrides         "host:6000", "[::1]:6000", "node[1-4]:6000"
 * With no spec, $SLURM_JOB_NODELIST is used when set.
 */
#ifndef IX_HOSTLIST_H
#define IX_HOSTLIST_H

#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

#define IX_HOST_NAME_MAX 256
#define IX_HOSTLIST_MAX  65536

struct ix_host {
	char name[IX_HOST_NAME_MAX]; /* without brackets for IPv6 literals */
	uint16_t port;               /* the default port when none was given */
	uint32_t task;               /* launched agents: task (rank) + 1; 0: none */
	/* Launched agents: the task's node, named with name where that is an
	 * address of it (--task-bind), or alone where name is "" (a task that
	 * never published an agent, port 0). "" otherwise. */
	char node[IX_HOST_NAME_MAX];
};

struct ix_hostlist {
	struct ix_host *v;
	size_t n, cap;
};

/* Parse spec (NULL or "" = $SLURM_JOB_NODELIST) and append to out. Errors
 * are usage errors naming the bad token and its 1-based position. */
int ix_hostlist_parse(const char *spec, uint16_t default_port, struct ix_hostlist *out,
		      struct ix_err *err);
void ix_hostlist_free(struct ix_hostlist *l);
/* "name:port", with brackets for IPv6 literals; for the agent of launched
 * task N "rN@name:port", "rN@node(addr):port" when it is reached at an
 * address (addr, brackets left out) other than its node's name, and
 * "rN@node:0" when it never published one. */
void ix_host_format(const struct ix_host *h, char *buf, size_t len);

#endif
