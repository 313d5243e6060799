/* Unit tests for report/fmt/units.c: strict parsing of sizes, rates, durations
 * and integers; unit choices and formatting; size sweeps. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/fmt/units.h"

static uint64_t size_ok(const char *s)
{
	struct ix_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(ix_parse_size(s, &v, &err), 0, "size '%s' refused: %s", s, err.msg);
	return v;
}

static void size_bad(const char *s, const char *msg_part)
{
	struct ix_err err = { 0 };
	uint64_t v = 12345;

	cr_assert_eq(ix_parse_size(s, &v, &err), -1, "size '%s' accepted as %llu", s,
		     (unsigned long long)v);
	cr_assert_eq(err.code, IX_EXIT_USAGE, "size '%s': code %d", s, err.code);
	cr_assert_eq(v, 12345, "size '%s': output written on failure", s);
	if (msg_part)
		cr_assert_not_null(strstr(err.msg, msg_part), "size '%s': message '%s' lacks '%s'",
				   s, err.msg, msg_part);
}

static uint64_t rate_ok(const char *s)
{
	struct ix_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(ix_parse_rate(s, &v, &err), 0, "rate '%s' refused: %s", s, err.msg);
	return v;
}

static void rate_bad(const char *s)
{
	struct ix_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(ix_parse_rate(s, &v, &err), -1, "rate '%s' accepted as %llu", s,
		     (unsigned long long)v);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_neq(err.msg[0], '\0');
}

static double secs_ok(const char *s)
{
	struct ix_err err = { 0 };
	double v = -1;

	cr_assert_eq(ix_parse_seconds(s, &v, &err), 0, "seconds '%s' refused: %s", s, err.msg);
	return v;
}

static void secs_bad(const char *s)
{
	struct ix_err err = { 0 };
	double v = 0;

	cr_assert_eq(ix_parse_seconds(s, &v, &err), -1, "seconds '%s' accepted as %g", s, v);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
}

/* ---- sizes -------------------------------------------------------------- */

Test(size, bare_prefixes_are_binary_as_in_iperf3_and_perftest)
{
	cr_assert_eq(size_ok("0"), 0);
	cr_assert_eq(size_ok("64"), 64);
	cr_assert_eq(size_ok("64B"), 64);
	cr_assert_eq(size_ok("64K"), 65536);
	cr_assert_eq(size_ok("64k"), 65536);
	cr_assert_eq(size_ok("128K"), 131072); /* iperf3 -l 128K */
	cr_assert_eq(size_ok("1.5M"), 1572864);
	cr_assert_eq(size_ok("2G"), 2147483648ull);
	cr_assert_eq(size_ok("3T"), 3298534883328ull);
	cr_assert_eq(size_ok(".5K"), 512);
}

Test(size, only_kB_is_decimal)
{
	cr_assert_eq(size_ok("64kB"), 64000);
	cr_assert_eq(size_ok(".3kB"), 300);
	/* iperf3 -l 128KB, -l 1MB: the letter counts, not the B */
	cr_assert_eq(size_ok("64KB"), 65536);
	cr_assert_eq(size_ok("1.5MB"), 1572864);
	cr_assert_eq(size_ok("2GB"), 2147483648ull);
	cr_assert_eq(size_ok("3TB"), 3298534883328ull);
}

Test(size, binary)
{
	cr_assert_eq(size_ok("64Ki"), 65536);
	cr_assert_eq(size_ok("64KiB"), 65536);
	cr_assert_eq(size_ok("1.5Ki"), 1536);
	cr_assert_eq(size_ok("1Mi"), 1048576);
	cr_assert_eq(size_ok("2GiB"), 2147483648ull);
	cr_assert_eq(size_ok("1Ti"), 1099511627776ull);
	cr_assert_eq(size_ok("0.5Ki"), 512);
}

Test(size, largest_values)
{
	/* 16 Ei - 1 Gi fits; both are exact in a double. */
	cr_assert_eq(size_ok("17179869183Gi"), 17179869183ull << 30);
	cr_assert_eq(size_ok("18446744073709549568"), 18446744073709549568ull);
}

Test(size, refuses_junk)
{
	size_bad("12x", "unknown suffix");
	size_bad("12 K", "unknown suffix");
	size_bad("64b", "unknown suffix");
	size_bad("1e3", "unknown suffix");
	size_bad("K", "not a number");
	size_bad("", "empty");
	size_bad("1..2", "not a number");
	size_bad(".", "not a number");
	size_bad("-5", "negative");
	size_bad(" 5", "not a number");
	size_bad("+5", "not a number");
	size_bad("5KK", "unknown suffix");
}

Test(size, refuses_fractional_bytes)
{
	size_bad("1.1Ki", "whole number");
	size_bad("0.5", "whole number");
	size_bad("1.0001kB", "whole number");
	size_bad("0.3K", "whole number"); /* 307.2 bytes */
}

Test(size, refuses_overflow)
{
	size_bad("99999999999999999999", "too large");
	size_bad("20000000000Gi", "too large");
	size_bad("20000000T", "too large");
}

Test(size, null_is_empty)
{
	struct ix_err err = { 0 };
	uint64_t v;

	cr_assert_eq(ix_parse_size(NULL, &v, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
}

/* Decimal fractions of the SI kilobyte name whole byte counts ("1.1kB" is
 * 1100 bytes) although 1.1 is not exact in binary: the number is kept as
 * decimal digits. */
Test(size, decimal_fraction_with_si_unit)
{
	cr_assert_eq(size_ok("1.1kB"), 1100);
	cr_assert_eq(size_ok("0.3kB"), 300);
	cr_assert_eq(size_ok("2.2kB"), 2200);
	cr_assert_eq(size_ok("0.25K"), 256);
}

/* ---- rates -------------------------------------------------------------- */

Test(rate, bits)
{
	cr_assert_eq(rate_ok("0"), 0);
	cr_assert_eq(rate_ok("1000"), 1000);
	cr_assert_eq(rate_ok("200M"), 200000000ull);
	cr_assert_eq(rate_ok("200Mbit"), 200000000ull);
	cr_assert_eq(rate_ok("200Mbps"), 200000000ull);
	cr_assert_eq(rate_ok("200Mb"), 200000000ull);
	cr_assert_eq(rate_ok("200Mbit/s"), 200000000ull);
	cr_assert_eq(rate_ok("1.5G"), 1500000000ull);
	cr_assert_eq(rate_ok("10k"), 10000);
	cr_assert_eq(rate_ok("1Gi"), 1ull << 30);
	cr_assert_eq(rate_ok("1.1K"), 1100);
}

Test(rate, bytes_are_eight_bits)
{
	cr_assert_eq(rate_ok("25MB"), 200000000ull);
	cr_assert_eq(rate_ok("25MB/s"), 200000000ull);
	cr_assert_eq(rate_ok("25MBps"), 200000000ull);
	cr_assert_eq(rate_ok("1Kbyte"), 8000);
	cr_assert_eq(rate_ok("1KByte/s"), 8000);
	cr_assert_eq(rate_ok("1GiB/s"), 8ull << 30);
	cr_assert_eq(rate_ok("1B"), 8);
}

Test(rate, rounds_to_whole_bits)
{
	cr_assert_eq(rate_ok("0.4"), 0);
	cr_assert_eq(rate_ok("0.5"), 1);
	cr_assert_eq(rate_ok("2.6"), 3);
}

Test(rate, refuses_junk)
{
	rate_bad("10x");
	rate_bad("-1");
	rate_bad("");
	rate_bad("M");
	rate_bad("1.2.3M");
	rate_bad("10Mbit/h");
	rate_bad("10m");
	rate_bad("99999999999999999999");
	rate_bad("3000000000GB");
}

/* ---- durations ---------------------------------------------------------- */

Test(seconds, units)
{
	cr_assert_float_eq(secs_ok("10"), 10.0, 1e-12);
	cr_assert_float_eq(secs_ok("2.5"), 2.5, 1e-12);
	cr_assert_float_eq(secs_ok("3s"), 3.0, 1e-12);
	cr_assert_float_eq(secs_ok("500ms"), 0.5, 1e-12);
	cr_assert_float_eq(secs_ok("250us"), 0.00025, 1e-15);
	cr_assert_float_eq(secs_ok("2m"), 120.0, 1e-12);
	cr_assert_float_eq(secs_ok("2min"), 120.0, 1e-12);
	cr_assert_float_eq(secs_ok("1h"), 3600.0, 1e-12);
	cr_assert_float_eq(secs_ok("0"), 0.0, 1e-12);
	cr_assert_float_eq(secs_ok("8760h"), 31536000.0, 1e-6);
}

Test(seconds, refuses_junk)
{
	secs_bad("5x");
	secs_bad("-1");
	secs_bad("");
	secs_bad("ms");
	secs_bad("1d");
	secs_bad("5 s");
	secs_bad("1e3");
	secs_bad("8761h"); /* over a year */
}

/* ---- plain integers ----------------------------------------------------- */

Test(uint, values_and_range)
{
	struct ix_err err = { 0 };
	uint64_t v = 0;

	cr_assert_eq(ix_parse_uint("42", 0, 100, &v, &err), 0);
	cr_assert_eq(v, 42);
	cr_assert_eq(ix_parse_uint("007", 0, 100, &v, &err), 0);
	cr_assert_eq(v, 7);
	cr_assert_eq(ix_parse_uint("1", 1, 1, &v, &err), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(ix_parse_uint("18446744073709551615", 0, UINT64_MAX, &v, &err), 0);
	cr_assert_eq(v, UINT64_MAX);
}

Test(uint, out_of_range_names_the_range)
{
	struct ix_err err = { 0 };
	uint64_t v = 99;

	cr_assert_eq(ix_parse_uint("0", 1, 10, &v, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "[1, 10]"), "message: %s", err.msg);
	cr_assert_eq(ix_parse_uint("11", 1, 10, &v, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_eq(v, 99);
}

Test(uint, refuses_junk_and_overflow)
{
	static const char *const bad[] = { "",
					   "-1",
					   "1e3",
					   "0x10",
					   "+5",
					   " 5",
					   "5 ",
					   "1.0",
					   "12a",
					   "18446744073709551616",
					   "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ix_err err = { 0 };
		uint64_t v = 0;

		cr_assert_eq(ix_parse_uint(bad[i], 0, UINT64_MAX, &v, &err), -1, "'%s' accepted",
			     bad[i]);
		cr_assert_eq(err.code, IX_EXIT_USAGE);
	}
}

Test(uint, overflow_message)
{
	struct ix_err err = { 0 };
	uint64_t v;

	cr_assert_eq(ix_parse_uint("18446744073709551616", 0, UINT64_MAX, &v, &err), -1);
	cr_assert_not_null(strstr(err.msg, "too large"), "message: %s", err.msg);
}

/* ---- unit choices and formatting --------------------------------------- */

Test(units, parse_choices)
{
	struct ix_unit_choice u;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_parse_units("bits", &u, &err), 0);
	cr_assert_eq(u.kind, IX_UNITS_BITS);
	cr_assert_eq(ix_parse_units("bytes", &u, &err), 0);
	cr_assert_eq(u.kind, IX_UNITS_BYTES);
	cr_assert_eq(ix_parse_units("Gbit", &u, &err), 0);
	cr_assert_eq(u.kind, IX_UNITS_FIXED);
	cr_assert_float_eq(u.divisor, 1e9, 1e-3);
	cr_assert_str_eq(u.label, "Gbit");
	cr_assert_eq(ix_parse_units("MB", &u, &err), 0);
	cr_assert_float_eq(u.divisor, 8e6, 1e-3);
	cr_assert_eq(ix_parse_units("GiB", &u, &err), 0);
	cr_assert_float_eq(u.divisor, 8.0 * 1073741824.0, 1e-3);
	cr_assert_str_eq(u.label, "GiB");
}

Test(units, refuses_unknown)
{
	struct ix_unit_choice u;
	struct ix_err err = { 0 };

	cr_assert_eq(ix_parse_units("furlongs", &u, &err), -1);
	cr_assert_eq(err.code, IX_EXIT_USAGE);
	cr_assert_not_null(strstr(err.msg, "furlongs"));
	cr_assert_eq(ix_parse_units("gbit", &u, &err), -1);
	cr_assert_eq(ix_parse_units("", &u, &err), -1);
}

static const char *rate_str(double bps, const char *unit)
{
	static char buf[64];
	struct ix_unit_choice u;
	struct ix_err err;

	if (unit) {
		cr_assert_eq(ix_parse_units(unit, &u, &err), 0);
		ix_fmt_rate(bps, &u, buf, sizeof(buf));
	} else {
		ix_fmt_rate(bps, NULL, buf, sizeof(buf));
	}
	return buf;
}

Test(fmt, rate_auto_bits)
{
	cr_assert_str_eq(rate_str(0, NULL), "0.00 bit/s");
	cr_assert_str_eq(rate_str(5, NULL), "5.00 bit/s");
	cr_assert_str_eq(rate_str(999, NULL), "999 bit/s");
	cr_assert_str_eq(rate_str(1e9, NULL), "1.00 Gbit/s");
	cr_assert_str_eq(rate_str(12.34e6, NULL), "12.3 Mbit/s");
	cr_assert_str_eq(rate_str(123456789, NULL), "123 Mbit/s");
	cr_assert_str_eq(rate_str(9.41e9, "bits"), "9.41 Gbit/s");
	cr_assert_str_eq(rate_str(2.5e15, NULL), "2.50 Pbit/s");
	cr_assert_str_eq(rate_str(2.5e18, NULL), "2500 Pbit/s");
}

Test(fmt, rate_auto_bytes)
{
	cr_assert_str_eq(rate_str(8e9, "bytes"), "1.00 GB/s");
	cr_assert_str_eq(rate_str(800, "bytes"), "100 B/s");
}

Test(fmt, rate_fixed)
{
	cr_assert_str_eq(rate_str(2.5e9, "Gbit"), "2.50 Gbit/s");
	cr_assert_str_eq(rate_str(2.5e9, "Mbit"), "2500.00 Mbit/s");
	cr_assert_str_eq(rate_str(8.0 * 1048576 * 3, "MiB"), "3.00 MiB/s");
	cr_assert_str_eq(rate_str(8e6, "MB"), "1.00 MB/s");
}

Test(fmt, bytes)
{
	char buf[64];
	struct ix_unit_choice u;
	struct ix_err err;

	ix_fmt_bytes(1500, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.50 KB");
	ix_fmt_bytes(12, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "12.0 B");
	ix_fmt_bytes(3.5e9, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3.50 GB");
	cr_assert_eq(ix_parse_units("MB", &u, &err), 0);
	ix_fmt_bytes(2e6, &u, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2.00 MB");
	cr_assert_eq(ix_parse_units("Mbit", &u, &err), 0);
	ix_fmt_bytes(1e6, &u, buf, sizeof(buf));
	cr_assert_str_eq(buf, "8.00 Mbit");
	/* "bit" is finer than a byte: sizes fall back to automatic bytes. */
	cr_assert_eq(ix_parse_units("bit", &u, &err), 0);
	ix_fmt_bytes(2048, &u, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2.05 KB");
}

Test(fmt, nanoseconds)
{
	char buf[32];

	ix_fmt_ns(0, buf, sizeof(buf));
	cr_assert_str_eq(buf, "0 ns");
	ix_fmt_ns(812, buf, sizeof(buf));
	cr_assert_str_eq(buf, "812 ns");
	ix_fmt_ns(1500, buf, sizeof(buf));
	cr_assert_str_eq(buf, "1.50 us");
	ix_fmt_ns(12400, buf, sizeof(buf));
	cr_assert_str_eq(buf, "12.4 us");
	ix_fmt_ns(3.1e6, buf, sizeof(buf));
	cr_assert_str_eq(buf, "3.10 ms");
	ix_fmt_ns(2.5e9, buf, sizeof(buf));
	cr_assert_str_eq(buf, "2.500 s");
}

Test(fmt, truncates_to_buffer)
{
	char buf[6];

	ix_fmt_rate(1e9, NULL, buf, sizeof(buf));
	cr_assert_eq(strlen(buf), 5);
	cr_assert_str_eq(buf, "1.00 ");
}

/* The sizes of a sweep (bw -a, lat -a, a plan's sizes = up to N). */
Test(sweep, powers_of_two_within_bounds)
{
	uint64_t sizes[64];
	size_t n = ix_size_sweep(8, 100, sizes, 64);

	cr_assert_eq(n, 4);
	cr_assert_eq(sizes[0], 8);
	cr_assert_eq(sizes[3], 64);
	cr_assert_eq(ix_size_sweep(1, 1, sizes, 64), 1);
	cr_assert_eq(ix_size_sweep(1, UINT64_MAX / 2, sizes, 5), 5, "capped by the array");
	cr_assert_eq(ix_size_sweep(200, 100, sizes, 64), 0);
}

/* Both readings, in every spelling. */
Test(units, size_spellings)
{
	uint64_t v;
	struct ix_err err = { 0 };

	/* every spelling of both readings */
	cr_assert_eq(ix_parse_size("128K", &v, &err), 0);
	cr_expect_eq(v, 131072);
	cr_assert_eq(ix_parse_size("128Ki", &v, &err), 0);
	cr_expect_eq(v, 131072);
	cr_assert_eq(ix_parse_size("128KB", &v, &err), 0);
	cr_expect_eq(v, 131072);
	cr_assert_eq(ix_parse_size("128kB", &v, &err), 0);
	cr_expect_eq(v, 128000);
	cr_assert_eq(ix_parse_size("128KiB", &v, &err), 0);
	cr_expect_eq(v, 131072);
}
