/* The IPC test's channel (probes/gpu/bench.h): its messages, and the
 * second process that serves the parent's copy requests. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/gpu/bench.h"

int ix_gpu_ipc_send(int fd, const struct ix_gpu_ipc_msg *m, struct ix_err *err)
{
	ssize_t n;

	do
		n = send(fd, m, sizeof(*m), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*m))
		return ix_fail(err, IX_EXIT_FAIL, "the other process is gone: %s",
			       n < 0 ? strerror(errno) : "short write");
	return 0;
}

int ix_gpu_ipc_recv(int fd, struct ix_gpu_ipc_msg *m, double timeout_s, struct ix_err *err)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	ssize_t n;
	int rc;

	do
		rc = poll(&pf, 1, timeout_s < 0 ? -1 : (int)(timeout_s * 1000));
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		return ix_fail(err, IX_EXIT_FAIL, "no answer from the other process in %.0f s",
			       timeout_s);
	do
		n = recv(fd, m, sizeof(*m), 0);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 1;
	return n < 0 ? ix_fail(err, IX_EXIT_FAIL, "the other process: %s", strerror(errno))
		     : ix_gpu_ipc_check(m, (size_t)n, err);
}

void ix_gpu_ipc_init(struct ix_gpu_ipc_msg *m, enum ix_gpu_ipc_op op)
{
	memset(m, 0, sizeof(*m));
	m->magic = IX_GPU_IPC_MAGIC;
	m->version = IX_GPU_IPC_VERSION;
	m->op = op;
}

int ix_gpu_ipc_check(const struct ix_gpu_ipc_msg *m, size_t got, struct ix_err *err)
{
	if (got != sizeof(*m))
		return ix_fail(err, IX_EXIT_FAIL, "a message of %zu bytes, not %zu", got,
			       sizeof(*m));
	if (m->magic != IX_GPU_IPC_MAGIC)
		return ix_fail(err, IX_EXIT_FAIL, "not an ixperf GPU message");
	if (m->version != IX_GPU_IPC_VERSION)
		return ix_fail(err, IX_EXIT_FAIL, "protocol version %u, this ixperf speaks %u",
			       m->version, IX_GPU_IPC_VERSION);
	if (m->op < IX_GPU_IPC_COPY || m->op > IX_GPU_IPC_ERR)
		return ix_fail(err, IX_EXIT_FAIL, "unknown message %u", m->op);
	if (!memchr(m->text, 0, sizeof(m->text)))
		return ix_fail(err, IX_EXIT_FAIL, "a message with an unterminated text");
	if (m->op == IX_GPU_IPC_COPY &&
	    (m->device < 0 || m->device >= IX_GPU_MAX_DEVICES || m->reps < 1 || m->reps > 1000000 ||
	     m->warmup > 1000000 || m->bytes < 1 || m->bytes > m->size))
		return ix_fail(err, IX_EXIT_FAIL, "a copy request out of range");
	if (m->op == IX_GPU_IPC_OK && (!isfinite(m->ns) || m->ns < 0))
		return ix_fail(err, IX_EXIT_FAIL, "a time out of range");
	if (m->op == IX_GPU_IPC_ERR && (m->code < IX_EXIT_FAIL || m->code > IX_EXIT_THRESHOLD))
		return ix_fail(err, IX_EXIT_FAIL, "an exit status out of range");
	return 0;
}

/* A COPY request: map the handle on the device, copy into a buffer of our
 * own, let go of both. */
static int serve_copy(struct ix_gpu_ctx *c, struct ix_gpu_ipc_msg *m, struct ix_err *err)
{
	const struct ix_gpu_backend *be = c->be;
	struct ix_gpu_buf imp = { 0 }, dst = { 0 };
	struct ix_gpu_copy cp = { &imp, &dst, (size_t)m->bytes, m->device, IX_GPU_CE, 0 };
	int rc;

	if (m->device >= c->ndevices)
		return ix_fail(err, IX_EXIT_FAIL, "GPU %d does not exist here", m->device);
	if (be->ipc_import(c->g, m->device, m->handle, (size_t)m->size, &imp, err) < 0)
		return -1;
	rc = be->alloc(c->g, IX_GPU_MEM_DEVICE, m->device, (size_t)m->bytes, &dst, err);
	if (rc == 0) {
		rc = be->copy_batch(c->g, &cp, 1, (int)m->reps, (int)m->warmup, err);
		be->free(c->g, &dst);
	}
	be->ipc_close(c->g, &imp);
	ix_gpu_ipc_init(m, IX_GPU_IPC_OK);
	m->ns = cp.ns;
	return rc;
}

int ix_gpu_ipc_serve(int fd, struct ix_gpu_ctx *c, const struct ix_err *why, struct ix_err *err)
{
	struct ix_gpu_ipc_msg m;
	int rc;

	while ((rc = ix_gpu_ipc_recv(fd, &m, -1, err)) == 0 && m.op != IX_GPU_IPC_QUIT) {
		struct ix_err e = { 0 };

		if (m.op != IX_GPU_IPC_COPY)
			ix_fail(&e, IX_EXIT_FAIL, "message %u out of turn", m.op);
		else if (!c)
			e = *why;
		if (e.msg[0] || serve_copy(c, &m, &e) < 0) {
			ix_gpu_ipc_init(&m, IX_GPU_IPC_ERR);
			m.code = e.code > IX_EXIT_OK && e.code <= IX_EXIT_THRESHOLD ? e.code
										    : IX_EXIT_FAIL;
			snprintf(m.text, sizeof(m.text), "%s", e.msg[0] ? e.msg : "failed");
		}
		if ((rc = ix_gpu_ipc_send(fd, &m, err)) < 0)
			break;
	}
	return rc < 0 ? -1 : 0; /* the parent leaving without QUIT ends it too */
}
