/*
 * test_storage.c — storage faults: the affected request gets `storage`,
 * the daemon logs it and keeps serving what it can, nothing is half
 * written, and a damaged file at start is a clear message and exit
 * status 1, not a crash.
 *
 *   corrupt_at_start   a file that is not a database; a database with a
 *                      damaged page
 *   locked_database    another process holds the write lock: moves get
 *                      `storage`, reads still work, then moves work again;
 *                      a shorter lock only delays a move, and a commit
 *                      that slow is logged
 *   locked_database_keeps_challenges
 *                      a waiting challenge (kept in the store) is not made,
 *                      declined, cancelled or taken while the lock is held
 *   disk_full          the database on a small tmpfs that is then filled
 *                      (needs mount(2), i.e. root; skipped with a notice
 *                      where it is not allowed)
 *   read_only_database the file system under the database turns read-only
 *                      while kriegd runs: moves get `storage`, reads go
 *                      on, nothing half written; back on a writable mount
 *                      the game goes on and survives a restart (needs
 *                      root, loop devices and mkfs.ext4; skipped with a
 *                      notice otherwise)
 */
#define _GNU_SOURCE 1
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "check_main.h"
#include "event.h"
#include "harness.h"
#include "harness_game.h"

#define ACTS_MAX 1024

struct tgame {
	int64_t id;
	struct action acts[ACTS_MAX];
	size_t n;
};

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
}

/* One random try; returns the error code ("" when ok).  With `locked`,
 * the lock is released hold_ms after the try was sent (its commit waits
 * for it), before the answer is read. */
static const char *try_move_unlocking(struct kp *w, struct kp *b, struct tgame *g,
                                      unsigned *seed, sqlite3 *locked, int hold_ms)
{
	static char code[32];
	struct action a;
	ck_assert_int_ge(kg_random_try("icc", g->acts, g->n, seed, &a), 0);
	struct kc *c = a.color == WHITE ? w->c : b->c;
	long long id = kc_req(c, "move", "{s:I, s:s}", "game", (json_int_t)g->id, "move", a.text);
	if (locked) {
		usleep((useconds_t)hold_ms * 1000);
		kd_unlock_db(locked);
	}
	json_t *r = kc_response(c, id);
	if (json_is_true(json_object_get(r, "ok"))) {
		ck_assert_uint_lt(g->n, ACTS_MAX);
		g->acts[g->n++] = a;
		return "";
	}
	snprintf(code, sizeof code, "%s",
	         json_string_value(json_object_get(json_object_get(r, "error"), "code")));
	return code;
}

static const char *try_move(struct kp *w, struct kp *b, struct tgame *g, unsigned *seed)
{
	return try_move_unlocking(w, b, g, seed, NULL, 0);
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

/* Two guests and a new game between them, its moves not yet made. */
static void tgame_begin(struct kd *d, struct kp *w, struct kp *b, struct tgame *g)
{
	kp_guest(d, w);
	kp_guest(d, b);
	memset(g, 0, sizeof *g);
	g->id = kg_new_game(w, b);
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

/* A database the daemon made is its owner's alone (umask); one put back by
 * hand with a wider mode (a restored backup copied as 0644) is served, and
 * a warning says it is readable (a probe found it served silently, its
 * -wal and -shm made with the same mode). */
START_TEST(readable_database_warned)
{
	struct kd *d = kd_start("");
	char db[400];
	snprintf(db, sizeof db, "%s/kriegd.db", kd_state_dir(d));
	struct stat st;
	ck_assert_int_eq(stat(db, &st), 0);
	ck_assert_uint_eq(st.st_mode & 077, 0);
	ck_assert_int_eq(kd_log_count(d, "is readable by group or others"), 0);
	kd_down(d);
	ck_assert_int_eq(chmod(db, 0644), 0);
	kd_up(d);
	ck_assert(kd_log_wait(d, "is readable by group or others (mode 0644)", 5000));
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "guest", NULL));   /* served all the same */
	kc_close(c);
	kd_stop(d);
}
END_TEST

START_TEST(locked_database)
{
	unsigned seed = 9;
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	static struct tgame g;

	tgame_begin(d, &w, &b, &g);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");

	/* Another process takes the write lock and keeps it. */
	sqlite3 *db = kd_lock_db(d);
	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "storage");
	ck_assert(kd_log_wait(d, "store failed", 5000));
	/* Reads still work meanwhile (WAL), and the daemon is alive. */
	check_views(&w, &b, &g);
	kc_ok(w.c, kc_req(w.c, "history", NULL));
	kc_ok(w.c, kc_req(w.c, "who", NULL));
	kd_unlock_db(db);

	/* The lock is gone: the game goes on from exactly where it was. */
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	check_views(&w, &b, &g);
	/* A lock shorter than busy_timeout: the try waits for it, succeeds,
	 * and the slow commit is logged (the failed one above was too; a
	 * loaded machine's disk may add others). */
	int slow = kd_log_count(d, "store commit slow");
	ck_assert_int_ge(slow, 1);
	ck_assert_str_eq(try_move_unlocking(&w, &b, &g, &seed, kd_lock_db(d), 1500), "");
	ck_assert_int_gt(kd_log_count(d, "store commit slow"), slow);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kp_resume(d, &w);
	kp_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression (the ops probe): a full disk failed a commit a second (the
 * clocks' writes among them), each logged: a line a second into a journal
 * that may sit on the same full disk.  One line a log_repeat_interval. */
START_TEST(failed_commits_logged_bounded)
{
	unsigned seed = 9;
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\nbusy_timeout = 100ms\n"
	                        "log_repeat_interval = 60s\n");
	struct kp w, b;
	static struct tgame g;
	tgame_begin(d, &w, &b, &g);
	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	sqlite3 *db = kd_lock_db(d);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "storage");
	kd_unlock_db(db);
	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");   /* after the failures: all logged by now */
	ck_assert_int_eq(kd_log_count(d, "warning: store failed: "), 1);
	/* and the end of the run said, with the count left unsaid (a review) */
	ck_assert_int_eq(kd_log_count(d, "store commits succeed again (3 failed ones not logged)"), 1);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

/* Regression (probe of own changes): a draw offer whose commit failed
 * still counted as the side's one offer of the move; nothing changed. */
START_TEST(failed_offer_counts_nothing)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp w, b;
	kp_guest(d, &w);
	kp_guest(d, &b);
	json_int_t game = kg_new_game(&w, &b);
	sqlite3 *db = kd_lock_db(d);
	kc_error(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", game, "action", "offer"), "storage");
	kd_unlock_db(db);
	kc_ok(w.c, kc_req(w.c, "draw", "{s:I, s:s}", "game", game, "action", "offer"));
	kc_event(b.c, "draw_offer");
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
	tgame_begin(d, &w, &b, &g);
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
	kp_resume(d, &w);
	kp_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
}
END_TEST

/*
 * A plain `mount -o remount,ro` cannot be done under a running kriegd: the
 * kernel refuses it (EBUSY) while any file on the mount is open for
 * writing, and kriegd keeps its database open.  What turns a live file
 * system read-only in production is an ext4 error with errors=remount-ro,
 * which the kernel forces whatever is open.  So: the database on a small
 * ext4 image on a loop device, and ext4's own trigger_fs_error knob.  The
 * emergency read-only state cannot be remounted read-write (the journal is
 * aborted), so "writable again" is: stop kriegd, unmount, fsck, mount, start.
 */

/* /sys/fs/ext4/<dev>/trigger_fs_error for the file system mounted at mnt. */
static bool ext4_trigger_path(const char *mnt, char *out, size_t outlen)
{
	struct stat st;
	char link[128], target[256];
	if (stat(mnt, &st) != 0)
		return false;
	snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	const char *dev = strrchr(target, '/');
	snprintf(out, outlen, "/sys/fs/ext4/%s/trigger_fs_error", dev ? dev + 1 : target);
	return access(out, W_OK) == 0;
}

/* Can a new file be made on mnt?  (ext4's emergency read-only state is not
 * ST_RDONLY in statvfs on recent kernels, so ask the file system itself.) */
static bool mount_writable(const char *mnt)
{
	char probe[400];
	snprintf(probe, sizeof probe, "%s/probe", mnt);
	int fd = open(probe, O_WRONLY | O_CREAT, 0600);
	if (fd < 0) {
		ck_assert_msg(errno == EROFS, "probe: %s", strerror(errno));
		return false;
	}
	close(fd);
	unlink(probe);
	return true;
}

/* The image and mount point of read_only_database live in ro_dir, made and
 * removed by an unchecked fixture: it runs in Check's parent process, so
 * the loop mount is undone even when a failed assert ends the test. */
static char ro_dir[64];

static void ro_setup(void)
{
	snprintf(ro_dir, sizeof ro_dir, "/tmp/krieg-ro-XXXXXX");
	if (mkdtemp(ro_dir) == NULL)
		ro_dir[0] = '\0';
}

static void ro_teardown(void)
{
	char mnt[128];
	if (ro_dir[0] == '\0')
		return;
	snprintf(mnt, sizeof mnt, "%s/mnt", ro_dir);
	umount2(mnt, MNT_DETACH);
	kt_sh("rm -rf '%s'", ro_dir);
	ro_dir[0] = '\0';
}

START_TEST(read_only_database)
{
	char img[300], mnt[300], conf[600], trigger[300];
	ck_assert_msg(ro_dir[0] != '\0', "no scratch directory");
	snprintf(img, sizeof img, "%s/fs.img", ro_dir);
	snprintf(mnt, sizeof mnt, "%s/mnt", ro_dir);
	ck_assert_int_eq(mkdir(mnt, 0700), 0);
	if (geteuid() != 0 || kt_sh("command -v e2fsck >/dev/null") != 0 ||
	    kt_sh("truncate -s 16M '%s' && mkfs.ext4 -q -F '%s' >/dev/null 2>&1", img, img) != 0 ||
	    kt_sh("mount -o loop,errors=remount-ro '%s' '%s' 2>/dev/null", img, mnt) != 0) {
		fprintf(stderr, "SKIP read_only_database: cannot make and loop-mount an ext4 image "
		        "(needs root, loop devices, mkfs.ext4 and e2fsck)\n");
		return;
	}
	if (!ext4_trigger_path(mnt, trigger, sizeof trigger)) {
		fprintf(stderr, "SKIP read_only_database: no ext4 trigger_fs_error in /sys\n");
		return;
	}
	snprintf(conf, sizeof conf, "rate_limit = 10000\nrate_burst = 10000\n"
	         "database = %s/kriegd.db\n", mnt);
	unsigned seed = 17;
	struct kd *d = kd_start(conf);
	struct kp w, b;
	static struct tgame g;
	tgame_begin(d, &w, &b, &g);
	for (int i = 0; i < 4; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	size_t acked = g.n;

	/* The file system goes read-only under the daemon. */
	int fd = open(trigger, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(write(fd, "krieg test\n", 11), 0);
	close(fd);
	ck_assert_msg(!mount_writable(mnt), "the mount did not turn read-only");

	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "storage");
	ck_assert_str_eq(try_move(&w, &b, &g, &seed), "storage");
	ck_assert_uint_eq(g.n, acked);
	ck_assert(kd_log_wait(d, "store failed", 5000));
	ck_assert(kd_alive(d));
	/* Reads go on, and show exactly the acknowledged moves. */
	kc_ok(w.c, kc_req(w.c, "ping", NULL));
	kc_ok(w.c, kc_req(w.c, "who", NULL));
	kc_ok(b.c, kc_req(b.c, "history", NULL));
	check_views(&w, &b, &g);
	/* A new connection is served; a new guest (a write) is refused cleanly. */
	struct kc *c = kc_hello(d);
	kc_ok(c, kc_req(c, "ping", NULL));
	kc_error(c, kc_req(c, "guest", NULL), "storage");
	kc_ok(c, kc_req(c, "ping", NULL));
	kc_close(c);
	kc_close(w.c);
	kc_close(b.c);

	/* Writable again: stop, repair the file system, start on it. */
	kd_down(d);
	ck_assert_int_eq(umount2(mnt, 0), 0);
	ck_assert_int_le(kt_sh("e2fsck -fy '%s' >/dev/null 2>&1", img), 1);
	ck_assert_int_eq(kt_sh("mount -o loop '%s' '%s'", img, mnt), 0);
	ck_assert(mount_writable(mnt));
	kd_up(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kp_resume(d, &w);
	kp_resume(d, &b);
	check_views(&w, &b, &g);
	for (int i = 0; i < 3; i++)
		ck_assert_str_eq(try_move(&w, &b, &g, &seed), "");
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_restart(d);
	ck_assert_int_eq(kd_log_count(d, "record check failed"), 0);
	kp_resume(d, &w);
	kp_resume(d, &b);
	check_views(&w, &b, &g);
	kc_close(w.c);
	kc_close(b.c);
	kd_stop(d);
	ck_assert_int_eq(umount2(mnt, 0), 0);
}
END_TEST

/* A waiting correspondence challenge is kept in the store (lobby.c): while
 * the database is locked by another process, making, declining,
 * cancelling or taking one answers `storage` and changes nothing — no
 * event to the other player, the offer as it was — and once the lock is
 * gone it is taken, and a restart does not bring it back. */
START_TEST(locked_database_keeps_challenges)
{
	struct kd *d = kd_start("rate_limit = 10000\nrate_burst = 10000\n");
	struct kp a, b;
	kp_register(d, &a, "anna");
	kp_register(d, &b, "bob");
	json_int_t offer = json_integer_value(json_object_get(kc_ok(a.c, kc_req(a.c, "challenge",
		"{s:s, s:{s:i}}", "user", "bob", "time", "days", 3)), "offer"));
	kc_event(b.c, "challenge");

	sqlite3 *db = kd_lock_db(d);
	kc_error(a.c, kc_req(a.c, "challenge", "{s:s, s:{s:i}}", "user", "bob", "time", "days", 2),
	         "storage");
	kc_error(b.c, kc_req(b.c, "decline", "{s:I}", "offer", offer), "storage");
	kc_error(a.c, kc_req(a.c, "cancel", "{s:I}", "offer", offer), "storage");
	kc_error(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer), "storage");
	kc_no_event(b.c, "challenge");
	kc_no_event(b.c, "challenge_cancelled");
	kc_no_event(a.c, "challenge_declined");
	kc_no_event(b.c, "game_start");
	kd_unlock_db(db);

	json_t *offers = json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers");
	ck_assert_int_eq(json_array_size(offers), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(offers, 0), "offer")), offer);
	kc_ok(b.c, kc_req(b.c, "accept", "{s:I}", "offer", offer));
	kc_event(b.c, "game_start");
	kc_close(a.c);
	kc_close(b.c);
	kd_restart(d);
	kp_resume(d, &b);
	kc_no_event(b.c, "challenge");
	ck_assert_int_eq(json_array_size(json_object_get(kc_ok(b.c, kc_req(b.c, "seeks", NULL)), "offers")), 0);
	kc_close(b.c);
	kd_stop(d);
}
END_TEST

static Suite *storage_suite(void)
{
	Suite *s = suite_create("storage");
	TCase *tc = tcase_create("storage");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, corrupt_at_start);
	tcase_add_test(tc, locked_database);
	tcase_add_test(tc, failed_commits_logged_bounded);
	tcase_add_test(tc, readable_database_warned);
	tcase_add_test(tc, failed_offer_counts_nothing);
	tcase_add_test(tc, locked_database_keeps_challenges);
	tcase_add_test(tc, disk_full);
	suite_add_tcase(s, tc);
	TCase *ro = tcase_create("read_only");
	tcase_set_timeout(ro, 120);
	tcase_add_unchecked_fixture(ro, ro_setup, ro_teardown);
	tcase_add_test(ro, read_only_database);
	suite_add_tcase(s, ro);
	return s;
}

KRIEG_TEST_MAIN(storage_suite)
