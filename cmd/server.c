/* ixperf server: the agent other hosts' clients and coordinators talk to. */
#include "config.h"

#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "probes/agent/agent.h"
#include "probes/ctl/auth.h"
#include "probes/net/http.h"
#include "probes/net/net.h"
#include "report/prom/export.h"

struct server_opts {
	uint64_t port;
	const char *bind;
	bool one_shot;
	uint64_t max_tests, max_tests_per_host;
	uint64_t max_streams;
	double max_duration_s;
	uint64_t max_rate;
	uint64_t max_mem, max_test_mem;
	uint64_t max_sessions;
	double idle_s, silence_s;
	bool quiet;
	const char *token_file;
	const char *allow_run;
	const char *rdma_dev;
	const char *sysfs;
	const char *rdma_gpu;
	const char *metrics;
	bool help;
};

static const struct ix_option server_options[] = {
	{ 'p', "port", IX_OPT_UINT, offsetof(struct server_opts, port), "PORT",
	  "port to listen on (default 5301; 0 picks a free one and prints it)", 0, 65535 },
	{ 'B', "bind", IX_OPT_STRING, offsetof(struct server_opts, bind), "ADDR",
	  "address to listen on (default: every address, IPv6 and IPv4)", 0, 0 },
	{ '1', "one-off", IX_OPT_FLAG, offsetof(struct server_opts, one_shot), NULL,
	  "serve one client session, then exit", 0, 0 },
	{ 0, "max-tests", IX_OPT_UINT, offsetof(struct server_opts, max_tests), "N",
	  "tests running at once; more are refused (default 16)", 1, 4096 },
	{ 0, "max-tests-per-host", IX_OPT_UINT, offsetof(struct server_opts, max_tests_per_host),
	  "N", "tests one client address may run at once; loopback is not capped (default 8)", 1,
	  4096 },
	{ 0, "max-streams", IX_OPT_UINT, offsetof(struct server_opts, max_streams), "N",
	  "streams per direction a test may ask for (default 128)", 1, 128 },
	{ 0, "max-duration", IX_OPT_SECONDS, offsetof(struct server_opts, max_duration_s),
	  "SECONDS", "longest test accepted, warm-up included (default 3600)", 1, 86400 },
	{ 0, "max-rate", IX_OPT_RATE, offsetof(struct server_opts, max_rate), "RATE",
	  "highest rate per stream a test may ask for; unpaced tests are paced at it", 1, 0 },
	{ 0, "max-memory", IX_OPT_SIZE, offsetof(struct server_opts, max_mem), "BYTES",
	  "memory all running tests and RUN jobs may hold together: buffers, windows, RDMA queues "
	  "(default 2Gi)",
	  1, 0 },
	{ 0, "max-test-memory", IX_OPT_SIZE, offsetof(struct server_opts, max_test_mem), "BYTES",
	  "memory one test or RUN job may hold, counted as for --max-memory (default 512Mi)", 1,
	  0 },
	{ 0, "max-sessions", IX_OPT_UINT, offsetof(struct server_opts, max_sessions), "N",
	  "control sessions one address may hold at once (default 32)", 1, 4096 },
	{ 0, "idle-timeout", IX_OPT_SECONDS, offsetof(struct server_opts, idle_s), "SECONDS",
	  "close control sessions without a test this long (default 60; PINGs do not count)", 1,
	  86400 },
	{ 0, "silence-timeout", IX_OPT_SECONDS, offsetof(struct server_opts, silence_s), "SECONDS",
	  "end a test whose streams move nothing this long (default 10)", 1, 3600 },
	{ 0, "token-file", IX_OPT_STRING, offsetof(struct server_opts, token_file), "FILE",
	  "require clients and coordinators to prove this shared token (mode 600)", 0, 0 },
	{ 0, "allow-run", IX_OPT_STRING, offsetof(struct server_opts, allow_run), "ADDRS",
	  "without a token, take RUN jobs from these coordinator addresses too (comma-separated; "
	  "loopback always; 'any': everyone)",
	  0, 0 },
	{ 0, "rdma-dev", IX_OPT_STRING, offsetof(struct server_opts, rdma_dev), "DEV",
	  "RDMA device for --path rdma tests (default: the one on the client's route)", 0, 0 },
	{ 0, "rdma-gpu", IX_OPT_STRING, offsetof(struct server_opts, rdma_gpu), "N|auto",
	  "buffers of --path rdma tests in GPU N's memory (GPUDirect RDMA); auto: the GPU "
	  "nearest the NIC each test uses",
	  0, 0 },
	{ 0, "sysfs", IX_OPT_STRING, offsetof(struct server_opts, sysfs), "ROOT",
	  "read the links tests leave by (line rate, the NIC's PCIe link) from ROOT/sys instead "
	  "of /sys (a saved tree, test fixtures)",
	  0, 0 },
	{ 0, "metrics", IX_OPT_STRING, offsetof(struct server_opts, metrics), "ADDR:PORT",
	  "serve Prometheus metrics at http://ADDR:PORT/metrics: this host's links (as 'ixperf "
	  "top --listen') and the agent's tests (default: no metrics listener)",
	  0, 0 },
	{ 'q', "quiet", IX_OPT_FLAG, offsetof(struct server_opts, quiet), NULL,
	  "log nothing but errors", 0, 0 },
	{ 'h', "help", IX_OPT_FLAG, offsetof(struct server_opts, help), NULL, "show this help", 0,
	  0 },
};

const struct ix_cmd_spec ix_server_spec = {
	.name = "server",
	.usage = "[OPTIONS]",
	.summary = "Run the agent: serve tests to many clients at once, run mesh and incast jobs",
	.opts = server_options,
	.nopts = IX_OPTS_END(server_options),
	.epilog = "Each test gets its own data connections (TCP) or ports (UDP); one slow or\n"
		  "hostile client does not hold up others. SIGINT or SIGTERM stop the server.\n",
};

static atomic_int stop_flag;
static struct ix_agent *running_agent; /* set once open, for the handler */

static void on_signal(int sig)
{
	(void)sig;
	if (running_agent)
		ix_agent_stop(running_agent);
	else
		atomic_store(&stop_flag, 1);
}

/* --metrics: scrapes served, the links sampled every second, until the
 * agent stops. */
static void *metrics_thread(void *arg)
{
	struct ix_prom_export *e = arg;

	while (!atomic_load(&stop_flag))
		ix_prom_export_step(e, 1.0);
	return NULL;
}

static int metrics_start(const struct server_opts *o, struct ix_agent *agent,
			 struct ix_prom_export **exp, pthread_t *th, struct ix_err *err)
{
	struct ix_prom_export_config ec = {
		.listen = o->metrics, .title = "ixperf server", .sysfs = o->sysfs, .agent = agent
	};

	if (ix_prom_export_open(exp, &ec, err) < 0)
		return ix_fail_prefix(err, "--metrics");
	if (pthread_create(th, NULL, metrics_thread, *exp) != 0) {
		ix_prom_export_close(*exp);
		*exp = NULL;
		return ix_fail(err, IX_EXIT_FAIL, "--metrics: cannot start its thread");
	}
	fprintf(stderr, "ixperf server: metrics listening on port %u (GET /metrics)\n",
		ix_prom_export_port(*exp));
	return 0;
}

static void log_line(void *arg, const char *msg)
{
	const struct server_opts *o = arg;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	if (o->quiet && !strstr(msg, "fail") && !strstr(msg, "refused"))
		return;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "%s ixperf server: %s\n", when, msg);
}

int cmd_server(int argc, char **argv, const struct ix_env *env)
{
	struct server_opts o = { .port = IX_DEFAULT_PORT };
	struct ix_agent_config cfg;
	struct ix_agent agent;
	struct ix_token token;
	struct ix_err err = { 0 };
	struct ix_prom_export *exp = NULL;
	pthread_t metrics_th;
	struct sigaction sa;
	bool help;
	int pos;

	(void)env;
	/* The options start from the agent's own defaults. */
	ix_agent_config_defaults(&cfg);
	o.max_tests = cfg.max_tests;
	o.max_tests_per_host = cfg.max_tests_per_addr;
	o.max_streams = cfg.limits.max_streams;
	o.max_duration_s = cfg.limits.max_duration_s;
	o.max_mem = cfg.max_mem;
	o.max_test_mem = cfg.max_test_mem;
	o.max_sessions = cfg.max_sessions_per_addr;
	o.idle_s = cfg.idle_s;
	o.silence_s = cfg.silence_s;
	if (ix_opts_parse(&ix_server_spec, argc, argv, &o, &pos, &help, &err) < 0)
		return ix_report_error("server", &err);
	if (help) {
		ix_opts_help(&ix_server_spec, stdout);
		return IX_EXIT_OK;
	}
	if (pos < argc) {
		fprintf(stderr, "ixperf server: unexpected argument '%s'\n", argv[pos]);
		return IX_EXIT_USAGE;
	}
	cfg.bind_addr = o.bind;
	cfg.port = (uint16_t)o.port;
	cfg.one_shot = o.one_shot;
	cfg.max_tests = (uint32_t)o.max_tests;
	cfg.max_tests_per_addr = (uint32_t)o.max_tests_per_host;
	cfg.max_sessions_per_addr = (uint32_t)o.max_sessions;
	cfg.max_mem = o.max_mem;
	cfg.max_test_mem = o.max_test_mem;
	cfg.silence_s = o.silence_s;
	if (ix_agent_parse_allow(o.allow_run, &cfg, &err) < 0)
		return ix_report_error("server", &err);
	cfg.limits.max_duration_s = o.max_duration_s;
	cfg.limits.max_streams = (uint32_t)o.max_streams;
	cfg.limits.max_rate_bps = o.max_rate;
	cfg.idle_s = o.idle_s;
	cfg.rdma_dev = o.rdma_dev;
	cfg.sysfs = o.sysfs;
	if (o.sysfs) {
		char sys[4096];
		struct stat st;

		snprintf(sys, sizeof(sys), "%s/sys", o.sysfs);
		if (stat(sys, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "ixperf server: --sysfs %s: no directory %s\n", o.sysfs,
				sys);
			return IX_EXIT_USAGE;
		}
	}
	if (o.metrics) {
		char host[256];
		uint16_t mport;

		if (ix_http_parse_listen(o.metrics, host, sizeof(host), &mport, &err) < 0)
			return ix_fail_prefix(&err, "--metrics"), ix_report_error("server", &err);
	}
	if (o.rdma_gpu && ix_parse_gpu_index(o.rdma_gpu, "--rdma-gpu", &cfg.rdma_gpu, &err) < 0)
		return ix_report_error("server", &err);
	cfg.log = log_line;
	cfg.log_arg = &o;
	if (ix_token_from_opt(o.token_file, &token, &err) < 0)
		return ix_report_error("server", &err);
	cfg.token = &token;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A thread serves each connection: with an allocator arena each, a
	 * burst of large messages would leave its memory in every one. */
	mallopt(M_ARENA_MAX, 4);
	if (ix_agent_open(&agent, &cfg, &stop_flag, &err) < 0)
		return ix_report_error("server", &err);
	running_agent = &agent;
	if (atomic_load(&stop_flag))
		ix_agent_stop(&agent);
	if (!token.set)
		fprintf(stderr,
			"ixperf server: WARNING: no --token-file: anyone who can reach port "
			"%u can run tests and make this host send traffic to others it names\n",
			ix_agent_port(&agent));
	if (o.metrics && metrics_start(&o, &agent, &exp, &metrics_th, &err) < 0) {
		ix_agent_close(&agent);
		return ix_report_error("server", &err);
	}
	printf("ixperf server %s listening on port %u\n", PACKAGE_VERSION, ix_agent_port(&agent));
	fflush(stdout);
	if (ix_agent_run(&agent, &err) < 0) {
		/* Their threads still use the agent: leave without freeing it. */
		fprintf(stderr, "ixperf server: %s; exiting without them\n", err.msg);
		fflush(NULL);
		_exit(IX_EXIT_FAIL);
	}
	running_agent = NULL;
	if (exp) {
		atomic_store(&stop_flag, 1);
		pthread_join(metrics_th, NULL);
		ix_prom_export_close(exp);
	}
	ix_agent_close(&agent);
	if (!o.quiet)
		fprintf(stderr,
			"ixperf server: stopped after %llu test(s), %llu refused, %llu stalled "
			"connection(s) closed\n",
			(unsigned long long)agent.tests_run, (unsigned long long)agent.refused,
			(unsigned long long)agent.evicted);
	return IX_EXIT_OK;
}
