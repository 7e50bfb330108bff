/*
 * fuzz_config.c — config_load (server/config.c) on any file text.  The
 * parser reads a path, so the input is written to a memory file and read
 * through /proc/self/fd.  A refused file must say which line.  An accepted
 * one must keep config_print's promise (`kriegd --check-config`): what it
 * prints loads again, and prints the same again.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz_util.h"

/* The text of cfg as config_print writes it (malloc'd, NUL-terminated). */
static char *printed(const struct config *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		abort();
	config_print(cfg, f);
	if (fclose(f) != 0)
		abort();
	return text;
}

/* config_load of text through the memory file fd: its result. */
static int load_text(int fd, const char *text, size_t size, struct config *cfg, char *err,
                     size_t errlen)
{
	char path[64];

	if (ftruncate(fd, 0) != 0 || pwrite(fd, text, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	err[0] = '\0';
	int rc = config_load(cfg, path, err, errlen);
	if (rc != 0)
		FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0 && err[strlen(path)] == ':',
		            "message without the file: %s", err);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char err[512];

	if (fd < 0 && (fd = memfd_create("fuzz_config", 0)) < 0)
		abort();
	struct config *cfg = config_new();
	if (load_text(fd, (const char *)data, size, cfg, err, sizeof err) == 0) {
		char *once = printed(cfg);
		struct config *again = config_new();
		FUZZ_ASSERT(load_text(fd, once, strlen(once), again, err, sizeof err) == 0,
		            "printed config refused: %s\n%s", err, once);
		char *twice = printed(again);
		FUZZ_ASSERT(strcmp(once, twice) == 0, "printed differently:\n%s\n--- then\n%s", once,
		            twice);
		free(twice);
		config_free(again);
		free(once);
	}
	config_free(cfg);
	return 0;
}
