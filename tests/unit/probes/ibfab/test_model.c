/* Unit tests for probes/ibfab/model.c: nodes and ports, the PortInfo
 * encodings' names and rates, the first read's counters carried over. */
#include "config.h"

#include <string.h>

#include <criterion/criterion.h>

#include "probes/ibfab/ibfab.h"

Test(model, nodes_ports_and_lookup)
{
	struct ix_ibfab f;
	struct ix_ibfab_node *n;
	char l[96];

	ix_ibfab_init(&f);
	for (int i = 0; i < 40; i++) /* past the first allocation */
		cr_assert_not_null(ix_ibfab_add(&f, 0x100 + (uint64_t)i, i % 2, "", 36));
	n = ix_ibfab_add(&f, 0xabc, true, "leaf \"7\"", 36);
	cr_assert_not_null(n);
	cr_assert_eq(ix_ibfab_find(&f, 0xabc), 40);
	cr_assert_eq(ix_ibfab_find(&f, 0xdead), -1);
	cr_assert_eq(ix_ibfab_port(&f, 40, 36)->num, 36);
	cr_assert_eq(ix_ibfab_port(&f, 40, 36)->peer_node, -1, "no cable until one is found");
	cr_assert_null(ix_ibfab_port(&f, 40, 37));
	cr_assert_null(ix_ibfab_port(&f, 41, 1));
	cr_assert_null(ix_ibfab_port(&f, -1, 1));
	cr_assert_str_eq(ix_ibfab_port_label(&f, 40, 3, l, sizeof(l)), "\"leaf \"7\"\"/3");
	cr_assert_str_eq(ix_ibfab_port_label(&f, 0, 1, l, sizeof(l)), "0x0000000000000100/1");
	ix_ibfab_free(&f);
	cr_assert_eq(f.n, 0);
}

Test(model, widths_speeds_and_rates)
{
	struct ix_ibfab_port p = { .width_active = 2, .speed_active = 4 };

	cr_assert_eq(ix_ibfab_lanes(1), 1);
	cr_assert_eq(ix_ibfab_lanes(3), 4, "the widest of 1X and 4X");
	cr_assert_eq(ix_ibfab_lanes(16), 2);
	cr_assert_eq(ix_ibfab_lanes(31), 12);
	cr_assert_eq(ix_ibfab_lanes(0), 0);
	cr_assert_str_eq(ix_ibfab_width_name(8), "12X");
	cr_assert_str_eq(ix_ibfab_width_name(0), "?");
	cr_assert_str_eq(ix_ibfab_speed_name(7, 0), "QDR");
	cr_assert_str_eq(ix_ibfab_speed_name(7, 1), "FDR", "an extended speed wins");
	cr_assert_str_eq(ix_ibfab_speed_name(7, 15), "NDR");
	cr_assert_str_eq(ix_ibfab_speed_name(0, 0), "?");
	cr_assert_float_eq(ix_ibfab_port_gbps(&p), 32, 1e-9, "4X QDR: 32 Gbit/s of data");
	p.ext_active = 4;
	cr_assert_float_eq(ix_ibfab_port_gbps(&p), 200, 1e-9, "4X HDR");
	p.ext_active = 1;
	cr_assert_float_eq(ix_ibfab_port_gbps(&p), 4 * 14.0625 * 64 / 66, 1e-9, "4X FDR");
}

Test(model, counter_names_and_which_count_errors)
{
	cr_assert_str_eq(ix_ibfab_ctr_name(IX_IBC_SYMBOL_ERRORS), "SymbolErrorCounter");
	cr_assert_str_eq(ix_ibfab_ctr_name(IX_IBC_XMIT_WAIT), "PortXmitWait");
	cr_assert_str_eq(ix_ibfab_ctr_name(IX_IBC_N), "?");
	cr_assert(ix_ibfab_ctr_is_error(IX_IBC_XMIT_DISCARDS));
	cr_assert(ix_ibfab_ctr_is_error(IX_IBC_EXCESS_OVERRUN));
	cr_assert_not(ix_ibfab_ctr_is_error(IX_IBC_XMIT_WAIT));
	cr_assert_not(ix_ibfab_ctr_is_error(IX_IBC_RCV_SWITCH_RELAY));
	cr_assert_not(ix_ibfab_ctr_is_error(IX_IBC_XMIT_DATA));
}

Test(model, the_first_read_is_carried_by_guid_and_port)
{
	struct ix_ibfab a, b;

	ix_ibfab_init(&a);
	ix_ibfab_init(&b);
	ix_ibfab_add(&a, 0x1, true, "s", 4);
	ix_ibfab_add(&a, 0x2, false, "h", 1);
	a.nodes[0].ports[3].ctr[0] = (struct ix_ibfab_counters){ .valid = true, .v = { 5 } };
	/* the second read found them in another order, and one more node */
	ix_ibfab_add(&b, 0x3, false, "new", 1);
	ix_ibfab_add(&b, 0x2, false, "h", 1);
	ix_ibfab_add(&b, 0x1, true, "s", 4);
	ix_ibfab_take_first(&b, &a);
	cr_assert(b.nodes[2].ports[3].ctr[0].valid);
	cr_assert_eq(b.nodes[2].ports[3].ctr[0].v[0], 5);
	cr_assert_not(b.nodes[0].ports[1].ctr[0].valid);
	ix_ibfab_free(&a);
	ix_ibfab_free(&b);
}

/* Each cable once, from its lower end; what a counter moved, a cleared one
 * from 0; the state names. */
Test(model, cables_counts_moved_and_states)
{
	struct ix_ibfab f;
	struct ix_ibfab_port *p;
	uint32_t sw, cables;

	ix_ibfab_init(&f);
	ix_ibfab_add(&f, 0x1, true, "s", 4);
	ix_ibfab_add(&f, 0x2, false, "h", 1);
	f.nodes[0].ports[2].peer_node = 1;
	f.nodes[0].ports[2].peer_port = 1;
	f.nodes[1].ports[1].peer_node = 0;
	f.nodes[1].ports[1].peer_port = 2;
	f.nodes[0].ports[3].peer_node = 0; /* a loop from port 3 to port 4 */
	f.nodes[0].ports[3].peer_port = 4;
	f.nodes[0].ports[4].peer_node = 0;
	f.nodes[0].ports[4].peer_port = 3;
	cr_assert(ix_ibfab_cable_here(&f, 0, 2));
	cr_assert_not(ix_ibfab_cable_here(&f, 1, 1));
	cr_assert(ix_ibfab_cable_here(&f, 0, 3));
	cr_assert_not(ix_ibfab_cable_here(&f, 0, 4));
	cr_assert_not(ix_ibfab_cable_here(&f, 0, 1), "no cable");
	cr_assert_not(ix_ibfab_cable_here(&f, 0, 9), "no port");
	ix_ibfab_counts(&f, &sw, &cables);
	cr_assert_eq(sw, 1);
	cr_assert_eq(cables, 2);
	p = &f.nodes[0].ports[2];
	p->ctr[0] = (struct ix_ibfab_counters){ .valid = true };
	p->ctr[1] = p->ctr[0];
	p->ctr[0].v[IX_IBC_RCV_ERRORS] = 4;
	p->ctr[1].v[IX_IBC_RCV_ERRORS] = 9;
	p->ctr[0].v[IX_IBC_LINK_DOWNED] = 6;
	p->ctr[1].v[IX_IBC_LINK_DOWNED] = 2;
	cr_assert_eq(ix_ibfab_moved(p, IX_IBC_RCV_ERRORS), 5);
	cr_assert_eq(ix_ibfab_moved(p, IX_IBC_LINK_DOWNED), 2, "cleared, then 2");
	p->ctr[1].valid = false;
	cr_assert_eq(ix_ibfab_moved(p, IX_IBC_RCV_ERRORS), 0, "one read: nothing moved");
	cr_assert_str_eq(ix_ibfab_state_name(4), "Active");
	cr_assert_str_eq(ix_ibfab_state_name(2), "Init");
	cr_assert_str_eq(ix_ibfab_state_name(9), "?");
	ix_ibfab_free(&f);
}
