/*
 * wake.c — worker threads and their wake-up pipes; see wake.h.
 */
#include "wake.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int wake_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int wake_pipe_open(int fd[2])
{
	if (pipe(fd) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (fcntl(fd[i], F_SETFL, O_NONBLOCK) != 0 || fcntl(fd[i], F_SETFD, FD_CLOEXEC) != 0) {
			int e = errno;
			close(fd[0]);
			close(fd[1]);
			fd[0] = fd[1] = -1;
			errno = e;
			return -1;
		}
	return 0;
}

void wake_poke(int fd)
{
	ssize_t w;

	do
		w = write(fd, "", 1);
	while (w < 0 && errno == EINTR);
}

void wake_drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof buf) > 0)
		;
}
