/* Interface counters request and reply bodies (probes/ctl/ifwire.h). */
#include "config.h"

#include <string.h>

#include "probes/ctl/ifwire.h"

json_t *ix_ifstats_request(void)
{
	return json_pack("{s:i}", "version", IX_IFSTATS_WIRE_VERSION);
}

int ix_ifstats_request_parse(json_t *j, struct ix_err *err)
{
	json_t *v = json_object_get(j, "version");

	if (!json_is_object(j) || json_object_size(j) != 1 || !json_is_integer(v) ||
	    json_integer_value(v) != IX_IFSTATS_WIRE_VERSION)
		return ix_fail(err, IX_EXIT_USAGE,
			       "interface counters request: it takes only \"version\": %d",
			       IX_IFSTATS_WIRE_VERSION);
	return 0;
}

json_t *ix_ifstats_reply(const struct ix_ifstat *v, uint32_t n, bool truncated)
{
	json_t *a = json_array();

	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(a,
				      json_pack("{s:s,s:b,s:b,s:I,s:I,s:I,s:I}", "name", v[i].name,
						"up", v[i].up, "control", v[i].control, "rx_bytes",
						(json_int_t)v[i].rx_bytes, "tx_bytes",
						(json_int_t)v[i].tx_bytes, "rx_packets",
						(json_int_t)v[i].rx_packets, "tx_packets",
						(json_int_t)v[i].tx_packets));
	return json_pack("{s:i,s:b,s:o}", "version", IX_IFSTATS_WIRE_VERSION, "truncated",
			 truncated, "ifaces", a);
}

/* A counter: an integer from 0 (the wire carries the kernel's 64 bits as
 * far as a JSON integer goes). */
static bool counter(json_t *o, const char *k, uint64_t *out)
{
	json_t *x = json_object_get(o, k);

	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return false;
	*out = (uint64_t)json_integer_value(x);
	return true;
}

/* An interface name as Linux allows it: 1 to 15 printable characters, no
 * space or slash. */
static bool good_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= IX_IFNAME_SIZE)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || s[i] == '/')
			return false;
	return true;
}

int ix_ifstats_reply_parse(json_t *j, struct ix_ifstat *v, uint32_t *n, bool *truncated,
			   struct ix_err *err)
{
	json_t *a = json_object_get(j, "ifaces"), *o;
	size_t i;

	*n = 0;
	if (!json_is_object(j) || !json_is_integer(json_object_get(j, "version")) ||
	    json_integer_value(json_object_get(j, "version")) != IX_IFSTATS_WIRE_VERSION)
		return ix_fail(err, IX_EXIT_FAIL, "interface counters: not a version %d reply",
			       IX_IFSTATS_WIRE_VERSION);
	if (!json_is_array(a) || json_array_size(a) > IX_IFSTAT_MAX)
		return ix_fail(err, IX_EXIT_FAIL,
			       "interface counters: 'ifaces' is not a list of %d at most",
			       IX_IFSTAT_MAX);
	*truncated = json_is_true(json_object_get(j, "truncated"));
	json_array_foreach(a, i, o)
	{
		const char *name = json_string_value(json_object_get(o, "name"));
		struct ix_ifstat *s = &v[i];

		memset(s, 0, sizeof(*s));
		if (!good_name(name) || !json_is_boolean(json_object_get(o, "up")) ||
		    !json_is_boolean(json_object_get(o, "control")) ||
		    !counter(o, "rx_bytes", &s->rx_bytes) ||
		    !counter(o, "tx_bytes", &s->tx_bytes) ||
		    !counter(o, "rx_packets", &s->rx_packets) ||
		    !counter(o, "tx_packets", &s->tx_packets))
			return ix_fail(err, IX_EXIT_FAIL,
				       "interface counters: entry %zu is malformed", i);
		memcpy(s->name, name, strlen(name) + 1);
		s->up = json_is_true(json_object_get(o, "up"));
		s->control = json_is_true(json_object_get(o, "control"));
		for (size_t k = 0; k < i; k++)
			if (strcmp(v[k].name, s->name) == 0)
				return ix_fail(err, IX_EXIT_FAIL,
					       "interface counters: '%s' listed twice", s->name);
	}
	*n = (uint32_t)json_array_size(a);
	return 0;
}
