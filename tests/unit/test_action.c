/*
 * test_action.c — a record's action (common/action.h): the kind name
 * table, building actions, THE list splitting rule (a spaced "e.p." joins
 * the attempt before it; 1 to REFEREE_LIST_MAX attempts, never cut), the
 * draw-offer rules, and referee_apply: the same events as the referee's
 * own calls, and a refusal that changes nothing.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "check_main.h"
#include "fen.h"
#include "referee.h"
#include "referee_snap.h"
#include "ruleset.h"
#include "text.h"

static struct referee *mk(const char *rules, const char *fen, struct evlist *ev)
{
	char err[160];
	struct referee *r = referee_new(ruleset_find(rules), fen, err, sizeof err);
	ck_assert_msg(r != NULL, "referee_new: %s", err);
	evlist_init(ev);
	ck_assert_int_eq(referee_begin(r, ev), REF_OK);
	return r;
}

static struct action mkact(int kind, int color, const char *text)
{
	struct action a;
	ck_assert_int_eq(action_set(&a, kind, color, text), REF_OK);
	return a;
}

/* referee_apply(r, a) returns want, appends nothing and changes nothing. */
static void refused_cleanly(struct referee *r, struct evlist *ev, const struct action *a, int want)
{
	struct snap before = snap_of(r);
	evlist_clear(ev);
	int st = referee_apply(r, a, ev);
	char lab[64];
	action_label(a, lab, sizeof lab);
	ck_assert_msg(st == want, "%s: status %d, want %d", lab, st, want);
	ck_assert_uint_eq(ev->n, 0);
	struct snap after = snap_of(r);
	ASSERT_SAME_SNAP(before, after);
}

/* "w1 w2 ... wn" of distinct pawn moves from the start (n <= 16), then extra. */
static void moves(size_t n, const char *extra, char *buf, size_t len)
{
	static const char *const pawn[16] = { "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3",
		                              "a4", "b4", "c4", "d4", "e4", "f4", "g4", "h4" };
	size_t off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "", pawn[i]);
	if (extra)
		snprintf(buf + off, len - off, " %s", extra);
}

/* ---- names ------------------------------------------------------------------ */

START_TEST(test_kind_names)
{
	/* These names are stored in every record: they never change. */
	static const char *const names[ACTION_KIND_COUNT] = {
		[ACTION_BEGIN] = "begin", [ACTION_TRY] = "try", [ACTION_LIST] = "list",
		[ACTION_QUIET] = "quiet", [ACTION_ANY] = "any", [ACTION_END] = "end",
		[ACTION_DRAW] = "draw", [ACTION_PAUSE] = "pause", [ACTION_UNPAUSE] = "unpause",
		[ACTION_ADDTIME] = "addtime", [ACTION_ADJUDGE] = "adjudge", [ACTION_UABORT] = "uabort",
		[ACTION_NOTE] = "note", [ACTION_SAY] = "say", [ACTION_SPEC] = "spec",
		[ACTION_ADJOURN] = "adjourn", [ACTION_UNADJ] = "unadj",
	};
	for (int k = 0; k < ACTION_KIND_COUNT; k++) {
		ck_assert_ptr_nonnull(action_kind_name(k));
		ck_assert_str_eq(action_kind_name(k), names[k]);
		ck_assert_int_eq(action_kind_parse(action_kind_name(k)), k);
		ck_assert_uint_lt(strlen(names[k]), ACTION_KIND_NAME_MAX);
	}
	ck_assert_ptr_null(action_kind_name(-1));
	ck_assert_ptr_null(action_kind_name(ACTION_KIND_COUNT));
	ck_assert_int_eq(action_kind_parse(""), -1);
	ck_assert_int_eq(action_kind_parse("Try"), -1);
	ck_assert_int_eq(action_kind_parse("tr"), -1);
	ck_assert_int_eq(action_kind_parse("tries"), -1);
}
END_TEST

START_TEST(test_set_and_parse)
{
	struct action a;
	ck_assert_int_eq(action_parse(&a, "try", WHITE, "Nf3"), REF_OK);
	ck_assert_int_eq(a.kind, ACTION_TRY);
	ck_assert_int_eq(a.color, WHITE);
	ck_assert_str_eq(a.text, "Nf3");
	ck_assert_int_eq(action_set(&a, ACTION_ANY, BLACK, NULL), REF_OK);
	ck_assert_str_eq(a.text, "");
	ck_assert_int_eq(action_parse(&a, "fly", WHITE, "e4"), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(action_set(&a, ACTION_KIND_COUNT, WHITE, "e4"), REF_E_BAD_ARGUMENT);

	/* A text that does not fit is refused, never cut. */
	char big[ACTION_TEXT_MAX + 1];
	memset(big, 'a', sizeof big - 1);
	big[ACTION_TEXT_MAX] = '\0';
	ck_assert_int_eq(action_set(&a, ACTION_TRY, WHITE, big), REF_E_BAD_ARGUMENT);
	big[ACTION_TEXT_MAX - 1] = '\0';
	ck_assert_int_eq(action_set(&a, ACTION_TRY, WHITE, big), REF_OK);
	ck_assert_uint_eq(strlen(a.text), ACTION_TEXT_MAX - 1);

	char lab[64];
	a = mkact(ACTION_LIST, WHITE, "e4 d4");
	action_label(&a, lab, sizeof lab);
	ck_assert_str_eq(lab, "list e4 d4");
	a = mkact(ACTION_ANY, WHITE, "");
	action_label(&a, lab, sizeof lab);
	ck_assert_str_eq(lab, "any");
	a = mkact(ACTION_END, BLACK, "resignation");
	action_label(&a, lab, sizeof lab);
	ck_assert_str_eq(lab, "end resignation");
}
END_TEST

/* ---- the list splitting rule -------------------------------------------------- */

START_TEST(test_split)
{
	char buf[ACTION_TEXT_MAX], text[ACTION_TEXT_MAX];
	const char *items[REFEREE_LIST_MAX];
	size_t n = 99;

	/* A spaced "e.p." (or "ep", with marks) joins the attempt before it. */
	ck_assert_int_eq(action_split("exd6 e.p. Nf3", buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(items[0], "exd6e.p.");
	ck_assert_str_eq(items[1], "Nf3");
	ck_assert_int_eq(action_split("  exf6   ep  exd6 e.p.+ ", buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(items[0], "exf6ep");
	ck_assert_str_eq(items[1], "exd6e.p.+");
	/* ... but a leading one is an attempt of its own. */
	ck_assert_int_eq(action_split("e.p. e4", buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(items[0], "e.p.");

	/* 16 attempts are a list; 17 are refused, not cut to 16. */
	moves(16, NULL, text, sizeof text);
	ck_assert_int_eq(action_split(text, buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 16);
	ck_assert_str_eq(items[0], "a3");
	ck_assert_str_eq(items[15], "h4");
	moves(16, "Nf3", text, sizeof text);
	n = 99;
	ck_assert_int_eq(action_split(text, buf, items, &n), REF_E_TOO_MANY);
	ck_assert_uint_eq(n, 0);
	/* A suffix is no attempt: 16 moves and an "e.p." are still 16. */
	moves(16, "e.p.", text, sizeof text);
	ck_assert_int_eq(action_split(text, buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 16);
	ck_assert_str_eq(items[15], "h4e.p.");

	/* None is no list either. */
	ck_assert_int_eq(action_split("", buf, items, &n), REF_E_TOO_MANY);
	ck_assert_int_eq(action_split("    ", buf, items, &n), REF_E_TOO_MANY);
}
END_TEST

START_TEST(test_set_list)
{
	struct action a;
	char buf[ACTION_TEXT_MAX];
	const char *items[REFEREE_LIST_MAX];
	size_t n;

	static const char *const ep[] = { "exf6", "ep", "exd6", "e.p." };
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, WHITE, ep, 4), REF_OK);
	ck_assert_int_eq(a.kind, ACTION_LIST);
	ck_assert_int_eq(a.color, WHITE);
	/* Written as the record keeps it, split back into the same attempts. */
	ck_assert_int_eq(action_split(a.text, buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(items[0], "exf6ep");
	ck_assert_str_eq(items[1], "exd6e.p.");

	static const char *const many[17] = { "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4",
		                              "b4", "c4", "d4", "e4", "f4", "g4", "h4", "Nf3" };
	ck_assert_int_eq(action_set_list(&a, ACTION_QUIET, BLACK, many, 16), REF_OK);
	ck_assert_int_eq(a.kind, ACTION_QUIET);
	ck_assert_int_eq(action_split(a.text, buf, items, &n), REF_OK);
	ck_assert_uint_eq(n, 16);
	for (size_t i = 0; i < n; i++)
		ck_assert_str_eq(items[i], many[i]);
	ck_assert_int_eq(action_set_list(&a, ACTION_QUIET, BLACK, many, 17), REF_E_TOO_MANY);
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, BLACK, many, 0), REF_E_TOO_MANY);

	/* An item is one word. */
	static const char *const spaced[] = { "e4", "d4 d5" }, *const empty[] = { "e4", "" };
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, WHITE, spaced, 2), REF_E_SYNTAX);
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, WHITE, empty, 2), REF_E_SYNTAX);

	/* A text that does not fit is refused, never cut. */
	char word[40];
	memset(word, 'x', sizeof word - 1);
	word[sizeof word - 1] = '\0';
	const char *wide[8];
	for (size_t i = 0; i < 8; i++)
		wide[i] = word;
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, WHITE, wide, 8), REF_E_BAD_ARGUMENT);
}
END_TEST

/* ---- draws -------------------------------------------------------------------- */

START_TEST(test_draw_offer_lapse)
{
	struct action offer = mkact(ACTION_DRAW, WHITE, "offer");
	struct action decline = mkact(ACTION_DRAW, BLACK, "decline");
	struct action wtry = mkact(ACTION_TRY, WHITE, "e4");
	struct action btry = mkact(ACTION_TRY, BLACK, "e5");

	ck_assert_int_eq(action_draw_offer(-1, &offer, 0, 0), WHITE);
	ck_assert_int_eq(action_draw_offer(WHITE, &decline, 0, 0), -1);
	/* The offerer's own move keeps it; a refused try of the other side too. */
	ck_assert_int_eq(action_draw_offer(WHITE, &wtry, 0, 1), WHITE);
	ck_assert_int_eq(action_draw_offer(WHITE, &btry, 1, 1), WHITE);
	/* The side it was made to plays a move: it lapses. */
	ck_assert_int_eq(action_draw_offer(WHITE, &btry, 1, 2), -1);
	ck_assert_int_eq(action_draw_offer(-1, &btry, 1, 2), -1);
	/* Regression: the offerer's move followed by the other's, made for it
	 * (nost's "if quiet" list), kept the offer standing.  It lapses, the
	 * offer to adjourn too. */
	ck_assert_int_eq(action_draw_offer(WHITE, &wtry, 2, 4), -1);
	ck_assert_int_eq(action_adjourn_offer(WHITE, &wtry, 2, 4), -1);
	ck_assert_int_eq(action_adjourn_offer(WHITE, &wtry, 2, 3), WHITE);
}
END_TEST

START_TEST(test_draw_apply)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	struct action a = mkact(ACTION_DRAW, WHITE, "offer");
	/* A notice between the players: accepted, nothing announced. */
	evlist_clear(&ev);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	ck_assert_uint_eq(ev.n, 0);
	a = mkact(ACTION_DRAW, BLACK, "decline");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	/* It needs a colour and a word the record knows. */
	a = mkact(ACTION_DRAW, -1, "offer");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_DRAW, 2, "offer");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_DRAW, WHITE, "maybe");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	/* ... and a game in progress. */
	a = mkact(ACTION_END, BLACK, "resignation");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	ck_assert(referee_over(r));
	a = mkact(ACTION_DRAW, WHITE, "offer");
	refused_cleanly(r, &ev, &a, REF_E_GAME_OVER);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* ---- adjournment ---------------------------------------------------------------- */

START_TEST(test_adjourn_rules)
{
	struct action offer = mkact(ACTION_ADJOURN, WHITE, "offer");
	struct action agree = mkact(ACTION_ADJOURN, BLACK, "agree");
	struct action decline = mkact(ACTION_ADJOURN, BLACK, "decline");
	struct action unadj = mkact(ACTION_UNADJ, WHITE, "");
	struct action btry = mkact(ACTION_TRY, BLACK, "e5");
	struct action pause = mkact(ACTION_PAUSE, -1, "lights");

	ck_assert_int_eq(action_adjourn_offer(-1, &offer, 0, 0), WHITE);
	ck_assert_int_eq(action_adjourn_offer(WHITE, &agree, 0, 0), -1);
	ck_assert_int_eq(action_adjourn_offer(WHITE, &decline, 0, 0), -1);
	ck_assert_int_eq(action_adjourn_offer(WHITE, &btry, 1, 1), WHITE);   /* refused try */
	ck_assert_int_eq(action_adjourn_offer(WHITE, &btry, 1, 2), -1);      /* a move lapses it */
	/* A draw offer is another offer: it leaves this one alone, and back. */
	struct action doffer = mkact(ACTION_DRAW, BLACK, "offer");
	ck_assert_int_eq(action_adjourn_offer(WHITE, &doffer, 1, 1), WHITE);
	ck_assert_int_eq(action_draw_offer(-1, &offer, 1, 1), -1);

	ck_assert(!action_adjourned(false, &offer));
	ck_assert(action_adjourned(false, &agree));
	ck_assert(action_adjourned(true, &btry));
	ck_assert(!action_adjourned(true, &unadj));
	ck_assert(!action_adjourned(false, &decline));
	/* The umpire's pause is another state (action_paused). */
	ck_assert(!action_adjourned(false, &pause));
	ck_assert(!action_paused(false, &agree));
	ck_assert(action_is_adjourn(ACTION_ADJOURN) && action_is_adjourn(ACTION_UNADJ));
	ck_assert(!action_is_adjourn(ACTION_DRAW) && !action_is_umpire(ACTION_ADJOURN) &&
	          !action_is_chat(ACTION_UNADJ));
}
END_TEST

START_TEST(test_adjourn_apply)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	static const char *const ok[] = { "offer", "agree", "decline" };
	for (size_t i = 0; i < 3; i++) {
		struct action a = mkact(ACTION_ADJOURN, i % 2 ? BLACK : WHITE, ok[i]);
		evlist_clear(&ev);
		ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
		ck_assert_uint_eq(ev.n, 0);   /* a notice: the referee announces nothing */
	}
	struct action a = mkact(ACTION_UNADJ, WHITE, "");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	a = mkact(ACTION_ADJOURN, WHITE, "maybe");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_ADJOURN, -1, "offer");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_UNADJ, WHITE, "now");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_UNADJ, -1, "");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_END, BLACK, "resignation");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	a = mkact(ACTION_ADJOURN, WHITE, "offer");
	refused_cleanly(r, &ev, &a, REF_E_GAME_OVER);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* ---- referee_apply ------------------------------------------------------------- */

static bool same_events(const struct evlist *x, const struct evlist *y)
{
	if (x->n != y->n)
		return false;
	for (size_t i = 0; i < x->n; i++)
		if (!event_equal(&x->v[i], &y->v[i]))
			return false;
	return true;
}

START_TEST(test_apply_is_the_referee)
{
	/* The same game through referee_apply and through the referee's own
	 * calls: the same events, the same state. */
	struct evlist e1, e2;
	struct referee *r1 = mk("nost", NULL, &e1), *r2 = mk("nost", NULL, &e2);
	static const char *const list[] = { "e4e5", "d4", "Nf3" }, *const quiet[] = { "Nc6", "Nf6" };
	struct action a;

	a = mkact(ACTION_TRY, WHITE, "e4");
	ck_assert_int_eq(referee_apply(r1, &a, &e1), REF_OK);
	ck_assert_int_eq(referee_attempt(r2, WHITE, "e4", &e2), REF_OK);
	ck_assert_int_eq(action_set_list(&a, ACTION_QUIET, BLACK, quiet, 2), REF_OK);
	ck_assert_int_eq(referee_apply(r1, &a, &e1), REF_OK);
	ck_assert_int_eq(referee_quiet(r2, BLACK, quiet, 2, &e2), REF_OK);
	ck_assert_int_eq(action_set_list(&a, ACTION_LIST, WHITE, list, 3), REF_OK);
	ck_assert_int_eq(referee_apply(r1, &a, &e1), REF_OK);
	ck_assert_int_eq(referee_attempt_list(r2, WHITE, list, 3, &e2), REF_OK);
	a = mkact(ACTION_END, -1, "agreement");
	ck_assert_int_eq(referee_apply(r1, &a, &e1), REF_OK);
	ck_assert_int_eq(referee_end(r2, REASON_AGREEMENT, -1, &e2), REF_OK);

	ck_assert(same_events(&e1, &e2));
	ck_assert(referee_state_hash(r1) == referee_state_hash(r2));
	ck_assert(referee_over(r1));
	referee_free(r1);
	referee_free(r2);
	evlist_free(&e1);
	evlist_free(&e2);
}
END_TEST

START_TEST(test_apply_refuses_cleanly)
{
	struct evlist ev;
	struct referee *r = mk("nost", NULL, &ev);
	char text[ACTION_TEXT_MAX];
	struct action a;

	a = mkact(ACTION_TRY, WHITE, "e4");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);

	/* 17 attempts: refused whole, with the referee's message; never the
	 * first 16 played. */
	for (int kind = ACTION_LIST; kind <= ACTION_QUIET; kind++) {
		snprintf(text, sizeof text, "a6 b6 c6 d6 e6 f6 g6 h6 a5 b5 c5 d5 e5 f5 g5 h5 Nf6");
		a = mkact(kind, BLACK, text);
		refused_cleanly(r, &ev, &a, REF_E_TOO_MANY);
		ck_assert_ptr_nonnull(strstr(referee_error(r), "1 to 16"));
		a = mkact(kind, BLACK, "   ");
		refused_cleanly(r, &ev, &a, REF_E_TOO_MANY);
		ck_assert_ptr_nonnull(strstr(referee_error(r), "1 to 16"));
	}
	/* 16 are a list. */
	a = mkact(ACTION_LIST, BLACK, "a6 b6 c6 d6 e6 f6 g6 h6 a5 b5 c5 d5 e5 f5 g5 h5");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	ck_assert_int_eq(referee_plies(r), 2);

	/* Everything else the referee or the record refuses. */
	a = mkact(ACTION_TRY, BLACK, "e5");
	refused_cleanly(r, &ev, &a, REF_E_NOT_YOUR_TURN);
	a = mkact(ACTION_TRY, WHITE, "e9");
	refused_cleanly(r, &ev, &a, REF_E_SYNTAX);
	a = mkact(ACTION_BEGIN, WHITE, "");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_END, WHITE, "boredom");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_END, WHITE, "checkmate"); /* the board's, not an outside ending */
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a.kind = ACTION_KIND_COUNT;
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a.kind = -1;
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	referee_free(r);
	evlist_free(&ev);

	/* Lists are nost's: elsewhere refused for that, whatever their length. */
	r = mk("icc", NULL, &ev);
	a = mkact(ACTION_LIST, WHITE, "e4 d4");
	refused_cleanly(r, &ev, &a, REF_E_UNSUPPORTED);
	a = mkact(ACTION_QUIET, WHITE, "e4 d4");
	refused_cleanly(r, &ev, &a, REF_E_UNSUPPORTED);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

/* An umpire's reason: normalised once, refused when it cannot be kept. */
START_TEST(test_umpire_text)
{
	char out[ACTION_REASON_MAX + 1];
	ck_assert_int_eq(action_umpire_text("  a   b  c ", out, sizeof out), REF_OK);
	ck_assert_str_eq(out, "a b c");
	ck_assert_int_eq(action_umpire_text("caf\xc3\xa9; ] } %", out, sizeof out), REF_OK);
	ck_assert_str_eq(out, "caf\xc3\xa9; ] } %");
	ck_assert_int_eq(action_umpire_text("   ", out, sizeof out), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(action_umpire_text("a\tb", out, sizeof out), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(action_umpire_text("a\x7f", out, sizeof out), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(action_umpire_text("\xc2\x85", out, sizeof out), REF_E_BAD_ARGUMENT); /* C1 */
	ck_assert_int_eq(action_umpire_text("\xc3", out, sizeof out), REF_E_BAD_ARGUMENT);
	ck_assert_int_eq(action_umpire_text("\xed\xa0\x80", out, sizeof out), REF_E_BAD_ARGUMENT);
	char big[ACTION_REASON_MAX + 2];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	ck_assert_int_eq(action_umpire_text(big, out, sizeof out), REF_E_BAD_ARGUMENT);
	big[ACTION_REASON_MAX] = '\0';
	ck_assert_int_eq(action_umpire_text(big, out, sizeof out), REF_OK);
}
END_TEST

/* The umpire's kinds through referee_apply: notices change nothing, the
 * endings end the game; bad texts and colours are refused cleanly. */
/* text.h: the wire's plain text, the rule kriegd and krieg share. */
START_TEST(test_text_plain)
{
	static const char *const good[] = { "", "good luck", "caf\xc3\xa9", "\xe2\x99\x9e knight",
		                            "\xf0\x9f\x98\x80", "~" };
	static const char *const bad[] = { "tab\there", "line\n", "del\x7f", "esc\x1b[2J",
		"csi \xc2\x9b", "overlong \xc0\xaf", "surrogate \xed\xa0\x80", "cut \xe2\x99",
		"above \xf4\x90\x80\x80", "lone \x80" };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		ck_assert_msg(text_plain(good[i]), "refused: %s", good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(!text_plain(bad[i]), "accepted: %s", bad[i]);
	ck_assert_uint_eq(text_utf8_len((const unsigned char *)"\xe2\x99\x9e"), 3);
}
END_TEST

/* Regression: a user's words could pass for another's or the umpire's:
 * "\u202e" turned the rest of a line around (and the page's buttons
 * beside it), twenty U+3000 put "The umpire says: ..." on a line of its
 * own, and (probe of the first rule) a zero-width character between
 * spaces kept them from collapsing, invisible ones made blank lines. */
START_TEST(test_text_disguises)
{
	static const char *const refused[] = {
		"\xe2\x80\xae" "elpmis",        /* U+202E RIGHT-TO-LEFT OVERRIDE */
		"a\xe2\x80\xaa" "b",            /* U+202A LRE */
		"a\xe2\x81\xa6" "b",            /* U+2066 LRI */
		"a\xe2\x81\xa9" "b",            /* U+2069 PDI */
		"a\xe2\x80\xa8" "b",            /* U+2028 LINE SEPARATOR */
		"a\xe2\x80\xa9" "b",            /* U+2029 PARAGRAPH SEPARATOR */
		"a\xef\xbf\xb9" "b",            /* U+FFF9 */
		"a\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81",   /* five combining accents on one letter */
		"a\tb",
	};
	static const struct {
		const char *in, *out;
	} taken[] = {
		{ "\xd9\x85\xe2\x80\x8c\xd8\xa7", "\xd9\x85\xe2\x80\x8c\xd8\xa7" },   /* ZWNJ inside a word */
		{ "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9", "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9" },
		{ "\xe2\x9d\xa4\xef\xb8\x8f!", "\xe2\x9d\xa4\xef\xb8\x8f!" },   /* VS16 inside */
		{ "\xd7\xa9\xe2\x80\x8f\xd7\x9c", "\xd7\xa9\xe2\x80\x8f\xd7\x9c" },   /* RLM inside */
		{ "\xe2\x80\x8f\xd7\xa9", "\xd7\xa9" },         /* ... at an end: dropped */
		{ "a\xcc\x81\xcc\x81\xcc\x81\xcc\x81", "a\xcc\x81\xcc\x81\xcc\x81\xcc\x81" },   /* four */
		{ "a\xe2\x80\x8b" "b", "ab" },                  /* U+200B dropped */
		{ "a\xc2\xad" "b", "ab" },                      /* soft hyphen */
		{ "\xc2\xad\xc2\xad", "" },                     /* a blank of nothing: empty */
		{ "a\xf3\xa0\x81\x81" "b", "ab" },              /* a tag character */
		{ "a\xef\xbb\xbf" "b", "ab" },                  /* U+FEFF */
		{ "a\xe3\x85\xa4" "b", "a b" },                 /* U+3164 HANGUL FILLER: a blank */
		{ "a\xe2\xa0\x80" "b", "a b" },                 /* U+2800 BRAILLE BLANK */
		{ "go\xe3\x80\x80\xe3\x80\x80\xc2\xa0The umpire\xe2\x80\x83says", "go   The umpire says" },
		{ "gg \xe2\x80\x8c \xe2\x80\x8c \xe2\x80\x8d\xc2\xa0\xc2\xad The", "gg     The" },
	};
	char out[64], norm[ACTION_REASON_MAX + 1];

	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
		ck_assert_msg(!text_words(refused[i], out, sizeof out), "text_words accepted #%zu", i);
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		ck_assert_msg(text_words(taken[i].in, out, sizeof out), "text_words refused #%zu", i);
		ck_assert_msg(strcmp(out, taken[i].out) == 0, "#%zu: \"%s\", not \"%s\"", i, out, taken[i].out);
	}
	/* Every space one space once action_umpire_text collapses the runs. */
	ck_assert(text_words("gg \xe2\x80\x8c \xe2\x80\x8c \xe2\x80\x8d\xc2\xa0\xc2\xad The umpire", out, sizeof out));
	ck_assert_int_eq(action_umpire_text(out, norm, sizeof norm), REF_OK);
	ck_assert_str_eq(norm, "gg The umpire");
	/* Bounded by out, the NUL included. */
	ck_assert(text_words("abc", out, 4));
	ck_assert(!text_words("abcd", out, 4));
	ck_assert(text_words("\xe3\x80\x80", out, 2));   /* 3 bytes in, 1 out */
	ck_assert_str_eq(out, " ");
	ck_assert(!text_words("a", out, 0));
	ck_assert(text_words("", out, 1) && out[0] == '\0');
	/* text_plain (a stored record's rule, the motd's) is the control rule alone. */
	ck_assert(text_plain("a\xe2\x80\xae" "b"));
	ck_assert_int_eq(action_umpire_text("a\xe2\x80\xae" "b", norm, sizeof norm), REF_OK);
}
END_TEST

START_TEST(test_umpire_apply)
{
	struct evlist ev;
	struct referee *r = mk("icc", NULL, &ev);
	struct action_umpire u = { .seconds = 30, .reason = " time  trouble " };
	struct action a;
	ck_assert_int_eq(action_set_umpire(&a, ACTION_ADDTIME, WHITE, &u), REF_OK);
	ck_assert_str_eq(a.text, "30 time trouble");
	struct action_umpire back;
	ck_assert_int_eq(action_umpire_parse(&a, &back), REF_OK);
	ck_assert_int_eq(back.seconds, 30);
	ck_assert_str_eq(back.reason, "time trouble");
	static const struct { int kind, color; const char *text; } bad[] = {
		{ ACTION_ADDTIME, -1, "30 x" },      { ACTION_ADDTIME, WHITE, "0 x" },
		{ ACTION_ADDTIME, WHITE, "86401 x" }, { ACTION_ADDTIME, WHITE, "030 x" },
		{ ACTION_ADDTIME, WHITE, "30" },     { ACTION_PAUSE, WHITE, "x" },
		{ ACTION_PAUSE, -1, "" },            { ACTION_PAUSE, -1, " x" },
		{ ACTION_ADJUDGE, -1, "* x" },       { ACTION_ADJUDGE, -1, "2-0 x" },
		{ ACTION_NOTE, -1, "loud x" },       { ACTION_NOTE, -1, "public" },
		{ ACTION_UABORT, -1, "a  b" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		a = mkact(bad[i].kind, bad[i].color, bad[i].text);
		refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	}
	static const struct { int kind, color; const char *text; } notice[] = {
		{ ACTION_PAUSE, -1, "x" }, { ACTION_ADDTIME, BLACK, "86400 y" },
		{ ACTION_UNPAUSE, -1, "z" }, { ACTION_NOTE, -1, "private a b" },
		{ ACTION_NOTE, -1, "public c" },
	};
	for (size_t i = 0; i < sizeof notice / sizeof notice[0]; i++) {
		a = mkact(notice[i].kind, notice[i].color, notice[i].text);
		struct snap before = snap_of(r);
		evlist_clear(&ev);
		ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
		ck_assert_uint_eq(ev.n, 0);
		struct snap after = snap_of(r);
		ASSERT_SAME_SNAP(before, after);
	}
	ck_assert(action_paused(false, &(struct action){ .kind = ACTION_PAUSE }));
	ck_assert(!action_paused(true, &(struct action){ .kind = ACTION_UNPAUSE }));
	ck_assert(action_paused(true, &(struct action){ .kind = ACTION_TRY }));
	a = mkact(ACTION_ADJUDGE, -1, "0-1 flag dispute");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	ck_assert_uint_eq(ev.n, 1);
	ck_assert_int_eq(ev.v[0].type, EV_GAME_OVER);
	ck_assert_int_eq(ev.v[0].result, RESULT_BLACK);
	ck_assert_int_eq(ev.v[0].reason, REASON_ADJUDICATION);
	ck_assert_int_eq(ev.v[0].audience, AUD_PUBLIC);
	a = mkact(ACTION_NOTE, -1, "public late");
	refused_cleanly(r, &ev, &a, REF_E_GAME_OVER);
	referee_free(r);
	evlist_free(&ev);
	/* An umpire aborts after both sides moved; a player could not. */
	r = mk("icc", NULL, &ev);
	a = mkact(ACTION_TRY, WHITE, "e4");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	a = mkact(ACTION_TRY, BLACK, "e5");
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	a = mkact(ACTION_END, WHITE, "aborted");
	refused_cleanly(r, &ev, &a, REF_E_BAD_ARGUMENT);
	a = mkact(ACTION_UABORT, -1, "fire alarm");
	evlist_clear(&ev);
	ck_assert_int_eq(referee_apply(r, &a, &ev), REF_OK);
	ck_assert_int_eq(ev.v[0].reason, REASON_ABORTED);
	ck_assert_int_eq(ev.v[0].result, RESULT_NONE);
	referee_free(r);
	evlist_free(&ev);
}
END_TEST

static Suite *action_suite(void)
{
	Suite *s = suite_create("action");
	TCase *tc = tcase_create("action");
	tcase_add_test(tc, test_kind_names);
	tcase_add_test(tc, test_text_plain);
	tcase_add_test(tc, test_text_disguises);
	tcase_add_test(tc, test_set_and_parse);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_set_list);
	tcase_add_test(tc, test_draw_offer_lapse);
	tcase_add_test(tc, test_draw_apply);
	tcase_add_test(tc, test_adjourn_rules);
	tcase_add_test(tc, test_adjourn_apply);
	tcase_add_test(tc, test_apply_is_the_referee);
	tcase_add_test(tc, test_apply_refuses_cleanly);
	tcase_add_test(tc, test_umpire_text);
	tcase_add_test(tc, test_umpire_apply);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(action_suite)
