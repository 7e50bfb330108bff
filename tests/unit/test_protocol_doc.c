/*
 * test_protocol_doc.c — proto/PROTOCOL.md and the dispatch tables agree:
 * every request type kriegd registers (dispatch_cmd_at) is documented,
 * and every request the document describes is registered.
 *
 * PROTOCOL.md documents a request by its signature in a code span, the
 * type, a space and its fields in braces, outside the fenced examples:
 *     - `seek {rules, time, color, rated}` → ...
 *     - `move {game, moves:[...]}` — ...
 * A field is the word before any '?' (optional) or ':' (its shape).  A
 * type may have several signatures (`move {game, move}`, `move {game,
 * moves:[...]}`); together they must name every field of its table, and
 * each must name only fields of its table.  Requiredness is not checked:
 * the prose says which fields are optional (all of seek's, one of move and
 * moves).  Besides, every example request in the document ("type":"x",
 * in a span or a transcript) names a registered type, but for the one
 * line showing unknown_type.
 *
 * The document is found from $KRIEG_PROTOCOL_MD, a -DKRIEG_SRCDIR define,
 * this file's compile-time path, or by walking up from the working
 * directory (tests/run-tests.sh runs from the repository root) and from
 * the binary (build/<tree>/tests/unit/).
 */
#include <check.h>
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "srcfile.h"
#include "dispatch.h"

#define DOC_REL "proto/PROTOCOL.md"
#define SIG_MAX 128
#define SIG_FIELDS_MAX 16
#define NAME_MAX_LEN 32

struct sig {
	char type[NAME_MAX_LEN];
	char fields[SIG_FIELDS_MAX][NAME_MAX_LEN];
	size_t nfields;
	int line;
};

static struct sig sigs[SIG_MAX];
static size_t nsigs;
static char doc_path[PATH_MAX];
static char *doc;

/* Parse one signature's braces "{a, b?, c:[...]}" (p after the '{', end at
 * the '}') into s->fields. */
static void parse_fields(struct sig *s, const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		const char *w = p;
		while (p < end && (islower((unsigned char)*p) || *p == '_'))
			p++;
		if (p > w) {
			ck_assert_msg(s->nfields < SIG_FIELDS_MAX, "PROTOCOL.md:%d: too many fields", s->line);
			ck_assert_msg((size_t)(p - w) < NAME_MAX_LEN, "PROTOCOL.md:%d: long field", s->line);
			snprintf(s->fields[s->nfields++], NAME_MAX_LEN, "%.*s", (int)(p - w), w);
		}
		/* The rest of this field: '?', ": next", ":[...]". */
		while (p < end && *p != ',')
			p++;
	}
}

/* Every `type {fields}` span outside fenced blocks. */
static void parse_doc(void)
{
	bool fenced = false;
	int line = 0;

	nsigs = 0;
	for (const char *l = doc; *l != '\0';) {
		const char *eol = strchr(l, '\n');
		if (eol == NULL)
			eol = l + strlen(l);
		line++;
		if (strncmp(l, "```", 3) == 0) {
			fenced = !fenced;
		} else if (!fenced) {
			for (const char *p = l; p < eol; p++) {
				if (*p != '`')
					continue;
				const char *t = p + 1, *q = t;
				while (q < eol && (islower((unsigned char)*q) || *q == '_'))
					q++;
				if (q == t || q + 1 >= eol || q[0] != ' ' || q[1] != '{')
					continue;
				const char *close = memchr(q, '`', (size_t)(eol - q));
				if (close == NULL || close[-1] != '}')
					continue;
				ck_assert_msg(nsigs < SIG_MAX, "more than %d request signatures", SIG_MAX);
				ck_assert_msg((size_t)(q - t) < NAME_MAX_LEN, "PROTOCOL.md:%d: long type", line);
				struct sig *s = &sigs[nsigs++];
				memset(s, 0, sizeof *s);
				s->line = line;
				snprintf(s->type, sizeof s->type, "%.*s", (int)(q - t), t);
				parse_fields(s, q + 2, close - 1);
				p = close;
			}
		}
		l = *eol ? eol + 1 : eol;
	}
}

static void setup(void)
{
	doc = srcfile_read(DOC_REL, "KRIEG_PROTOCOL_MD", __FILE__, doc_path, sizeof doc_path);
	ck_assert_msg(doc != NULL, "cannot read %s (set KRIEG_PROTOCOL_MD)", doc_path);
	parse_doc();
	ck_assert_msg(nsigs > 0, "%s documents no request", doc_path);
}

static void teardown(void)
{
	free(doc);
	doc = NULL;
}

static const struct cmd *registered(const char *type)
{
	const struct cmd *c;
	for (size_t i = 0; (c = dispatch_cmd_at(i)) != NULL; i++)
		if (strcmp(c->type, type) == 0)
			return c;
	return NULL;
}

static bool table_has(const struct cmd *c, const char *field)
{
	for (const struct field *f = c->fields; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, field) == 0)
			return true;
	return false;
}

/* Does some signature of `type` name `field`? */
static bool doc_has(const char *type, const char *field)
{
	for (size_t s = 0; s < nsigs; s++)
		if (strcmp(sigs[s].type, type) == 0)
			for (size_t k = 0; k < sigs[s].nfields; k++)
				if (strcmp(sigs[s].fields[k], field) == 0)
					return true;
	return false;
}

START_TEST(every_registered_request_is_documented)
{
	const struct cmd *c;
	size_t n = 0;
	for (size_t i = 0; (c = dispatch_cmd_at(i)) != NULL; i++, n++) {
		bool found = false;
		for (size_t s = 0; s < nsigs && !found; s++)
			found = strcmp(sigs[s].type, c->type) == 0;
		ck_assert_msg(found, "request '%s' is registered but %s has no `%s {...}`", c->type,
		              doc_path, c->type);
		for (const struct field *f = c->fields; f != NULL && f->name != NULL; f++)
			ck_assert_msg(doc_has(c->type, f->name),
			              "field '%s' of request '%s' is missing from every `%s {...}` in %s",
			              f->name, c->type, c->type, doc_path);
	}
	/* The accessor sees every table (hello first, and the last table's). */
	ck_assert_uint_gt(n, 20);
	ck_assert_str_eq(dispatch_cmd_at(0)->type, "hello");
	ck_assert_ptr_nonnull(registered("ping"));
	ck_assert_ptr_nonnull(registered("pgn"));
	ck_assert_ptr_null(dispatch_cmd_at(n));
}
END_TEST

START_TEST(every_documented_request_is_registered)
{
	for (size_t s = 0; s < nsigs; s++) {
		const struct cmd *c = registered(sigs[s].type);
		ck_assert_msg(c != NULL, "%s:%d documents `%s {...}`, which kriegd does not register",
		              doc_path, sigs[s].line, sigs[s].type);
		for (size_t k = 0; k < sigs[s].nfields; k++)
			ck_assert_msg(table_has(c, sigs[s].fields[k]),
			              "%s:%d: `%s` has no field '%s' in kriegd's table", doc_path,
			              sigs[s].line, sigs[s].type, sigs[s].fields[k]);
	}
}
END_TEST

/* "type":"x" in the examples and transcripts: a registered request, but
 * where the line shows the unknown_type answer. */
START_TEST(every_example_request_is_registered)
{
	static const char key[] = "\"type\":\"";
	int line = 1, examples = 0;
	const char *l = doc;
	for (const char *p = doc; (p = strstr(p, key)) != NULL; p += strlen(key)) {
		for (; l < p; l++)
			if (*l == '\n')
				line++;
		const char *t = p + strlen(key), *q = strchr(t, '"');
		ck_assert_ptr_nonnull(q);
		const char *bol = p, *eol = strchr(p, '\n');
		while (bol > doc && bol[-1] != '\n')
			bol--;
		if (eol == NULL)
			eol = p + strlen(p);
		char type[NAME_MAX_LEN], text[512];
		snprintf(type, sizeof type, "%.*s", (int)(q - t), t);
		snprintf(text, sizeof text, "%.*s", (int)(eol - bol), bol);
		examples++;
		if (registered(type) == NULL)
			ck_assert_msg(strstr(text, "\"unknown_type\"") != NULL,
			              "%s:%d: example request of type '%s', which kriegd does not register",
			              doc_path, line, type);
	}
	ck_assert_int_gt(examples, 0);
}
END_TEST

/* The parser itself, on a made-up document. */
START_TEST(signature_parser)
{
	free(doc);
	doc = strdup("- `who {from?}` lists; `abort {game}` and\n"
	             "```\n- `fenced {x}` is an example\n```\n"
	             "`move {game, moves:[...]}`, `game {game, from: next}`, `ping {}`\n"
	             "`{\"event\":\"x\"}` `not a sig` `x{y}`\n");
	parse_doc();
	ck_assert_uint_eq(nsigs, 5);
	ck_assert_str_eq(sigs[0].type, "who");
	ck_assert_uint_eq(sigs[0].nfields, 1);
	ck_assert_str_eq(sigs[0].fields[0], "from");
	ck_assert_str_eq(sigs[1].type, "abort");
	ck_assert_str_eq(sigs[2].type, "move");
	ck_assert_int_eq(sigs[2].line, 5);
	ck_assert_uint_eq(sigs[2].nfields, 2);
	ck_assert_str_eq(sigs[2].fields[1], "moves");
	ck_assert_str_eq(sigs[3].type, "game");
	ck_assert_str_eq(sigs[3].fields[1], "from");
	ck_assert_str_eq(sigs[4].type, "ping");
	ck_assert_uint_eq(sigs[4].nfields, 0);
}
END_TEST

static Suite *protocol_doc_suite(void)
{
	Suite *s = suite_create("protocol_doc");
	TCase *tc = tcase_create("protocol_doc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_registered_request_is_documented);
	tcase_add_test(tc, every_documented_request_is_registered);
	tcase_add_test(tc, every_example_request_is_registered);
	tcase_add_test(tc, signature_parser);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(protocol_doc_suite)
