/*
 * test_trim.c — server/trim.c, the timer that gives freed memory back:
 *   timer_trims          on a real event base, the timer runs a trim at
 *                        every interval
 *   gives_back_freed_pages  32 MiB freed under a block still in use (so
 *                        free() cannot give back the heap's top) stays
 *                        resident until a trim, which returns it: RssAnon
 *                        falls by at least half of it.  Run only against
 *                        glibc's allocator: under ASan, malloc is ASan's
 *                        and a trim has nothing to do, so this test is
 *                        not built in; `make check` runs it from the
 *                        release tree (PLAIN_TESTS).
 *   free_keeps_the_top   after trim_new, 4 MiB freed at the heap's top
 *                        stays resident for the next allocation (glibc's
 *                        default gave it back at the free, and the next
 *                        turn faulted it in again), until a trim; a 1 MiB
 *                        block comes from the heap, not from mmap.  Also
 *                        glibc-only.
 */
#include <check.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "check_main.h"
#include "mstime.h"
#include "trim.h"

#if defined(__SANITIZE_ADDRESS__)
#define TRIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRIM_UNDER_ASAN 1
#endif
#endif

START_TEST(timer_trims)
{
	struct event_base *base = event_base_new();
	ck_assert_ptr_nonnull(base);
	struct trim *t = trim_new(base, 10);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(trim_runs(t), 0);
	/* The loop turns until three trims ran; a timer that never fires fails here. */
	int64_t end = mstime_mono() + 5000;
	while (trim_runs(t) < 3 && mstime_mono() < end)
		event_base_loop(base, EVLOOP_ONCE);
	ck_assert_uint_ge(trim_runs(t), 3);
	trim_free(t);
	event_base_free(base);
}
END_TEST

#if defined(__GLIBC__) && !defined(TRIM_UNDER_ASAN)
/* This process's anonymous resident memory, KiB. */
static long rss_anon_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "RssAnon: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

#define BLOCKS 4096
#define BLOCK_SIZE 8192   /* under malloc's mmap threshold: from the heap */

START_TEST(gives_back_freed_pages)
{
	static char *block[BLOCKS + 1];
	/* The last block, carved from the top after the others, stays in
	 * use: the freed ones lie under it, where only a trim reaches. */
	for (int i = 0; i <= BLOCKS; i++) {
		block[i] = malloc(BLOCK_SIZE);
		ck_assert_ptr_nonnull(block[i]);
		memset(block[i], i & 0xff, BLOCK_SIZE);   /* resident */
	}
	ck_assert((uintptr_t)block[BLOCKS] > (uintptr_t)block[BLOCKS - 1]);
	for (int i = 0; i < BLOCKS; i++)
		free(block[i]);
	long before = rss_anon_kib();
	struct event_base *base = event_base_new();
	struct trim *t = trim_new(base, TRIM_INTERVAL_MS);
	ck_assert_int_eq(trim_once(t), 1);
	long after = rss_anon_kib();
	ck_assert_msg(before - after >= (long)BLOCKS * BLOCK_SIZE / 1024 / 2,
	              "RssAnon %ld KiB before the trim, %ld KiB after", before, after);
	ck_assert_uint_eq(trim_runs(t), 1);
	free(block[BLOCKS]);
	trim_free(t);
	event_base_free(base);
}
END_TEST

#define TOP_BLOCKS 512   /* 4 MiB of BLOCK_SIZE: under TRIM_TOP_KEEP */

START_TEST(free_keeps_the_top)
{
	static char *block[TOP_BLOCKS];
	struct event_base *base = event_base_new();
	struct trim *t = trim_new(base, TRIM_INTERVAL_MS);
	ck_assert_ptr_nonnull(t);
	trim_once(t);   /* start from a trimmed heap */

	/* Carved from the top one after the other; freed, they are the top. */
	for (int i = 0; i < TOP_BLOCKS; i++) {
		block[i] = malloc(BLOCK_SIZE);
		ck_assert_ptr_nonnull(block[i]);
		memset(block[i], i & 0xff, BLOCK_SIZE);
	}
	long used = rss_anon_kib();
	for (int i = TOP_BLOCKS - 1; i >= 0; i--)
		free(block[i]);
	long freed = rss_anon_kib();
	const long kib = (long)TOP_BLOCKS * BLOCK_SIZE / 1024;
	ck_assert_msg(used - freed < kib / 4, "free() gave back %ld KiB of %ld", used - freed, kib);
	ck_assert_int_eq(trim_once(t), 1);
	long trimmed = rss_anon_kib();
	ck_assert_msg(freed - trimmed >= kib / 2, "RssAnon %ld KiB before the trim, %ld KiB after",
	              freed, trimmed);

	/* Under TRIM_MMAP_MIN: the heap's, not a mapping of its own. */
	struct mallinfo2 before = mallinfo2();
	char *big = malloc(1024 * 1024);
	ck_assert_ptr_nonnull(big);
	struct mallinfo2 after = mallinfo2();
	ck_assert_uint_eq(after.hblks, before.hblks);
	free(big);
	trim_free(t);
	event_base_free(base);
}
END_TEST
#endif

static Suite *trim_suite(void)
{
	Suite *s = suite_create("trim");
	TCase *tc = tcase_create("trim");
	tcase_add_test(tc, timer_trims);
#if defined(__GLIBC__) && !defined(TRIM_UNDER_ASAN)
	tcase_add_test(tc, gives_back_freed_pages);
	tcase_add_test(tc, free_keeps_the_top);
#endif
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(trim_suite)
