/*
 * useradm.c — `kriegd user ...` (useradm.h): accounts administered on the
 * database directly, from a second process.
 */
#include "useradm.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "auth.h"
#include "config.h"
#include "kdf.h"
#include "proto.h"
#include "store.h"

#define USERADM_PATH_MAX 4096
#define USERADM_PW_BUF (PROTO_PASSWORD_MAX + 2)   /* a password, its newline, its NUL */

static void say(const char *fmt, va_list ap)
{
	fputs("kriegd: user: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static int fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return status;
}

/* One line from f into buf without its line end; -1 if none or too long. */
static int read_line(FILE *f, char *buf, size_t len)
{
	if (fgets(buf, (int)len, f) == NULL)
		return -1;
	size_t n = strlen(buf);
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	else if (!feof(f))
		return -1;   /* longer than the buffer */
	if (n > 0 && buf[n - 1] == '\r')
		buf[--n] = '\0';
	return 0;
}

/* A prompt on the terminal, echo off. */
static int prompt(FILE *tty, const char *what, char *buf, size_t len)
{
	struct termios old, quiet;
	int fd = fileno(tty);
	bool restore = tcgetattr(fd, &old) == 0;
	if (restore) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	fprintf(tty, "%s", what);
	fflush(tty);
	int rc = read_line(tty, buf, len);
	if (restore)
		tcsetattr(fd, TCSAFLUSH, &old);
	fputc('\n', tty);
	return rc;
}

/* The new password of name, checked (auth_check_password), hashed into hash. */
static int new_password(const char *name, bool from_stdin, int cost, char *hash, size_t hashlen)
{
	char pw[USERADM_PW_BUF], again[USERADM_PW_BUF];
	int rc = 1;

	if (from_stdin) {
		if (read_line(stdin, pw, sizeof pw) != 0)
			return fail(1, "no password on stdin (one line of at most %d bytes)",
			            PROTO_PASSWORD_MAX);
	} else {
		FILE *tty = fopen("/dev/tty", "r+");
		if (tty == NULL)
			return fail(1, "no terminal to ask for the password: use --password-stdin");
		int bad = prompt(tty, "Password: ", pw, sizeof pw) != 0 ||
		          prompt(tty, "Again: ", again, sizeof again) != 0;
		fclose(tty);
		if (bad || strcmp(pw, again) != 0) {
			OPENSSL_cleanse(pw, sizeof pw);
			OPENSSL_cleanse(again, sizeof again);
			return fail(1, "the passwords do not match");
		}
		OPENSSL_cleanse(again, sizeof again);
	}
	if (auth_check_password(name, pw, strlen(pw)) != PE_NONE)
		rc = fail(1, "passwords are %d to %d bytes and not the user name", PROTO_PASSWORD_MIN,
		          PROTO_PASSWORD_MAX);
	else if (kdf_hash(pw, strlen(pw), cost, hash, hashlen) != 0)
		rc = fail(1, "password hashing failed");
	else
		rc = 0;
	OPENSSL_cleanse(pw, sizeof pw);
	return rc;
}

static int list_cb(const struct store_user *u, void *arg)
{
	(void)arg;
	/* The flags an admin sets here, all shown (must-change was not: admin probe). */
	printf("%s %s %s%s%s\n", u->name, u->role, u->disabled ? "disabled" : "enabled", u->bot ? " bot" : "",
	       u->must_change ? " must-change" : "");
	return 0;
}

/*
 * The audit row of an offline change (admin.h: every change to accounts
 * is audited).  The operator is the Unix user running the tool (its
 * name, "uid N" if it has none), and the address is "console", which no
 * connection has: no user id, as no account made the change.
 */
static void audit_row(struct store_audit *row, const char *action, const char *target,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void audit_row(struct store_audit *row, const char *action, const char *target,
                      const char *fmt, ...)
{
	va_list ap;
	struct passwd *pw = getpwuid(getuid());
	memset(row, 0, sizeof *row);
	row->at_unix = (int64_t)time(NULL);
	row->admin = 0;
	if (pw != NULL && pw->pw_name != NULL && pw->pw_name[0] != '\0')
		snprintf(row->admin_name, sizeof row->admin_name, "%s", pw->pw_name);
	else
		snprintf(row->admin_name, sizeof row->admin_name, "uid %lu", (unsigned long)getuid());
	snprintf(row->addr, sizeof row->addr, "%s", USERADM_AUDIT_ADDR);
	snprintf(row->action, sizeof row->action, "%s", action);
	snprintf(row->target, sizeof row->target, "%s", target);
	va_start(ap, fmt);
	vsnprintf(row->detail, sizeof row->detail, fmt, ap);
	va_end(ap);
}

/* End a transaction whose change ran with status rc: commit it, or roll
 * it back and return rc. */
static int finish(struct store *st, int rc)
{
	if (rc == STORE_OK)
		return store_commit(st);
	store_rollback(st);
	return rc;
}

/* The status of a change by name: NOT_FOUND is "no such account". */
static int changed(struct store *st, int rc, const char *name, const char *what)
{
	if (rc == STORE_NOT_FOUND)
		return fail(1, "%s: no such account", name);
	if (rc != STORE_OK)   /* the account's name first, as on success: never "added: <error>" */
		return fail(1, "%s: nothing changed: %s", name, store_error(st));
	fprintf(stderr, "kriegd: user: %s: %s\n", name, what);
	return 0;
}

/* A change asked for that is the account's state already: said, 0. */
static int unchanged(const char *name, const char *state)
{
	fprintf(stderr, "kriegd: user: %s: already %s: nothing changed\n", name, state);
	return 0;
}

/* A usage error: what was wrong (it printed the usage alone for some:
 * admin probe), then how it is said; exit 2, as every usage error. */
static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return fail(2, "usage: user add NAME [--role ROLE] [--bot] [--must-change] [--password-stdin] |"
	               " role NAME ROLE | bot NAME on|off | passwd NAME [--must-change] [--password-stdin] |"
	               " disable NAME | enable NAME | list");
}

/* The verbs and the words after NAME each takes (add and passwd: options). */
static const struct {
	const char *verb;
	int words;          /* after the verb, NAME included; -1: NAME, then options */
	const char *what;   /* what those words are, for the error */
} verbs[] = {
	{ "add", -1, "NAME" },
	{ "passwd", -1, "NAME" },
	{ "role", 2, "NAME and ROLE" },
	{ "bot", 2, "NAME and on or off" },
	{ "disable", 1, "NAME" },
	{ "enable", 1, "NAME" },
	{ "list", 0, "nothing" },
};

int useradm_main(const struct config *cfg, int argc, char **argv)
{
	char path[USERADM_PATH_MAX], err[1024], hash[KDF_ENCODED_MAX];
	const char *verb = argc > 1 ? argv[1] : "";
	const char *name = argc > 2 ? argv[2] : NULL;
	const char *role = "player";
	bool from_stdin = false, must_change = false, bot = false;
	int first_opt = 3;

	/* Words: verb, then NAME (not for list), then the verb's own. */
	size_t v = 0;
	while (v < sizeof verbs / sizeof verbs[0] && strcmp(verbs[v].verb, verb) != 0)
		v++;
	if (verb[0] == '\0')
		return usage("a command is needed");
	if (v == sizeof verbs / sizeof verbs[0])
		return usage("unknown command '%s'", verb);
	int nwords = verbs[v].words;
	if (argc - 2 < (nwords < 0 ? 1 : nwords))
		return usage("%s takes %s", verb, verbs[v].what);
	if (nwords >= 0 && argc - 2 > nwords)
		return usage("%s takes %s: unexpected word '%s'", verb, verbs[v].what, argv[2 + nwords]);
	if (strcmp(verb, "role") == 0) {
		role = argv[3];
		first_opt = argc;
	} else if (strcmp(verb, "bot") == 0) {
		if (strcmp(argv[3], "on") != 0 && strcmp(argv[3], "off") != 0)
			return usage("bot takes on or off, not '%s'", argv[3]);
		bot = strcmp(argv[3], "on") == 0;
		first_opt = argc;
	}
	for (int i = first_opt; i < argc; i++) {
		bool adding = strcmp(verb, "add") == 0;
		if (strcmp(argv[i], "--password-stdin") == 0)
			from_stdin = true;
		else if (strcmp(argv[i], "--must-change") == 0)
			must_change = true;   /* add and passwd only: the others take no options */
		else if (adding && strcmp(argv[i], "--bot") == 0)
			bot = true;
		else if (adding && strcmp(argv[i], "--role") == 0 && i + 1 == argc)
			return usage("a value is needed after '--role'");
		else if (adding && strcmp(argv[i], "--role") == 0)
			role = argv[++i];
		else if (adding && strncmp(argv[i], "--role=", 7) == 0)
			role = argv[i] + 7;
		else
			return usage("%s '%s'", argv[i][0] == '-' ? "unknown option" : "unexpected word",
			             argv[i]);
	}
	if (auth_role_parse(role) == AUTH_ROLE_NONE)
		return fail(2, "unknown role '%s': the role is player, umpire or admin", role);
	/* A name no account can have is the command line's mistake, as a
	 * role none has is (both exit 2: admin probe). */
	if (strcmp(verb, "add") == 0 && auth_check_name(name, strlen(name)) != PE_NONE)
		return fail(2, "%s: " AUTH_NAME_RULE_FMT, name, AUTH_NAME_RULE_ARGS);

	bool adding = strcmp(verb, "add") == 0;
	if (!config_db_path(cfg, path, sizeof path))
		return fail(1, "database path too long");
	/* The first admin may be made before the daemon ever ran. */
	if (cfg->db_file == NULL && adding && mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST)
		return fail(1, "mkdir %s: %s", cfg->state_dir, strerror(errno));
	/* Only `add` makes the database: the others, pointed at the wrong
	 * place (a mistyped --state-dir), would leave an empty one behind
	 * and answer as if it were the server's. */
	if (!adding && access(path, F_OK) != 0 && errno == ENOTDIR && cfg->db_file == NULL)
		return fail(1, "the state directory %s is not a directory", cfg->state_dir);
	if (!adding && access(path, F_OK) != 0)
		return fail(1, "%s: %s (the daemon's first start, or `kriegd user add`, makes it)", path,
		            strerror(errno));
	/* An add that makes the database says where: without --state-dir or
	 * --config it lands in ./var, and an admin who forgot them believed
	 * the account was on the server's (the club admin probe). */
	bool fresh = adding && access(path, F_OK) != 0;
	/* Before the database is opened: a password prompt holds no lock. */
	if ((strcmp(verb, "add") == 0 || strcmp(verb, "passwd") == 0) &&
	    new_password(name, from_stdin, cfg->password_cost, hash, sizeof hash) != 0)
		return 1;

	struct store_options opt = { 0 };
	opt.synchronous = cfg->store_synchronous;
	opt.busy_timeout_ms = cfg->busy_timeout_ms;
	struct store *st = store_open_opts(path, &opt, err, sizeof err);
	if (st == NULL)
		return fail(1, "%s", err);
	int status, rc;
	struct store_user u;
	struct store_audit row;
	if (strcmp(verb, "list") == 0) {
		status = store_users_list(st, list_cb, NULL) == STORE_OK ? 0
		         : fail(1, "list: %s", store_error(st));
	} else if (strcmp(verb, "add") == 0) {
		/* The account, its role, its must-change flag and the audit row
		 * together, or none of them. */
		int64_t id = 0;
		audit_row(&row, "user_create", name, "role=%s must_change=%d%s", role, must_change,
		          bot ? " bot=1" : "");
		rc = store_begin(st);
		if (rc == STORE_OK)
			rc = store_user_create(st, name, hash, 0, &id);
		if (rc == STORE_OK)
			rc = store_user_set_role(st, name, role);
		if (rc == STORE_OK && must_change)
			rc = store_user_set_password(st, id, hash, 1);
		if (rc == STORE_OK && bot)
			rc = store_user_set_bot(st, name, 1);
		if (rc == STORE_OK)
			rc = store_audit_add(st, &row);
		rc = finish(st, rc);
		if (rc == STORE_EXISTS) {
			/* Named, as the wire names it (auth_reply_taken): the admin
			 * needs to know which account it clashes with (admin probe). */
			char taken[PROTO_NAME_MAX + 1], words[PROTO_NAME_MAX + 64];
			if (store_user_alike(st, name, taken, sizeof taken) != STORE_OK)
				snprintf(taken, sizeof taken, "%s", name);
			auth_taken_words(name, taken, words, sizeof words);
			status = fail(1, "%s: %s", name, words);
		} else {
			char what[USERADM_PATH_MAX + 64] = "added";
			if (fresh)
				snprintf(what, sizeof what, "added, to a new database: %s", path);
			status = changed(st, rc, name, what);
		}
	} else if ((rc = store_user_find(st, name, &u)) != STORE_OK || u.guest) {
		/* role, passwd, disable, enable: of a registered account; a
		 * guest's name said so, not "no such account" (admin probe). */
		OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
		if (rc == STORE_OK)
			status = fail(1, "%s: a guest, not an account: only registered accounts are changed "
			              "here (a guest goes with its last session)", name);
		else
			status = changed(st, rc, name, "reading");
	} else if (strcmp(verb, "role") == 0 && strcmp(u.role, role) == 0) {
		/* Nothing to change: no row (as over the wire), no write, and
		 * said so (the club admin probe: "role set" read as a change). */
		status = unchanged(u.name, u.role);
	} else if (strcmp(verb, "role") == 0) {
		audit_row(&row, "user_role", u.name, "%s -> %s", u.role, role);
		rc = store_begin(st);
		if (rc == STORE_OK)
			rc = store_user_set_role(st, u.name, role);
		if (rc == STORE_OK)
			rc = store_audit_add(st, &row);
		status = changed(st, finish(st, rc), u.name, "role set");
	} else if (strcmp(verb, "bot") == 0 && (u.bot != 0) == bot) {
		status = unchanged(u.name, bot ? "a bot" : "not a bot");   /* as above */
	} else if (strcmp(verb, "bot") == 0) {
		audit_row(&row, "user_bot", u.name, "bot=%d -> %d", u.bot, bot);
		rc = store_begin(st);
		if (rc == STORE_OK)
			rc = store_user_set_bot(st, u.name, bot);
		if (rc == STORE_OK)
			rc = store_audit_add(st, &row);
		status = changed(st, finish(st, rc), u.name, bot ? "bot on" : "bot off");
	} else if (strcmp(verb, "passwd") == 0) {
		/* A password set here is an operator's answer to a forgotten or a
		 * stolen one: as an admin's user_reset, every stored session ends
		 * too, so that no token resumes around the change, and a running
		 * daemon closes the connections logged in before it (auth_roles.c,
		 * users_apply: the trigger's users_version tells it). */
		audit_row(&row, "user_passwd", u.name, "must_change=%d sessions ended", must_change);
		rc = store_begin(st);
		if (rc == STORE_OK)
			rc = store_user_set_password(st, u.id, hash, must_change);
		if (rc == STORE_OK)
			rc = store_sessions_end_user(st, u.id, "");
		if (rc == STORE_OK)
			rc = store_audit_add(st, &row);
		status = changed(st, finish(st, rc), u.name, "password set");
	} else if ((u.disabled != 0) == (strcmp(verb, "disable") == 0)) {
		status = unchanged(u.name, u.disabled ? "disabled" : "enabled");   /* as above */
	} else {
		bool off = strcmp(verb, "disable") == 0;
		audit_row(&row, off ? "user_disable" : "user_enable", u.name, "%s", "");
		rc = store_begin(st);
		if (rc == STORE_OK)
			rc = store_user_set_disabled(st, u.name, off);
		if (rc == STORE_OK)
			rc = store_audit_add(st, &row);
		status = changed(st, finish(st, rc), u.name, off ? "disabled" : "enabled");
	}
	OPENSSL_cleanse(u.pwhash, sizeof u.pwhash);
	OPENSSL_cleanse(hash, sizeof hash);
	store_close(st);
	return status;
}
