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
