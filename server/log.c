/*
 * log.c — see log.h.  One write(2)-sized fprintf per line keeps lines from
 * interleaving with other writers to the same stderr.
 */
#include "log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The level is process-wide configuration, set once at start-up. */
/* Read by every thread that logs (the store writer, the checkpointer, the
 * reader), written by the loop at a reload: atomic, or a SIGHUP while the
 * checkpointer logged was a data race (ThreadSanitizer, test_timing). */
static atomic_int log_level = LOGL_INFO;

static const char *const level_names[] = { "debug", "info", "warn", "error" };
/* syslog(3) priorities of the levels: LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR. */
static const int level_priority[] = { 7, 6, 4, 3 };

/* 0: not decided yet; 1: the journal; 2: anything else.  Decided on the
 * first line, before any thread that logs exists; stderr never changes. */
static int log_dest;

/* $JOURNAL_STREAM is "DEVICE:INODE" of the stream systemd connected; it is
 * inherited by children whose stderr may be elsewhere, so compare. */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (js == NULL || sscanf(js, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_set_level(enum log_level lvl)
{
	atomic_store_explicit(&log_level, (int)lvl, memory_order_relaxed);
}

enum log_level log_get_level(void)
{
	return (enum log_level)atomic_load_explicit(&log_level, memory_order_relaxed);
}

int log_level_parse(const char *name)
{
	for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
		if (strcmp(name, level_names[i]) == 0)
			return (int)i;
	if (strcmp(name, "warning") == 0)
		return LOGL_WARN;
	return -1;
}

static void log_emit(enum log_level lvl, const char *fmt, va_list ap, const char *suffix)
{
	char line[2048];
	const char *prefix = "";

	switch (lvl) {
	case LOGL_DEBUG: prefix = "debug: "; break;
	case LOGL_INFO: prefix = ""; break;
	case LOGL_WARN: prefix = "warning: "; break;
	case LOGL_ERROR: prefix = "error: "; break;
	}
	if (log_dest == 0)
		log_dest = stderr_is_journal() ? 1 : 2;
	int n;
	if (log_dest == 1) {
		n = snprintf(line, sizeof line, "<%d>%s", level_priority[lvl], prefix);
	} else {
		struct timespec ts;
		struct tm tm;
		char when[32] = "";

		clock_gettime(CLOCK_REALTIME, &ts);
		if (gmtime_r(&ts.tv_sec, &tm) != NULL)
			strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(line, sizeof line, "%s.%03ldZ kriegd: %s", when, ts.tv_nsec / 1000000L,
		             prefix);
	}
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (suffix != NULL) {
		size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, ": %s", suffix);
	}
	fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

void log_vmsg(enum log_level lvl, const char *fmt, va_list ap)
{
	if (lvl < log_get_level())
		return;
	log_emit(lvl, fmt, ap, NULL);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl < log_get_level())
		return;
	va_start(ap, fmt);
	log_emit(lvl, fmt, ap, NULL);
	va_end(ap);
}

void log_always(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit(lvl, fmt, ap, NULL);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (LOGL_WARN < log_get_level())
		return;
	va_start(ap, fmt);
	log_emit(LOGL_WARN, fmt, ap, strerror(saved));
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	log_emit(LOGL_ERROR, fmt, ap, strerror(saved));
	va_end(ap);
	exit(EXIT_FAILURE);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit(LOGL_ERROR, fmt, ap, NULL);
	va_end(ap);
	exit(EXIT_FAILURE);
}

char *log_escape(const void *s, size_t len, char *buf, size_t buflen)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s;
	size_t o = 0;
	int cut = 0;

	if (buflen == 0)
		return buf;
	if (len > LOG_ESCAPE_MAX) {
		len = LOG_ESCAPE_MAX;
		cut = 1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = p[i];
		char tmp[4];
		size_t n;

		if (ch == '"' || ch == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)ch;
			n = 2;
		} else if (ch < 0x20 || ch >= 0x7f) {
			tmp[0] = '\\';
			tmp[1] = 'x';
			tmp[2] = hex[ch >> 4];
			tmp[3] = hex[ch & 15];
			n = 4;
		} else {
			tmp[0] = (char)ch;
			n = 1;
		}
		if (o + n + 4 >= buflen) {
			cut = 1;
			break;
		}
		memcpy(buf + o, tmp, n);
		o += n;
	}
	if (cut && o + 4 <= buflen) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}
