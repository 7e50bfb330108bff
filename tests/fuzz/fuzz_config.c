/*
 * fuzz_config.c — config_load (server/config.c) on any file text.  The
 * parser reads a path, so the input is written to a memory file and read
 * through /proc/self/fd.  A refused file must say which line.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64], err[512];

	if (fd < 0 && (fd = memfd_create("fuzz_config", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	struct config *cfg = config_new();
	err[0] = '\0';
	if (config_load(cfg, path, err, sizeof err) != 0)
		FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
		            "message without the file: %s", err);
	config_free(cfg);
	return 0;
}
