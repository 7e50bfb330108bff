/*
 * check_main.h — the one main() every Check test binary shares.
 *
 * A test file defines its suite builder and ends with
 *     KRIEG_TEST_MAIN(board_suite)
 * Each binary runs in CK_FORK mode (Check's default), so a crash in one
 * test is reported as an error of that test, not the end of the run.
 */
#ifndef KRIEG_CHECK_MAIN_H
#define KRIEG_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

/*
 * Check's assertions note their file and line on every pass (_mark_point:
 * a write and an fflush to Check's temporary file) so that a crash can be
 * placed: a system call per passing assertion, hundreds of thousands in
 * the larger suites (test_watch made 530,000 for 20 games a rule set).
 * Ours note nothing on a pass.  A failure reports its line and message as
 * before; a crash is placed by the sanitizers' stack trace (make check
 * runs under ASan+UBSan) or by an explicit mark_point().  Every typed
 * assertion (ck_assert_int_eq ...) is built on this one.
 */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...)                                                                   \
	((expr) ? (void)0                                                                          \
	        : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ##__VA_ARGS__))

#define KRIEG_TEST_MAIN(suite_fn)                                       \
	int main(void)                                                  \
	{                                                               \
		SRunner *sr = srunner_create(suite_fn());               \
		srunner_run_all(sr, CK_NORMAL);                         \
		int failed = srunner_ntests_failed(sr);                 \
		srunner_free(sr);                                       \
		return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;       \
	}

#endif
