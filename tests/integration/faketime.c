/*
 * faketime.c — an LD_PRELOAD shim that steps the wall clock of one
 * process without root, for test_clockjump.c.
 *
 * The wall clock reads (clock_gettime of CLOCK_REALTIME and
 * CLOCK_REALTIME_COARSE, gettimeofday, time) get an offset in whole
 * seconds, possibly negative, read from the file named by
 * $KRIEG_FAKETIME_FILE (missing, empty or unreadable: 0).  Every other
 * clock (monotonic, boottime, CPU time) passes through untouched: a real
 * step of the wall clock leaves them alone too.
 *
 * The file is looked at (stat) at most once per FAKETIME_POLL_MS of
 * monotonic time, and read again when its mtime, size or inode changed:
 * a test that rewrites it sees the step within a few ms.  The real
 * functions come from dlsym(RTLD_NEXT); time() is wrapped explicitly as
 * glibc answers it from the vDSO without calling clock_gettime.
 *
 * Built by the Makefile as $(BUILD)/lib/krieg-faketime.so, without the
 * sanitizers (an ASan daemon then needs verify_asan_link_order=0, which
 * the test sets).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define FAKETIME_POLL_MS 2

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *restrict, void *restrict);
typedef time_t (*time_fn)(time_t *);

static _Atomic(clock_gettime_fn) real_cgt;
static _Atomic(gettimeofday_fn) real_gtod;
static _Atomic(time_fn) real_time;

static atomic_llong offset_s;           /* the step now in force */
static atomic_llong next_poll_ms;       /* monotonic ms of the next stat */
static atomic_flag polling = ATOMIC_FLAG_INIT;
static long long seen_mtime_ns = -1, seen_size = -1, seen_ino = -1;   /* under polling */

/* Resolved lazily (a constructor may run after another library's first
 * call); while dlsym itself is running, the raw system call stands in. */
static int cgt(clockid_t id, struct timespec *ts)
{
	clock_gettime_fn f = atomic_load(&real_cgt);
	if (f == NULL) {
		f = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
		if (f == NULL)
			return (int)syscall(SYS_clock_gettime, id, ts);
		atomic_store(&real_cgt, f);
	}
	return f(id, ts);
}

static long long parse_seconds(const char *s)
{
	return strtoll(s, NULL, 10);
}

static void poll_file(void)
{
	struct timespec m;
	if (cgt(CLOCK_MONOTONIC, &m) != 0)
		return;
	long long now = (long long)m.tv_sec * 1000 + m.tv_nsec / 1000000;
	if (now < atomic_load(&next_poll_ms) || atomic_flag_test_and_set(&polling))
		return;
	atomic_store(&next_poll_ms, now + FAKETIME_POLL_MS);
	const char *path = getenv("KRIEG_FAKETIME_FILE");
	struct stat st;
	if (path == NULL || stat(path, &st) != 0) {
		atomic_store(&offset_s, 0);
		seen_mtime_ns = seen_size = seen_ino = -1;
	} else {
		long long mt = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		if (mt != seen_mtime_ns || (long long)st.st_size != seen_size ||
		    (long long)st.st_ino != seen_ino) {
			char buf[64];
			ssize_t n = -1;
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				n = read(fd, buf, sizeof buf - 1);
				close(fd);
			}
			buf[n > 0 ? n : 0] = '\0';
			atomic_store(&offset_s, parse_seconds(buf));
			seen_mtime_ns = mt;
			seen_size = (long long)st.st_size;
			seen_ino = (long long)st.st_ino;
		}
	}
	atomic_flag_clear(&polling);
}

static long long offset(void)
{
	poll_file();
	return atomic_load(&offset_s);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc = cgt(id, ts);
	if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec += (time_t)offset();
	return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	gettimeofday_fn f = atomic_load(&real_gtod);
	if (f == NULL) {
		f = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
		if (f == NULL)
			return -1;
		atomic_store(&real_gtod, f);
	}
	int rc = f(tv, tz);
	if (rc == 0)
		tv->tv_sec += (time_t)offset();
	return rc;
}

time_t time(time_t *out)
{
	time_fn f = atomic_load(&real_time);
	if (f == NULL) {
		f = (time_fn)dlsym(RTLD_NEXT, "time");
		if (f == NULL)
			return (time_t)-1;
		atomic_store(&real_time, f);
	}
	time_t t = f(NULL);
	if (t != (time_t)-1)
		t += (time_t)offset();
	if (out != NULL)
		*out = t;
	return t;
}
