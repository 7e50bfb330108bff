/*
 * harness_client.h — the real krieg binary as a child process, for the
 * tests that drive it (test_client, test_client_watch): where the binary
 * is, a private scratch directory with the known_servers file the client
 * is pointed at, and a process with its stdin a pipe and its output read
 * into buffers.  (The pseudo-terminal driving stays in test_client.c, its
 * one user.)
 */
#ifndef KRIEG_HARNESS_CLIENT_H
#define KRIEG_HARNESS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Output kept per stream; more is dropped. */
#define KCL_OUT_MAX (256 * 1024)

/* A binary: $env if set, else asan if executable, else plain. */
const char *kcl_bin_path(const char *env, const char *asan, const char *plain);
/* The client: $KRIEG, else build/asan/bin/krieg, else bin/krieg. */
const char *kcl_krieg_path(void);
/* Monotonic milliseconds, for deadlines. */
long kcl_now_ms(void);

/* A test's scratch directory, and its known_servers path (the file need
 * not exist). */
struct kcl_scratch {
	char dir[128];
	char known[192];
};

/* Make a fresh one under $TMPDIR (else /tmp) named prefix-XXXXXX. */
void kcl_scratch_make(struct kcl_scratch *s, const char *prefix);
/* Remove it and everything in it. */
void kcl_scratch_remove(const struct kcl_scratch *s);

/* A child: its stdin a pipe; its stdout into obuf and its stderr into
 * ebuf, or (merged) both into obuf.  The buffers stay NUL-terminated. */
struct kcl_proc {
	pid_t pid;
	int in, out, err;
	char *obuf, *ebuf;
	size_t olen, elen;
	int status;
	bool done;
};

/* Start argv[0] with argv, KRIEG_KNOWN_SERVERS=known. */
void kcl_proc_start(struct kcl_proc *p, char *const argv[], const char *known, bool merged);
/* Write text to its stdin (asserted whole). */
void kcl_proc_write(struct kcl_proc *p, const char *text);
/* Close its stdin (the client's end of input). */
void kcl_proc_close_stdin(struct kcl_proc *p);
/* Read what is there for up to ms; true once every output reached EOF. */
bool kcl_proc_pump(struct kcl_proc *p, int ms);
/* Wait up to ms until obuf holds needle; whether it does. */
bool kcl_proc_wait_out(struct kcl_proc *p, const char *needle, int ms);
/* Close stdin, read to EOF and reap, waiting up to ms (then killed); the
 * exit status, or 128+signal. */
int kcl_proc_finish(struct kcl_proc *p, int ms);
/* Finish (if not yet, within 1 s) and free the buffers. */
void kcl_proc_free(struct kcl_proc *p);

#endif
