/*
 * test_storage.c — storage faults: the affected request gets `storage`,
 * the daemon logs it and keeps serving what it can, nothing is half
 * written, and a damaged file at start is a clear message and exit
 * status 1, not a crash.
 *
 *   corrupt_at_start   a file that is not a database; a database with a
 *                      damaged page
 *   locked_database    another process holds the write lock: moves get
 *                      `storage`, reads still work, then moves work again
 *   disk_full          the database on a small tmpfs that is then filled
 *                      (needs mount(2), i.e. root; skipped with a notice
 *                      where it is not allowed)
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check_main.h"
#include "event.h"
#include "harness.h"
#include "harness_game.h"

#define ACTS_MAX 1024

struct tgame {
	int64_t id;
	struct kg_act acts[ACTS_MAX];
	size_t n;
};

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

/* One random try; returns the error code ("" when ok). */
static const char *try_move(struct kp *w, struct kp *b, struct tgame *g, unsigned *seed)
{
	static char code[32];
	struct kg_act a;
	ck_assert_int_ge(kg_random_try("icc", g->acts, g->n, seed, &a), 0);
	struct kc *c = a.color == WHITE ? w->c : b->c;
	json_t *r = kc_response(c, kc_req(c, "move", "{s:I, s:s}", "game", (json_int_t)g->id,
	                                  "move", a.text));
	if (json_is_true(json_object_get(r, "ok"))) {
		ck_assert_uint_lt(g->n, ACTS_MAX);
		g->acts[g->n++] = a;
		return "";
	}
	snprintf(code, sizeof code, "%s",
	         json_string_value(json_object_get(json_object_get(r, "error"), "code")));
	return code;
}

/* Both views equal the replay of the acknowledged tries: nothing half written. */
static void check_views(struct kp *w, struct kp *b, struct tgame *g)
{
	for (int col = WHITE; col <= BLACK; col++) {
		json_t *got = kg_fetch_events(col == WHITE ? w->c : b->c, "game", g->id, NULL, NULL, 0);
		ck_assert_ptr_nonnull(got);
		json_t *want = kg_expected("icc", g->acts, g->n, g->id, aud_of(col));
		ck_assert_msg(json_equal(got, want), "%s's view is not the acknowledged record",
		              col == WHITE ? "white" : "black");
		json_decref(got);
		json_decref(want);
	}
}

/* Run kriegd on a state dir holding a bad kriegd.db; expect exit 1 and needle. */
static void expect_refused_start(const char *dir, const char *needle)
{
	char out[8192];
	char *argv[] = { "kriegd", "--state-dir", (char *)dir, "--listen", "127.0.0.1:0", NULL };
	int st = kg_run_kriegd(argv, 30000, out, sizeof out);
	ck_assert_msg(st == 1, "kriegd exited %d on a bad database:\n%s", st, out);
	ck_assert_msg(strstr(out, "kriegd.db") != NULL && strstr(out, needle) != NULL,
	              "no clear message (%s):\n%s", needle, out);
	ck_assert_msg(strstr(out, "Sanitizer") == NULL && strstr(out, "runtime error") == NULL,
	              "%s", out);
}

START_TEST(corrupt_at_start)
{
	char dir[] = "/tmp/krieg-corrupt-XXXXXX", path[300], cmd[400];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/kriegd.db", dir);

	/* Not a database at all. */
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 2048; i++)
		fputs("not a database ", f);
	fclose(f);
	expect_refused_start(dir, "not a database");

	/* A real SQLite file with one page overwritten. */
	unlink(path);
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	raw_exec(db, "PRAGMA page_size = 4096; CREATE TABLE t (x BLOB);"
	             "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)"
	             " INSERT INTO t SELECT randomblob(200) FROM n;");
	sqlite3_close(db);
	int fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	char junk[4096];
	memset(junk, 0xA5, sizeof junk);
	ck_assert_int_eq(pwrite(fd, junk, sizeof junk, 4096 * 2), (ssize_t)sizeof junk);
	close(fd);
	expect_refused_start(dir, "damaged");

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(locked_database)
{
	unsigned seed = 9;
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	static struct tgame g;

	kg_guest(d, &w);
	kg_guest(d, &b);
	memset(&g, 0, sizeof g);
	g.id = kg_new_game(&w, &b);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");

	/* Another process takes the write lock and keeps it. */
	char path[400];
	snprintf(path, sizeof path, "%s/kriegd.db", kd_state_dir(d));
	sqlite3 *db;
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	raw_exec(db, "BEGIN EXCLUSIVE; CREATE TABLE lock_holder (x);");
	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "storage");
	ck_assert(kd_log_wait(d, "store failed", 5000));
	/* Reads still work meanwhile (WAL), and the daemon is alive. */
	check_views(&w, &b, &g);
	kc_ok(w.c, kc_req(w.c, "history", NULL));
	kc_ok(w.c, kc_req(w.c, "who", NULL));
	raw_exec(db, "ROLLBACK");
	sqlite3_close(db);

	/* The lock is gone: the game goes on from exactly where it was. */
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kg_resume(d, &w);
	kg_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

START_TEST(disk_full)
{
	char mnt[] = "/tmp/krieg-full-XXXXXX", conf[600], filler[400];
	ck_assert_ptr_nonnull(mkdtemp(mnt));
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=4m") != 0) {
		fprintf(stderr, "SKIP disk_full: cannot mount a tmpfs (%s); needs root and mount "
		        "rights\n", strerror(errno));
		rmdir(mnt);
		return;
	}
	snprintf(conf, sizeof conf, "rate_limit = 10000\nrate_burst = 10000\n"
	         "database = %s/kriegd.db\n", mnt);
	unsigned seed = 13;
	struct kd *d = kd_start(conf);
	struct kp w, b;
	static struct tgame g;
	kg_guest(d, &w);
	kg_guest(d, &b);
	memset(&g, 0, sizeof g);
	g.id = kg_new_game(&w, &b);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");

	/* Fill the file system. */
	snprintf(filler, sizeof filler, "%s/filler", mnt);
	int fd = open(filler, O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	static char block[16384];
	memset(block, 'x', sizeof block);
	for (ssize_t w1 = 1; w1 > 0;)
		w1 = write(fd, block, sizeof block);
	for (ssize_t w1 = 1; w1 > 0;)
		w1 = write(fd, block, 1);
	close(fd);

	const char *code = "";
	for (int i = 0; i < 200 && code[0] == '\0'; i++)
		code = try_move(&w, &b, &g, &seed);
	ck_assert_str_eq(code, "storage");
	ck_assert(kd_alive(d));
	check_views(&w, &b, &g);

	/* Space again: the game goes on, and recovers cleanly. */
	unlink(filler);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kg_resume(d, &w);
	kg_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}
END_TEST

static Suite *storage_suite(void)
{
	Suite *s = suite_create("storage");
	TCase *tc = tcase_create("storage");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, corrupt_at_start);
	tcase_add_test(tc, locked_database);
	tcase_add_test(tc, disk_full);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(storage_suite)
