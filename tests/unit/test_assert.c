/*
 * test_assert.c — the assertions every suite uses (tests/check_main.h
 * redefines Check's ck_assert_msg so that a pass writes nothing): a false
 * one still fails its test, with its own line and message, typed ones
 * included; true ones pass.  The cases below run in a Check runner of
 * their own, in a child process, and the child's exit status says whether
 * the runner saw exactly that (an inner runner is not nested in the outer
 * one's reporting).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"

static int false_line, typed_line;

START_TEST(inner_false)
{
	false_line = __LINE__ + 1;
	ck_assert_msg(1 + 1 == 3, "arithmetic says %d", 1 + 1);
}
END_TEST

START_TEST(inner_typed)
{
	typed_line = __LINE__ + 1;
	ck_assert_int_eq(2 * 21, 41);
}
END_TEST

START_TEST(inner_true)
{
	ck_assert(1 + 1 == 2);
	ck_assert_msg(strlen("ab") == 2, "never printed");
	ck_assert_int_eq(2 * 21, 42);
	ck_assert_str_eq("krieg", "krieg");
	ck_assert_ptr_nonnull(&false_line);
}
END_TEST

/* The failure in test case `name`, or NULL. */
static TestResult *failure_of(TestResult **r, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(tr_tcname(r[i]), name) == 0)
			return r[i];
	return NULL;
}

/* Runs the inner cases; exits 0 when the runner saw what it should. */
static void run_inner(void)
{
	Suite *s = suite_create("inner");
	TCase *f = tcase_create("false");
	TCase *t = tcase_create("typed");
	TCase *p = tcase_create("true");
	tcase_add_test(f, inner_false);
	tcase_add_test(t, inner_typed);
	tcase_add_test(p, inner_true);
	suite_add_tcase(s, f);
	suite_add_tcase(s, t);
	suite_add_tcase(s, p);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	int run = srunner_ntests_run(sr), failed = srunner_ntests_failed(sr);
	TestResult **r = srunner_failures(sr);
	TestResult *a = failure_of(r, failed, "false"), *b = failure_of(r, failed, "typed");
	int ok = run == 3 && failed == 2 && a != NULL && b != NULL && tr_lno(a) == false_line &&
	         strstr(tr_msg(a), "arithmetic says 2") != NULL && tr_lno(b) == typed_line &&
	         strstr(tr_msg(b), "41") != NULL;
	if (!ok)
		fprintf(stderr, "inner runner: %d run, %d failed (want 3 and 2)\n", run, failed);
	free(r);
	srunner_free(sr);
	_exit(ok ? 0 : 1);
}

/* Judged with ck_abort_msg, not with the assertion under test. */
START_TEST(false_fails_true_passes)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		ck_abort_msg("fork failed");
	if (pid == 0)
		run_inner();
	int status;
	if (waitpid(pid, &status, 0) != pid)
		ck_abort_msg("waitpid failed");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ck_abort_msg("the inner runner did not see two failures at their lines and one pass");
}
END_TEST

static Suite *assert_suite(void)
{
	Suite *s = suite_create("assert");
	TCase *tc = tcase_create("assert");
	tcase_add_test(tc, false_fails_true_passes);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(assert_suite)
