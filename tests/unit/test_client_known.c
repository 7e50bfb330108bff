/*
 * test_client_known.c — trust on first use: the known_servers file.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "known.h"

#define FP_A "77fcb254d9f78d82892534c0a8c378cf19b03f08db216e3876516fcf99fa7322"
#define FP_B "0000b254d9f78d82892534c0a8c378cf19b03f08db216e3876516fcf99fa7322"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/krieg-known-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* a nested, not yet existing directory: known_add creates it */
	snprintf(path, sizeof path, "%s/cfg/krieg/known_servers", dir);
}

static void teardown(void)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		perror("rm");
}

START_TEST(tofu_add_then_match)
{
	int line = 0;
	ck_assert_int_eq(known_check(path, "localhost:7474", FP_A, &line), KNOWN_NEW);
	ck_assert_int_eq(known_add(path, "localhost:7474", FP_A), 0);
	ck_assert_int_eq(known_check(path, "localhost:7474", FP_A, &line), KNOWN_MATCH);
	ck_assert_int_eq(line, 1);
	/* host names are case-insensitive; ports are not interchangeable */
	ck_assert_int_eq(known_check(path, "LOCALHOST:7474", FP_A, &line), KNOWN_MATCH);
	ck_assert_int_eq(known_check(path, "localhost:7475", FP_A, &line), KNOWN_NEW);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 077, 0);   /* private to the user */
}
END_TEST

START_TEST(mismatch_names_the_line)
{
	int line = 0;
	ck_assert_int_eq(known_add(path, "other:7474", FP_B), 0);
	ck_assert_int_eq(known_add(path, "example.org:7474", FP_A), 0);
	ck_assert_int_eq(known_check(path, "example.org:7474", FP_B, &line), KNOWN_MISMATCH);
	ck_assert_int_eq(line, 2);
	/* the first line for a server wins: a later pin cannot override it */
	ck_assert_int_eq(known_add(path, "example.org:7474", FP_B), 0);
	ck_assert_int_eq(known_check(path, "example.org:7474", FP_B, &line), KNOWN_MISMATCH);
	ck_assert_int_eq(line, 2);
}
END_TEST

START_TEST(comments_and_junk)
{
	char mk[256];
	snprintf(mk, sizeof mk, "%s/cfg", dir);
	ck_assert_int_eq(mkdir(mk, 0700), 0);
	snprintf(mk, sizeof mk, "%s/cfg/krieg", dir);
	ck_assert_int_eq(mkdir(mk, 0700), 0);
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "# comment host:1 " FP_A "\n\nhost:1 nothex\nhost:1\nhost:1 " FP_B);  /* no final newline */
	fclose(f);
	int line = 0;
	ck_assert_int_eq(known_check(path, "host:1", FP_B, &line), KNOWN_MATCH);
	ck_assert_int_eq(line, 5);
	ck_assert_int_eq(known_add(path, "host:2", FP_A), 0);
	ck_assert_int_eq(known_check(path, "host:2", FP_A, &line), KNOWN_MATCH);
	ck_assert_int_eq(line, 6);
	ck_assert_int_eq(known_check(path, "host:1", FP_B, &line), KNOWN_MATCH);
	/* a bad fingerprint or host is never written */
	ck_assert_int_eq(known_add(path, "host:3", "abc"), -1);
	ck_assert_int_eq(known_add(path, "ho st:3", FP_A), -1);
}
END_TEST

START_TEST(default_path)
{
	char buf[KNOWN_PATH_MAX];
	setenv("KRIEG_KNOWN_SERVERS", "/x/y", 1);
	ck_assert_int_eq(known_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/x/y");
	unsetenv("KRIEG_KNOWN_SERVERS");
	setenv("XDG_CONFIG_HOME", "/cfg", 1);
	ck_assert_int_eq(known_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/cfg/krieg/known_servers");
	unsetenv("XDG_CONFIG_HOME");
	setenv("HOME", "/home/u", 1);
	ck_assert_int_eq(known_default_path(buf, sizeof buf), 0);
	ck_assert_str_eq(buf, "/home/u/.config/krieg/known_servers");
	char hp[64];
	ck_assert_int_eq(known_hostport("Example.ORG", "7474", hp, sizeof hp), 0);
	ck_assert_str_eq(hp, "example.org:7474");
}
END_TEST

static Suite *known_suite(void)
{
	Suite *s = suite_create("client_known");
	TCase *tc = tcase_create("known");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tofu_add_then_match);
	tcase_add_test(tc, mismatch_names_the_line);
	tcase_add_test(tc, comments_and_junk);
	tcase_add_test(tc, default_path);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(known_suite)
