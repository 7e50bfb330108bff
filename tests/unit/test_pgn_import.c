/*
 * test_pgn_import.c — pgn_read on PGN as other programs and people write
 * it (the PGN probe of the reader): (K:...) blocks after another
 * program's comment, move numbers without a space, a byte order mark,
 * quotes in commentary, a spaced "e.p.", tag values up to the standard's
 * 255 characters and tabs in tag pairs, a missing Result tag said as it
 * is, a text of no game, and where the next game begins after one that
 * does not read (pgn_resync).  Every case failed before its fix; the
 * exported records krieg itself writes are test_pgn.c's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "check_main.h"
#include "pgn.h"
#include "referee.h"

#define ERR_MAX 300

/* ---- helpers ------------------------------------------------------------ */

/* Read text, which must read; its actions' texts, space-separated, in acts. */
static void read_ok(const char *text, struct pgn_header *h, char *acts, size_t len)
{
	struct action *b;
	size_t nb;
	char err[ERR_MAX] = "";
	ck_assert_msg(pgn_read(text, h, &b, &nb, err, sizeof err) == 0, "%s\nrefused: %s", text, err);
	size_t off = 0;
	acts[0] = '\0';
	for (size_t i = 0; i < nb; i++) {
		int w = snprintf(acts + off, len - off, "%s%s", i ? " " : "", b[i].text);
		ck_assert(w >= 0 && (size_t)w < len - off);
		off += (size_t)w;
	}
	free(b);
}

/* text reads to exactly the actions `want` (their texts, space-separated). */
static void expect_actions(const char *text, const char *want)
{
	struct pgn_header h;
	char acts[512];
	read_ok(text, &h, acts, sizeof acts);
	ck_assert_msg(strcmp(acts, want) == 0, "%s\nread as \"%s\", not \"%s\"", text, acts, want);
}

static void expect_error(const char *text, const char *want)
{
	struct pgn_header h;
	struct action *b = (struct action *)1;
	size_t nb = 99;
	char err[ERR_MAX] = "";
	ck_assert_msg(pgn_read(text, &h, &b, &nb, err, sizeof err) == -1, "read: %.300s", text);
	ck_assert_ptr_null(b);
	ck_assert_uint_eq(nb, 0);
	ck_assert_msg(strstr(err, want) != NULL, "%s\nerror \"%s\" does not say \"%s\"", text, err, want);
}

/* ---- variations ------------------------------------------------------------ */

/*
 * Regression (the PGN probe's "variations refused, not skipped"): an
 * analysis export (lichess's, ChessBase's) has variations, nested, with
 * comments, (K:...) blocks, ';' comments and escape lines in them; they are
 * lines not played and are skipped, and nothing in them is the game's.
 */
START_TEST(test_variations_skipped)
{
	expect_actions("1. e4 (1. d4 d5 (1... Nf6 2. c4)) e5 2. Nf3 *", "e4 e5 Nf3");
	/* the (K:) block inside is not e4's: Nf3 would be a legal "refused" try */
	expect_actions("1. e4 {(K::)} (1. d4 {(K:Nf3:) a ) and a (} d5) e5 *", "e4 e5");
	expect_actions("1. e4 (1. d4 ; a ) in a line comment\n d5) e5 *", "e4 e5");
	expect_actions("1. e4 (1. d4\n% an escape line )\nd5) e5 *", "e4 e5");
	expect_actions("1. e4 (1. d4) (1. c4) e5 *", "e4 e5");
	/* the lines of a variation are counted */
	expect_error("1. e4 (1. d4\n{a\nnote}\n) e5 )", "line 4: a ')' without its variation's '('");
	expect_error("1. e4 ) e5 *", "line 1: a ')' without its variation's '('");
	expect_error("1. e4 (1. d4 e5 *", "line 1: unterminated variation");
	expect_error("1. e4 (1. d4 (1... d5) e5 *", "unterminated variation");
	expect_error("1. e4 (1. d4 {never closed) e5 *", "unterminated comment");
}
END_TEST

/* ---- (K:...) blocks -------------------------------------------------------- */

/*
 * Regression (the PGN probe): a (K:...) block that was not a half-move's
 * first comment, or not at its comment's start, was dropped as free
 * commentary: Black's refused Kd7 was lost and the record replayed
 * without it (exit 0).  The block is found wherever it starts, in any
 * comment of the half-move; it is then checked like any other.
 */
START_TEST(test_k_block_after_other_comment)
{
	static const char *const texts[] = {
		"1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {[%clk 0:01:00]} {(K:Kd7:)} *",
		"1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {[%clk 0:01:00] (K:Kd7:)} *",
		"1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {[%clk 0:01:00](K:Kd7:)} *",
		"1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {a fine move (K:Kd7:) \"Illegal: Kd7\"\n"
		"\"White has 1 pawn try\"} *",
		"1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {[%clk 0:01:00]} {[%emt 0:00:02]}\n{(K: Kd7 :) "
		"\"Illegal: Kd7\" \"White has 1 pawn try\"} *",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		expect_actions(texts[i], "e4 d5 Bb5 Kd7 c6");

	/* Read, it is checked: a try it names that was legal, the wrong
	 * information, an impossible try not in coordinates. */
	expect_error("1. e4 {(K::)} d5 2. Bb5+ {(K::CD)} c6 {[%clk 0:01:00]} {(K:Kd7:CR)} *",
	             "move 2... c6: PGN says the opponent heard (K::CR)");
	expect_error("1. e4 {[%clk 0:03:00]} {(K:Nf3:)} *", "Nf3 is legal");
	expect_error("1. e4 {[%clk 0:03:00]} {(K:Ke2:)} *", "move 1. e4: \"try Ke2\" refused");
}
END_TEST

/* Regression (the PGN probe): a second (K:...) block for one half-move
 * was dropped without a word.  Never dropped: an error, as a block the
 * text cannot place (before the first move, after the trailing comment). */
START_TEST(test_second_k_block_refused)
{
	expect_error("1. e4 {(K::)} {(K:Nf3:)} *", "line 1: a second (K:...) block for the move e4");
	expect_error("1. e4 {(K::) (K:d1d3:)} *", "line 1: two (K:...) blocks in one comment");
	expect_error("1. e4 {(K::) [%krieg try e4]} {(K::) [%krieg try e4]} *",
	             "a second (K:...) block for the move e4");
	expect_error("{(K:Kd7:)} 1. e4 *", "line 1: a (K:...) block before the first move");
	expect_error("[Result \"0-1\"]\n1. e4 {(K::)} {[%krieg end resignation white]}\n{(K::)} 0-1",
	             "line 3: a (K:...) block after the trailing [%krieg] comment");
	/* The command and the block in separate comments of the half-move,
	 * the command's first: both its own ... */
	expect_actions("1. e4 {[%krieg try d1d3; try e4]} {(K:d1d3:)} *", "d1d3 e4");
	expect_error("1. e4 {[%krieg try d1d3; try e4]} {(K::)} *", "PGN records the tries (K::)");
	/* ... and a command alone after the half-move's comment is still the
	 * trailing comment, as krieg writes it. */
	expect_actions("[Result \"0-1\"]\n1. e4 {(K::)} {[%krieg end resignation white]} 0-1",
	               "e4 resignation");
}
END_TEST

/* ---- the movetext's tokens -------------------------------------------------- */

/* Regression (the PGN probe): a move number without a space after it
 * ("1.e4", "1...e5") was "bad move number", and so was "1 . e4"; the PGN
 * standard's period is a token of its own (7, 8.2.2.1). */
START_TEST(test_move_numbers_without_space)
{
	expect_actions("1.e4 e5 2.Nf3 Nc6 *", "e4 e5 Nf3 Nc6");
	expect_actions("1.e4 1...e5 2.Nf3 2...Nc6 *", "e4 e5 Nf3 Nc6");
	expect_actions("1 . e4 1 ... e5 2. Nf3 *", "e4 e5 Nf3");
	expect_actions("1.\te4 {(K::)} 1...e5 {(K::)} 2.Nf3 *", "e4 e5 Nf3");
	expect_actions("1 e4 e5 2 Nf3 *", "e4 e5 Nf3");   /* zero or more periods */
	expect_actions("1.e4 e5 2.Nf3 Nf6 3.Bc4 Bc5 4.0-0 *", "e4 e5 Nf3 Nf6 Bc4 Bc5 O-O");
	/* still not a number, nor a result */
	expect_error("1e4 *", "bad move number \"1e4\"");
	expect_error("1/2 *", "bad move number \"1/2\"");
	expect_error("1.e5 *", "move 1. e5: illegal move");
}
END_TEST

/* Regression (the second PGN probe): a check or mate mark was never
 * compared with the replay ("1. e4#" read).  A mark written must be true;
 * one left out, or "+" on a mate (a check all the same), is no claim. */
START_TEST(test_check_marks_checked)
{
	expect_error("1. e4+ *", "move 1. e4+: PGN marks check, the replay neither check nor mate (e4)");
	expect_error("1. e4# *", "move 1. e4#: PGN marks mate, the replay neither check nor mate (e4)");
	expect_error("1. e4 f5 2. Qh5# *", "move 2. Qh5#: PGN marks mate, the replay check (Qh5+)");
	expect_actions("1. e4 f5 2. Qh5+ *", "e4 f5 Qh5");
	expect_actions("1. e4 f5 2. Qh5 *", "e4 f5 Qh5");          /* left out: no claim */
	expect_actions("1. e4 f5 2. Qh5+! *", "e4 f5 Qh5");        /* an annotation after it */
}
END_TEST

/* Regression (the PGN probe): "exd6 e.p." with a space was read as two
 * moves, and the error named the wrong one ("move 3... e.p.: not a move"
 * for White's third).  The suffix belongs to the move before it. */
START_TEST(test_ep_suffix_word)
{
	expect_actions("1. e4 Nf6 2. e5 d5 3. exd6 e.p. *", "e4 Nf6 e5 d5 exd6");
	expect_actions("1. e4 Nf6 2. e5 d5 3. exd6 ep Nc6 *", "e4 Nf6 e5 d5 exd6 Nc6");
	expect_actions("1. e4 Nf6 2. e5 d5 3. exd6 e.p. exd6 *", "e4 Nf6 e5 d5 exd6 exd6");
	expect_error("1. e4 Nf6 2. e5 Nd5 3. exd6 e.p. *", "move 3. exd6 e.p.: illegal move");
	/* alone, it is no move's */
	expect_error("1. e.p. *", "move 1. e.p.: not a move");
	expect_error("1. e4 {(K::)} e.p. *", "move 1... e.p.: not a move");
}
END_TEST

/* Regression (the PGN probe): a UTF-8 byte order mark at the start was
 * "unexpected character '?'". */
START_TEST(test_byte_order_mark)
{
	struct pgn_header h;
	char acts[64];
	read_ok("\xEF\xBB\xBF[Event \"t\"]\n[Result \"*\"]\n\n1. e4 e5 *\n", &h, acts, sizeof acts);
	ck_assert_str_eq(h.event, "t");
	ck_assert_str_eq(acts, "e4 e5");
	expect_actions("\xEF\xBB\xBF" "1. e4 *", "e4");
	/* only at the start */
	expect_error("1. e4 \xEF\xBB\xBF e5 *", "unexpected character");
}
END_TEST

/* Regression (the PGN probe): a quoted word in a free-text comment was
 * taken for the umpire's announcement ("PGN says \"best by test\"").
 * Quotes are announcements in a comment of krieg's only: one with a
 * (K:...) block or a [%krieg] command, or of quoted announcements alone. */
START_TEST(test_quotes_in_commentary)
{
	expect_actions("1. e4 {Kasparov called this \"best by test\"} e5 *", "e4 e5");
	expect_actions("{Played at \"the club\"} 1. e4 {an \"odd\" move} {(K::)} e5 *", "e4 e5");
	expect_actions("1. e4 {[%clk 0:01:00] \"x\"} e5 *", "e4 e5");
	/* krieg's comments are still checked */
	expect_error("1. e4 {(K::) \"Black has 3 pawn tries\"} *", "PGN says \"Black has 3 pawn tries\"");
	expect_error("1. e4 {(K::) as \"Black has 3 pawn tries\"} *", "PGN says \"Black has 3 pawn tries\"");
	expect_error("1. e4 {[%krieg try e4] \"Black has 3 pawn tries\"} *",
	             "PGN says \"Black has 3 pawn tries\"");
	expect_error("{\"White has 3 pawn tries\"} 1. e4 *", "before the first move: PGN says");
	expect_error("1. e4 {\"Black has 3 pawn tries\"} *", "PGN says \"Black has 3 pawn tries\"");
	/* commentary before the half-move's comment leaves it its own */
	expect_error("1. e4 {good} {(K::) \"Black has 3 pawn tries\"} *",
	             "PGN says \"Black has 3 pawn tries\"");
}
END_TEST

/* ---- tags --------------------------------------------------------------------- */

/* Regression (the PGN probe): a tag value of 128 to 255 characters
 * refused the game ("tag Site too long"); the standard allows 255. */
START_TEST(test_tag_value_of_255)
{
	char site[PGN_TAG_MAX + 2], text[2 * PGN_TAG_MAX + 64];
	memset(site, 's', 255);
	site[255] = '\0';
	snprintf(text, sizeof text, "[Site \"%s\"]\n[White \"%s\"]\n\n1. e4 *", site, site);
	struct pgn_header h;
	char acts[64];
	read_ok(text, &h, acts, sizeof acts);
	ck_assert_str_eq(h.site, site);
	ck_assert_str_eq(h.white, site);
	site[255] = 's';
	site[256] = '\0';
	snprintf(text, sizeof text, "[Site \"%s\"]\n\n1. e4 *", site);
	expect_error(text, "line 1: tag Site too long");
	/* (the second PGN probe) bytes that are no UTF-8 read as ISO 8859-1,
	 * the standard's own character set: the header holds UTF-8 */
	read_ok("[White \"M\xfcller\"]\n[Black \"caf\xc3\xa9 \x85\"]\n\n1. e4 *", &h, acts, sizeof acts);
	ck_assert_str_eq(h.white, "M\xc3\xbcller");
	ck_assert_str_eq(h.black, "caf\xc3\xa9 ?");   /* UTF-8 kept; a C1 byte is no character */
}
END_TEST

/* Regression (the PGN probe): a tab between a tag pair's tokens
 * ("[Event\t\"x\"]") was "tag value must be quoted". */
START_TEST(test_tag_pair_blanks)
{
	struct pgn_header h;
	char acts[64];
	read_ok("[Event\t\"x\"]\n[\tSite \t \"y\"\t]\n[Result\t\"*\"]\n\n1.\te4\t*", &h, acts, sizeof acts);
	ck_assert_str_eq(h.event, "x");
	ck_assert_str_eq(h.site, "y");
	ck_assert_str_eq(acts, "e4");
	/* a tag pair is still one line */
	expect_error("[Event\n\"x\"]\n*", "line 1: tag value must be quoted");
}
END_TEST

/* Regression (the PGN probe): a record without a Result tag whose
 * movetext ends 1-0 was refused saying "the Result tag says *": it says
 * there is none.  (Refused still: the tag and the movetext must agree,
 * PGN.md, and an absent tag is "*", which agrees with "*" alone.) */
START_TEST(test_missing_result_tag_said)
{
	struct pgn_header h;
	struct action *b;
	size_t nb;
	char err[ERR_MAX];
	const char *text = "[Event \"t\"]\n\n1. e4 e5 1-0";
	ck_assert_int_eq(pgn_read(text, &h, &b, &nb, err, sizeof err), -1);
	ck_assert_str_eq(err, "the movetext ends 1-0 but there is no Result tag");
	expect_error("[Result \"*\"]\n\n1. e4 e5 1-0", "the movetext ends 1-0 but the Result tag says *");
	expect_actions("[Event \"t\"]\n\n1. e4 e5 *", "e4 e5");
}
END_TEST

/* ---- texts of no game, several games ------------------------------------------- */

/* Regression (the PGN probe): an empty or blank text read as a game of
 * no moves.  It holds no game; tags alone are still one. */
START_TEST(test_no_game)
{
	static const char *const texts[] = { "", "\n\n  \n", "\t \r\n", "% only an escape line\n\n",
		                             "\xEF\xBB\xBF\n" };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		expect_error(texts[i], "no game in the text");
		struct pgn_pos pos = { texts[i], 1 };
		struct pgn_header h;
		struct action *b;
		size_t nb;
		char err[ERR_MAX];
		ck_assert_int_eq(pgn_read_next(&pos, &h, &b, &nb, err, sizeof err), -1);
		ck_assert_str_eq(err, "no game in the text");
	}
	expect_actions("[Event \"tags alone\"]\n", "");
	expect_actions("*", "");
}
END_TEST

/* Read the game at pos, which must not read; then resynchronise. */
static void unreadable_then_resync(struct pgn_pos *pos, const char *want_err)
{
	const char *start = pos->p;
	int line = pos->line;
	struct pgn_header h;
	struct action *b;
	size_t nb;
	char err[ERR_MAX];
	ck_assert_int_eq(pgn_read_next(pos, &h, &b, &nb, err, sizeof err), -1);
	ck_assert_msg(strstr(err, want_err) != NULL, "\"%s\" does not say \"%s\"", err, want_err);
	ck_assert_ptr_null(pos->p);
	pgn_resync(pos, start, line);
	ck_assert_ptr_nonnull(pos->p);
}

static void read_event(struct pgn_pos *pos, const char *event)
{
	struct pgn_header h;
	struct action *b;
	size_t nb;
	char err[ERR_MAX];
	ck_assert_msg(pgn_read_next(pos, &h, &b, &nb, err, sizeof err) == 0, "%s", err);
	ck_assert_str_eq(h.event, event);
	free(b);
}

/*
 * Regression (the PGN probe): in a file of several games, one whose text
 * did not read left no way on, and krieg-referee dropped every game after
 * it.  pgn_resync finds the next line that starts with a tag pair, after
 * the unread game's own (its error may be in one of them), as pgn-extract
 * does; a comment's line starting "[%" is no tag pair.
 */
START_TEST(test_resync_after_unreadable_game)
{
	static const char text[] = "[Event \"one\"]\n\n1. e4 *\n\n"                  /* lines 1-4 */
	                           "[Event \"bad\"]\n[Site \"x\"]\n\n1. e4 1. d4) e5\n" /* lines 5-8 */
	                           "{(K::)\n[%krieg try e5]} *\n\n"                   /* lines 9-11 */
	                           "[Event \"two\"]\n\n1. d4 *\n\n"                   /* lines 12-15 */
	                           "[Event \"bad tag]\n[Site \"x\"]\n\n1. e4 *\n\n"    /* lines 16-20 */
	                           "[Event \"three\"]\n1. c4 *\n"                     /* lines 21-22 */
	                           "[Event \"bad\"]\n\n1. e4 {never closed\n";
	struct pgn_pos pos = { text, 1 };
	read_event(&pos, "one");
	unreadable_then_resync(&pos, "line 8: a ')' without its variation's '('");
	ck_assert_ptr_eq(pos.p, strstr(text, "[Event \"two\"]"));
	ck_assert_int_eq(pos.line, 12);
	read_event(&pos, "two");
	unreadable_then_resync(&pos, "line 16: unterminated tag value");
	ck_assert_ptr_eq(pos.p, strstr(text, "[Event \"three\"]"));
	ck_assert_int_eq(pos.line, 21);
	read_event(&pos, "three");
	unreadable_then_resync(&pos, "line 25: unterminated comment");
	ck_assert_int_eq(*pos.p, '\0');   /* no game after it: the end */

	/* A game without its result before the next one's tags. */
	static const char cut[] = "1. e4 {(K::)}\n[Event \"next\"]\n\n1. d4 *\n";
	pos = (struct pgn_pos){ cut, 1 };
	unreadable_then_resync(&pos, "line 2: a tag pair after the moves");
	ck_assert_ptr_eq(pos.p, strstr(cut, "[Event \"next\"]"));
	ck_assert_int_eq(pos.line, 2);
	read_event(&pos, "next");

	/* Regressions (a review): a tag value run on to the next line had the
	 * resync land on the game's own next tag pair (its remnant read as a
	 * game); a comment's line starting with a tag pair was taken for the
	 * next game, whose own tags were then skipped and the game lost. */
	static const char runon[] = "[Event \"bad\"]\n[Site \"x\ny\"]\n[Round \"2\"]\n\n1. e4 *\n\n"
	                            "[Event \"after\"]\n\n1. d4 *\n";
	pos = (struct pgn_pos){ runon, 1 };
	unreadable_then_resync(&pos, "unterminated tag value");
	ck_assert_ptr_eq(pos.p, strstr(runon, "[Event \"after\"]"));
	ck_assert_int_eq(pos.line, 8);
	read_event(&pos, "after");
	static const char inside[] = "[Event \"bad\"]\n\n1. e4 1. d4) {a note\n[Event \"inside\"]\n"
	                             "; {not a comment\n} e5 *\n\n[Event \"after\"]\n\n1. d4 *\n";
	pos = (struct pgn_pos){ inside, 1 };
	unreadable_then_resync(&pos, "without its variation");
	ck_assert_ptr_eq(pos.p, strstr(inside, "[Event \"after\"]"));
	ck_assert_int_eq(pos.line, 8);
	read_event(&pos, "after");

	/* Regressions (a second review of the resync): a comment never closed
	 * had the scan run to the end, past every game after it; and a game
	 * without a blank line after its tags had them skipped with its
	 * movetext and the next game's tags. */
	static const char unclosed[] = "[Event \"b\"]\n\n1. e4 { unclosed *\n\n[Event \"c\"]\n\n1. d4 *\n";
	pos = (struct pgn_pos){ unclosed, 1 };
	unreadable_then_resync(&pos, "unterminated comment");
	ck_assert_ptr_eq(pos.p, strstr(unclosed, "[Event \"c\"]"));
	ck_assert_int_eq(pos.line, 5);
	read_event(&pos, "c");
	static const char noblank[] = "[Event \"b\" junk]\n[Result \"*\"]\n1. e4 *\n[Event \"c\"]\n"
	                              "[Result \"*\"]\n1. d4 *\n";
	pos = (struct pgn_pos){ noblank, 1 };
	unreadable_then_resync(&pos, "line 1");
	ck_assert_ptr_eq(pos.p, strstr(noblank, "[Event \"c\"]"));
	ck_assert_int_eq(pos.line, 4);
	read_event(&pos, "c");

	/* Regression (a review): a comment never closed took the next '}'
	 * anywhere for its end (the next game's "{ok}"), the game between read
	 * as its text: no error, a game lost.  A tag pair after a blank line
	 * begins a game, inside an unclosed comment too; a blank line inside a
	 * comment is still a comment's. */
	static const char eaten[] = "[Event \"b\"]\n\n1. e4 { unclosed *\n\n[Event \"c\"]\n\n1. d4 {ok} *\n\n"
	                            "[Event \"d\"]\n\n1. c4 *\n";
	pos = (struct pgn_pos){ eaten, 1 };
	unreadable_then_resync(&pos, "line 3: unterminated comment");
	ck_assert_ptr_eq(pos.p, strstr(eaten, "[Event \"c\"]"));
	read_event(&pos, "c");
	read_event(&pos, "d");
	/* A variation never closed does not take the next game either. */
	static const char var[] = "[Event \"v\"]\n\n1. e4 (1. d4 e5 *\n\n[Event \"w\"]\n\n1. d4 {ok} *\n";
	pos = (struct pgn_pos){ var, 1 };
	unreadable_then_resync(&pos, "line 3: unterminated variation");
	ck_assert_ptr_eq(pos.p, strstr(var, "[Event \"w\"]"));
	read_event(&pos, "w");
	struct pgn_header h;
	struct action *b;
	size_t nb;
	char err[ERR_MAX];
	ck_assert_msg(pgn_read("1. e4 {a\n\nb\n[not a tag} *\n", &h, &b, &nb, err, sizeof err) == 0, "%s", err);
	free(b);
}
END_TEST

/* pgn_write breaks a line inside a long [%krieg] command's %XX escape,
 * after its '%' (PGN.md: never before, a line starting with '%' being an
 * escape line); read, the newline is a space: "% 3B" is the escape. */
START_TEST(test_escape_broken_after_percent)
{
	struct pgn_header h;
	struct action *b;
	size_t nb;
	char err[ERR_MAX];
	const char *text = "{[%krieg pause light failure%\n3B hall%\r\n5Bb%5D]} *";
	ck_assert_msg(pgn_read(text, &h, &b, &nb, err, sizeof err) == 0, "%s", err);
	ck_assert_uint_eq(nb, 1);
	ck_assert_int_eq(b[0].kind, ACTION_PAUSE);
	ck_assert_str_eq(b[0].text, "light failure; hall[b]");
	free(b);
	expect_error("{[%krieg pause a% x3B]} *", "a bad %XX escape");
}
END_TEST

static Suite *pgn_import_suite(void)
{
	Suite *s = suite_create("pgn_import");
	TCase *tc = tcase_create("pgn_import");
	tcase_add_test(tc, test_variations_skipped);
	tcase_add_test(tc, test_k_block_after_other_comment);
	tcase_add_test(tc, test_second_k_block_refused);
	tcase_add_test(tc, test_move_numbers_without_space);
	tcase_add_test(tc, test_ep_suffix_word);
	tcase_add_test(tc, test_check_marks_checked);
	tcase_add_test(tc, test_byte_order_mark);
	tcase_add_test(tc, test_quotes_in_commentary);
	tcase_add_test(tc, test_tag_value_of_255);
	tcase_add_test(tc, test_tag_pair_blanks);
	tcase_add_test(tc, test_missing_result_tag_said);
	tcase_add_test(tc, test_no_game);
	tcase_add_test(tc, test_resync_after_unreadable_game);
	tcase_add_test(tc, test_escape_broken_after_percent);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(pgn_import_suite)
