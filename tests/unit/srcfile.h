/*
 * srcfile.h — a file of the source tree, read whole by a unit test that
 * checks a document against the code (test_protocol_doc: PROTOCOL.md and
 * the dispatch tables; test_client_doc: krieg.1 and the command table).
 *
 * srcfile_read(rel, env, me, path, len) finds rel (a path from the
 * repository's root) from $env, a -DKRIEG_SRCDIR define, the test's
 * compile-time path `me` (its __FILE__: "tests/unit/test_..." from the
 * root, or absolute), or by walking up from the working directory
 * (tests/run-tests.sh runs from the root) and from the binary
 * (build/<tree>/tests/unit/).  Returns its text (malloc'd, NUL-ended) with
 * where it was found in path, or NULL.
 */
#ifndef KRIEG_SRCFILE_H
#define KRIEG_SRCFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool srcfile_try(const char *dir, const char *rel, char *path, size_t len)
{
	int n = snprintf(path, len, "%s%s%s", dir, *dir && dir[strlen(dir) - 1] != '/' ? "/" : "", rel);
	return n >= 0 && (size_t)n < len && access(path, R_OK) == 0;
}

/* dir and up to `levels` of its parents. */
static bool srcfile_upwards(const char *start, int levels, const char *rel, char *path, size_t len)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", start);
	for (int i = 0; i <= levels; i++) {
		if (srcfile_try(dir, rel, path, len))
			return true;
		char *slash = strrchr(dir, '/');
		if (slash == NULL || slash == dir)
			return false;
		*slash = '\0';
	}
	return false;
}

static bool srcfile_find(const char *rel, const char *env, const char *me, char *path, size_t len)
{
	const char *set = getenv(env);
	if (set != NULL && *set != '\0')
		return srcfile_try("", set, path, len);
#ifdef KRIEG_SRCDIR
	if (srcfile_try(KRIEG_SRCDIR, rel, path, len))
		return true;
#endif
	const char *tail = strstr(me, "tests/unit/");
	if (tail != NULL) {
		char root[PATH_MAX];
		snprintf(root, sizeof root, "%.*s", (int)(tail - me), me);
		if (srcfile_try(root, rel, path, len))
			return true;
	}
	char dir[PATH_MAX];
	if (getcwd(dir, sizeof dir) != NULL && srcfile_upwards(dir, 6, rel, path, len))
		return true;
	ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n > 0) {
		dir[n] = '\0';
		char *slash = strrchr(dir, '/');
		if (slash != NULL)
			*slash = '\0';
		if (srcfile_upwards(dir, 6, rel, path, len))
			return true;
	}
	snprintf(path, len, "%s", rel);
	return false;
}

static char *srcfile_read(const char *rel, const char *env, const char *me, char *path, size_t len)
{
	if (!srcfile_find(rel, env, me, path, len))
		return NULL;
	FILE *f = fopen(path, "r");
	struct stat sb;
	if (f == NULL || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
		/* a directory opens, and its "size" is no file's (an $env naming
		 * the source tree, not the file) */
		if (f != NULL)
			fclose(f);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
	size_t got = s != NULL ? fread(s, 1, (size_t)n, f) : 0;
	fclose(f);
	if (s != NULL)
		s[got] = '\0';
	return s;
}

#endif
