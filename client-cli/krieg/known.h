/*
 * known.h — trust on first use: the known_servers file.
 *
 * One server per line, "HOST:PORT SHA256-HEX" (64 lower-case hex digits of
 * the SHA-256 of the server certificate's DER encoding).  Blank lines and
 * lines starting with '#' are ignored.  The first line for a HOST:PORT wins,
 * so a changed certificate is refused until the user deletes that line,
 * exactly as ssh treats known_hosts.
 */
#ifndef KRIEG_KNOWN_H
#define KRIEG_KNOWN_H

#include <stddef.h>

#define KNOWN_FP_HEX 64          /* hex digits of a SHA-256 fingerprint */
#define KNOWN_LINE_MAX 1024      /* longer lines are skipped, never trusted */
#define KNOWN_PATH_MAX 4096

enum known_result {
	KNOWN_MATCH = 0,     /* HOST:PORT is pinned to this fingerprint */
	KNOWN_NEW = 1,       /* HOST:PORT is not in the file (or there is no file) */
	KNOWN_MISMATCH = 2,  /* HOST:PORT is pinned to a different fingerprint: refuse */
	KNOWN_ERROR = 3,     /* the file exists but cannot be read */
};

/*
 * The file to use: $KRIEG_KNOWN_SERVERS if set and non-empty, else
 * $XDG_CONFIG_HOME/krieg/known_servers, else $HOME/.config/krieg/known_servers.
 * Returns 0, or -1 if no path can be formed (no HOME, or too long).
 */
int known_default_path(char *buf, size_t len);

/* Look HOST:PORT up.  On KNOWN_MATCH/KNOWN_MISMATCH, *line (if non-NULL) is the 1-based line. */
enum known_result known_check(const char *path, const char *hostport, const char *fp_hex, int *line);

/*
 * Append a pin, creating the file (mode 0600) and its parent directory
 * (mode 0700) if needed.  Returns 0, or -1 with errno set.
 */
int known_add(const char *path, const char *hostport, const char *fp_hex);

/* "host:port" with the host lower-cased (names are case-insensitive); -1 if too long. */
int known_hostport(const char *host, const char *port, char *buf, size_t len);

#endif
