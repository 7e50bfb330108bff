/*
 * known.c — the known_servers file (see known.h).
 */
#include "known.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int known_default_path(char *buf, size_t len)
{
	const char *env = getenv("KRIEG_KNOWN_SERVERS");
	int n;

	if (env && *env)
		n = snprintf(buf, len, "%s", env);
	else if ((env = getenv("XDG_CONFIG_HOME")) && *env)
		n = snprintf(buf, len, "%s/krieg/known_servers", env);
	else if ((env = getenv("HOME")) && *env)
		n = snprintf(buf, len, "%s/.config/krieg/known_servers", env);
	else
		return -1;
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int known_hostport(const char *host, const char *port, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s:%s", host, port);
	if (n < 0 || (size_t)n >= len)
		return -1;
	for (size_t i = 0, hl = strlen(host); i < hl; i++)
		buf[i] = (char)tolower((unsigned char)buf[i]);
	return 0;
}

static bool fp_valid(const char *fp)
{
	size_t i;
	for (i = 0; fp[i]; i++)
		if (!isxdigit((unsigned char)fp[i]))
			return false;
	return i == KNOWN_FP_HEX;
}

enum known_result known_check(const char *path, const char *hostport, const char *fp_hex, int *line)
{
	FILE *f = fopen(path, "r");
	char buf[KNOWN_LINE_MAX + 2];
	int lineno = 0;
	bool skipping = false;   /* inside an over-long line */

	if (!f)
		return errno == ENOENT ? KNOWN_NEW : KNOWN_ERROR;
	while (fgets(buf, sizeof buf, f)) {
		size_t n = strlen(buf);
		bool complete = n > 0 && buf[n - 1] == '\n';
		if (skipping) {
			skipping = !complete;
			continue;
		}
		lineno++;
		if (!complete && !feof(f)) {
			skipping = true;   /* an over-long line pins nothing */
			continue;
		}
		char *save = NULL;
		char *host = strtok_r(buf, " \t\r\n", &save);
		char *fp = host ? strtok_r(NULL, " \t\r\n", &save) : NULL;
		if (!host || host[0] == '#' || !fp || !fp_valid(fp))
			continue;
		if (strcasecmp(host, hostport) != 0)
			continue;
		fclose(f);
		if (line)
			*line = lineno;
		return strcasecmp(fp, fp_hex) == 0 ? KNOWN_MATCH : KNOWN_MISMATCH;
	}
	bool err = ferror(f);
	fclose(f);
	return err ? KNOWN_ERROR : KNOWN_NEW;
}

/* mkdir -p of path's parent directory, private to the user. */
static int make_parent(const char *path)
{
	char dir[KNOWN_PATH_MAX];
	if (strlen(path) >= sizeof dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

int known_add(const char *path, const char *hostport, const char *fp_hex)
{
	if (!fp_valid(fp_hex) || strchr(hostport, ' ') || strchr(hostport, '\n')) {
		errno = EINVAL;
		return -1;
	}
	if (make_parent(path) != 0)
		return -1;
	/* A file whose last line lacks its newline must not swallow ours. */
	bool need_nl = false;
	FILE *r = fopen(path, "r");
	if (r) {
		need_nl = fseek(r, -1, SEEK_END) == 0 && fgetc(r) != '\n';
		fclose(r);
	}
	mode_t old = umask(077);
	FILE *f = fopen(path, "a");
	umask(old);
	if (!f)
		return -1;
	int rc = 0;
	if (need_nl)
		rc = fputc('\n', f) == EOF ? -1 : 0;
	if (rc == 0 && fprintf(f, "%s %s\n", hostport, fp_hex) < 0)
		rc = -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}
