/*
 * test_client_doc.c — krieg's commands, its help and krieg(1) agree: every
 * command of the table (cmd_entry_at) has a line of its own in `help` and
 * an entry of its own in client-cli/krieg.1, and every command either
 * names is in the table.
 *
 * krieg.1 documents a command by an entry: a .TP whose tag starts with the
 * command's word in bold (".B who", ".BI watch \" GAME\"", ".BR lobby ...",
 * ".BI \"ghost move \" ...", "\fBghost place\fR ..."); a word named only in
 * another command's text ("until .BI unmute \" USER\" .") is no entry.  A
 * tag that starts with anything else (an option "\-\-batch", a variable
 * "KRIEG_KNOWN_SERVERS", a placeholder ".I TRY") is not a command's.  A
 * command with two entries (abort: a player's, an umpire's) is fine.
 *
 * The events `wait` takes (client_event_known) and PROTOCOL.md agree too:
 * every event the document shows ("event":"NAME" in an example) is one
 * krieg knows, but krieg-referee's "error", and each of kriegd's own
 * events krieg names is shown there; a name mistyped is refused.
 *
 * The page is found from $KRIEG_MAN_PAGE, this file's compile-time path,
 * or by walking up from the working directory (tests/run-tests.sh runs
 * from the repository root) and from the binary (build/<tree>/tests/unit/).
 */
#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "srcfile.h"
#include "client.h"
#include "cmd.h"

#define PAGE_REL "client-cli/krieg.1"
#define ENTRIES_MAX 256
#define WORD_MAX 32

static char page_path[PATH_MAX];
static char *page;

/* The command words of krieg.1's entries, with their line numbers. */
static char entries[ENTRIES_MAX][WORD_MAX];
static int entry_line[ENTRIES_MAX];
static size_t nentries;

/* The command word a .TP tag line starts with in bold, into word; false if
 * the tag starts with anything else. */
static bool tag_word(const char *tag, char word[WORD_MAX])
{
	const char *p = tag;
	if (strncmp(p, ".BI ", 4) == 0 || strncmp(p, ".BR ", 4) == 0)
		p += 4;
	else if (strncmp(p, ".B ", 3) == 0)
		p += 3;
	else if (strncmp(p, "\\fB", 3) == 0)
		p += 3;
	else
		return false;   /* .I, .IR: a placeholder (TRY); anything else: no command */
	if (*p == '"')
		p++;
	size_t n = 0;
	while (p[n] >= 'a' && p[n] <= 'z' && n + 1 < WORD_MAX)
		n++;
	/* the word whole: then a blank, a quote, a font change or the line's end */
	if (n == 0 || !(p[n] == ' ' || p[n] == '"' || p[n] == '\\' || p[n] == '\n' || p[n] == '\0'))
		return false;
	memcpy(word, p, n);
	word[n] = '\0';
	return true;
}

static void setup(void)
{
	page = srcfile_read(PAGE_REL, "KRIEG_MAN_PAGE", __FILE__, page_path, sizeof page_path);
	ck_assert_msg(page != NULL, "cannot read %s (set KRIEG_MAN_PAGE)", page_path);
	nentries = 0;
	int line = 1;
	for (const char *p = page; *p; line++) {
		const char *nl = strchr(p, '\n');
		const char *next = nl ? nl + 1 : p + strlen(p);
		if (strncmp(p, ".TP\n", 4) == 0 && nl) {
			char word[WORD_MAX];
			if (tag_word(next, word)) {
				ck_assert_msg(nentries < ENTRIES_MAX, "more than %d entries", ENTRIES_MAX);
				snprintf(entries[nentries], WORD_MAX, "%s", word);
				entry_line[nentries++] = line + 1;
			}
		}
		p = next;
	}
}

static void teardown(void)
{
	free(page);
	page = NULL;
}

static const struct cmd_entry *table_entry(const char *word)
{
	const struct cmd_entry *e;
	for (size_t i = 0; (e = cmd_entry_at(i)) != NULL; i++)
		if (strcmp(e->name, word) == 0)
			return e;
	return NULL;
}

/* Every command of the table has an entry of its own in krieg.1. */
START_TEST(every_command_has_a_man_page_entry)
{
	const struct cmd_entry *e;
	size_t n = 0;
	for (size_t i = 0; (e = cmd_entry_at(i)) != NULL; i++, n++) {
		bool found = false;
		for (size_t k = 0; !found && k < nentries; k++)
			found = strcmp(entries[k], e->name) == 0;
		ck_assert_msg(found, "%s has no entry of its own (.TP, then .B %s ...) for \"%s\"", page_path,
		              e->name, e->name);
	}
	ck_assert_uint_gt(n, 30);
	ck_assert_uint_ge(nentries, n);
}
END_TEST

/* Every entry of krieg.1 that starts with a word in bold is a command of the table. */
START_TEST(every_man_page_entry_is_a_command)
{
	for (size_t k = 0; k < nentries; k++)
		ck_assert_msg(table_entry(entries[k]) != NULL, "%s:%d: an entry for \"%s\", which krieg has not",
		              page_path, entry_line[k], entries[k]);
}
END_TEST

/* help: a heading, then a line per command of the table, each once, and nothing else. */
START_TEST(help_lists_every_command)
{
	const char *help = cmd_help();
	const char *p = strchr(help, '\n');
	ck_assert_ptr_nonnull(p);
	size_t lines = 0;
	for (p++; *p; lines++) {
		const char *nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(strncmp(p, "  ", 2) == 0, "help line \"%.*s\"", (int)(nl - p), p);
		char word[WORD_MAX];
		size_t n = strcspn(p + 2, " \n");
		ck_assert_uint_lt(n, WORD_MAX);
		snprintf(word, sizeof word, "%.*s", (int)n, p + 2);
		const struct cmd_entry *e = table_entry(word);
		ck_assert_msg(e != NULL, "help names \"%s\", which krieg has not", word);
		ck_assert_msg((size_t)(nl - p - 2) == strlen(e->usage) && strncmp(p + 2, e->usage, strlen(e->usage)) == 0,
		              "help line of %s is not its usage", word);
		p = nl + 1;
	}
	const struct cmd_entry *e;
	size_t n = 0;
	for (size_t i = 0; (e = cmd_entry_at(i)) != NULL; i++, n++) {
		char line[512];
		snprintf(line, sizeof line, "\n  %s\n", e->usage);
		ck_assert_msg(strstr(help, line) != NULL, "help has no line for \"%s\"", e->name);
	}
	ck_assert_uint_eq(lines, n);
}
END_TEST

/* Every "event":"NAME" of PROTOCOL.md is an event `wait` takes (but
 * krieg-referee's "error"); every server event krieg names is shown there;
 * `wait` refuses a name it does not know, and takes one it does. */
START_TEST(wait_knows_protocol_events)
{
	char path[PATH_MAX];
	char *doc = srcfile_read("proto/PROTOCOL.md", "KRIEG_PROTOCOL_MD", __FILE__, path, sizeof path);
	ck_assert_msg(doc != NULL, "cannot read %s (set KRIEG_PROTOCOL_MD)", path);
	static const char key[] = "\"event\":\"";
	size_t shown = 0;
	for (const char *p = doc; (p = strstr(p, key)) != NULL; p++) {
		char name[WORD_MAX];
		size_t n = strcspn(p + strlen(key), "\"");
		ck_assert_uint_lt(n, WORD_MAX);
		snprintf(name, sizeof name, "%.*s", (int)n, p + strlen(key));
		if (strcmp(name, "error") == 0)
			continue;   /* krieg-referee's answer to a refused action */
		ck_assert_msg(client_event_known(name), "%s shows event \"%s\", which wait does not take",
		              path, name);
		shown++;
	}
	ck_assert_uint_gt(shown, 40);
	const char *ev;
	for (size_t i = 0; (ev = client_server_event_at(i)) != NULL; i++) {
		char want[64];
		snprintf(want, sizeof want, "%s%s\"", key, ev);
		ck_assert_msg(strstr(doc, want) != NULL, "krieg names event \"%s\", which %s never shows",
		              ev, path);
	}
	free(doc);
	struct cmd c;
	char err[256];
	ck_assert_int_ne(cmd_parse("wait game_strat", &c, err, sizeof err), 0);
	ck_assert_msg(strstr(err, "game_strat") != NULL, "%s", err);
	ck_assert_int_eq(cmd_parse("wait game_start 5", &c, err, sizeof err), 0);
	ck_assert_int_eq(c.number, 5000);
	ck_assert_int_eq(cmd_parse("wait pawn_tries", &c, err, sizeof err), 0);   /* an announcement */
}
END_TEST

static Suite *client_doc_suite(void)
{
	Suite *s = suite_create("client_doc");
	TCase *tc = tcase_create("client_doc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_command_has_a_man_page_entry);
	tcase_add_test(tc, every_man_page_entry_is_a_command);
	tcase_add_test(tc, help_lists_every_command);
	tcase_add_test(tc, wait_knows_protocol_events);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(client_doc_suite)
