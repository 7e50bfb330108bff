/*
 * harness_client.c — see harness_client.h.
 */
#include "harness_client.h"

#include "check_main.h"   /* check.h, with assertions that do not write on a pass */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

const char *kcl_bin_path(const char *env, const char *asan, const char *plain)
{
	const char *p = getenv(env);
	if (p && *p)
		return p;
	if (access(asan, X_OK) == 0)
		return asan;
	return plain;
}

const char *kcl_krieg_path(void)
{
	return kcl_bin_path("KRIEG", "build/asan/bin/krieg", "bin/krieg");
}

long kcl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void kcl_scratch_make(struct kcl_scratch *s, const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(s->dir, sizeof s->dir, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
	ck_assert_ptr_nonnull(mkdtemp(s->dir));
	snprintf(s->known, sizeof s->known, "%s/known_servers", s->dir);
}

void kcl_scratch_remove(const struct kcl_scratch *s)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
	if (system(cmd) != 0)
		perror("rm");
}

/*
 * A pipe whose ends close on exec: the child gets its own ends as 0, 1
 * and 2 (dup2 clears the flag on the copy), and no later child inherits
 * this one's.  Without it a process started after this one held its stdin
 * open, so closing our end did not give it end-of-file until the later
 * one exited (test_client_watch waited out its deadline twice).
 */
static void cloexec_pipe(int fd[2])
{
	ck_assert_int_eq(pipe(fd), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(fcntl(fd[i], F_SETFD, FD_CLOEXEC), 0);
}

void kcl_proc_start(struct kcl_proc *p, char *const argv[], const char *known, bool merged)
{
	int pin[2], pout[2], perr[2] = { -1, -1 };
	memset(p, 0, sizeof *p);
	cloexec_pipe(pin);
	cloexec_pipe(pout);
	if (!merged)
		cloexec_pipe(perr);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (p->pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(merged ? pout[1] : perr[1], 2);
		close(pin[1]);
		close(pout[0]);
		if (!merged)
			close(perr[0]);
		setenv("KRIEG_KNOWN_SERVERS", known, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	if (!merged)
		close(perr[1]);
	p->in = pin[1];
	p->out = pout[0];
	p->err = perr[0];
	p->obuf = calloc(1, KCL_OUT_MAX + 1);
	p->ebuf = calloc(1, KCL_OUT_MAX + 1);
	ck_assert(p->obuf && p->ebuf);
}

void kcl_proc_write(struct kcl_proc *p, const char *text)
{
	size_t n = strlen(text);
	ck_assert_int_eq(write(p->in, text, n), (ssize_t)n);
}

void kcl_proc_close_stdin(struct kcl_proc *p)
{
	if (p->in >= 0)
		close(p->in);
	p->in = -1;
}

bool kcl_proc_pump(struct kcl_proc *p, int ms)
{
	/* poll() skips a negative fd: a merged or finished stream. */
	struct pollfd f[2] = { { .fd = p->out, .events = POLLIN }, { .fd = p->err, .events = POLLIN } };
	if (p->out < 0 && p->err < 0)
		return true;
	if (poll(f, 2, ms) <= 0)
		return false;
	for (int i = 0; i < 2; i++) {
		if (!f[i].revents)
			continue;
		char **buf = i ? &p->ebuf : &p->obuf;
		size_t *len = i ? &p->elen : &p->olen;
		int *fd = i ? &p->err : &p->out;
		ssize_t r = read(*fd, *buf + *len, KCL_OUT_MAX - *len);
		if (r <= 0) {
			close(*fd);
			*fd = -1;
		} else {
			*len += (size_t)r;
		}
	}
	return p->out < 0 && p->err < 0;
}

bool kcl_proc_wait_out(struct kcl_proc *p, const char *needle, int ms)
{
	long end = kcl_now_ms() + ms;
	while (!strstr(p->obuf, needle)) {
		if (kcl_now_ms() > end || kcl_proc_pump(p, 100))
			return strstr(p->obuf, needle) != NULL;
	}
	return true;
}

int kcl_proc_finish(struct kcl_proc *p, int ms)
{
	long end = kcl_now_ms() + ms;
	kcl_proc_close_stdin(p);
	while (!kcl_proc_pump(p, 100) && kcl_now_ms() < end)
		;
	int st = 0;
	while (waitpid(p->pid, &st, WNOHANG) == 0) {
		if (kcl_now_ms() > end) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &st, 0);
			break;
		}
		kt_sleep_ms(20);
	}
	p->done = true;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return p->status;
}

void kcl_proc_free(struct kcl_proc *p)
{
	if (!p->done)
		kcl_proc_finish(p, 1000);
	if (p->out >= 0)
		close(p->out);
	if (p->err >= 0)
		close(p->err);
	free(p->obuf);
	free(p->ebuf);
}
