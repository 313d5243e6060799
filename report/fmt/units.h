/* Strict parsing of sizes, rates and durations; formatting with units. */
#ifndef IX_UNITS_H
#define IX_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "probes/core/err.h"

/* Sizes in bytes, read as iperf3 and perftest read them: K, M, G, T are
 * 2^10..., with or without a B ("64K", "64KB", "64KiB": 65536; "1.5M":
 * 1572864); kB, the SI kilobyte, is 1000 ("64kB": 64000). */
int ix_parse_size(const char *s, uint64_t *out, struct ix_err *err);
/* Rates in bit/s: "200M" and "200Mbit" are 200e6 bit/s, "25MB" (bytes)
 * is 200e6 bit/s; "/s" or "ps" may follow. */
int ix_parse_rate(const char *s, uint64_t *out, struct ix_err *err);
/* Durations in seconds: "10", "2.5", "500ms", "2m". */
int ix_parse_seconds(const char *s, double *out, struct ix_err *err);
/* Plain decimal integer within [lo, hi]. */
int ix_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out, struct ix_err *err);
/* A size sweep: powers of two from 1 to max that are >= min, at most cap
 * of them, into sizes; how many. */
size_t ix_size_sweep(uint64_t min, uint64_t max, uint64_t *sizes, size_t cap);

enum ix_units {
	IX_UNITS_BITS = 0, /* auto SI prefix, bit/s (default for networks) */
	IX_UNITS_BYTES,    /* auto SI prefix, B/s */
	IX_UNITS_FIXED,    /* one prefix and unit for every figure */
};

struct ix_unit_choice {
	enum ix_units kind;
	double divisor; /* fixed: bits per displayed unit */
	char label[16]; /* fixed: "Gbit/s", "MB/s", "GiB/s" */
};

/* "bits", "bytes", or a fixed unit: bit Kbit Mbit Gbit Tbit B KB MB GB TB KiB MiB GiB TiB. */
int ix_parse_units(const char *s, struct ix_unit_choice *u, struct ix_err *err);
void ix_fmt_rate(double bits_per_s, const struct ix_unit_choice *u, char *buf, size_t len);
void ix_fmt_bytes(double bytes, const struct ix_unit_choice *u, char *buf, size_t len);
/* Nanoseconds with a readable unit: "812 ns", "12.4 us", "3.10 ms". */
void ix_fmt_ns(double ns, char *buf, size_t len);

#endif
