/*
 * test_dispatch.c — the pieces of the transport that need no socket: the
 * error-code table of the wire (proto.c), settings (config.c), the
 * escaping of client text in logs (log.c), and the paging of lists
 * (dispatch_page_built: a page of a server-wide list such as `who` builds
 * that page's items and the one past it, never the whole list, and pages
 * exactly as dispatch_page does over the built array).  The dispatcher
 * itself runs against a real daemon in tests/integration/test_transport.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "check_main.h"
#include "config.h"
#include "dispatch.h"
#include "log.h"
#include "proto.h"
#include "srcfile.h"

START_TEST(test_error_names_round_trip)
{
	for (int code = 1; code <= PE_LAST; code++) {
		const char *name = proto_error_name(code);

		ck_assert_ptr_nonnull(name);
		ck_assert_int_eq(proto_error_parse(name), code);
		/* Names are lower-case identifiers. */
		for (const char *p = name; *p; p++)
			ck_assert(( *p >= 'a' && *p <= 'z') || *p == '_');
		/* ... and no two codes share one. */
		for (int other = 1; other < code; other++)
			ck_assert_str_ne(proto_error_name(other), name);
	}
	ck_assert_str_eq(proto_error_name(PE_LINE_TOO_LONG), "line_too_long");
	ck_assert_str_eq(proto_error_name(PE_SERVER_FULL), "server_full");
	ck_assert_ptr_null(proto_error_name(PE_NONE));
	ck_assert_ptr_null(proto_error_name(-1));
	ck_assert_ptr_null(proto_error_name(PE_LAST + 1));
	ck_assert_int_eq(proto_error_parse("no_such_code"), PE_NONE);
	ck_assert_int_eq(proto_error_parse(NULL), PE_NONE);
	ck_assert_int_eq(proto_error_parse("BAD_JSON"), PE_NONE);
}
END_TEST

START_TEST(test_config_values)
{
	int ms = -1;
	size_t sz = 0;

	ck_assert_int_eq(config_parse_duration_ms("10", &ms), 0);
	ck_assert_int_eq(ms, 10000);
	ck_assert_int_eq(config_parse_duration_ms("250ms", &ms), 0);
	ck_assert_int_eq(ms, 250);
	ck_assert_int_eq(config_parse_duration_ms("1.5s", &ms), 0);
	ck_assert_int_eq(ms, 1500);
	ck_assert_int_eq(config_parse_duration_ms("5m", &ms), 0);
	ck_assert_int_eq(ms, 300000);
	ck_assert_int_eq(config_parse_duration_ms("-1", &ms), -1);
	ck_assert_int_eq(config_parse_duration_ms("10 parsecs", &ms), -1);
	ck_assert_int_eq(config_parse_duration_ms("", &ms), -1);
	ck_assert_int_eq(config_parse_duration_ms("99999999h", &ms), -1);
	/* Regressions (the time probe): hex, exponents, infinities and
	 * spaces were read by strtod ("0x10" was 16 s); a value above 0 that
	 * rounded to 0 ms was 0, which several settings read as "never"; no
	 * unit for days. */
	const char *const refused[] = { "0x10", "1e3", "inf", " 5", "+5", ".5", "5.", "5 s", "nan", "5sec" };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		ck_assert_msg(config_parse_duration_ms(refused[i], &ms) == -1, "\"%s\" taken", refused[i]);
	ck_assert_int_eq(config_parse_duration_ms("0.5ms", &ms), 0);
	ck_assert_int_eq(ms, 1);
	ck_assert_int_eq(config_parse_duration_ms("0", &ms), 0);
	ck_assert_int_eq(ms, 0);
	ck_assert_int_eq(config_parse_duration_ms("1.2s", &ms), 0);
	ck_assert_int_eq(ms, 1200);
	ck_assert_int_eq(config_parse_duration_ms("7d", &ms), 0);
	ck_assert_int_eq(ms, 7 * 86400000);
	ck_assert_int_eq(config_parse_duration_ms("596h", &ms), 0);
	ck_assert_int_eq(config_parse_duration_ms("597h", &ms), -1);

	ck_assert_int_eq(config_parse_size("64k", &sz), 0);
	ck_assert_uint_eq(sz, 65536);
	ck_assert_int_eq(config_parse_size("1M", &sz), 0);
	ck_assert_uint_eq(sz, 1048576);
	ck_assert_int_eq(config_parse_size("-5", &sz), -1);
	ck_assert_int_eq(config_parse_size("5G", &sz), -1);
}
END_TEST

START_TEST(test_config_file)
{
	char path[] = "/tmp/kriegd-conf-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct config *cfg = config_new();

	ck_assert_int_ge(fd, 0);
	/* Defaults are the named constants. */
	ck_assert_int_eq(cfg->max_conns, CONN_MAX_DEFAULT);
	ck_assert_int_eq(cfg->idle_timeout_ms, IDLE_TIMEOUT_MS_DEFAULT);
	ck_assert_uint_eq(cfg->output_max, OUTPUT_MAX_DEFAULT);
	ck_assert_uint_eq(cfg->nlisten, 0);

	const char *text = "# a comment\n\n  max_connections = 7  # trailing\n"
	                   "idle_timeout=2s\nlisten = 127.0.0.1:0\nlisten = [::1]:9\n"
	                   "output_buffer_max = 64k\ncert = /a b/c.pem\nkey = k.pem\n"
	                   "log_level = debug\n";
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(config_load(cfg, path, err, sizeof err), 0);
	ck_assert_int_eq(cfg->max_conns, 7);
	ck_assert_int_eq(cfg->idle_timeout_ms, 2000);
	ck_assert_uint_eq(cfg->nlisten, 2);
	ck_assert_str_eq(cfg->listen[1], "[::1]:9");
	ck_assert_uint_eq(cfg->output_max, 65536);
	ck_assert_str_eq(cfg->cert_file, "/a b/c.pem");
	ck_assert_int_eq(cfg->log_level, LOGL_DEBUG);
	config_clear_listen(cfg);
	ck_assert_uint_eq(cfg->nlisten, 0);

	/* Errors name the line, and unknown keys are errors. */
	fd = open(path, O_WRONLY | O_TRUNC);
	text = "max_connections = 3\nmax_conections = 3\n";
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(config_load(cfg, path, err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, ":2:"));
	ck_assert_ptr_nonnull(strstr(err, "max_conections"));

	ck_assert_int_eq(config_set(cfg, "max_connections", "0", err, sizeof err), -1);
	ck_assert_int_eq(config_set(cfg, "max_connections", "12x", err, sizeof err), -1);
	ck_assert_int_eq(config_set(cfg, "idle_timeout", "1ms", err, sizeof err), -1);
	ck_assert_int_eq(config_set(cfg, "output_buffer_max", "12", err, sizeof err), -1);
	/* Below two of the longest line, one reply of a record's page would
	 * drop a client that reads (probe: 4096 and 8192 were taken). */
	ck_assert_int_eq(config_set(cfg, "output_buffer_max", "8k", err, sizeof err), -1);
	ck_assert_ptr_nonnull(strstr(err, "at least 32768"));
	ck_assert_int_eq(config_set(cfg, "output_buffer_max", "32k", err, sizeof err), 0);
	ck_assert_int_eq(config_set(cfg, "log_level", "loud", err, sizeof err), -1);
	ck_assert_int_eq(config_set(cfg, "rate_limit", "5", err, sizeof err), 0);
	ck_assert_int_eq(cfg->rate_limit, 5);
	ck_assert_int_eq(config_load(cfg, "/nonexistent/kriegd.conf", err, sizeof err), -1);
	unlink(path);
	config_free(cfg);
}
END_TEST

/* key's line as config_print writes cfg (malloc'd), or NULL. */
static char *printed_line(const struct config *cfg, const char *key)
{
	char *text = NULL, *line = NULL;
	size_t len = 0, klen = strlen(key);
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	config_print(cfg, f);
	fclose(f);
	for (char *at = text; at && *at; at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL)
		if (strncmp(at, key, klen) == 0 && strncmp(at + klen, " = ", 3) == 0) {
			line = strndup(at, strcspn(at, "\n"));
			break;
		}
	free(text);
	return line;
}

/*
 * deploy/kriegd.conf.example's commented settings ("#key = value") are the
 * defaults, but for the keys it gives an example of.  Regression: the
 * default idle_timeout went from 5m to 60s (the friends probe: behind the
 * web door's proxy, a player gone in silence was seen gone, and the
 * opponent told, five minutes later), and the file is where an operator
 * reads it.
 */
START_TEST(test_example_config_states_the_defaults)
{
	static const char *const examples[] = { "listen", "cert", "key", "database", "test_start_fen", "motd",
	                                        "listen_web", "listen_web_plain", "web_origins",
	                                        "web_trusted_proxy", "web_root" };
	char path[PATH_MAX], err[256];
	char *text = srcfile_read("deploy/kriegd.conf.example", "KRIEG_CONF_EXAMPLE", __FILE__, path, sizeof path);
	ck_assert_msg(text != NULL, "deploy/kriegd.conf.example not found");
	struct config *def = config_new();
	int checked = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *key, *value;
		if (line[0] != '#' || line[1] < 'a' || line[1] > 'z' || !strstr(line, " = ") ||
		    config_split(line + 1, &key, &value) != 0 || strchr(key, ' '))
			continue;
		bool example = false;
		for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++)
			example |= strcmp(key, examples[i]) == 0;
		if (example)
			continue;
		struct config *set = config_new();
		ck_assert_msg(config_set(set, key, value, err, sizeof err) == 0, "#%s = %s: %s", key, value, err);
		char *want = printed_line(def, key), *got = printed_line(set, key);
		ck_assert_msg(want && got && strcmp(want, got) == 0, "kriegd.conf.example: #%s = %s; the default: %s",
		              key, value, want ? want : "(not printed)");
		free(want);
		free(got);
		config_free(set);
		checked++;
	}
	ck_assert_int_ge(checked, 30);
	ck_assert_int_eq(IDLE_TIMEOUT_MS_DEFAULT, 60000);
	config_free(def);
	free(text);
}
END_TEST

START_TEST(test_log_escape)
{
	char buf[LOG_ESCAPE_BUF], big[LOG_ESCAPE_MAX * 2];

	ck_assert_str_eq(log_escape("plain", 5, buf, sizeof buf), "plain");
	ck_assert_str_eq(log_escape("a\nb\"c\\", 6, buf, sizeof buf), "a\\x0ab\\\"c\\\\");
	ck_assert_str_eq(log_escape("\x1b[31m\xff", 6, buf, sizeof buf), "\\x1b[31m\\xff");
	ck_assert_str_eq(log_escape("a\0b", 3, buf, sizeof buf), "a\\x00b");
	/* Cut at LOG_ESCAPE_MAX input bytes, marked. */
	memset(big, '\n', sizeof big);
	log_escape(big, sizeof big, buf, sizeof buf);
	ck_assert_uint_eq(strlen(buf), 4 * LOG_ESCAPE_MAX + 3);
	ck_assert_str_eq(buf + strlen(buf) - 3, "...");
	/* A small buffer is never overrun. */
	char small[10];
	log_escape("\n\n\n\n\n\n", 6, small, sizeof small);
	ck_assert_uint_lt(strlen(small), sizeof small);
	ck_assert_ptr_nonnull(strstr(small, "..."));
}
END_TEST

/* Item i, of a length that varies with i; counts what was built. */
struct built {
	size_t calls, lo, hi;   /* how many, the lowest and highest index */
};

static json_t *item_at(size_t i, void *arg)
{
	static const char pad[] = "abcdefghijklmnopqrstuvwxyz01234";   /* 31 bytes */
	struct built *b = arg;

	if (b->calls++ == 0 || i < b->lo)
		b->lo = i;
	if (i > b->hi)
		b->hi = i;
	return json_pack("{s:I, s:s#}", "n", (json_int_t)i, "pad", pad, (int)(i % 31));
}

START_TEST(test_page_builds_only_its_items)
{
	enum { N = 20000 };
	json_t *all = json_array();
	struct built ball = { 0 };

	for (size_t i = 0; i < N; i++)
		json_array_append_new(all, item_at(i, &ball));
	static const size_t froms[] = { 0, 1, 777, N - 3, N, N + 5 };
	for (size_t f = 0; f < sizeof froms / sizeof froms[0]; f++) {
		struct built b = { 0 };
		json_t *built = json_object(), *arr = json_object();
		size_t next = dispatch_page_built(built, "items", N, froms[f], item_at, &b);
		size_t next_arr = dispatch_page(arr, "items", all, froms[f]);
		/* The same page, total and next as over the whole array. */
		ck_assert_uint_eq(next, next_arr);
		ck_assert_msg(json_equal(built, arr), "from %zu: the pages differ", froms[f]);
		ck_assert_int_eq(json_integer_value(json_object_get(built, "total")), N);
		size_t got = json_array_size(json_object_get(built, "items"));
		if (froms[f] >= N) {
			ck_assert_uint_eq(got, 0);
			ck_assert_uint_eq(b.calls, 0);
			ck_assert_ptr_null(json_object_get(built, "next"));
		} else {
			/* A page, well short of the list; built: its items and at
			 * most the one past it, from `from` on. */
			ck_assert_uint_gt(got, 0);
			ck_assert_uint_lt(got, 1000);
			ck_assert_uint_le(b.calls, got + 1);
			ck_assert_uint_eq(b.lo, froms[f]);
			ck_assert_uint_le(b.hi, froms[f] + got);
		}
		json_decref(built);
		json_decref(arr);
	}
	json_decref(all);
}
END_TEST

/* A page is at most DISPATCH_PAGE_BYTES as encoded, its brackets and
 * commas counted (it was one byte over when its items filled it to the
 * byte: the count missed a bracket), and as full as that allows. */
START_TEST(test_page_bytes_brackets_included)
{
	for (size_t len = 1; len < 400; len += 7) {
		json_t *all = json_array();
		char *s = malloc(len + 1);
		memset(s, 'x', len);
		s[len] = '\0';
		for (int i = 0; i < 4000; i++)
			json_array_append_new(all, json_pack("{s:s}", "s", s));
		free(s);
		/* each item {"s":"..."}: len + 8 bytes, one comma between two */
		struct pager p;
		pager_init(&p, 0);
		for (size_t i = 0; i < json_array_size(all); i++)
			pager_take(&p, json_incref(json_array_get(all, i)));
		json_t *j = json_object();
		pager_finish(&p, j, "items");
		size_t enc = json_dumpb(json_object_get(j, "items"), NULL, 0, JSON_COMPACT);
		size_t k = json_array_size(json_object_get(j, "items"));
		ck_assert_msg(enc <= DISPATCH_PAGE_BYTES, "item %zu bytes: a page of %zu bytes", len + 8,
		              enc);
		ck_assert_msg(enc + len + 9 > DISPATCH_PAGE_BYTES, "item %zu bytes: %zu items, %zu bytes: "
		              "one more fits", len + 8, k, enc);
		json_decref(j);
		json_decref(all);
	}
	/* A list cut at `end` (a seat's catch-up): nothing of it after, and
	 * its total is the cut. */
	struct pager p;
	pager_init(&p, 2);
	p.end = 5;
	for (int i = 0; i < 9; i++)
		pager_take(&p, json_integer(i));
	json_t *j = json_object();
	ck_assert_uint_eq(pager_finish(&p, j, "items"), 5);
	ck_assert_int_eq(json_integer_value(json_object_get(j, "total")), 5);
	ck_assert_uint_eq(json_array_size(json_object_get(j, "items")), 3);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(j, "items"), 2)), 4);
	ck_assert_ptr_null(json_object_get(j, "next"));
	json_decref(j);
}
END_TEST

static Suite *dispatch_suite(void)
{
	Suite *s = suite_create("dispatch");
	TCase *tc = tcase_create("units");

	tcase_add_test(tc, test_error_names_round_trip);
	tcase_add_test(tc, test_config_values);
	tcase_add_test(tc, test_config_file);
	tcase_add_test(tc, test_example_config_states_the_defaults);
	tcase_add_test(tc, test_log_escape);
	tcase_add_test(tc, test_page_builds_only_its_items);
	tcase_add_test(tc, test_page_bytes_brackets_included);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(dispatch_suite)
