/* Unit tests for report/prom/pcie.c: the PCIe link behind a link found by
 * its network or RDMA device, as trained and as capable, its health and
 * its AER counters. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "report/prom/prom.h"
#include "tests/unit/report/prom/memout.h"

static struct ix_link links[3];
static struct ix_pci_dev devs[2];
static struct ix_top_model model;
static struct ix_pci pci;

static void build(void)
{
	memset(links, 0, sizeof(links));
	memset(devs, 0, sizeof(devs));
	snprintf(links[0].name, sizeof(links[0].name), "ens1f0");
	snprintf(links[1].name, sizeof(links[1].name), "mlx5_0/1");
	snprintf(links[1].dev, sizeof(links[1].dev), "mlx5_0");
	links[1].kind = IX_LINK_IB;
	links[1].port = 1;
	snprintf(links[2].name, sizeof(links[2].name), "veth0"); /* no PCI function */
	snprintf(devs[0].netdevs[0], sizeof(devs[0].netdevs[0]), "ens1f0");
	devs[0].nnetdevs = 1;
	snprintf(devs[0].rdma[0], sizeof(devs[0].rdma[0]), "mlx5_0");
	devs[0].nrdma = 1;
	devs[0].link = (struct ix_pci_link){ .present = true,
					     .speed_gts = 16,
					     .gen = 4,
					     .width = 8,
					     .expected_gen = 5,
					     .expected_width = 16,
					     .downtrained = true };
	devs[0].aer_known = true;
	devs[0].aer_cor = 12;
	memset(&model, 0, sizeof(model));
	model.cur = (struct ix_links){ links, 3 };
	pci = (struct ix_pci){ devs, 2, NULL, 0 };
}

static char *render(void)
{
	struct buf b;

	open_buf(&b);
	ix_prom_pcie(b.f, &model, &pci);
	return close_buf(&b);
}

Test(pcie, trained_and_capable)
{
	char *s;

	build();
	s = render();
	has_lines(
		s,
		(const char *const[]){
			"ixperf_pcie_link_speed_transfers_per_second{interface=\"ens1f0\"} "
			"16000000000\n",
			"ixperf_pcie_link_speed_transfers_per_second{device=\"mlx5_0\",port=\"1\"} "
			"16000000000\n",
			"ixperf_pcie_link_width_lanes{interface=\"ens1f0\"} 8\n",
			"ixperf_pcie_link_capable_speed_transfers_per_second{interface=\"ens1f0\"} "
			"32000000000\n",
			"ixperf_pcie_link_capable_width_lanes{interface=\"ens1f0\"} 16\n",
		},
		5);
	cr_assert(!strstr(s, "veth0"), "a link without a PCI function has no PCIe metrics");
	names_follow_the_rules(s);
	free(s);
}

Test(pcie, health_is_one_class_at_a_time)
{
	char *s;

	build();
	s = render();
	cr_assert(strstr(s,
			 "ixperf_pcie_link_health{interface=\"ens1f0\",class=\"ok\"} 0\n"
			 "ixperf_pcie_link_health{interface=\"ens1f0\",class=\"downtrained\"} 1\n"
			 "ixperf_pcie_link_health{interface=\"ens1f0\",class=\"uncorrectable\"} 0\n"
			 "ixperf_pcie_link_health{interface=\"ens1f0\",class=\"unknown\"} 0\n"));
	cr_assert(strstr(s,
			 "ixperf_pcie_aer_errors_total{interface=\"ens1f0\",class=\"correctable\"} "
			 "12\n"));
	free(s);
	cr_assert_str_eq(ix_prom_pcie_health(&devs[0]), "downtrained");
	devs[0].aer_fatal = 1;
	cr_assert_str_eq(ix_prom_pcie_health(&devs[0]), "uncorrectable");
	devs[0].aer_fatal = 0;
	devs[0].link.downtrained = false;
	cr_assert_str_eq(ix_prom_pcie_health(&devs[0]), "ok");
	devs[0].link.present = false;
	cr_assert_str_eq(ix_prom_pcie_health(&devs[0]), "unknown");
	s = render();
	cr_assert(!strstr(s, "ixperf_pcie_link_width_lanes"), "a link not read has no width");
	cr_assert(strstr(s, "ixperf_pcie_link_health{interface=\"ens1f0\",class=\"unknown\"} 1\n"));
	free(s);
}

Test(pcie, aer_not_read_is_left_out)
{
	char *s;

	build();
	devs[0].aer_known = false;
	s = render();
	cr_assert(!strstr(s, "ixperf_pcie_aer_errors_total"));
	free(s);
}
