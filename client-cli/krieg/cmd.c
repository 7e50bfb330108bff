/*
 * cmd.c — the commands (see cmd.h): each command's hooks, the table that
 * names them (one entry per command, at the end), and the parser, request
 * builder and help text that read it.  The parse and request hooks are
 * pure, so the tests call them with no client; exec, done and refused act
 * on the client through client.h.
 */
#define _GNU_SOURCE 1   /* strcasestr (help WORD) */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client.h"
#include "errbuf.h"
#include "event_json.h"
#include "fen.h"
#include "movegen.h"
#include "notation.h"
#include "ruleset.h"
#include "scrub.h"
#include "text.h"
#include "timectl.h"
#include "xmalloc.h"

static const struct cmd_entry *find_entry(const char *word);

/* --- reading words ------------------------------------------------------------ */

static bool parse_long(const char *s, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		return false;
	*out = v;
	return true;
}

/* "5+2" (minutes + seconds increment), "0.5+0" (half a minute), "1:40+0.5"
 * (minutes:seconds, as words_time writes a base that is not an exact
 * decimal of minutes), "5" (minutes), "3d" (days), "untimed"; within the
 * wire's limits (PROTOCOL.md, seek): a base of 1 s to 86400 s, an
 * increment of 0..600 s, to the ms; 1..60 days.  Read by timectl.h, the
 * parser krieg-bot's --time shares.  Days set only c->days, a clock only
 * c->base_ms and c->inc_ms; a refused word changes nothing. */
static bool parse_time(const char *s, struct cmd *c)
{
	struct timectl t;
	if (!timectl_parse(s, &t))
		return false;
	switch (t.kind) {
	case TIMECTL_UNTIMED:
		c->base_ms = c->inc_ms = c->days = 0;
		break;
	case TIMECTL_DAYS:
		c->days = t.days;
		break;
	case TIMECTL_FISCHER:
		c->base_ms = t.base_ms;
		c->inc_ms = t.inc_ms;
		break;
	}
	return true;
}

/* seek [TERMS], challenge USER [TERMS], pair WHITE BLACK [TERMS]: the terms in any order
 * (a pairing's colours are its names' order). */
/* A term in any case, as a command is ("seek English": a new player's
 * capital was an unknown term: first-game probe). */
static void lower(char *w)
{
	for (; *w; w++)
		*w = (char)tolower((unsigned char)*w);
}

/* Each kind of term once: "challenge bob 5+0 untimed" made an untimed
 * offer of the last one, the first dropped without a word (a play probe). */
enum { TERM_COLOR, TERM_RATED, TERM_RULES, TERM_TIME, TERM__COUNT };

static int parse_terms(struct cmd *c, char *err, size_t errlen)
{
	static const char *const kinds[TERM__COUNT] = { "colour", "rated or unrated", "rule set",
		                                        "time control" };
	const char *seen[TERM__COUNT] = { NULL };
	for (int i = c->type == CMD_CHALLENGE ? 1 : c->type == CMD_PAIR ? 2 : 0; i < c->argc; i++) {
		lower(c->argv[i]);
		const char *w = c->argv[i];
		bool colour = !strcmp(w, "white") || !strcmp(w, "black") || !strcmp(w, "random");
		bool rated = !strcmp(w, "rated") || !strcmp(w, "unrated");
		bool timed = isdigit((unsigned char)w[0]) || !strcmp(w, "untimed") || !strcmp(w, "none");
		int kind = colour ? TERM_COLOR : rated ? TERM_RATED : timed ? TERM_TIME
		         : ruleset_find(w) ? TERM_RULES : -1;
		if (kind >= 0 && seen[kind])
			return failf(err, errlen, "\"%s\" and \"%s\": one %s, not two", seen[kind], w, kinds[kind]);
		if (kind >= 0)
			seen[kind] = w;
		if (kind == TERM_COLOR && c->type == CMD_PAIR)
			return failf(err, errlen, "pair: the first name plays White, the second Black");
		if (kind == TERM_COLOR)
			snprintf(c->color, sizeof c->color, "%s", w);
		else if (kind == TERM_RATED)
			c->rated = w[0] == 'r';
		else if (kind == TERM_RULES)
			snprintf(c->rules, sizeof c->rules, "%s", w);
		else if (kind == TERM_TIME) {
			if (!parse_time(w, c))
				return failf(err, errlen, "bad time control \"%s\" (try 5+2, 0.5+0, 1:40+0.5, 10, 3d or untimed)", w);
		} else {
			char names[RULESET_NAMES_MAX];
			ruleset_names(names, sizeof names);
			return failf(err, errlen, "unknown term \"%s\" (a rule set: %s; a time like 5+2; "
			             "white/black/random; rated)", w, names);
		}
	}
	return 0;
}

static bool is_view(const char *w)
{
	return !strcmp(w, "white") || !strcmp(w, "black") || !strcmp(w, "umpire");
}

static const char *const draw_actions[] = { [DRAW_OFFER] = "offer", [DRAW_ACCEPT] = "accept",
                                            [DRAW_DECLINE] = "decline" };

/* --- parse hooks --------------------------------------------------------------- */

/* accept / cancel [OFFER], switch / watch / umpire / unwatch GAME */
static int parse_number(struct cmd *c, char *err, size_t errlen)
{
	bool offer = c->type == CMD_ACCEPT || c->type == CMD_CANCEL || c->type == CMD_PLAY;
	if (c->argc == 1 && !parse_long(c->argv[0], &c->number))
		return failf(err, errlen, "%s is a number", offer ? "an offer" : "a game");
	return 0;
}

/* --- the umpire's actions: verbatim lines, so that a reason keeps its words ---------- */

/* The next word of a verbatim line into out ("" at the end); returns what follows it. */
static const char *next_word(const char *p, char *out, size_t len)
{
	p += strspn(p, " \t");
	size_t n = strcspn(p, " \t\r\n");
	snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return p + n;
}

/*
 * The rest of the line as a reason or a note: trimmed, 1..CMD_REASON_MAX
 * bytes of UTF-8 and no control character (the wire's rule, checked here
 * so that a typo is told at once and in words).  dflt stands in for none.
 */
static int take_text(struct cmd *c, const char *p, const char *dflt, char *err, size_t errlen)
{
	p += strspn(p, " \t");
	size_t n = strlen(p);
	while (n && strchr(" \t\r\n", p[n - 1]))
		n--;
	if (n == 0 && dflt) {
		p = dflt;
		n = strlen(dflt);
	}
	if (n == 0)
		return failf(err, errlen, "%s: %s is needed (usage: %s)", c->entry->name,
		             c->type == CMD_NOTE || c->type == CMD_ANNOUNCE ? "a text" : "a reason", c->entry->usage);
	if (n > CMD_REASON_MAX)
		return failf(err, errlen, "%s: the text is %zu bytes, at most %d", c->entry->name, n, CMD_REASON_MAX);
	memcpy(c->text, p, n);
	c->text[n] = '\0';
	char words[CMD_REASON_MAX + 1];   /* the server's check (text.h): what it would refuse */
	if (!text_words(c->text, words, sizeof words))
		return failf(err, errlen, "%s: the text must be UTF-8 without " TEXT_REFUSED " (a tab is a control character)",
		             c->entry->name);
	return 0;
}

/* A tournament's name, the rest of the line: as kriegd keeps it
 * (proto_tournament_name), into c->text. */
static int take_tournament(struct cmd *c, const char *p, char *err, size_t errlen)
{
	if (!proto_tournament_name(p, c->text, sizeof c->text))
		return failf(err, errlen, "%s: a tournament's name is 1 to %d bytes of UTF-8, not blank, without "
		             TEXT_REFUSED " (usage: %s)", c->entry->name, PROTO_TOURNAMENT_MAX,
		             c->entry->usage);
	return 0;
}

/* "tournament Spring Open round 2" with no round before it: the round is
 * the last two words (the TD probe: they became the name, silently, a
 * tournament of its own); a name of those two words alone stays one.
 * Cut from the line as typed (name, a copy), before the name's length is
 * checked: the round is not the name's. */
static void round_after_name(struct cmd *c, char *name)
{
	size_t n = strlen(name);
	while (n > 0 && strchr(" \t\r\n", name[n - 1]))
		name[--n] = '\0';
	char *last = strrchr(name, ' ');
	char *tab = strrchr(name, '\t');
	if (tab > last)
		last = tab;
	if (c->round[0] || last == NULL || !proto_round_ok(last + 1))
		return;
	char *end = last;
	while (end > name && strchr(" \t", end[-1]))
		end--;
	char *word = end;
	while (word > name && !strchr(" \t", word[-1]))
		word--;
	if (word == name + strspn(name, " \t") || end - word != 5 || strncasecmp(word, "round", 5) != 0)
		return;   /* a name of "round N" alone stays one */
	snprintf(c->round, sizeof c->round, "%.*s", PROTO_ROUND_MAX, last + 1);
	*word = '\0';
}

/* pair WHITE BLACK [TERMS] [round N] [tournament NAME...]: the two names
 * first (a player may be called "round"), then the words up to
 * "tournament", whose name is the rest of the line (a round after it
 * taken as the round: round_after_name). */
static int parse_pair(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = c->raw, *q;
	c->argc = 0;
	for (q = next_word(p, w, sizeof w); w[0]; p = q, q = next_word(p, w, sizeof w)) {
		if (c->argc >= 2 && !strcmp(w, "tournament")) {
			char name[CMD_LINE_MAX];
			snprintf(name, sizeof name, "%s", q);
			round_after_name(c, name);
			if (take_tournament(c, name, err, errlen) != 0)
				return -1;
			return parse_terms(c, err, errlen);
		}
		if (c->argc >= 2 && !strcmp(w, "round")) {
			q = next_word(q, w, sizeof w);
			if (!proto_round_ok(w))
				return failf(err, errlen, "pair: the round is digits and dots, as 3 or 2.1 (usage: %s)",
				             c->entry->usage);
			snprintf(c->round, sizeof c->round, "%.*s", PROTO_ROUND_MAX, w);
			continue;
		}
		if (c->argc == 5)
			return failf(err, errlen, "usage: %s", c->entry->usage);
		snprintf(c->argv[c->argc++], sizeof c->argv[0], "%s", w);
	}
	if (c->argc < 2)
		return failf(err, errlen, "usage: %s", c->entry->usage);
	return parse_terms(c, err, errlen);
}

/* tournament NAME...: the rest of the line, as pair takes it */
static int parse_tournament(struct cmd *c, char *err, size_t errlen)
{
	return take_tournament(c, c->raw, err, errlen);
}

/* pause [REASON...], unpause [REASON...] */
static int parse_pause(struct cmd *c, char *err, size_t errlen)
{
	return take_text(c, c->raw, "no reason given", err, errlen);
}

/* addtime COLOR SECONDS REASON... */
static int parse_addtime(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = next_word(c->raw, w, sizeof w);
	if (strcmp(w, "white") != 0 && strcmp(w, "black") != 0)
		return failf(err, errlen, "addtime: white or black first (usage: %s)", c->entry->usage);
	snprintf(c->color, sizeof c->color, "%.5s", w);   /* "white" or "black" */
	p = next_word(p, w, sizeof w);
	if (!parse_long(w, &c->seconds) || c->seconds < 1 || c->seconds > CMD_ADDTIME_MAX)
		return failf(err, errlen, "addtime: seconds from 1 to %d (usage: %s)", CMD_ADDTIME_MAX, c->entry->usage);
	return take_text(c, p, NULL, err, errlen);
}

/* adjudicate RESULT REASON... */
static int parse_adjudicate(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = next_word(c->raw, w, sizeof w);
	if (!strcmp(w, "draw") || !strcmp(w, "1/2"))
		snprintf(w, sizeof w, "1/2-1/2");
	if (strcmp(w, "1-0") != 0 && strcmp(w, "0-1") != 0 && strcmp(w, "1/2-1/2") != 0)
		return failf(err, errlen, "adjudicate: the result is 1-0, 0-1, 1/2-1/2 or draw (usage: %s)", c->entry->usage);
	snprintf(c->result, sizeof c->result, "%.7s", w);   /* at most "1/2-1/2" */
	return take_text(c, p, NULL, err, errlen);
}

/* abort (a player's, of the current game) or abort REASON... (the umpire's, of the chair's game) */
static int parse_abort(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *rest = next_word(c->raw, w, sizeof w);
	if (!strcmp(w, "--yes") && rest[strspn(rest, " \t\r\n")] == '\0')
		c->yes = true;   /* the player's abort, unasked */
	if (c->yes || c->raw[strspn(c->raw, " \t\r\n")] == '\0')
		return 0;
	c->type = CMD_UMPIRE_ABORT;
	return take_text(c, c->raw, NULL, err, errlen);
}

/* decline [OFFER] [REASON...]: a first word of digits is the offer (so a
 * reason that starts with a number follows the offer's); the rest, if
 * any, the reason, taken as a note is.  Without a number exec takes the
 * last challenge received. */
static int parse_decline(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = next_word(c->raw, w, sizeof w);
	if (w[0] && strspn(w, "0123456789") == strlen(w)) {
		if (!parse_long(w, &c->number))
			return failf(err, errlen, "an offer is a number");
	} else
		p = c->raw;
	if (p[strspn(p, " \t\r\n")] == '\0')
		return 0;
	return take_text(c, p, NULL, err, errlen);
}

/* note [--public] TEXT... */
static int parse_note(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = next_word(c->raw, w, sizeof w);
	if (!strcmp(w, "--public")) {
		c->public_note = true;
		return take_text(c, p, NULL, err, errlen);
	}
	return take_text(c, c->raw, NULL, err, errlen);
}

/* announce [round N] TOURNAMENT: TEXT: the name up to the first colon (a
 * name may hold spaces, as pair's), the note after it. */
static int parse_announce(struct cmd *c, char *err, size_t errlen)
{
	char w[CMD_ARG_MAX];
	const char *p = c->raw, *q = next_word(p, w, sizeof w);
	if (!strcmp(w, "round")) {
		p = next_word(q, w, sizeof w);
		if (!proto_round_ok(w))
			return failf(err, errlen, "announce: the round is digits and dots, as 3 or 2.1 (usage: %s)",
			             c->entry->usage);
		snprintf(c->round, sizeof c->round, "%.*s", PROTO_ROUND_MAX, w);
	}
	const char *colon = strchr(p, ':');
	char name[CMD_LINE_MAX];
	if (colon == NULL)
		return failf(err, errlen, "announce: a colon after the tournament's name, then the text (usage: %s)",
		             c->entry->usage);
	snprintf(name, sizeof name, "%.*s", (int)(colon - p), p);
	if (!proto_tournament_name(name, c->tournament, sizeof c->tournament))
		return failf(err, errlen, "announce: a tournament's name is 1 to %d bytes of UTF-8, not blank, without "
		             TEXT_REFUSED " (usage: %s)", PROTO_TOURNAMENT_MAX, c->entry->usage);
	return take_text(c, colon + 1, NULL, err, errlen);
}

/*
 * login USER [PASSWORD...], register USER [--invite CODE] [PASSWORD...]:
 * the password is the rest of the line, blanks around it trimmed and those
 * inside kept, so that a script can give a passphrase (deploy/CLUB.md
 * suggests one) without a quoting rule that a password's own quotes would
 * then need escaping from.  That is why an invite code comes before the
 * password, after --invite.  Without a password, exec_login asks for it.
 */
static int parse_login(struct cmd *c, char *err, size_t errlen)
{
	const char *p = next_word(c->raw, c->argv[0], sizeof c->argv[0]);
	c->argc = 1;
	if (!c->argv[0][0])
		return failf(err, errlen, "usage: %s", c->entry->usage);
	if (strlen(c->argv[0]) == CMD_ARG_MAX - 1)   /* next_word() cut it */
		return failf(err, errlen, "%s: the name is too long", c->entry->name);
	char w[CMD_ARG_MAX];
	const char *q = next_word(p, w, sizeof w);
	if (c->type == CMD_REGISTER && !strcmp(w, "--invite")) {
		p = next_word(q, c->invite, sizeof c->invite);
		if (!c->invite[0])
			return failf(err, errlen, "register: --invite needs the code (usage: %s)", c->entry->usage);
	}
	p += strspn(p, " \t");
	size_t n = strlen(p);
	while (n && strchr(" \t\r\n", p[n - 1]))
		n--;
	if (n >= CMD_ARG_MAX)
		return failf(err, errlen, "%s: the password is %zu bytes, at most %d", c->entry->name, n,
		             CMD_ARG_MAX - 1);
	if (n) {
		memcpy(c->argv[1], p, n);
		c->argv[1][n] = '\0';
		c->argc = 2;
	}
	return 0;
}

/* say TEXT..., spec TEXT...: the rest of the line is the text */
static int parse_chat(struct cmd *c, char *err, size_t errlen)
{
	return take_text(c, c->raw, NULL, err, errlen);
}

/* tell USER TEXT...: the user in argv[0] */
static int parse_tell(struct cmd *c, char *err, size_t errlen)
{
	const char *p = next_word(c->raw, c->argv[0], sizeof c->argv[0]);
	c->argc = 1;
	if (!c->argv[0][0] || !*(p + strspn(p, " \t\r\n")))
		return failf(err, errlen, "usage: %s", c->entry->usage);
	return take_text(c, p, NULL, err, errlen);
}

/* messages [delete N|all]: c->number the message to delete, 0 all, -1 none (the list) */
static int parse_messages(struct cmd *c, char *err, size_t errlen)
{
	c->number = -1;
	if (c->argc == 0)
		return 0;
	if (c->argc == 2 && strcmp(c->argv[0], "delete") == 0 &&
	    (strcmp(c->argv[1], "all") == 0 ? (c->number = 0, true)
	                                    : parse_long(c->argv[1], &c->number) && c->number > 0))
		return 0;
	return failf(err, errlen, "usage: %s", c->entry->usage);
}

/* kick USER [REASON...]: without a reason, the server's own */
static int parse_kick(struct cmd *c, char *err, size_t errlen)
{
	const char *p = next_word(c->raw, c->argv[0], sizeof c->argv[0]);
	c->argc = 1;
	if (!c->argv[0][0])
		return failf(err, errlen, "usage: %s", c->entry->usage);
	if (!*(p + strspn(p, " \t\r\n")))
		return 0;
	return take_text(c, p, NULL, err, errlen);
}

/* record GAME [VIEW]; pgn GAME [VIEW] [> FILE | >FILE] */
static int parse_view_file(struct cmd *c, char *err, size_t errlen)
{
	const char *usage = c->type == CMD_RECORD ? "record GAME [white|black|umpire]"
	                                          : "pgn GAME [white|black|umpire] [> FILE]";
	if (!parse_long(c->argv[0], &c->number))
		return failf(err, errlen, "a game is a number (usage: %s)", usage);
	for (int i = 1; i < c->argc; i++) {
		const char *w = c->argv[i];
		if (is_view(w) && !c->view[0] && !c->file[0]) {
			snprintf(c->view, sizeof c->view, "%.6s", w);   /* is_view(): at most "umpire" */
		} else if (c->type == CMD_PGN && w[0] == '>' && !c->file[0]) {
			const char *f = w[1] ? w + 1 : i + 1 < c->argc ? c->argv[++i] : "";
			if (!*f)
				return failf(err, errlen, "pgn: a file name after '>'");
			snprintf(c->file, sizeof c->file, "%s", f);
		} else {
			return failf(err, errlen, "usage: %s", usage);
		}
	}
	return 0;
}

/* resign [--yes] */
static int parse_yes(struct cmd *c, char *err, size_t errlen)
{
	if (c->argc == 1 && strcmp(c->argv[0], "--yes") != 0)
		return failf(err, errlen, "usage: %s", c->entry->usage);
	c->yes = c->argc == 1;
	return 0;
}

/* An offer between the players (draw, adjourn): alone, the server offers,
 * or accepts the opponent's standing offer; else offer, accept or decline. */
static int parse_offer(struct cmd *c, const char *usage, char *err, size_t errlen)
{
	c->draw = DRAW_DEFAULT;
	for (int a = DRAW_OFFER; c->argc == 1 && a < DRAW_DEFAULT; a++)
		if (!strcmp(c->argv[0], draw_actions[a]))
			c->draw = (enum draw_action)a;
	if (c->argc == 1 && c->draw == DRAW_DEFAULT)
		return failf(err, errlen, "%s", usage);
	return 0;
}

static int parse_adjourn(struct cmd *c, char *err, size_t errlen)
{
	return parse_offer(c, "adjourn, adjourn accept or adjourn decline", err, errlen);
}

static int parse_draw(struct cmd *c, char *err, size_t errlen)
{
	return parse_offer(c, "draw offer, draw accept or draw decline", err, errlen);
}

/* ghost place SQ | ghost move FROM TO | ghost clear [SQ]: three types; the sub-command word goes. */
static int parse_ghost(struct cmd *c, char *err, size_t errlen)
{
	static const char usage[] = "usage: ghost place Nf6 | ghost move f6 e4 | ghost clear [SQUARE]";
	const char *sub = c->argv[0];
	int want;
	if (!strcmp(sub, "place")) {
		want = 1;
	} else if (!strcmp(sub, "move")) {
		c->type = CMD_GHOST_MOVE;
		want = 2;
	} else if (!strcmp(sub, "clear")) {
		c->type = CMD_GHOST_CLEAR;
		if (c->argc > 2)
			return failf(err, errlen, "usage: ghost clear [SQUARE]");
		want = c->argc - 1;
	} else {
		return failf(err, errlen, "%s", usage);
	}
	if (c->argc - 1 != want)
		return failf(err, errlen, "%s", usage);
	memmove(c->argv[0], c->argv[1], (size_t)(c->argc - 1) * sizeof c->argv[0]);
	c->argc--;
	return 0;
}

/* wait EVENT [SECONDS], sleep SECONDS: the seconds are the last word when the most are given. */
static int parse_seconds(struct cmd *c, char *err, size_t errlen)
{
	const char *num = c->argc == c->entry->max ? c->argv[c->argc - 1] : NULL;
	c->number = 30000;
	if (num) {
		char *end;
		double s = strtod(num, &end);
		if (end == num || *end || s < 0 || s > 3600)
			return failf(err, errlen, "seconds: a number from 0 to 3600");
		c->number = (long)(s * 1000);
	}
	return 0;
}

/* wait EVENT [SECONDS]: an event kriegd sends (a name mistyped waited
 * out its time, then said "timed out"). */
static int parse_wait(struct cmd *c, char *err, size_t errlen)
{
	if (!client_event_known(c->argv[0]))
		return failf(err, errlen, "wait: kriegd sends no event called \"%.*s\" (its events: "
		             "PROTOCOL.md, e.g. game_start, moved, game_over)", (int)words_fit(c->argv[0], 40), c->argv[0]);
	return parse_seconds(c, err, errlen);
}

static int parse_moves(struct cmd *c, char *err, size_t errlen)
{
	for (int i = 0; i < c->argc; i++)
		if (strlen(c->argv[i]) > 32)
			return failf(err, errlen, "\"%.*s...\" is too long to be a move", (int)words_fit(c->argv[i], 40),
			             c->argv[i]);   /* cut between characters (fuzz_client: a UTF-8 one cut shown) */
	return 0;
}

/* raw: c->raw holds the rest of the line. */
static int parse_raw(struct cmd *c, char *err, size_t errlen)
{
	size_t n = strlen(c->raw);
	while (n && (c->raw[n - 1] == '\n' || c->raw[n - 1] == '\r'))
		c->raw[--n] = '\0';
	c->argc = 1;
	snprintf(c->argv[0], CMD_ARG_MAX, "%s", "json");
	return 0;
}

/* --- request hooks: {id, ..., type} ------------------------------------------ */

static json_t *req_begin(long long id)
{
	return json_pack("{s:I}", "id", (json_int_t)id);
}

static json_t *req_end(json_t *r, const struct cmd *c)
{
	json_object_set_new(r, "type", json_string(c->entry->name));
	return r;
}

/* no fields but the game, if it is about one */
static json_t *req_plain(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return json_pack("{s:I, s:o*, s:s}", "id", (json_int_t)id,
	                 "game", c->entry->game ? json_integer(game) : NULL, "type", c->entry->name);
}

static json_t *req_login(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->argc < 2) {
		failf(err, errlen, "%s needs a password", c->entry->name);
		return NULL;
	}
	json_t *r = req_begin(id);
	json_object_set_new(r, "user", json_string(c->argv[0]));
	json_object_set_new(r, "password", json_string(c->argv[1]));
	if (c->invite[0])   /* register USER --invite CODE PASSWORD */
		json_object_set_new(r, "invite", json_string(c->invite));
	return req_end(r, c);
}

static json_t *req_resume(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	json_object_set_new(r, "token", json_string(c->argv[0]));
	return req_end(r, c);
}

static json_t *req_history(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	if (c->argc == 1)
		json_object_set_new(r, "user", json_string(c->argv[0]));
	return req_end(r, c);
}

static json_t *req_pgn(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return json_pack("{s:I, s:I, s:s*, s:s}", "id", (json_int_t)id, "game", (json_int_t)c->number,
	                 "view", c->view[0] ? c->view : NULL, "type", c->entry->name);
}

static json_t *req_record(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (!c->view[0]) {
		failf(err, errlen, "record: which view? (white, black or umpire)");
		return NULL;
	}
	return req_pgn(c, id, game, err, errlen);
}

/* seek / challenge USER */
/* ms as the wire's seconds: an integer when whole (5 minutes: 300), else a fraction (100.5). */
static json_t *seconds_json(long long ms)
{
	return ms % 1000 == 0 ? json_integer(ms / 1000) : json_real((double)ms / 1000.0);
}

static json_t *req_terms(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	if (c->type == CMD_CHALLENGE)
		json_object_set_new(r, "user", json_string(c->argv[0]));
	if (c->type == CMD_PAIR) {
		json_object_set_new(r, "white", json_string(c->argv[0]));
		json_object_set_new(r, "black", json_string(c->argv[1]));
		if (c->round[0])
			json_object_set_new(r, "round", json_string(c->round));
		if (c->text[0])
			json_object_set_new(r, "tournament", json_string(c->text));
	}
	if (c->rules[0])
		json_object_set_new(r, "rules", json_string(c->rules));
	json_t *tc = c->days ? json_pack("{s:I}", "days", (json_int_t)c->days)
	           : c->base_ms || c->inc_ms ? json_pack("{s:o,s:o}", "base", seconds_json(c->base_ms), "inc",
	                                                 seconds_json(c->inc_ms))
	           : NULL;
	json_object_set_new(r, "time", tc);   /* untimed: no "time" */
	if (c->type != CMD_PAIR)
		json_object_set_new(r, "color", json_string(c->color));
	json_object_set_new(r, "rated", json_boolean(c->rated));
	return req_end(r, c);
}

/* standings [RULES] */
static int parse_standings(struct cmd *c, char *err, size_t errlen)
{
	if (c->argc == 1)
		lower(c->argv[0]);
	if (c->argc == 1 && !ruleset_find(c->argv[0])) {
		char names[RULESET_NAMES_MAX];
		ruleset_names(names, sizeof names);
		return failf(err, errlen, "unknown rule set \"%.*s\" (%s)", (int)words_fit(c->argv[0], 32), c->argv[0], names);
	}
	return 0;
}

/* tournament NAME... */
static json_t *req_announce(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)id, "type", "tournament_note",
	                      "tournament", c->tournament, "text", c->text);
	if (c->round[0])
		json_object_set_new(r, "round", json_string(c->round));
	return r;
}

static json_t *req_tournament(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	json_object_set_new(r, "name", json_string(c->text));
	return req_end(r, c);
}

/* standings [RULES] / profile, follow, unfollow [USER]: the one word, if given, is the field */
static json_t *req_named(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	if (c->argc == 1)
		json_object_set_new(r, c->type == CMD_STANDINGS ? "rules" : "user", json_string(c->argv[0]));
	json_object_set_new(r, "type", json_string(c->type == CMD_PROFILE ? "profile" : c->entry->name));
	return r;   /* finger is profile's other name */
}

static json_t *req_rematch(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return json_pack("{s:I, s:I, s:s}", "id", (json_int_t)id, "game",
	                 (json_int_t)(c->number >= 0 ? c->number : game), "type", c->entry->name);
}

static json_t *req_offer(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->number < 0 && c->type == CMD_CANCEL)   /* the server cancels your only offer */
		return json_pack("{s:I, s:s}", "id", (json_int_t)id, "type", "cancel");
	if (c->number < 0) {
		failf(err, errlen, "which offer? (a number; see \"seeks\")");
		return NULL;
	}
	json_t *r = json_pack("{s:I, s:I, s:s}", "id", (json_int_t)id, "offer", (json_int_t)c->number,
	                      "type", c->type == CMD_PLAY ? "accept" : c->entry->name);
	if (c->type == CMD_DECLINE && c->text[0])
		json_object_set_new(r, "reason", json_string(c->text));
	return r;
}

/* lobby [on|off] */
static int parse_lobby(struct cmd *c, char *err, size_t errlen)
{
	if (c->argc == 1 && strcmp(c->argv[0], "on") != 0 && strcmp(c->argv[0], "off") != 0)
		return failf(err, errlen, "usage: %s", c->entry->usage);
	return 0;
}

static json_t *req_lobby(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	bool off = c->argc == 1 && !strcmp(c->argv[0], "off");
	return json_pack("{s:I, s:s}", "id", (json_int_t)id, "type", off ? "lobby_unwatch" : "lobby_watch");
}

static json_t *moves_array(const struct cmd *c)
{
	json_t *a = json_array();
	for (int i = 0; i < c->argc; i++)
		json_array_append_new(a, json_string(c->argv[i]));
	return a;
}

/* move: one try, or several (a preference list); quiet: always a list */
static json_t *req_move(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	json_object_set_new(r, "game", json_integer(game));
	if (c->argc == 1 && c->type == CMD_MOVE)
		json_object_set_new(r, "move", json_string(c->argv[0]));
	else
		json_object_set_new(r, "moves", moves_array(c));
	return req_end(r, c);
}

static json_t *req_draw(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return json_pack("{s:I, s:s, s:I, s:s}", "id", (json_int_t)id,
	                 "action", draw_actions[c->draw == DRAW_DEFAULT ? DRAW_OFFER : c->draw],
	                 "game", (json_int_t)game, "type", c->entry->name);
}

static json_t *req_adjourn(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return json_pack("{s:I, s:s*, s:I, s:s}", "id", (json_int_t)id, "action",
	                 c->draw == DRAW_DEFAULT ? NULL : draw_actions[c->draw], "game",
	                 (json_int_t)game, "type", c->entry->name);
}

/* watch / umpire / unwatch GAME */
static json_t *req_seat(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->number < 0) {
		failf(err, errlen, "%s: which game? (a number; see \"live\")", c->entry->name);
		return NULL;
	}
	return json_pack("{s:I, s:I, s:s}", "id", (json_int_t)id, "game", (json_int_t)c->number, "type",
	                 c->entry->name);
}

/* say {game, text} (the current game), spec {game, text} (the watched game, c->number) */
static json_t *req_chat(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->type == CMD_SPEC)
		game = c->number;
	return json_pack("{s:I, s:I, s:s, s:s}", "id", (json_int_t)id, "game", (json_int_t)game, "text", c->text,
	                 "type", c->entry->name);
}

/* tell {user, text}; mute / unmute {user}; kick {user, reason?} */
static json_t *req_user(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->argc == 0)   /* mute alone: the list */
		return json_pack("{s:I, s:s}", "id", (json_int_t)id, "type", "mutes");
	json_t *r = json_pack("{s:I, s:s}", "id", (json_int_t)id, "user", c->argv[0]);
	if (c->type == CMD_TELL || c->type == CMD_MESSAGE)
		json_object_set_new(r, "text", json_string(c->text));
	if (c->type == CMD_KICK && c->text[0])
		json_object_set_new(r, "reason", json_string(c->text));
	return req_end(r, c);
}

/* messages {} (the list), or message_delete {message?} (0: all) */
static json_t *req_messages(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->number < 0)
		return req_end(req_begin(id), c);
	json_t *r = json_pack("{s:I, s:s}", "id", (json_int_t)id, "type", "message_delete");
	if (c->number > 0)
		json_object_set_new(r, "message", json_integer(c->number));
	return r;
}

/* broadcast {text} */
static json_t *req_text(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	return req_end(json_pack("{s:I, s:s}", "id", (json_int_t)id, "text", c->text), c);
}

/* The umpire's actions (PROTOCOL.md): on the chair's game, c->number. */
static json_t *req_umpire(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->number < 0) {
		failf(err, errlen, "%s: you hold no umpire's chair (take one with \"umpire GAME\")", c->entry->name);
		return NULL;
	}
	json_t *r = json_pack("{s:I, s:I}", "id", (json_int_t)id, "game", (json_int_t)c->number);
	const char *type = "clock_pause";
	switch (c->type) {
	case CMD_PAUSE:
		break;
	case CMD_UNPAUSE:
		type = "clock_unpause";
		break;
	case CMD_ADDTIME:
		type = "add_time";
		json_object_set_new(r, "color", json_string(c->color));
		json_object_set_new(r, "seconds", json_integer(c->seconds));
		break;
	case CMD_ADJUDICATE:
		type = "adjudicate";
		json_object_set_new(r, "result", json_string(c->result));
		break;
	case CMD_UMPIRE_ABORT:
		type = "umpire_abort";
		break;
	case CMD_NOTE:
		type = "note";
		json_object_set_new(r, "public", json_boolean(c->public_note));
		break;
	default:
		json_decref(r);
		failf(err, errlen, "%s: not an umpire's action", c->entry->name);
		return NULL;
	}
	json_object_set_new(r, c->type == CMD_NOTE ? "text" : "reason", json_string(c->text));
	json_object_set_new(r, "type", json_string(type));
	return r;
}

/* abort: the player's (current game), or with a reason the umpire's (the chair's game) */
static json_t *req_abort(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (c->type == CMD_UMPIRE_ABORT)
		return req_umpire(c, id, game, err, errlen);
	if (game < 0) {
		failf(err, errlen, "no current game (see \"games\" and \"switch\"; an umpire writes abort REASON...)");
		return NULL;
	}
	return json_pack("{s:I, s:I, s:s}", "id", (json_int_t)id, "game", (json_int_t)game, "type", "abort");
}

static json_t *req_raw(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_error_t je;
	json_t *r = json_loads(c->raw, JSON_REJECT_DUPLICATES, &je);
	if (!r || !json_is_object(r)) {
		json_decref(r);
		failf(err, errlen, "raw: not a JSON object (%s)", r ? "not an object" : je.text);
		return NULL;
	}
	if (!json_object_get(r, "id"))
		json_object_set_new(r, "id", json_integer(id));
	return r;
}

/* raw: the answer shown as it came (scrubbed on arrival), for the requests this
 * client has no words for: an admin's invite code, users, audit.  It went
 * nowhere at the prompt, so the invite a club's admin asked for was lost. */
static void done_raw(struct client *c, const json_t *res, const struct pending *p)
{
	char *line = json_dumps(res, JSON_COMPACT);
	if (line)
		client_out(c, "%s", line);
	free(line);
}

/* --- exec hooks: in the client, before sending or instead of it ------------------- */

static size_t help_about(const char *word, char *out, size_t len);

/* help [WORD]: every command, or what cmd_help_about says of WORD. */
static int exec_help(struct client *cl, struct cmd *cmd, struct pending *p)
{
	/* Words asked for: --batch prints them too (the help probe: nothing
	 * at all came out there), where a person's words go (standard error). */
	if (cmd->argc == 0) {
		client_out_asked(cl, "%s", cmd_help());
		return 0;
	}
	char text[CMD_HELP_MAX];
	if (!cmd_help_about(cmd->argv[0], text, sizeof text))
		return client_error(cl, "No command or rule set is named \"%s\", nor does a command mention it; "
		                    "\"help\" lists them all.", cmd->argv[0]);
	client_out_asked(cl, "%s", text);
	return 0;
}

/* quit: the games go on.  A guest is told what that means for its own:
 * its token leaves with this client, and the server abandons a guest's
 * games after a grace (PROTOCOL.md, "Presence").  A player is told of
 * the games the grace applies to: a clock's, and an untimed one against
 * a bot (a bot waits for nobody: the bot probe quit one and lost it). */
static int exec_quit(struct client *cl, struct cmd *cmd, struct pending *p)
{
	int live = 0, graced = 0;
	for (int i = 0; i < cl->ngames; i++) {
		const struct cgame *g = &cl->games[i];
		if (!g->used || !g->live || g->view.over)
			continue;
		live++;
		graced += !g->days && !g->paused && (g->timed || g->bot[!g->color]);
	}
	if (cl->logged_in && cl->guest && live > 0)
		client_out(cl, "You are a guest: once this client quits you cannot come back, and your %d "
		           "game%s will be lost by abandonment after the server's grace (a minute by default). "
		           "Register an account to leave games waiting for you.", live, live == 1 ? "" : "s");
	else if (cl->logged_in && graced > 0)
		client_out(cl, "%d of your games (with a clock, or against a bot) will be lost by abandonment "
		           "unless you log in again within the server's grace (a minute by default).", graced);
	return CLIENT_QUIT;
}

/* wait and sleep outside --batch, whose loop takes them before they come
 * here: a line piped in is not held back for the answers to those before
 * it, so there is nothing for them to do; said, never silently dropped. */
static int exec_batch_only(struct client *cl, struct cmd *cmd, struct pending *p)
{
	return client_error(cl, "%s: " CMD_BATCH_ONLY, cmd->entry->name);
}

static int exec_switch(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct cgame *to = client_game(cl, cmd->number);
	struct seat *seat = client_seat(cl, cmd->number);
	if (seat && !to) {
		cl->seat_current = seat->id;
		cl->seat_focus = true;
		client_show_seat(cl, seat);
		return 0;
	}
	cl->seat_focus = false;
	if (!to) {
		/* not followed here yet: fetch our own view of it; the answer starts it */
		client_send_page(cl, "game", cmd->entry, cmd->number, NULL, 0, false);
		return 0;
	}
	cl->current = to->id;
	if (cl->plain) {   /* --plain: which game, in words; the board on demand */
		char words[WORDS_MAX];
		client_clocks_words(cl, to, words, sizeof words);
		client_out_asked(cl, "%s", words);
		return 0;
	}
	client_show_board(cl, to);
	return 0;
}

/* switch GAME to a game one neither plays nor watches: the server's "no
 * such game" left the way to it unsaid (help probe). */
static void refused_switch(struct client *c, const struct pending *p)
{
	if (strcmp(c->refused_code, "no_such_game") == 0 && p->game >= 0)
		client_out(c, "Not a game of yours: \"watch %ld\" watches it, if it is being played.", p->game);
}

static int exec_board(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct seat *seat = cl->seat_focus ? client_seat(cl, cl->seat_current) : NULL;
	if (seat) {
		client_show_seat(cl, seat);
		return 0;
	}
	if (!client_current(cl))
		return client_error(cl, "no current game");
	client_show_board(cl, client_current(cl));
	return 0;
}

/* time / clock: the clocks of the current game (or the watched one) in
 * words; asked for, so --batch prints them too (a play probe: time, clock,
 * pieces and --plain's switch said nothing there). */
static int exec_time(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct seat *seat = cl->seat_focus ? client_seat(cl, cl->seat_current) : NULL;
	char words[256], wc[RENDER_CLOCK_MAX], bc[RENDER_CLOCK_MAX];
	if (seat) {
		/* and whose move it is, as krieg.1 says (the client probe: a
		 * --plain spectator, with no clock prompt, had it nowhere) */
		const char *side = seat->over ? "; game over"
		                 : seat->to_move == WHITE ? "; White to move" : "; Black to move";
		long now = client_now(cl), w = seat_clock(seat, WHITE, now), b = seat_clock(seat, BLACK, now);
		if (w < 0 || b < 0) {
			client_out_asked(cl, "#%ld (%s): untimed%s", seat->id, seat_kind(seat), side);
			return 0;
		}
		render_clock(w, wc);
		render_clock(b, bc);
		client_out_asked(cl, "#%ld (%s): White %s, Black %s%s%s", seat->id, seat_kind(seat), wc, bc,
		                 !seat->over && seat->paused ? "; paused" : "", side);
		return 0;
	}
	if (!client_current(cl))
		return client_error(cl, "%s: no current game", cmd->entry->name);
	client_clocks_words(cl, client_current(cl), words, sizeof words);
	client_out_asked(cl, "%s", words);
	return 0;
}

/* pieces: one's own men by square in words, and the ghosts placed (the board, read out). */
static int exec_pieces(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct cgame *g = client_current(cl);
	char words[WORDS_MAX * 2];
	words_pieces(&g->view.own, g->color, words, sizeof words);
	client_out_asked(cl, "#%ld: %s", g->id, words);
	words_ghosts(&g->ghosts, words, sizeof words);
	if (words[0])
		client_out_asked(cl, "#%ld: %s", g->id, words);
	return 0;
}

/* watch / umpire GAME: a seat needs a free place here before the server gives one. */
static int exec_seat(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (!client_seat_slot(cl, cmd->number))
		return client_error(cl, "%s: this client watches %d games already; unwatch one first", cmd->entry->name,
		                    CLIENT_SEATS_MAX);
	p->game = cmd->number;
	p->arg = 0;
	return 0;
}

/* unwatch [GAME]: the current seat by default; a finished game's seat is only cleared here. */
static int exec_unwatch(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cmd->number < 0)
		cmd->number = cl->seat_current;
	if (cmd->number < 0)
		return client_error(cl, "unwatch: you watch no game");
	struct seat *s = client_seat(cl, cmd->number);
	if (s && s->over) {
		client_seat_drop(cl, cmd->number);
		client_out(cl, "Stopped watching game %ld.", cmd->number);
		return CLIENT_HANDLED;   /* the server closed the seat at the game's end */
	}
	p->game = cmd->number;
	return 0;
}

/* The umpire's actions: on the current chair (or the only one). */
static int exec_chair(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct seat *s = client_chair(cl);
	if (!s) {
		int chairs = 0;
		for (int i = 0; i < CLIENT_SEATS_MAX; i++)
			chairs += cl->seats[i].used && cl->seats[i].umpire;
		return client_error(cl, "%s: %s", cmd->entry->name,
		                    chairs ? "you hold several chairs: \"switch GAME\" to the one you mean"
		                           : "you hold no umpire's chair (take one with \"umpire GAME\")");
	}
	if (s->over)
		return client_error(cl, "%s: game %ld is over", cmd->entry->name, s->id);
	cmd->number = s->id;
	p->game = s->id;
	p->arg = cmd->type;
	return 0;
}

/* spec: on the watched game (the current seat, a spectator's). */
static int exec_spec(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct seat *s = cl->seat_current >= 0 ? client_seat(cl, cl->seat_current) : NULL;
	if (!s || s->umpire)
		return client_error(cl, "spec: the spectators' channel is for spectators: \"watch GAME\" first%s",
		                    client_current(cl) ? " (to your opponent: \"say TEXT\")" : "");
	if (s->over)
		return client_error(cl, "spec: game %ld is over", s->id);
	cmd->number = s->id;
	p->game = s->id;
	return 0;
}

/* tell / mute / unmute: not oneself (the server would refuse it; say so at once). */
static int exec_user(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cmd->argc > 0 && cl->logged_in && strcasecmp(cmd->argv[0], cl->user) == 0)
		return client_error(cl, "%s: that is you", cmd->entry->name);
	return 0;
}

/*
 * resign / abort at a terminal: asked once; the same command again on the
 * same game does it (client_command forgets the question at any other
 * command).  --yes, --batch and a client without a terminal do not ask.
 */
static int confirm(struct client *cl, struct cmd *cmd, const char *what)
{
	struct cgame *g = client_current(cl);
	if (!g || cmd->yes || !cl->interactive || cl->batch ||
	    (cl->confirm == cmd->type && cl->confirm_game == g->id)) {
		cl->confirm = CMD_NONE;
		return 0;
	}
	cl->confirm = cmd->type;
	cl->confirm_game = g->id;
	client_out(cl, "%s game %ld against %s? Type \"%s\" again to confirm (\"%s --yes\" does it at once).", what,
	           g->id, g->name[!g->color], cmd->entry->name, cmd->entry->name);
	return CLIENT_HANDLED;
}

/* unfollow [USER]: forgotten here too (the server answers ok to any name it knows) */
static int exec_unfollow(struct client *cl, struct cmd *cmd, struct pending *p)
{
	for (int i = 0; i < cl->nfollows; i++)
		if (cmd->argc == 0 || strcasecmp(cl->follows[i], cmd->argv[0]) == 0)
			memcpy(cl->follows[i--], cl->follows[--cl->nfollows], sizeof cl->follows[0]);
	p->arg = cmd->argc;   /* 1: one player named (done_unfollow) */
	return 0;
}

/* pair: whether the director pairs himself (done_pair's words) */
static int exec_pair(struct client *cl, struct cmd *cmd, struct pending *p)
{
	p->arg = cl->logged_in && (strcasecmp(cmd->argv[0], cl->user) == 0 || strcasecmp(cmd->argv[1], cl->user) == 0);
	return 0;
}

static int exec_resign(struct client *cl, struct cmd *cmd, struct pending *p)
{
	return confirm(cl, cmd, "Resign");
}

static int exec_abort(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cmd->type == CMD_UMPIRE_ABORT)
		return exec_chair(cl, cmd, p);
	if (!client_current(cl) && client_chair(cl))
		return client_error(cl, "abort: the umpire's abort gives its reason (abort REASON...)");
	/* Known here: asking to confirm an abort the server must refuse
	 * wasted the question (help probe). */
	struct cgame *g = client_current(cl);
	if (g != NULL && g->plies >= 2)
		return client_error(cl, "abort: both sides have moved in game %ld: \"resign\" ends it, or "
		                    "offer a draw (\"draw\")", g->id);
	if (g != NULL && g->tournament)   /* the server refuses it: asked first, the question was wasted */
		return client_error(cl, "abort: game %ld is a tournament's: its players do not abort it; ask its "
		                    "director, or \"resign\"", g->id);
	if (g != NULL)
		p->game = g->id;   /* the player's abort is the current game's (its refusal says which) */
	return confirm(cl, cmd, "Abort");
}

static int exec_ghost(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct cgame *g = client_current(cl);
	enum ghost_status gs = cmd->type == CMD_GHOST_PLACE ? ghost_place(&g->ghosts, &g->view.own, cmd->argv[0])
	                     : cmd->type == CMD_GHOST_MOVE ? ghost_move(&g->ghosts, &g->view.own, cmd->argv[0],
	                                                                cmd->argv[1])
	                     : ghost_clear(&g->ghosts, cmd->argc ? cmd->argv[0] : NULL);
	if (gs != GHOST_OK)
		return client_error(cl, "ghost: %s", ghost_error(gs));
	if (cl->plain) {   /* --plain: the ghosts in words, not a board to read out again */
		char words[WORDS_MAX * 2];
		words_ghosts(&g->ghosts, words, sizeof words);
		client_out_asked(cl, "#%ld: %s", g->id, words[0] ? words : "No ghosts");
		return 0;
	}
	if (!cl->batch) {
		client_show_board(cl, g);   /* the ghosts where they stand now */
		return 0;
	}
	/* --batch draws no board: one line of what was done, asked for as help
	 * is (the ghost probe: nothing at all came out) */
	if (cmd->type == CMD_GHOST_CLEAR) {
		if (cmd->argc && strcmp(cmd->argv[0], "all") != 0)
			client_out_asked(cl, "#%ld: ghost on %s cleared", g->id, cmd->argv[0]);
		else
			client_out_asked(cl, "#%ld: all ghosts cleared", g->id);
		return 0;
	}
	const char *to = cmd->type == CMD_GHOST_PLACE ? cmd->argv[0] + strlen(cmd->argv[0]) - 2 : cmd->argv[1];
	int sq = square_parse(to);
	uint8_t code = sq >= 0 && sq < 64 ? g->ghosts.sq[sq] : MAILBOX_EMPTY;
	const char *man = words_man(piece_code_type(code));
	const char *side = piece_code_color(code) == WHITE ? "white" : "black";
	if (cmd->type == CMD_GHOST_PLACE)
		client_out_asked(cl, "#%ld: ghost %s %s placed on %s", g->id, side, man, to);
	else
		client_out_asked(cl, "#%ld: ghost %s %s moved from %s to %s", g->id, side, man, cmd->argv[0], to);
	return 0;
}

/*
 * login / register USER: the password is asked for, with echo off, when it
 * is not on the line; register asks twice, since a typo there locks the
 * account's owner out.  At a terminal a password on the line is refused:
 * it would stay in the history and on the screen (scripts give it); so
 * there a server's invite code (registration = invite) comes as
 * `register USER --invite CODE`, and the password is asked for.
 */
static int exec_login(struct client *cl, struct cmd *cmd, struct pending *p)
{
	char pw[CMD_ARG_MAX], again[CMD_ARG_MAX];
	bool reg = cmd->type == CMD_REGISTER, terminal = cl->interactive && !cl->batch;
	if (cmd->argc >= 2 && terminal)
		return client_error(cl, "%s: not with the password on the line (it stays in the history); type "
		                    "\"%s %s%s\" alone and the password is asked for, unseen%s", cmd->entry->name,
		                    cmd->entry->name, cmd->argv[0], reg ? " [--invite CODE]" : "", reg ? ", twice" : "");
	else if (cmd->argc >= 2)
		return 0;
	if (!cl->ask_password || cl->ask_password(cl->ctx, "Password: ", pw, sizeof pw) != 0)
		return client_error(cl, "%s needs a password", cmd->entry->name);
	if (reg) {
		int rc = cl->ask_password(cl->ctx, "Password again: ", again, sizeof again);
		bool same = rc == 0 && strcmp(pw, again) == 0;
		memset(again, 0, sizeof again);
		if (!same) {
			memset(pw, 0, sizeof pw);
			return client_error(cl, "register: the two passwords differ; nothing was sent");
		}
	}
	snprintf(cmd->argv[1], CMD_ARG_MAX, "%s", pw);
	cmd->argc = 2;
	memset(pw, 0, sizeof pw);
	return 0;
}

/* passwd [OLD [NEW]]: the passwords not on the line are asked for (the new
 * one twice, so that a typing slip does not lock the user out). */
static int exec_passwd(struct client *cl, struct cmd *cmd, struct pending *p)
{
	char pw[CMD_ARG_MAX], again[CMD_ARG_MAX];
	/* Said before three passwords are asked for, or a typed one is
	 * refused as weak (the help probe) */
	if (cl->logged_in && cl->guest)
		return client_error(cl, "passwd: a guest has no password to change (\"register\" makes an account)");
	static const char *const prompts[] = { "Old password: ", "New password: " };
	for (int i = cmd->argc; i < 2; i++) {
		if (!cl->ask_password || cl->ask_password(cl->ctx, prompts[i], pw, sizeof pw) != 0)
			return client_error(cl, "passwd needs the old and the new password");
		if (i == 1 && (cl->ask_password(cl->ctx, "New password again: ", again, sizeof again) != 0 ||
		               strcmp(pw, again) != 0)) {
			memset(pw, 0, sizeof pw);
			memset(again, 0, sizeof again);
			return client_error(cl, "passwd: the new passwords differ; nothing was changed");
		}
		snprintf(cmd->argv[i], CMD_ARG_MAX, "%s", pw);
		memset(pw, 0, sizeof pw);
		memset(again, 0, sizeof again);
	}
	cmd->argc = 2;
	return 0;
}

static json_t *req_passwd(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	json_t *r = req_begin(id);
	json_object_set_new(r, "old", json_string(c->argv[0]));
	json_object_set_new(r, "new", json_string(c->argv[1]));
	return req_end(r, c);
}

/* accept / decline without a number: the last challenge received. */
static int exec_last_challenge(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cmd->number < 0)
		cmd->number = cl->last_challenge;
	return 0;
}

/* rematch without a number: the current game (the one just ended, as a rule). */
static int exec_rematch(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cmd->number < 0 && cl->current < 0)
		return client_error(cl, "rematch: which game? (a number; see \"games\")");
	p->game = cmd->number < 0 ? cl->current : cmd->number;
	return 0;
}

/* draw alone: accept the opponent's standing offer, else offer one. */
static int exec_draw(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct cgame *g = client_current(cl);
	if (cmd->draw == DRAW_DEFAULT)
		cmd->draw = g && g->draw_offer_from == !g->color ? DRAW_ACCEPT : DRAW_OFFER;
	p->arg = cmd->draw;
	return 0;
}

/*
 * move / quiet: every word must be a move in some accepted form, with or
 * without a game.  Early feedback: resolve each try on the player's own
 * pieces before sending.
 */
/* A bare square, "e2" (what speech input writes between spaces). */
static bool bare_square(const char *w)
{
	return strlen(w) == 2 && w[0] >= 'a' && w[0] <= 'h' && w[1] >= '1' && w[1] <= '8';
}

/*
 * Moves as speech input and quick typing write them, read as meant:
 *   "e2 e4": two squares, the first holding one's own man, are one move
 *   (e2e4); "e3 e4" with nothing of one's own on e3 stays a preference list;
 *   "nf3", "qh5", "kd2", "rd1": a lower-case piece letter that is no file
 *   is the piece (Nf3); "bc4" is a bishop's move only when no pawn of
 *   one's own could make it as a b-pawn's ("bxc3" stays a pawn capture).
 */
static void spoken_moves(const struct cgame *g, struct cmd *cmd)
{
	for (int i = 0; i < cmd->argc; i++) {
		char *w = cmd->argv[i], piece[CMD_ARG_MAX];
		struct notation_parts parts;
		if (w[0] != 'n' && w[0] != 'q' && w[0] != 'k' && w[0] != 'r')
			continue;
		snprintf(piece, sizeof piece, "%c%s", toupper((unsigned char)w[0]), w + 1);
		if (notation_lex(w, &parts, NULL, 0) != NOTATION_OK && notation_lex(piece, &parts, NULL, 0) == NOTATION_OK)
			w[0] = piece[0];   /* else left as typed: an error quotes what was typed */
	}
	if (!g || cmd->type != CMD_MOVE)
		return;
	for (int i = 0; i + 1 < cmd->argc; i++) {
		if (!bare_square(cmd->argv[i]) || !bare_square(cmd->argv[i + 1]))
			continue;
		uint8_t code = g->view.own.mailbox[square_parse(cmd->argv[i])];
		if (code == MAILBOX_EMPTY || piece_code_color(code) != g->color)
			continue;
		/* two squares of two letters each (bare_square): "e2" "e4" -> "e2e4" */
		cmd->argv[i][2] = cmd->argv[i + 1][0];
		cmd->argv[i][3] = cmd->argv[i + 1][1];
		cmd->argv[i][4] = '\0';
		memmove(cmd->argv[i + 1], cmd->argv[i + 2], (size_t)(cmd->argc - i - 2) * sizeof cmd->argv[0]);
		cmd->argc--;
	}
	for (int i = 0; i < cmd->argc; i++) {
		char *w = cmd->argv[i], piece[CMD_ARG_MAX];
		move_t m;
		if (w[0] != 'b' || strlen(w) < 3 ||
		    notation_parse(&g->view.own, g->color, w, &m, NULL, 0) == NOTATION_OK)
			continue;
		snprintf(piece, sizeof piece, "B%s", w + 1);
		if (notation_parse(&g->view.own, g->color, piece, &m, NULL, 0) == NOTATION_OK)
			memcpy(w, piece, strlen(piece) + 1);
	}
}

/*
 * The moves an ambiguous try could be, read on one's own board, into buf:
 * "Nbd2 or Nfd2" (SAN as one's own board writes it, each naming its man:
 * notation_candidates); "" when there are none to name.
 */
static void ambiguous_candidates(const struct board *own, int color, const char *text, char *buf, size_t len)
{
	struct notation_parts parts;
	struct movelist ml;
	buf[0] = '\0';
	if (notation_lex(text, &parts, NULL, 0) != NOTATION_OK)
		return;
	int n = notation_candidates(own, color, &parts, &ml);
	size_t used = 0;
	for (int i = 0; i < n && used < len; i++) {
		char san[NOTATION_MAX];
		notation_san(own, ml.m[i], true, san);
		int w = snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", san);
		used += w > 0 ? (size_t)w : 0;
	}
}

static int exec_move(struct client *cl, struct cmd *cmd, struct pending *p)
{
	struct cgame *g = client_current(cl);
	/* "exd6 e.p.": the suffix a word of its own, as krieg-referee reads
	 * it; the umpire knows an en passant capture without it. */
	for (int i = 1; i < cmd->argc; i++)
		if (notation_is_ep_word(cmd->argv[i])) {
			memmove(cmd->argv[i], cmd->argv[i + 1], (size_t)(cmd->argc - i - 1) * sizeof cmd->argv[0]);
			cmd->argc--;
			i--;
		}
	spoken_moves(g, cmd);
	p->arg = cmd->argc;   /* a preference list: its refusals say no "Try again" (client.c) */
	for (int i = 0; i < cmd->argc; i++) {
		struct notation_parts parts;
		if (notation_lex(cmd->argv[i], &parts, NULL, 0) != NOTATION_OK)
			return client_error(cl, "\"%s\" is not a command or a move (type \"help\")", cmd->argv[i]);
	}
	/* A finished game says so, before the move is read on its board (it
	 * said "no own pawn can move to e4": first-game probe), and after the
	 * words are found to be moves at all ("clear" read "game 4 is over":
	 * the newcomer probe). */
	if (g && g->view.over)
		return client_error(cl, "game %ld is over (\"games\" lists yours)", g->id);
	if (!g)
		return 0;
	if (cmd->type == CMD_QUIET) {
		g->quiet_stopped = false;   /* until this sequence's own quiet_ended (done_quiet) */
		return 0;   /* later moves of a sequence depend on earlier ones; the server judges */
	}
	for (int i = 0; i < cmd->argc; i++) {
		move_t m;
		char err[128] = "";
		enum notation_status st = notation_parse(&g->view.own, g->color, cmd->argv[i], &m, err,
		                                         sizeof err);
		if (st == NOTATION_OK)
			continue;
		if (st == NOTATION_SYNTAX)
			return client_error(cl, "\"%s\" is not a command or a move (type \"help\")", cmd->argv[i]);
		if (st == NOTATION_AMBIGUOUS) {   /* the candidates named, not only "say which" (probe) */
			char which[160];
			ambiguous_candidates(&g->view.own, g->color, cmd->argv[i], which, sizeof which);
			if (which[0])
				return client_error(cl, "%s: ambiguous, say which: %s", cmd->argv[i], which);
		}
		return client_error(cl, "%s: %s", cmd->argv[i], err[0] ? err :
		                    st == NOTATION_AMBIGUOUS ? "ambiguous" : "none of your pieces can make that move");
	}
	return 0;
}

static int exec_record(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (!cmd->view[0]) {
		/* our own side of a game we follow; else the whole (finished) record */
		struct cgame *of = client_game(cl, cmd->number);
		snprintf(cmd->view, sizeof cmd->view, "%s",
		         of ? (of->color == WHITE ? "white" : "black") : "umpire");
	}
	p->game = cmd->number;
	return 0;
}

static int exec_pgn(struct client *cl, struct cmd *cmd, struct pending *p)
{
	if (cl->pgn_busy)
		return client_error(cl, "pgn: the last PGN asked for is still arriving");
	p->game = cmd->number;
	cl->pgn_busy = true;
	cl->pgn_len = 0;
	snprintf(cl->pgn_file, sizeof cl->pgn_file, "%s", cmd->file);
	return 0;
}

/* --- done and refused hooks: the answers ------------------------------------------ */

static const char *str(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	return v ? v : "?";
}

/* krieg watch GAME / krieg umpire GAME: what was asked for once logged in. */
static void login_then(struct client *c)
{
	char line[CMD_LINE_MAX];
	if (!c->on_login[0])
		return;
	snprintf(line, sizeof line, "%s", c->on_login);
	c->on_login[0] = '\0';
	client_command(c, line);
}

/*
 * The login's game_state lines follow its answer: a ping's answer after
 * them says they are all in, and only then does what comes after the
 * login run (its on_login command; in --batch, the next line, which waits
 * while this is pending).  The CLI probe: `record 3` straight after a
 * login in --batch asked for the umpire's view of one's own live game,
 * its game_state not read yet, and was refused.
 */
static void done_settled(struct client *c, const json_t *res, const struct pending *p)
{
	(void)res;
	(void)p;
	login_then(c);
}

/* Refused (rate_limited after a burst): answered all the same, so the
 * states before it are in; on_login would otherwise wait for a later
 * login, maybe another account's (a review). */
static void refused_settled(struct client *c, const struct pending *p)
{
	(void)p;
	login_then(c);
}

static const struct cmd_entry settle_entry = { .name = "ping", .type = CMD_PING, .request = req_plain,
	                                       .done = done_settled, .refused = refused_settled };

static void login_settle(struct client *c)
{
	if (c->npending >= CLIENT_PENDING_MAX) {   /* untracked, it would never run what follows */
		login_then(c);
		return;
	}
	json_t *req = json_pack("{s:I, s:s}", "id", (json_int_t)c->next_id++, "type", "ping");
	/* own: a connection lost before its answer lost nothing the user
	 * asked ("1 request got no answer" said of it: a review) */
	client_send_request(c, req, &(struct pending){ .cmd = &settle_entry, .game = -1, .own = true });
	json_decref(req);
}

/* A login of any kind succeeded (login, register, guest, resume, the
 * passwd a reset login waited on). */
static void done_login(struct client *c, const json_t *msg, const struct pending *p)
{
	const char *u = json_string_value(json_object_get(msg, "user"));
	const char *tok = json_string_value(json_object_get(msg, "token"));
	if (!u)
		u = "?";
	/* The right password, but one an admin set: not logged in until passwd. */
	if (json_is_true(json_object_get(msg, "must_change_password")) && !tok) {
		c->logged_in = false;
		c->login_here = false;
		client_out(c, "%s", CLIENT_PASSWD_HINT);
		return;
	}
	if (strcmp(u, c->user) != 0)
		client_forget_games(c);
	snprintf(c->user, sizeof c->user, "%s", u);
	c->logged_in = true;
	c->login_here = true;
	c->nwaiting = 0;   /* the challenges waiting follow this answer (the login summary's) */
	if (p->cmd->type != CMD_RESUME)
		c->guest = p->cmd->type == CMD_GUEST;
	if (tok && strlen(tok) <= CLIENT_TOKEN_MAX)
		snprintf(c->token, sizeof c->token, "%s", tok);
	/* a seat belongs to a connection: a new one (same user) takes them again, with a new catch-up */
	for (int i = 0; i < CLIENT_SEATS_MAX; i++) {
		struct seat *s = &c->seats[i];
		if (s->used && !s->over)
			client_send_page(c, s->umpire ? "umpire" : "watch", find_entry(s->umpire ? "umpire" : "watch"),
			                 s->id, NULL, 0, true);
	}
	/* so do a guest's follows (asked again quietly: arg 1; a registered account's are kept by
	 * the server) and the lobby watched (its seeks shown anew) */
	for (int i = 0; c->guest && i < c->nfollows; i++) {
		json_t *req = json_pack("{s:I, s:s, s:s}", "id", (json_int_t)c->next_id++, "type", "follow",
		                        "user", c->follows[i]);
		client_send_request(c, req, &(struct pending){ .cmd = find_entry("follow"), .game = -1, .arg = 1,
		                                               .own = true });
		json_decref(req);
	}
	if (c->lobby_watched)
		client_send_page(c, "lobby_watch", find_entry("lobby"), -1, NULL, 0, true);
	if (p->cmd->type != CMD_RESUME) {
		client_out(c, "Logged in as %s. Type \"help\" for commands.", c->user);
		login_settle(c);
		return;
	}
	client_out(c, "Session resumed as %s.", c->user);
	/* a game that ended while we were away gets no game_state: fetch how it ended */
	json_t *live = json_object_get(msg, "games");
	for (int i = 0; i < c->ngames; i++) {
		struct cgame *g = &c->games[i];
		if (!g->used || !g->live)
			continue;
		bool still = false;
		size_t k;
		json_t *x;
		json_array_foreach(live, k, x)
			if (json_integer_value(x) == g->id)
				still = true;
		if (!still)
			client_send_page(c, "game", find_entry("game"), g->id, NULL, 0, true);
	}
	login_settle(c);
}

/* register refused by the server's registration policy: say what to do. */
static void refused_register(struct client *c, const struct pending *p)
{
	const char *code = c->refused_code;
	if (strcmp(code, "registration_closed") == 0)
		client_out(c, "This server does not take registrations: an admin creates accounts. "
		              "Ask one for an account, or play as a guest (\"guest\").");
	else if (strcmp(code, "invite_required") == 0)
		client_out(c, "This server registers by invitation: ask an admin for an invite code, then %s",
		           c->interactive && !c->batch ? "\"register NAME --invite CODE\" (the password is asked for)."
		                                       : "\"register NAME --invite CODE PASSWORD\".");
	else if (strcmp(code, "bad_invite") == 0)
		client_out(c, "That invite code is unknown, already used or expired: ask an admin "
		              "for a new one.");
}

/* tell to someone offline: what to type instead (the help probe). */
static void refused_tell(struct client *c, const struct pending *p)
{
	if (strcmp(c->refused_code, "illegal_action") == 0)
		client_out(c, "(\"message USER TEXT\" leaves a message for a user who is offline.)");
}

static void refused_resume(struct client *c, const struct pending *p)
{
	/* A refused resume leaves the server's login as it was (the help
	 * probe: a mistyped token had the client say logged out while the
	 * server kept the user logged in). */
	if (c->logged_in && c->login_here) {
		client_out(c, "The session was not resumed: you are still logged in as %s.", c->user);
		return;
	}
	c->logged_in = false;
	memset(c->token, 0, sizeof c->token);
	client_out(c, "The session could not be resumed: log in again.");
}

/* passwd: the answer of a reset login's passwd is that login's. */
static void done_passwd(struct client *c, const json_t *res, const struct pending *p)
{
	if (json_object_get(res, "token")) {
		client_out(c, "Password changed.");
		done_login(c, res, p);
		return;
	}
	client_out(c, "Password changed; %lld other session(s) ended.",
	           (long long)json_integer_value(json_object_get(res, "ended")));
}

static void done_logout(struct client *c, const json_t *res, const struct pending *p)
{
	c->logged_in = false;
	c->login_here = false;
	c->user[0] = '\0';
	memset(c->token, 0, sizeof c->token);
	client_forget_games(c);
	client_out(c, "Logged out.");
}

/* seek, challenge: the offer open; or a seek that met one open, and the game begun (its game_start came first) */
static void done_open(struct client *c, const json_t *res, const struct pending *p)
{
	long long offer = (long long)json_integer_value(json_object_get(res, "offer"));
	if (json_object_get(res, "game"))
		client_out(c, "Your seek met offer %lld: game %lld is yours.", offer,
		           (long long)json_integer_value(json_object_get(res, "game")));
	else
		client_out(c, "Offer %lld is open.", offer);
}

/* A rematch asked: a challenge made, or (they asked first) the game begun,
 * which its game_start says. */
/* quiet: its first item played (the turn passed), the rest are the
 * server's to play on our next turns (client.c: no "your move" for them). */
static void done_quiet(struct client *c, const json_t *res, const struct pending *p)
{
	struct cgame *g = client_game(c, p->game);
	if (g && g->live && !g->view.over && g->view.to_move != g->color && p->arg > 1 && !g->quiet_stopped)
		g->quiet_left = (int)p->arg - 1;
}

static void done_rematch(struct client *c, const json_t *res, const struct pending *p)
{
	if (json_object_get(res, "game"))
		return;
	const struct cgame *g = client_game(c, p->game);
	client_out(c, "Rematch offered to %s (offer %lld): they may accept it, or ask for a rematch too.",
	           g ? g->name[!g->color] : "your opponent",
	           (long long)json_integer_value(json_object_get(res, "offer")));
}

/* follow: with a name, who and their games now; without, the list */
static void done_follow(struct client *c, const json_t *res, const struct pending *p)
{
	json_t *list = json_object_get(res, "following"), *x;
	size_t i;
	if (list) {
		if (json_array_size(list) == 0)
			client_out(c, "You follow nobody.");
		json_array_foreach(list, i, x)
			client_out(c, "  following %s", json_string_value(x) ? json_string_value(x) : "?");
		return;
	}
	const char *who = str(res, "user");
	int i0 = 0;
	while (i0 < c->nfollows && strcasecmp(c->follows[i0], who) != 0)
		i0++;
	if (i0 == c->nfollows && c->nfollows < CLIENT_FOLLOWS_MAX)
		snprintf(c->follows[c->nfollows++], sizeof c->follows[0], "%s", who);
	if (p->arg != 1)   /* 1: asked again after a reconnection, quietly */
		client_out(c, "Following %s (%s): each game they start is shown here, and when they come and go.",
		           who, json_is_true(json_object_get(res, "online")) ? "online now" : "not online");
	/* the games they play now, but those on this screen already (one's own, one watched) */
	json_array_foreach(json_object_get(res, "games"), i, x) {
		long g = (long)json_integer_value(x);
		if (!client_game(c, g) && !client_seat(c, g))
			client_out(c, "  %s plays game %ld now (\"watch %ld\").", who, g, g);
	}
}

static void done_pair(struct client *c, const json_t *res, const struct pending *p)
{
	long long g = (long long)json_integer_value(json_object_get(res, "game"));
	/* the tournament and round the server took, said back (the TD probe:
	 * a round typed after the name had become part of it, unseen):
	 * "Paired: game 15, Club Open, round 3 (...)" */
	char tour[PROTO_TOURNAMENT_MAX + 1], round[PROTO_ROUND_MAX + 1], tags[PROTO_TOURNAMENT_MAX + 40] = "";
	words_clean(json_string_value(json_object_get(res, "tournament")), tour, sizeof tour);
	words_clean(json_string_value(json_object_get(res, "round")), round, sizeof round);
	snprintf(tags, sizeof tags, "%s%s%s%s", tour[0] ? ", " : "", tour, round[0] ? ", round " : "", round);
	/* TD probe: a director who pairs himself was told to watch or umpire
	 * his own game, which a player may not (and its start took his chairs) */
	if (p->arg == 1)
		client_out(c, "Paired: game %lld%s; you play it (an umpire who plays a live game holds no chair "
		              "until it ends).", g, tags);
	else
		client_out(c, "Paired: game %lld%s (\"watch %lld\" or \"umpire %lld\" to follow it).", g, tags, g, g);
}

/* What was done, named (the screen-reader probe: "Done." to a cancel or a
 * decline said neither which offer nor what became of it). */
static void done_ok(struct client *c, const json_t *res, const struct pending *p)
{
	json_t *offer = json_object_get(res, "offer");
	if (json_is_integer(offer) && p->cmd && (p->cmd->type == CMD_CANCEL || p->cmd->type == CMD_DECLINE))
		client_out(c, "Offer %lld %s.", (long long)json_integer_value(offer),
		           p->cmd->type == CMD_CANCEL ? "withdrawn" : "declined");
	else if (p->game >= 0)
		client_out(c, "#%ld: done.", p->game);
	else
		client_out(c, "Done.");
}

/* What an unfollow changed: "Done." to the unfollow of a player never
 * followed read as if it had (help probe); the server says how many
 * left the list. */
static void done_unfollow(struct client *c, const json_t *res, const struct pending *p)
{
	json_int_t n = json_integer_value(json_object_get(res, "dropped"));
	if (p->arg == 1)
		client_out(c, n ? "Unfollowed." : "You were not following them: nothing changed.");
	else if (n)
		client_out(c, "You follow nobody now (%lld unfollowed).", (long long)n);
	else
		client_out(c, "You followed nobody: nothing changed.");
}

static void done_ping(struct client *c, const json_t *res, const struct pending *p)
{
	client_out(c, "The server answered.");
}

static void done_draw(struct client *c, const json_t *res, const struct pending *p)
{
	struct cgame *g = client_game(c, p->game);
	/* the game named, as every line of a game is (the CLI probe) */
	if (p->arg == DRAW_DECLINE)
		client_out(c, "#%ld: Draw declined.", p->game);
	else if (p->arg == DRAW_ACCEPT || (g && g->view.over))
		return;   /* accepted (an offer while theirs stood accepts it): the game's end, said before
		           * this answer, says so; "Draw accepted." came after it (screen-reader probe) */
	else
		client_out(c, "#%ld: Draw offered.", p->game);
}

/* A paged list (PROTOCOL.md: who, seeks, games, live): while the answer
 * says there is more, the next page is asked for, answered by the same
 * done hook (p->arg: the `from` of the page in hand).  Returns whether
 * this page is the first. */
static bool next_page(struct client *c, const json_t *res, const struct pending *p, const char *type)
{
	json_t *next = json_object_get(res, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg)
		client_send_page(c, type, p->cmd, -1, NULL, (long)json_integer_value(next), p->own);
	return p->arg == 0;
}

static void done_who(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *users = json_object_get(res, "users");
	if (next_page(c, res, p, "who"))   /* a long list came in pages: each printed as it comes */
		client_out(c, "%lld online:", (long long)json_integer_value(json_object_get(res, "total")));
	json_array_foreach(users, i, x) {
		const char *role = json_string_value(json_object_get(x, "role"));
		bool staff = role && (!strcmp(role, "umpire") || !strcmp(role, "admin"));   /* whom to ask */
		client_out(c, "  %-24s %lld game(s)%s%s%s", str(x, "name"),
		           (long long)json_integer_value(json_object_get(x, "games")),
		           json_is_true(json_object_get(x, "bot")) ? ", a bot" : "", staff ? ", an " : "",
		           staff ? role : "");
	}
}

/* standings: the club table, a page at a time (the next asked for in the
 * same pool while there is more). */
static void done_standings(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *rows = json_object_get(res, "standings");
	long long total = (long long)json_integer_value(json_object_get(res, "total"));
	if (p->arg == 0)
		client_out(c, total ? "Standings, the %s pool (%lld rated):" : "Nobody is rated in the %s pool yet.",
		           str(res, "pool"), total);
	json_array_foreach(rows, i, x) {
		char r[24];
		words_rating(x, r, sizeof r);
		long long n = (long long)json_integer_value(json_object_get(x, "games"));
		client_out(c, "  %3lld. %-24s %-6s rd %-4lld %lld game%s%s", (long long)json_integer_value(json_object_get(x, "rank")),
		           str(x, "name"), r, (long long)json_integer_value(json_object_get(x, "rd")), n, n == 1 ? "" : "s",
		           json_is_true(json_object_get(x, "bot")) ? " (bot)" : "");
	}
	json_t *next = json_object_get(res, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		json_t *req = json_pack("{s:I, s:s, s:s, s:I}", "id", (json_int_t)c->next_id++, "type", "standings",
		                        "rules", str(res, "pool"), "from", json_integer_value(next));
		client_send_request(c, req, &(struct pending){ .cmd = p->cmd, .game = -1,
		                                               .arg = (long)json_integer_value(next) });
		json_decref(req);
	}
}

/* announce: the games told */
static void done_announce(struct client *c, const json_t *res, const struct pending *p)
{
	char list[256] = "";
	size_t i, used = 0;
	json_t *x;
	json_t *games = json_object_get(res, "games");
	json_array_foreach(games, i, x)
		if (used < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s#%lld", i ? ", " : "",
			                         (long long)json_integer_value(x));
	client_out(c, "Told %zu live game%s: %s.", json_array_size(games), json_array_size(games) == 1 ? "" : "s",
	           list);
}

/* tournament: its score table, a page at a time, as standings */
static void done_tournament(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x;
	char name[PROTO_TOURNAMENT_MAX + 1];
	words_clean(json_string_value(json_object_get(res, "tournament")), name, sizeof name);
	if (p->arg == 0)
		client_out(c, json_integer_value(json_object_get(res, "total")) ? "%s:" : "Nobody was paired in %s.",
		           name);
	json_array_foreach(json_object_get(res, "players"), i, x) {
		long long playing = (long long)json_integer_value(json_object_get(x, "playing"));
		long long aborted = (long long)json_integer_value(json_object_get(x, "aborted"));
		char live[64] = "";
		int k = playing ? snprintf(live, sizeof live, ", %lld playing", playing) : 0;
		if (aborted)   /* said: they counted nowhere, and read as a bye (TD probe) */
			snprintf(live + k, sizeof live - (size_t)k, ", %lld aborted", aborted);
		/* the tie-breaks beside the points (the TD probe: names broke ties) */
		client_out(c, "  %3lld. %-24s %4.1f  Bh %4.1f  SB %5.2f  (+%lld =%lld -%lld%s)%s",
		           (long long)json_integer_value(json_object_get(x, "rank")), str(x, "name"),
		           json_number_value(json_object_get(x, "points")),
		           json_number_value(json_object_get(x, "buchholz")),
		           json_number_value(json_object_get(x, "sonneborn_berger")),
		           (long long)json_integer_value(json_object_get(x, "won")),
		           (long long)json_integer_value(json_object_get(x, "drawn")),
		           (long long)json_integer_value(json_object_get(x, "lost")), live,
		           json_is_true(json_object_get(x, "bot")) ? " (bot)" : "");
	}
	json_t *next = json_object_get(res, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		json_t *req = json_pack("{s:I, s:s, s:s, s:I}", "id", (json_int_t)c->next_id++, "type", "tournament",
		                        "name", json_string_value(json_object_get(res, "tournament")), "from",
		                        json_integer_value(next));
		if (req)
			client_send_request(c, req, &(struct pending){ .cmd = p->cmd, .game = -1,
			                                               .arg = (long)json_integer_value(next) });
		json_decref(req);
	}
}

/* profile: "alice: a player since 2026-12-03, online, in 1 live game." and the record. */
static void done_profile(struct client *c, const json_t *res, const struct pending *p)
{
	const char *role = str(res, "role");
	char since[32];
	words_utc(res, "registered", " since %Y-%m-%d", since, sizeof since);
	long long live = (long long)json_integer_value(json_object_get(res, "games"));
	char playing[48] = "";
	if (live > 0)
		snprintf(playing, sizeof playing, ", in %lld live game%s", live, live == 1 ? "" : "s");
	client_out(c, "%s%s: %s%s%s, %s%s.", str(res, "name"),
	           json_is_true(json_object_get(res, "guest")) ? " (a guest)"
	           : json_is_true(json_object_get(res, "bot")) ? " (a bot)" : "",
	           !strcmp(role, "admin") || !strcmp(role, "umpire") ? "an " : "a ", role, since,
	           json_is_true(json_object_get(res, "online")) ? "online" : "offline", playing);
	json_t *rec = json_object_get(res, "record");
	client_out(c, "  Finished games: %lld won, %lld lost, %lld drawn, %lld aborted.",
	           (long long)json_integer_value(json_object_get(rec, "won")),
	           (long long)json_integer_value(json_object_get(rec, "lost")),
	           (long long)json_integer_value(json_object_get(rec, "drawn")),
	           (long long)json_integer_value(json_object_get(rec, "aborted")));
	char line[WORDS_CHAT_MAX] = "";
	const char *pool;
	json_t *r;
	json_object_foreach(json_object_get(res, "ratings"), pool, r) {
		char w[24], pl[24];
		words_rating(r, w, sizeof w);
		words_clean(pool, pl, sizeof pl);
		size_t n = strlen(line);
		snprintf(line + n, sizeof line - n, "%s%s %s (rd %lld)", n ? ", " : "", pl, w,
		         (long long)json_integer_value(json_object_get(r, "rd")));
	}
	client_out(c, line[0] ? "  Ratings: %s." : "  Not rated yet.", line);
}

/* live {from}: one page of the live games; the next asked for while there is more. */
static void done_live(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *games = json_object_get(res, "games");
	if (p->arg == 0 && json_array_size(games) == 0)
		client_out(c, "No live games.");
	json_array_foreach(games, i, x) {
		char tc[48], clk[64] = "", wc[RENDER_CLOCK_MAX], bc[RENDER_CLOCK_MAX];
		words_time(json_object_get(x, "time"), tc, sizeof tc);
		json_t *k = json_object_get(x, "clock");
		if (json_is_number(json_object_get(k, "white")) && json_is_number(json_object_get(k, "black"))) {
			render_clock(scrub_ms(json_object_get(k, "white"), 1), wc);
			render_clock(scrub_ms(json_object_get(k, "black"), 1), bc);
			snprintf(clk, sizeof clk, ", clocks %s | %s", wc, bc);
		}
		json_int_t ply = json_integer_value(json_object_get(x, "ply"));
		char watching[40], paired[PROTO_TOURNAMENT_MAX + PROTO_ROUND_MAX + 16];
		words_watching(json_object_get(x, "spectators"), ", ", watching, sizeof watching);
		/* TD probe: a director's round was listed without its tournament and round */
		words_pairing(x, ", ", paired, sizeof paired);
		const char *stands = json_is_true(json_object_get(x, "paused"))      ? " (paused by the umpire)"
		                     : json_is_true(json_object_get(x, "adjourned")) ? " (adjourned)"
		                                                                      : "";
		client_out(c, "  game %lld: %s (White%s) vs %s (Black%s), %s, %s, %s%s, move %lld, %s to move%s%s%s",
		           (long long)json_integer_value(json_object_get(x, "game")), str(x, "white"),
		           words_bot_mark(x, WHITE), str(x, "black"), words_bot_mark(x, BLACK), str(x, "rules"), tc,
		           json_is_true(json_object_get(x, "rated")) ? "rated" : "unrated", paired,
		           (long long)(ply / 2 + 1), str(x, "to_move"), stands, clk, watching);
	}
	next_page(c, res, p, "live");
}

/* watch / umpire {game, from}: a page of the catch-up; the seat is shown once all of it is in. */
static void done_seat(struct client *c, const json_t *msg, const struct pending *p)
{
	bool umpire = p->cmd->type == CMD_UMPIRE;
	struct seat *s = p->arg == 0 ? client_seat_slot(c, p->game) : client_seat(c, p->game);
	if (!s)
		return;   /* a later page of a seat dropped meanwhile, or no room (exec_seat checked) */
	if (p->arg == 0)
		seat_begin(s, msg, umpire, client_now(c));
	else
		seat_page(s, msg, client_now(c));
	json_t *next = json_object_get(msg, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		client_send_page(c, p->cmd->name, p->cmd, s->id, NULL, (long)json_integer_value(next), p->own);
		return;
	}
	s->loading = false;
	c->seat_current = s->id;
	c->seat_focus = true;
	long long total = (long long)json_integer_value(json_object_get(msg, "total"));
	client_out(c, "%s game %ld: %lld announcement%s so far%s.", umpire ? "In the umpire's chair of" : "Watching",
	           s->id, total, total == 1 ? "" : "s",
	           total > SEAT_LOG_MAX ? ", the latest below" : "");
	client_show_seat(c, s);
	client_seat_away(c, s, json_object_get(msg, "away"));
	client_seat_loaded(c, s);
}

/* A page after the first refused: the seat is gone (the game ended meanwhile, most likely). */
static void refused_seat(struct client *c, const struct pending *p)
{
	struct seat *s = p->arg > 0 ? client_seat(c, p->game) : NULL;
	if (s == NULL)
		return;
	/* What came live meanwhile is said first: a game_over among it is why
	 * (it was dropped with the seat, the result never said: a review). */
	client_seat_loaded(c, s);
	bool ended = s->over;
	client_seat_drop(c, p->game);
	if (!ended)
		client_out(c, "#%ld: the seat was lost while the game's record was arriving.", p->game);
}

static void done_unwatch(struct client *c, const json_t *res, const struct pending *p)
{
	const struct seat *s = client_seat(c, p->game);
	bool chair = s && s->umpire;
	client_seat_drop(c, p->game);
	if (chair)   /* the help probe: "Stopped watching" of the umpire's chair */
		client_out(c, "Left the umpire's chair of game %ld.", p->game);
	else
		client_out(c, "Stopped watching game %ld.", p->game);
}

/* The umpire's actions: the events say what changed; the answer says it was done. */
static void done_umpire(struct client *c, const json_t *res, const struct pending *p)
{
	const char *what = p->arg == CMD_PAUSE ? "clocks paused"
	                 : p->arg == CMD_UNPAUSE ? "clocks restarted"
	                 : p->arg == CMD_ADDTIME ? "time added"
	                 : p->arg == CMD_ADJUDICATE ? "result given"
	                 : p->arg == CMD_UMPIRE_ABORT ? "game aborted"
	                 : p->arg == CMD_NOTE ? "note recorded" : NULL;
	if (what)   /* a player's own abort: its game_over says it */
		client_out(c, "#%ld: done (%s).", p->game, what);
}

/* "Told bob." (an older server names nobody: "Told.") */
static void done_tell(struct client *c, const json_t *res, const struct pending *p)
{
	char who[PROTO_NAME_MAX + 1];
	words_clean(json_string_value(json_object_get(res, "user")), who, sizeof who);
	if (who[0])
		client_out(c, "Told %s.", who);
	else
		client_out(c, "Told.");
}

static void done_message(struct client *c, const json_t *res, const struct pending *p)
{
	client_out(c, "Message left: read at once if they are online, else at their next login.");
}

/* messages: the list, a page at a time; message_delete: how many went */
static void done_messages(struct client *c, const json_t *res, const struct pending *p)
{
	json_t *list = json_object_get(res, "messages"), *x;
	if (!list) {
		json_int_t n = json_integer_value(json_object_get(res, "deleted"));
		client_out(c, "Deleted %lld message%s.", (long long)n, n == 1 ? "" : "s");
		return;
	}
	long long total = (long long)json_integer_value(json_object_get(res, "total"));
	if (next_page(c, res, p, "messages"))
		client_out(c, total ? "%lld message%s for you (delete with \"messages delete N\" or \"messages delete all\"):"
		                    : "No messages for you.", total, total == 1 ? "" : "s");
	size_t i;
	json_array_foreach(list, i, x) {
		char line[WORDS_CHAT_MAX];
		words_message(x, line, sizeof line);
		client_out(c, "  %s", line);
	}
}

static void done_mute(struct client *c, const json_t *res, const struct pending *p)
{
	json_t *list = json_object_get(res, "muted"), *x;
	size_t i;
	if (list && json_array_size(list) == 0)
		client_out(c, "You have muted nobody.");
	json_array_foreach(list, i, x)
		client_out(c, "  muted: %s", json_string_value(x) ? json_string_value(x) : "?");
	if (!list)
		client_out(c, p->cmd->type == CMD_MUTE ? "Muted: you no longer hear that user's words or challenges."
		                                       : "Unmuted: you hear that user again.");
}

/* An admin's invite: the code is shown once (the server keeps only its digest). */
static void done_invite(struct client *c, const json_t *res, const struct pending *p)
{
	char code[128], until[64];
	words_clean(json_string_value(json_object_get(res, "invite")), code, sizeof code);
	words_utc(res, "expires", ", valid until %Y-%m-%d %H:%M UTC", until, sizeof until);
	client_out(c, "Invite code (single use%s): %s", until, code);
	client_out(c, "Give it to one person: \"register NAME --invite CODE\". It is not shown again.");
}

static void done_kick(struct client *c, const json_t *res, const struct pending *p)
{
	json_int_t n = json_integer_value(json_object_get(res, "closed"));
	client_out(c, "Closed %lld connection%s of %s (their games go on; to keep them out, disable the account).",
	           (long long)n, n == 1 ? "" : "s", str(res, "user"));
}

static void done_broadcast(struct client *c, const json_t *res, const struct pending *p)
{
	json_int_t n = json_integer_value(json_object_get(res, "sent"));
	client_out(c, "Sent to %lld connection%s.", (long long)n, n == 1 ? "" : "s");
}

static void done_seeks(struct client *c, const json_t *res, const struct pending *p);

/* lobby_watch: the open seeks now; lobby_unwatch: nothing more */
static void done_lobby(struct client *c, const json_t *res, const struct pending *p)
{
	c->lobby_watched = json_object_get(res, "offers") != NULL;
	if (!c->lobby_watched) {
		client_out(c, "No longer watching the lobby.");
		return;
	}
	done_seeks(c, res, p);
	if (p->arg == 0)
		client_out(c, "Watching the lobby: seeks are shown as they open and go (\"play OFFER\" takes one, "
		              "\"lobby off\" stops).");
}

static void done_seeks(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *offers = json_object_get(res, "offers");
	bool first = next_page(c, res, p, p->cmd->type == CMD_LOBBY ? "lobby_watch" : "seeks");
	if (first && json_array_size(offers) == 0)
		client_out(c, "No open seeks or challenges (\"seek icc 5+2\" opens one; \"who\" shows whom to "
		           "challenge).");
	json_array_foreach(offers, i, x) {
		char terms[WORDS_CHAT_MAX], to[PROTO_NAME_MAX + 1];
		words_offer(x, c->user, terms, sizeof terms);
		words_clean(json_string_value(json_object_get(x, "to")), to, sizeof to);
		client_out(c, "  offer %lld: %s%s%s", (long long)json_integer_value(json_object_get(x, "offer")), terms,
		           to[0] ? ", a challenge to " : "", to);
	}
}

static void done_games(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *games = json_object_get(res, "games");
	if (next_page(c, res, p, "games") && json_array_size(games) == 0)
		client_out(c, "No games yet (\"seeks\" lists the open offers, \"seek\" opens one).");
	json_array_foreach(games, i, x) {
		const char *result = json_string_value(json_object_get(x, "result"));
		const char *tm = json_string_value(json_object_get(x, "to_move"));
		/* Said by the list (a newer server), else what this client was told of the game. */
		const struct cgame *g = client_game(c, (long)json_integer_value(json_object_get(x, "game")));
		bool known = !result && g && g->live;
		bool adjourned = !result && (json_is_true(json_object_get(x, "adjourned")) ||
		                             (known && g->adjourned));
		bool paused = !result && !adjourned && (json_is_true(json_object_get(x, "paused")) ||
		                                        (known && g->paused));
		/* TD probe: rated and a director's tournament and round went unsaid */
		char paired[PROTO_TOURNAMENT_MAX + PROTO_ROUND_MAX + 16];
		words_pairing(x, ", ", paired, sizeof paired);
		/* The time control, and a correspondence game's running deadline by
		 * this computer's clock, as `time` gives it (games probe: neither said) */
		const json_t *tcj = json_object_get(x, "time");
		const json_t *left = tm ? json_object_get(json_object_get(x, "clock"), tm) : NULL;
		char tc[72], due[96] = "";
		words_time(tcj, tc, sizeof tc);
		if (!result && !adjourned && !paused && json_object_get(tcj, "days") && json_is_integer(left)) {
			char at[72];
			words_runs_out(strcmp(tm, "white") ? BLACK : WHITE, client_wall(c) + json_integer_value(left), at,
			               sizeof at);
			if (at[0])
				snprintf(due, sizeof due, ", %s", at);
		}
		/* how it ended, as `history` says it (the CLI probe: an aborted
		 * game read "finished *", PGN's mark of an unfinished one) */
		char ending[64];
		words_ending(result, json_string_value(json_object_get(x, "reason")), ending, sizeof ending);
		client_out(c, "  game %lld: %s vs %s, %s%s%s, you are %s, %s%s%s; %s%s",
		           (long long)json_integer_value(json_object_get(x, "game")), str(x, "white"),
		           str(x, "black"), str(x, "rules"), json_is_true(json_object_get(x, "rated")) ? ", rated" : "",
		           paired, str(x, "color"),
		           result ? "finished " : tm ? tm : "", result ? ending : tm ? " to move" : "",
		           adjourned ? " (adjourned)" : paused ? " (paused by the umpire)" : "", tc, due);
	}
}

static void done_history(struct client *c, const json_t *res, const struct pending *p)
{
	size_t i;
	json_t *x, *games = json_object_get(res, "games");
	if (json_array_size(games) == 0)
		client_out(c, "No games.");
	json_array_foreach(games, i, x) {
		const char *result = json_string_value(json_object_get(x, "result"));
		const char *reason = json_string_value(json_object_get(x, "reason"));
		char when[32], ending[64];
		words_utc(x, "created", "%Y-%m-%d %H:%M UTC", when, sizeof when);   /* its zone said, as everywhere */
		words_ending(result, reason, ending, sizeof ending);
		/* TD probe: rated and a director's tournament and round went unsaid */
		char paired[PROTO_TOURNAMENT_MAX + PROTO_ROUND_MAX + 16];
		words_pairing(x, ", ", paired, sizeof paired);
		client_out(c, "  game %lld: %s (White%s) vs %s (Black%s), %s%s%s%s%s, %s%s",
		           (long long)json_integer_value(json_object_get(x, "game")), str(x, "white"),
		           words_bot_mark(x, WHITE), str(x, "black"), words_bot_mark(x, BLACK), str(x, "rules"), json_is_true(json_object_get(x, "rated")) ? ", rated" : "",
		           paired, when[0] ? ", " : "", when,
		           result ? "finished " : "live", result ? ending : "");
	}
}

#define POSSIBLE_WIDTH 76   /* the tries wrap before this column, between items */

/* One try of `possible` (coordinates) as its group's item: the destination, "e8=Q" for a
 * promotion, "b1-d2" when another piece of the group reaches the same square.  Its piece
 * type, or PIECE_NONE for a form this client does not read (shown as it came). */
static int possible_item(const struct board *own, const char *mv, bool from, char *out, size_t len)
{
	/* square_parse's "no square" is SQ_NONE (64), one past the mailbox: a
	 * drop's "N@" once read mailbox[64], the board's side to move */
	size_t n = strlen(mv);
	int f = n == 4 || n == 5 ? square_parse((char[3]){ mv[0], mv[1], 0 }) : SQ_NONE;
	int t = n == 4 || n == 5 ? square_parse((char[3]){ mv[2], mv[3], 0 }) : SQ_NONE;
	int type = f != SQ_NONE && t != SQ_NONE ? piece_code_type(own->mailbox[f]) : PIECE_NONE;
	if (type == PIECE_NONE) {
		snprintf(out, len, "%s", mv);
		return PIECE_NONE;
	}
	snprintf(out, len, "%s%s%.2s%s%c", from ? (char[3]){ mv[0], mv[1], 0 } : "", from ? "-" : "", mv + 2,
	         mv[4] ? "=" : "", mv[4] ? (char)toupper((unsigned char)mv[4]) : '\0');
	return type;
}

/* possible: the tries grouped by piece ("N: c3 f3 | P: a3 a4 ... | drops: N@e5"), wrapped between items. */
static void done_possible(struct client *c, const json_t *res, const struct pending *p)
{
	static const int order[] = { KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN, PIECE_NONE };
	const struct cgame *g = client_game(c, p->game);
	json_t *moves = json_object_get(res, "moves");
	size_t i, n = json_array_size(moves);
	if (n == 0 || !g) {
		client_out(c, "#%ld: You may try: %s", p->game, n ? "(this client does not follow the game)"
		                                 : g && g->live && !g->view.over && g->view.to_move != g->color
		                                 ? "nothing now (it is their move)" : "(nothing)");
		return;
	}
	/* The game named, as every line of a game is; --plain's one line, not
	 * wrapped (the screen-reader probe: a braille display shows lines as
	 * they come, and "h7-h6" alone on one read as nothing) */
	char line[4096];   /* a line wraps before `width`; an item is under 80 */
	size_t width = c->plain ? sizeof line - 80 : POSSIBLE_WIDTH;
	size_t used = (size_t)snprintf(line, sizeof line, "#%ld: You may try:", p->game);
	bool first_group = true;
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
		bool opened = false;
		json_t *x;
		json_array_foreach(moves, i, x) {
			const char *mv = json_string_value(x);
			char item[64], probe[64];
			if (!mv || possible_item(&g->view.own, mv, false, probe, sizeof probe) != order[k])
				continue;
			/* two pieces of the group to one square: name where each comes from */
			bool shared = false;
			size_t j;
			json_t *y;
			json_array_foreach(moves, j, y) {
				char other[64];
				const char *mv2 = json_string_value(y);
				if (j != i && mv2 && strncmp(mv, mv2, 2) != 0 &&
				    possible_item(&g->view.own, mv2, false, other, sizeof other) == order[k] &&
				    !strcmp(other, probe))
					shared = true;
			}
			/* a pawn's capture too: its square alone, typed back, is the
			 * push (the bot probe: "h3" meant g2xh3, "move h3" pushed) */
			bool capture = order[k] == PAWN && mv[0] != mv[2];
			possible_item(&g->view.own, mv, shared || capture, item, sizeof item);
			char word[80];
			if (!opened)   /* the last group: drops (crazykrieg's "N@f3"), shown as they came */
				snprintf(word, sizeof word, "%s%s: %s", first_group ? "" : "| ",
				         order[k] == PIECE_NONE ? "drops" : (char[2]){ "PNBRQK"[order[k]], 0 }, item);
			else
				snprintf(word, sizeof word, "%s", item);
			if (used + 1 + strlen(word) > width) {
				client_out(c, "%s", line);
				used = (size_t)snprintf(line, sizeof line, "   ");
			}
			used += (size_t)snprintf(line + used, sizeof line - used, " %s", word);
			opened = true;
			first_group = false;
		}
	}
	client_out(c, "%s", line);
}

/* One announcement of a record, in words for someone reading it afterwards. */
static void record_words(const struct ruleset *rs, const struct event *e, int me, char *buf, size_t len)
{
	char mv[NOTATION_MAX] = "";
	if (e->san[0])
		snprintf(mv, sizeof mv, "%s", e->san);
	else if (e->move != MOVE_NONE)
		notation_uci(e->move, mv);
	if (e->type == EV_MOVE && e->by != me)
		snprintf(buf, len, "%s played %s", words_side(e->by), mv[0] ? mv : "a move");
	else if ((e->type == EV_ILLEGAL || e->type == EV_IMPOSSIBLE) && e->by != me && mv[0])
		snprintf(buf, len, "%s tried %s: %s", words_side(e->by), mv,
		         e->type == EV_ILLEGAL ? "illegal" : "impossible");
	else if (e->type == EV_IMPOSSIBLE && e->by == me && mv[0])
		words_impossible(rs, e, WHY_UNSAID, buf, len);   /* the record keeps no view to tell why */
	else
		words_event(rs, e, me, e->san, buf, len);
}

/*
 * One umpire_move ("e2e4", "e1g1", "N@f3") made on the true board b: the
 * side to move's legal move the server wrote as uci, or false (b is then
 * not to be shown).  Matched on the coordinates themselves, not read as
 * a try: notation_lex() takes "d1h5" for a pawn's (no piece letter), so
 * every piece move would stop the replay.
 */
/* The umpire's move on the replayed board: the legal move it names (its
 * text reads an en passant as a plain pawn move, movegen_find_legal puts
 * the kind back), or false when the board cannot follow it. */
static bool replay_move(struct board *b, move_t said)
{
	move_t m = said == MOVE_NONE ? MOVE_NONE : movegen_find_legal(b, said);
	if (m == MOVE_NONE)
		return false;
	board_make(b, m);
	return true;
}

/* record {game, view}: one page of what that audience heard, more asked for while there is more. */
static void done_record(struct client *c, const json_t *msg, const struct pending *p)
{
	const char *view = str(msg, "view");
	long game = (long)json_integer_value(json_object_get(msg, "game"));
	int me = -1;
	if (!strcmp(view, "white") && !strcmp(str(msg, "white"), c->user))
		me = WHITE;
	else if (!strcmp(view, "black") && !strcmp(str(msg, "black"), c->user))
		me = BLACK;
	if (p->arg == 0) {
		const char *result = json_string_value(json_object_get(msg, "result"));
		const char *reason = json_string_value(json_object_get(msg, "reason"));
		char ending[64];
		words_ending(result, reason, ending, sizeof ending);
		client_out(c, "Game %ld, %s: %s (White) vs %s (Black), %s; as %s%s heard it:", game,
		           str(msg, "rules"), str(msg, "white"), str(msg, "black"), result ? ending : "live",
		           !strcmp(view, "umpire") ? "the " : "",
		           !strcmp(view, "umpire") ? "umpire" : !strcmp(view, "white") ? "White" : "Black");
		const char *fen = json_string_value(json_object_get(msg, "fen"));
		c->replay_ok = !strcmp(view, "umpire") && fen && fen_parse(fen, &c->replay, NULL, 0) == 0;
		c->replay_live = json_is_true(json_object_get(msg, "live"));   /* a director's record of a round in play */
		c->record_ply = 0;
	}
	const struct ruleset *rs = ruleset_find(str(msg, "rules"));
	size_t i;
	json_t *ev;
	json_array_foreach(json_object_get(msg, "events"), i, ev) {
		struct event e;
		char words[WORDS_CHAT_MAX + WORDS_MAX];
		json_t *ply = json_object_get(ev, "ply");
		if (json_is_integer(ply))
			c->record_ply = (int)json_integer_value(ply);
		/* Words between people, the umpire's or the players' notices (chat,
		 * pause, adjournment...) and the players' draw offers and declines:
		 * their own lines, placed before the half-move that followed them
		 * (a draw's, which names no ply, after the last event that does),
		 * never as an announcement. */
		if (words_chat(ev, str(msg, "white"), str(msg, "black"), me, words, sizeof words) == 0 ||
		    words_notice(ev, me, false, words, sizeof words) == 0 ||
		    words_draw(ev, me, words, sizeof words) == 0) {
			int next = c->record_ply + 1;
			client_out(c, "  %3d%s %s", (next + 1) / 2, next % 2 == 0 ? "..." : ".", words);
			continue;
		}
		if (words_read_event(ev, &e) != 0) {
			/* counted in the total all the same: said, not dropped */
			client_out(c, "  (an announcement this client could not read)");
			continue;
		}
		if (c->replay_ok && e.type == EV_UMPIRE_MOVE)
			c->replay_ok = replay_move(&c->replay, e.move);
		/* The game's end names the true final position (kriegd's game_over
		 * "fen"): the board at the end whatever the replay made of it. */
		const char *end = e.type == EV_GAME_OVER ? json_string_value(json_object_get(ev, "fen")) : NULL;
		if (!strcmp(view, "umpire") && end && fen_parse(end, &c->replay, NULL, 0) == 0)
			c->replay_ok = true;
		if (e.type != EV_GAME_OVER || words_umpire_end(ev, words, sizeof words) != 0)
			record_words(rs, &e, me, words, sizeof words);
		int half = words_half(&e);   /* numbered as chess does: "1. e4", "1... e5" */
		client_out(c, "  %3d%s %s", (half + 1) / 2, half % 2 == 0 ? "..." : ".", words);
	}
	json_t *next = json_object_get(msg, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		client_send_page(c, "record", p->cmd, game, view, (long)json_integer_value(next), p->own);
		return;
	}
	long long total = (long long)json_integer_value(json_object_get(msg, "total"));
	client_out(c, "(%lld announcement%s)", total, total == 1 ? "" : "s");
	if (c->replay_ok && !c->batch)   /* what really happened: the umpire's board at the end, or now */
		client_show_true_board(c, &c->replay, WHITE, c->replay_live, game);
}

static void refused_pgn(struct client *c, const struct pending *p)
{
	client_pgn_reset(c);
}

/* pgn {game}: a chunk; more asked for while there is more; then shown or written. */
static void done_pgn(struct client *c, const json_t *msg, const struct pending *p)
{
	const char *chunk = json_string_value(json_object_get(msg, "pgn"));
	long game = (long)json_integer_value(json_object_get(msg, "game"));
	size_t n = chunk ? strlen(chunk) : 0;
	if (c->pgn_len + n + 1 > (size_t)CLIENT_PGN_MAX) {
		client_error(c, "pgn: game %ld is longer than this client takes (%ld bytes)", game, CLIENT_PGN_MAX);
		client_pgn_reset(c);
		return;
	}
	c->pgn = xgrow(c->pgn, &c->pgn_cap, c->pgn_len + n + 1, 1, 4096);
	memcpy(c->pgn + c->pgn_len, chunk ? chunk : "", n);
	c->pgn_len += n;
	c->pgn[c->pgn_len] = '\0';
	json_t *next = json_object_get(msg, "next");
	if (json_is_integer(next) && json_integer_value(next) > p->arg) {
		client_send_page(c, "pgn", p->cmd, game, str(msg, "view"), (long)json_integer_value(next), p->own);
		return;
	}
	if (c->pgn_file[0]) {
		FILE *f = fopen(c->pgn_file, "w");
		bool ok = f && fwrite(c->pgn, 1, c->pgn_len, f) == c->pgn_len;
		if (f && fclose(f) != 0)
			ok = false;
		if (!ok)
			client_error(c, "pgn: cannot write %s: %s", c->pgn_file, strerror(errno));
		else
			client_out(c, "Wrote game %ld (%s view, %zu bytes) to %s.", game, str(msg, "view"), c->pgn_len,
			           c->pgn_file);
	} else if (!c->batch && c->print) {
		while (c->pgn_len && c->pgn[c->pgn_len - 1] == '\n')
			c->pgn[--c->pgn_len] = '\0';
		c->print(c->ctx, c->pgn);
	}
	client_pgn_reset(c);
}

/* --- the table ------------------------------------------------------------------ */

#define MANY CMD_ARGS_MAX

static const struct cmd_entry cmd_table[] = {
	{ .name = "help", .type = CMD_HELP, .max = 1, .exec = exec_help,
	  .usage = "help [WORD]               this text; or the command WORD, or those that mention it; or the rule set WORD" },
	{ .name = "quit", .type = CMD_QUIT, .exec = exec_quit,
	  .usage = "quit                      leave (games go on; resume later)" },
	{ .name = "exit", .type = CMD_QUIT, .exec = exec_quit,
	  .usage = "exit                      the same as quit" },
	{ .name = "login", .type = CMD_LOGIN, .min = 1, .max = MANY, .verbatim = true, .parse = parse_login,
	  .request = req_login, .exec = exec_login, .done = done_login,
	  .usage = "login USER [PASSWORD...]  log in (the password is asked for, not echoed)" },
	{ .name = "register", .type = CMD_REGISTER, .min = 1, .max = MANY, .verbatim = true, .parse = parse_login,
	  .request = req_login, .exec = exec_login, .done = done_login, .refused = refused_register,
	  .usage = "register USER [--invite CODE]  create an account and log in "
	           "(scripts: USER [--invite CODE] PASSWORD...)" },
	{ .name = "guest", .type = CMD_GUEST, .request = req_plain, .done = done_login,
	  .usage = "guest                     play as a guest" },
	{ .name = "logout", .type = CMD_LOGOUT, .request = req_plain, .done = done_logout,
	  .usage = "logout                    log out" },
	{ .name = "ping", .type = CMD_PING, .request = req_plain, .done = done_ping,
	  .usage = "ping                      ask the server for an answer (is the connection alive?)" },
	{ .name = "passwd", .type = CMD_PASSWD, .max = 2, .request = req_passwd, .exec = exec_passwd,
	  .done = done_passwd,
	  .usage = "passwd [OLD [NEW]]        change your password (asked for, not echoed)" },
	{ .name = "resume", .type = CMD_RESUME, .min = 1, .max = 1, .request = req_resume, .done = done_login,
	  .refused = refused_resume,
	  .usage = "resume TOKEN              take up a session by its login's token (krieg does it when it reconnects)" },
	{ .name = "who", .type = CMD_WHO, .request = req_plain, .done = done_who,
	  .usage = "who                       who is online" },
	{ .name = "tournament", .type = CMD_TOURNAMENT, .min = 1, .max = MANY, .verbatim = true,
	  .parse = parse_tournament, .request = req_tournament, .done = done_tournament,
	  .usage = "tournament NAME...        a tournament's score table (the games paired with its name)" },
	{ .name = "standings", .type = CMD_STANDINGS, .max = 1, .parse = parse_standings, .request = req_named,
	  .done = done_standings, .usage = "standings [RULES]         the club's rating table (default: the icc pool)" },
	{ .name = "profile", .type = CMD_PROFILE, .max = 1, .request = req_named, .done = done_profile,
	  .usage = "profile [USER]            a player's games won, lost and drawn, and ratings (default: yours)" },
	{ .name = "finger", .type = CMD_PROFILE, .max = 1, .request = req_named, .done = done_profile,
	  .usage = "finger [USER]             the same as profile" },
	{ .name = "seeks", .type = CMD_SEEKS, .request = req_plain, .done = done_seeks,
	  .usage = "seeks                     open seeks and your challenges" },
	{ .name = "seek", .type = CMD_SEEK, .max = 4, .parse = parse_terms, .request = req_terms, .done = done_open,
	  .usage = "seek [RULES] [TIME] [COLOR] [rated]   offer a game to anyone (TIME: 5+2, 3d, untimed)" },
	{ .name = "challenge", .type = CMD_CHALLENGE, .min = 1, .max = 5, .parse = parse_terms, .request = req_terms,
	  .done = done_open, .usage = "challenge USER [RULES] [TIME] [COLOR] [rated]   offer a game to one player" },
	{ .name = "accept", .type = CMD_ACCEPT, .max = 1, .parse = parse_number, .request = req_offer,
	  .exec = exec_last_challenge,   /* no done: the game_start event says it */
	  .usage = "accept [OFFER]            accept a seek or challenge (default: the last challenge)" },
	{ .name = "rematch", .type = CMD_REMATCH, .max = 1, .parse = parse_number, .request = req_rematch,
	  .exec = exec_rematch, .done = done_rematch,
	  .usage = "rematch [GAME]            the same game again, colours swapped (default: the current one)" },
	{ .name = "decline", .type = CMD_DECLINE, .max = MANY, .verbatim = true, .parse = parse_decline,
	  .request = req_offer, .exec = exec_last_challenge, .done = done_ok,
	  .usage = "decline [OFFER] [REASON...]   decline a challenge (default: the last one), saying why if you like" },
	{ .name = "cancel", .type = CMD_CANCEL, .max = 1, .parse = parse_number, .request = req_offer, .done = done_ok,
	  .usage = "cancel [OFFER]            withdraw your own seek or challenge (default: your only one)" },
	{ .name = "lobby", .type = CMD_LOBBY, .max = 1, .parse = parse_lobby, .request = req_lobby, .done = done_lobby,
	  .usage = "lobby [on|off]            watch the lobby: seeks shown as they open and go" },
	{ .name = "play", .type = CMD_PLAY, .min = 1, .max = 1, .parse = parse_number, .request = req_offer,
	  .usage = "play OFFER                take a seek (as accept)" },
	{ .name = "move", .type = CMD_MOVE, .min = 1, .max = MANY, .game = true, .parse = parse_moves,
	  .request = req_move, .exec = exec_move,   /* no done: the announcements say it */
	  .usage = "move TRY [TRY...]         a try (e4, Nf3, e2e4, O-O); several: a preference list (nost)" },
	{ .name = "quiet", .type = CMD_QUIET, .min = 1, .max = MANY, .game = true, .parse = parse_moves,
	  .request = req_move, .exec = exec_move, .done = done_quiet,
	  .usage = "quiet MOVE MOVE...        an \"if quiet\" sequence (nost)" },
	{ .name = "any", .type = CMD_ANY, .game = true, .request = req_plain,
	  .usage = "any                       ask \"any?\" (are there pawn captures?)" },
	{ .name = "resign", .type = CMD_RESIGN, .max = 1, .game = true, .parse = parse_yes, .request = req_plain,
	  .exec = exec_resign, .usage = "resign [--yes]            resign this game (asked first, unless --yes)" },
	{ .name = "draw", .type = CMD_DRAW, .max = 1, .game = true, .parse = parse_draw, .request = req_draw,
	  .exec = exec_draw, .done = done_draw,
	  .usage = "draw [offer|accept|decline]  offer a draw, or accept the pending offer" },
	{ .name = "adjourn", .type = CMD_ADJOURN, .max = 1, .game = true, .parse = parse_adjourn,
	  .request = req_adjourn,   /* no .done: the offer's, decline's or adjournment's event said it */
	  .usage = "adjourn [accept|decline]  offer to adjourn (timed games: clocks stop), or accept the offer" },
	{ .name = "unadjourn", .type = CMD_UNADJOURN, .game = true, .request = req_plain,   /* its event says it */
	  .usage = "unadjourn                 resume the adjourned game (both players connected)" },
	{ .name = "abort", .type = CMD_ABORT, .max = MANY, .verbatim = true, .parse = parse_abort,
	  .request = req_abort, .exec = exec_abort, .done = done_umpire,
	  .usage = "abort [--yes|REASON...]   abort before both sides have moved (asked first); umpire: end the chair's game, no result" },
	{ .name = "games", .type = CMD_GAMES, .request = req_plain, .done = done_games,
	  .usage = "games                     your games" },
	{ .name = "game", .type = CMD_GAME, .game = true, .request = req_plain, .done = client_game_answer,
	  .usage = "game                      the current game again from the server: board, announcements, clocks" },
	{ .name = "possible", .type = CMD_POSSIBLE, .game = true, .request = req_plain, .done = done_possible,
	  .usage = "possible                  the tries you may still make this turn" },
	{ .name = "switch", .type = CMD_SWITCH, .min = 1, .max = 1, .parse = parse_number, .exec = exec_switch,
	  .done = client_game_answer, .refused = refused_switch, .usage = "switch GAME               make GAME (played, watched or umpired) the current game" },
	{ .name = "history", .type = CMD_HISTORY, .max = 1, .request = req_history, .done = done_history,
	  .usage = "history [USER]            your games, or USER's finished games" },
	{ .name = "record", .type = CMD_RECORD, .min = 1, .max = 2, .parse = parse_view_file, .request = req_record,
	  .exec = exec_record, .done = done_record,
	  .usage = "record GAME [white|black|umpire]   what that side (or the umpire) was told, in words" },
	{ .name = "pgn", .type = CMD_PGN, .min = 1, .max = 4, .parse = parse_view_file, .request = req_pgn,
	  .exec = exec_pgn, .done = done_pgn, .refused = refused_pgn,
	  .usage = "pgn GAME [white|black|umpire] [> FILE]   the game as Kriegspiel PGN, shown or written to FILE" },
	{ .name = "live", .type = CMD_LIVE, .request = req_plain, .done = done_live,
	  .usage = "live                      the live games (a rated one: umpires only, unless the server delays it)" },
	{ .name = "watch", .type = CMD_WATCH, .min = 1, .max = 1, .parse = parse_number, .request = req_seat,
	  .exec = exec_seat, .done = done_seat, .refused = refused_seat,
	  .usage = "watch GAME                watch a live game: what both players hear, and the clocks (umpire GAME: the chair)" },
	{ .name = "umpire", .type = CMD_UMPIRE, .min = 1, .max = 1, .parse = parse_number, .request = req_seat,
	  .exec = exec_seat, .done = done_seat, .refused = refused_seat,
	  .usage = "umpire GAME               (umpire) the umpire's chair: the true board, every try, who heard what" },
	{ .name = "follow", .type = CMD_FOLLOW, .max = 1, .request = req_named, .done = done_follow,
	  .usage = "follow [USER]             show each game USER starts, watched if you play none (alone: the list)" },
	{ .name = "unfollow", .type = CMD_UNFOLLOW, .max = 1, .request = req_named, .exec = exec_unfollow, .done = done_unfollow,
	  .usage = "unfollow [USER]           stop following USER (no USER: everyone)" },
	{ .name = "unwatch", .type = CMD_UNWATCH, .max = 1, .parse = parse_number, .request = req_seat,
	  .exec = exec_unwatch, .done = done_unwatch,
	  .usage = "unwatch [GAME]            leave a seat or the umpire's chair (default: the current one)" },
	{ .name = "pair", .type = CMD_PAIR, .min = 2, .max = MANY, .verbatim = true, .parse = parse_pair,
	  .request = req_terms, .exec = exec_pair, .done = done_pair,
	  .usage = "pair WHITE BLACK [RULES] [TIME] [rated] [round N] [tournament NAME...]   (umpire) start a game "
	           "between two players (online or not)" },
	{ .name = "pause", .type = CMD_PAUSE, .max = MANY, .verbatim = true, .parse = parse_pause,
	  .request = req_umpire, .exec = exec_chair, .done = done_umpire,
	  .usage = "pause [REASON...]         (umpire) stop both clocks of the chair's game" },
	{ .name = "unpause", .type = CMD_UNPAUSE, .max = MANY, .verbatim = true, .parse = parse_pause,
	  .request = req_umpire, .exec = exec_chair, .done = done_umpire,
	  .usage = "unpause [REASON...]       (umpire) start the clocks again" },
	{ .name = "addtime", .type = CMD_ADDTIME, .min = 3, .max = MANY, .verbatim = true, .parse = parse_addtime,
	  .request = req_umpire, .exec = exec_chair, .done = done_umpire,
	  .usage = "addtime COLOR SECONDS REASON...   (umpire) give white or black more time" },
	{ .name = "adjudicate", .type = CMD_ADJUDICATE, .min = 2, .max = MANY, .verbatim = true,
	  .parse = parse_adjudicate, .request = req_umpire, .exec = exec_chair, .done = done_umpire,
	  .usage = "adjudicate RESULT REASON...   (umpire) end the game 1-0, 0-1, 1/2-1/2 or draw" },
	{ .name = "announce", .type = CMD_ANNOUNCE, .min = 1, .max = MANY, .verbatim = true, .parse = parse_announce,
	  .request = req_announce, .done = done_announce,
	  .usage = "announce [round N] TOURNAMENT: TEXT  (umpire) a message to every live game of a tournament" },
	{ .name = "note", .type = CMD_NOTE, .min = 1, .max = MANY, .verbatim = true, .parse = parse_note,
	  .request = req_umpire, .exec = exec_chair, .done = done_umpire,
	  .usage = "note [--public] TEXT...   (umpire) a note for umpires, or with --public a message to all" },
	{ .name = "say", .type = CMD_SAY, .min = 1, .max = MANY, .verbatim = true, .game = true,
	  .parse = parse_chat, .request = req_chat,   /* no done: the chat event echoes it */
	  .usage = "say TEXT...               to your opponent in the current game (spectators read it too)" },
	{ .name = "spec", .type = CMD_SPEC, .min = 1, .max = MANY, .verbatim = true, .parse = parse_chat,
	  .request = req_chat, .exec = exec_spec,
	  .usage = "spec TEXT...              to the other spectators of the game you watch (never to its players)" },
	{ .name = "tell", .type = CMD_TELL, .min = 2, .max = MANY, .verbatim = true, .parse = parse_tell,
	  .request = req_user, .exec = exec_user, .done = done_tell, .refused = refused_tell,
	  .usage = "tell USER TEXT...         a message to a user who is online" },
	{ .name = "message", .type = CMD_MESSAGE, .min = 2, .max = MANY, .verbatim = true, .parse = parse_tell,
	  .request = req_user, .exec = exec_user, .done = done_message,
	  .usage = "message USER TEXT...      leave a message for a user, online or not" },
	{ .name = "messages", .type = CMD_MESSAGES, .max = 2, .parse = parse_messages, .request = req_messages,
	  .done = done_messages, .usage = "messages [delete N|all]   the messages left for you; delete one or all" },
	{ .name = "mute", .type = CMD_MUTE, .max = 1, .request = req_user, .exec = exec_user,
	  .done = done_mute, .usage = "mute [USER]               stop USER's words and challenges reaching you (alone: the list)" },
	{ .name = "unmute", .type = CMD_UNMUTE, .min = 1, .max = 1, .request = req_user, .exec = exec_user,
	  .done = done_mute, .usage = "unmute USER               hear USER again" },
	{ .name = "invite", .type = CMD_INVITE, .request = req_plain, .done = done_invite,
	  .usage = "invite                    (admins) a single-use code to register with" },
	{ .name = "kick", .type = CMD_KICK, .min = 1, .max = MANY, .verbatim = true, .parse = parse_kick,
	  .request = req_user, .exec = exec_user, .done = done_kick,
	  .usage = "kick USER [REASON...]     (admins) close a user's connections now" },
	{ .name = "broadcast", .type = CMD_BROADCAST, .min = 1, .max = MANY, .verbatim = true, .parse = parse_chat,
	  .request = req_text, .done = done_broadcast,
	  .usage = "broadcast TEXT...         (admins) a notice to everyone logged in" },
	{ .name = "board", .type = CMD_BOARD, .exec = exec_board,
	  .usage = "board                     draw the board again" },
	{ .name = "time", .type = CMD_TIME, .exec = exec_time,
	  .usage = "time                      the clocks of the current game, in words" },
	{ .name = "clock", .type = CMD_TIME, .exec = exec_time,
	  .usage = "clock                     the same as time" },
	{ .name = "pieces", .type = CMD_PIECES, .game = true, .exec = exec_pieces,
	  .usage = "pieces                    your own men by square, in words, and your ghosts" },
	{ .name = "ghost", .type = CMD_GHOST_PLACE, .min = 1, .max = 3, .game = true, .parse = parse_ghost,
	  .exec = exec_ghost, .usage = "ghost place Nf6 | ghost move f6 e4 | ghost clear [SQUARE]   guesses, never sent" },
	/* wait and sleep block the main loop: main.c's --batch loop does them (exec: elsewhere) */
	{ .name = "wait", .type = CMD_WAIT, .min = 1, .max = 2, .parse = parse_wait, .exec = exec_batch_only,
	  .usage = "wait EVENT [SECONDS]      (batch) wait for the next EVENT (default 30 s)" },
	{ .name = "sleep", .type = CMD_SLEEP, .min = 1, .max = 1, .parse = parse_seconds, .exec = exec_batch_only,
	  .usage = "sleep SECONDS             (batch) pause" },
	{ .name = "raw", .type = CMD_RAW, .min = 1, .max = MANY, .verbatim = true, .parse = parse_raw,
	  .request = req_raw, .done = done_raw,
	  .usage = "raw {JSON}                send one protocol request as it is, and show its answer" },
};

#define CMD_COUNT (sizeof cmd_table / sizeof cmd_table[0])

const struct cmd_entry *cmd_entry_at(size_t i)
{
	return i < CMD_COUNT ? &cmd_table[i] : NULL;
}

/* A command's word in any case ("Resign", "BOARD"): typed so it was
 * taken for a move and refused as one (help probe); no command's name
 * reads as a move in any case. */
static const struct cmd_entry *find_entry(const char *word)
{
	if (strcasecmp(word, "any?") == 0)
		word = "any";   /* as the help and the announcements write it (first-game probe) */
	for (size_t i = 0; i < CMD_COUNT; i++)
		if (strcasecmp(cmd_table[i].name, word) == 0)
			return &cmd_table[i];
	return NULL;
}

const char *cmd_help(void)
{
	static char text[8192];
	if (text[0])
		return text;
	size_t used = (size_t)snprintf(text, sizeof text, "Commands (a line that is not a command is read as moves; "
	                               "\"help rules\" names the rule sets):\n");
	for (size_t i = 0; i < CMD_COUNT && used < sizeof text; i++)
		used += (size_t)snprintf(text + used, sizeof text - used, "  %s\n", cmd_table[i].usage);
	return text;
}

/* The help lines of the command named word, then of the others whose line
 * mentions it (any case: "help umpire", "help nost"), into out: how many. */
static size_t help_about(const char *word, char *out, size_t len)
{
	size_t n = 0, used = 0;
	out[0] = '\0';
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < CMD_COUNT; i++) {
			const struct cmd_entry *e = &cmd_table[i];
			bool named = strcasecmp(e->name, word) == 0;
			bool hit = pass == 0 ? named : !named && strcasestr(e->usage, word) != NULL;
			if (!hit || used >= len)
				continue;
			used += (size_t)snprintf(out + used, len - used, "%s  %s", n ? "\n" : "", e->usage);
			n++;
		}
	return n;
}

/*
 * help WORD, into out: the command named WORD, then the others whose line
 * mentions it; a rule set's name: what its umpire says (words_rules_help),
 * then the commands that mention it ("help nost": move, quiet); "rules":
 * the rule sets' names (words_rules_list: the newcomer probe found none
 * named), then the commands taking one.  false: nothing is so named or
 * mentions it.  The same inside krieg and as "krieg help WORD".
 */
bool cmd_help_about(const char *word, char *out, size_t len)
{
	char lines[4096];
	size_t n = help_about(word, lines, sizeof lines);
	if (!strcasecmp(word, "rules") || !strcasecmp(word, "rulesets")) {
		words_rules_list(out, len);
		size_t used = strlen(out);
		snprintf(out + used, len - used, "\n%s", lines);
		return true;
	}
	const char *rules = words_rules_help(word);
	if (n == 0 && !rules)
		return false;
	/* The rule sets' words for a try impossible on one's own board are
	 * heard of another client's tries: krieg refuses one before sending it
	 * (krieg.1 TRY; the wording probe read the help as a promise) */
	if (rules)
		snprintf(out, len, "%s\n  (krieg refuses a try none of your men can make before it is sent: \"Ra8a5\"\n"
		         "  past your own pawn, O-O past your own men.  The umpire rules on all others.)%s%s", rules,
		         n ? "\n" : "", n ? lines : "");
	else
		snprintf(out, len, "%s", lines);
	return true;
}

/* --- the parser and the request ---------------------------------------------------- */

int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen)
{
	char words[CMD_ARGS_MAX + 1][CMD_ARG_MAX];
	int nw = 0;
	const char *p = line;

	memset(c, 0, sizeof *c);
	c->number = -1;
	snprintf(c->color, sizeof c->color, "random");
	if (err && errlen)
		err[0] = '\0';
	if (strlen(line) >= CMD_LINE_MAX)
		return failf(err, errlen, "line too long (at most %d bytes)", CMD_LINE_MAX - 1);

	p += strspn(p, " \t");
	if (*p == '\0' || *p == '#' || *p == '\n' || *p == '\r')
		return 0;

	/* a verbatim command (raw) keeps the rest of the line as it is */
	size_t n = strcspn(p, " \t\r\n");
	snprintf(words[0], sizeof words[0], "%.*s", (int)(n < CMD_ARG_MAX ? n : 0), p);
	const struct cmd_entry *e = find_entry(words[0]);
	if (e && e->verbatim && (p[n] == ' ' || p[n] == '\t')) {
		c->entry = e;
		c->type = e->type;
		snprintf(c->raw, sizeof c->raw, "%s", p + n + strspn(p + n, " \t"));
		return e->parse(c, err, errlen);
	}

	while (*p) {
		p += strspn(p, " \t\r\n");
		if (!*p)
			break;
		if (nw == CMD_ARGS_MAX + 1)
			return failf(err, errlen, "too many words (at most %d)", CMD_ARGS_MAX);
		n = strcspn(p, " \t\r\n");
		if (n >= CMD_ARG_MAX)
			return failf(err, errlen, "word too long");
		memcpy(words[nw], p, n);
		words[nw][n] = '\0';
		nw++;
		p += n;
	}

	/* not a command: moves (one try, or a preference list) */
	int first = e != NULL;
	c->entry = e = e ? e : find_entry("move");
	c->type = e->type;
	c->argc = nw - first;
	if (c->argc > CMD_ARGS_MAX)
		return failf(err, errlen, "too many words (at most %d)", CMD_ARGS_MAX);
	memcpy(c->argv, words[first], (size_t)c->argc * sizeof c->argv[0]);
	if (c->argc < e->min || c->argc > e->max)
		return failf(err, errlen, "usage: %s", e->usage);
	return e->parse ? e->parse(c, err, errlen) : 0;
}

bool cmd_has_secret(const char *line)
{
	struct cmd c;
	char err[256], word[16];
	const char *p = line + strspn(line, " \t");
	size_t n = strcspn(p, " \t\r\n");
	snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : 0), p);
	const struct cmd_entry *e = find_entry(word);
	/* A raw request may be a login, a resume, a passwd, a user_create... */
	if (e && e->type == CMD_RAW)
		return strstr(p, "password") != NULL || strstr(p, "token") != NULL ||
		       strstr(p, "invite") != NULL;
	if (e && e->type == CMD_RESUME)
		return true;   /* a session's token is as good as its password */
	if (!e || (e->type != CMD_LOGIN && e->type != CMD_REGISTER && e->type != CMD_PASSWD))
		return false;
	/* One of these that does not parse (a password too long, say) may hold one all the same. */
	bool secret = cmd_parse(line, &c, err, sizeof err) != 0 || c.invite[0] ||
	              c.argc >= (e->type == CMD_PASSWD ? 1 : 2);
	memset(&c, 0, sizeof c);
	return secret;
}

bool cmd_is_local(const struct cmd *c)
{
	return !c->entry || !c->entry->request;
}

json_t *cmd_request(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (cmd_is_local(c))
		return NULL;
	if (c->entry->game && game < 0) {
		failf(err, errlen, "no current game (see \"games\" and \"switch\")");
		return NULL;
	}
	return c->entry->request(c, id, game, err, errlen);
}
