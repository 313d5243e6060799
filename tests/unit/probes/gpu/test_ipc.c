/* Unit tests for probes/gpu/ipc.c: the IPC test's messages are checked
 * on arrival, and the channel's send and receive over a socket pair. */
#include "config.h"

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "probes/gpu/bench.h"

Test(gpu_ipc, ipc_messages_are_checked)
{
	struct ix_gpu_ipc_msg m;
	struct ix_err err = { 0 };

	ix_gpu_ipc_init(&m, IX_GPU_IPC_COPY);
	m.size = m.bytes = 4096;
	m.reps = 1;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), 0, "%s", err.msg);
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m) - 1, &err), -1);
	cr_assert(strstr(err.msg, "bytes"));
	m.bytes = 4097;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1, "more bytes than the buffer");
	m.bytes = 4096;
	m.reps = 0;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	m.reps = 1;
	m.device = -1;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	m.device = 0;
	m.magic ^= 1;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	m.magic ^= 1;
	m.version = 99;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	cr_assert(strstr(err.msg, "version 99"));
	m.version = IX_GPU_IPC_VERSION;
	m.op = 99;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	ix_gpu_ipc_init(&m, IX_GPU_IPC_ERR);
	m.code = IX_EXIT_UNAVAILABLE;
	memset(m.text, 'x', sizeof(m.text));
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1, "unterminated text");
	m.text[5] = '\0';
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), 0, "%s", err.msg);
	m.code = 0;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
	ix_gpu_ipc_init(&m, IX_GPU_IPC_OK);
	m.ns = -1;
	cr_assert_eq(ix_gpu_ipc_check(&m, sizeof(m), &err), -1);
}

Test(gpu_ipc, send_and_receive_over_a_socket_pair)
{
	struct ix_gpu_ipc_msg m, got;
	struct ix_err err = { 0 };
	int sv[2];

	cr_assert_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	ix_gpu_ipc_init(&m, IX_GPU_IPC_OK);
	m.ns = 1234.5;
	cr_assert_eq(ix_gpu_ipc_send(sv[0], &m, &err), 0, "%s", err.msg);
	cr_assert_eq(ix_gpu_ipc_recv(sv[1], &got, 5, &err), 0, "%s", err.msg);
	cr_assert(got.op == IX_GPU_IPC_OK && got.ns == 1234.5);
	cr_assert_eq(ix_gpu_ipc_recv(sv[1], &got, 0.05, &err), -1, "nothing sent: timed out");
	cr_assert(strstr(err.msg, "no answer"), "%s", err.msg);
	cr_assert_eq(send(sv[0], "abc", 3, 0), 3);
	cr_assert_eq(ix_gpu_ipc_recv(sv[1], &got, 5, &err), -1);
	cr_assert(strstr(err.msg, "a message of 3 bytes"), "%s", err.msg);
	close(sv[0]);
	cr_assert_eq(ix_gpu_ipc_recv(sv[1], &got, 5, &err), 1, "the other end left");
	cr_assert_eq(ix_gpu_ipc_send(sv[1], &m, &err), -1);
	cr_assert(strstr(err.msg, "gone"), "%s", err.msg);
	close(sv[1]);
}
