/* Small readers of sysfs attributes under a root prefix ("" for the live
 * system, a fixture directory in tests). Nothing here trusts the tree:
 * files may be missing, hold garbage or be symlink loops. */
#ifndef IX_SYSFS_H
#define IX_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ROOT + rel into buf; false when it does not fit. */
bool ix_sysfs_path(char *buf, size_t len, const char *root, const char *rel);
/* The first line of a file, without its newline; -1 (errno set) when it
 * cannot be read or is empty. */
int ix_sysfs_read(const char *path, char *buf, size_t len);
/* A whole decimal or 0x-hex integer; -1 when missing or not a number. */
int ix_sysfs_read_long(const char *path, long *out);
/* Where a symlink or directory really is, relative to ROOT/sys/devices
 * ("pci0000:00/0000:00:01.0/..."); -1 with errno (ELOOP for a loop,
 * EXDEV when it leads outside ROOT/sys/devices). */
int ix_sysfs_device_path(const char *root, const char *path, char *rel, size_t len);
/* The last component of a symlink's target ("mlx5_core" of driver); -1 when
 * it is not a symlink. */
int ix_sysfs_link_name(const char *path, char *buf, size_t len);
/* Whether s is a PCI address as sysfs names functions: "dddd:bb:dd.f", the
 * domain 4 to 8 hex digits ("10000:e1:00.0" behind an Intel VMD), device
 * 00-1f, function 0-7. */
bool ix_sysfs_is_bdf(const char *s);

#endif
