/*
 * log.h — the daemon's one logger.  Lines go to stderr, in one of two forms:
 *     2025-01-31T18:04:05.123Z kriegd: [level: ]message      (a terminal, a file)
 *     <N>[level: ]message                                    (systemd's journal)
 * The journal is recognised as systemd documents it: $JOURNAL_STREAM names
 * the device and inode of stderr.  There the journal adds the time and the
 * name, and the "<N>" syslog priority prefix (SyslogLevelPrefix=, on by
 * default) keeps the level.  Messages carry key=value fields,
 * e.g. "conn=12 closed reason=idle_timeout".  Anything a client sent is
 * passed through log_escape() first, so a client cannot forge log lines.
 */
#ifndef KRIEG_LOG_H
#define KRIEG_LOG_H

#include <stdarg.h>
#include <stddef.h>

enum log_level {
	LOGL_DEBUG = 0,
	LOGL_INFO = 1,
	LOGL_WARN = 2,
	LOGL_ERROR = 3,
};

#define LOG_ESCAPE_MAX 128     /* client text is cut to this many bytes, then escaped */

void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);
/* "debug", "info", "warn", "error" -> level; -1 if unknown. */
int log_level_parse(const char *name);

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* As log_msg, whatever log_level says: lines that others read and rely
 * on (failed and refused logins: deploy/fail2ban). */
void log_always(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level lvl, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#define log_debug(...) log_msg(LOGL_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOGL_INFO, __VA_ARGS__)
#define log_warnx(...) log_msg(LOGL_WARN, __VA_ARGS__)
/* log_warn/fatal append ": strerror(errno)"; the x variants do not. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Render untrusted bytes printable: at most LOG_ESCAPE_MAX input bytes;
 * ", \ and non-printable bytes become \" \\ \xNN; "..." marks a cut.
 * Returns buf, always NUL-terminated.  buf should hold 4*LOG_ESCAPE_MAX+8. */
char *log_escape(const void *s, size_t len, char *buf, size_t buflen);
#define LOG_ESCAPE_BUF (4 * LOG_ESCAPE_MAX + 8)

#endif
