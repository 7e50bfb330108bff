/*
 * cmd.c — the command language (see cmd.h).  One table names every
 * command, its argument counts and its usage line; the parser and the
 * help text both read it.
 */
#include "cmd.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ruleset.h"

struct cmd_def {
	const char *name;
	enum cmd_type type;
	int min, max;           /* positional word counts */
	const char *usage;
};

#define MANY CMD_ARGS_MAX

static const struct cmd_def cmd_table[] = {
	{ "help", CMD_HELP, 0, 1, "help                      this text" },
	{ "quit", CMD_QUIT, 0, 0, "quit                      leave (games go on; resume later)" },
	{ "exit", CMD_QUIT, 0, 0, NULL },
	{ "login", CMD_LOGIN, 1, 2, "login USER [PASSWORD]     log in (the password is asked for, not echoed)" },
	{ "register", CMD_REGISTER, 1, 2, "register USER [PASSWORD]  create an account and log in" },
	{ "guest", CMD_GUEST, 0, 0, "guest                     play as a guest" },
	{ "logout", CMD_LOGOUT, 0, 0, "logout                    log out" },
	{ "ping", CMD_PING, 0, 0, NULL },
	{ "resume", CMD_RESUME, 1, 1, NULL },
	{ "who", CMD_WHO, 0, 0, "who                       who is online" },
	{ "seeks", CMD_SEEKS, 0, 0, "seeks                     open seeks" },
	{ "seek", CMD_SEEK, 0, 4, "seek [RULES] [TIME] [COLOR] [rated]   offer a game to anyone (TIME: 5+2, 3d, untimed)" },
	{ "challenge", CMD_CHALLENGE, 1, 5, "challenge USER [RULES] [TIME] [COLOR] [rated]   offer a game to one player" },
	{ "accept", CMD_ACCEPT, 0, 1, "accept [OFFER]            accept a seek or challenge (default: the last challenge)" },
	{ "decline", CMD_DECLINE, 0, 1, "decline [OFFER]           decline a challenge" },
	{ "cancel", CMD_CANCEL, 0, 1, "cancel [OFFER]            withdraw your own seek or challenge" },
	{ "move", CMD_MOVE, 1, MANY, "move TRY [TRY...]         a try (e4, Nf3, e2e4, O-O); several: a preference list (nost)" },
	{ "quiet", CMD_QUIET, 1, MANY, "quiet MOVE MOVE...        an \"if quiet\" sequence (nost)" },
	{ "any", CMD_ANY, 0, 0, "any                       ask \"any?\" (are there pawn captures?)" },
	{ "resign", CMD_RESIGN, 0, 0, "resign                    resign this game" },
	{ "draw", CMD_DRAW, 0, 1, "draw [offer|accept|decline]  offer a draw, or accept the pending offer" },
	{ "abort", CMD_ABORT, 0, 0, "abort                     abort before both sides have moved" },
	{ "games", CMD_GAMES, 0, 0, "games                     your games" },
	{ "game", CMD_GAME, 0, 0, NULL },
	{ "possible", CMD_POSSIBLE, 0, 0, "possible                  the tries you may still make this turn" },
	{ "switch", CMD_SWITCH, 1, 1, "switch GAME               make GAME the current game" },
	{ "history", CMD_HISTORY, 0, 1, "history [USER]            your games, or USER's finished games" },
	{ "record", CMD_RECORD, 1, 2, "record GAME [white|black|umpire]   what that side (or the umpire) was told, in words" },
	{ "pgn", CMD_PGN, 1, 4, "pgn GAME [white|black|umpire] [> FILE]   the game as Kriegspiel PGN, shown or written to FILE" },
	{ "board", CMD_BOARD, 0, 0, "board                     draw the board again" },
	{ "ghost", CMD_GHOST_PLACE, 1, 3, "ghost place Nf6 | ghost move f6 e4 | ghost clear [SQ]   guesses, never sent" },
	{ "wait", CMD_WAIT, 1, 2, "wait EVENT [SECONDS]      (batch) wait for the next EVENT (default 30 s)" },
	{ "sleep", CMD_SLEEP, 1, 1, "sleep SECONDS             (batch) pause" },
	{ "raw", CMD_RAW, 1, MANY, "raw {JSON}                send one protocol request as it is" },
};

#define CMD_COUNT (sizeof cmd_table / sizeof cmd_table[0])

const char *cmd_name(enum cmd_type t)
{
	for (size_t i = 0; i < CMD_COUNT; i++)
		if (cmd_table[i].type == t)
			return cmd_table[i].name;
	return "?";
}

const char *cmd_help(void)
{
	static const char head[] =
		"Commands (a line that is not a command is read as moves):\n";
	static char text[6144];
	if (text[0])
		return text;
	size_t used = 0;
	used += (size_t)snprintf(text + used, sizeof text - used, "%s", head);
	for (size_t i = 0; i < CMD_COUNT && used < sizeof text; i++)
		if (cmd_table[i].usage)
			used += (size_t)snprintf(text + used, sizeof text - used, "  %s\n",
			                         cmd_table[i].usage);
	return text;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

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

/* "5+2" (minutes + seconds increment), "5" (minutes), "3d" (days), "untimed". */
static bool parse_time(const char *s, struct cmd *c)
{
	long a, b;
	char tmp[CMD_ARG_MAX];
	size_t n = strlen(s);

	if (strcmp(s, "untimed") == 0 || strcmp(s, "none") == 0) {
		c->base = c->inc = c->days = 0;
		return true;
	}
	if (n >= 2 && s[n - 1] == 'd') {
		snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 1), s);
		if (!parse_long(tmp, &a) || a < 1 || a > 365)
			return false;
		c->days = a;
		return true;
	}
	const char *plus = strchr(s, '+');
	if (plus) {
		snprintf(tmp, sizeof tmp, "%.*s", (int)(plus - s), s);
		if (!parse_long(tmp, &a) || !parse_long(plus + 1, &b) || a > 600 || b > 600 || (a == 0 && b == 0))
			return false;
	} else {
		if (!parse_long(s, &a) || a < 1 || a > 600)
			return false;
		b = 0;
	}
	c->base = a * 60;
	c->inc = b;
	return true;
}

/* The optional terms of seek / challenge, in any order. */
static int parse_terms(struct cmd *c, int from, char *err, size_t errlen)
{
	for (int i = from; i < c->argc; i++) {
		const char *w = c->argv[i];
		if (!strcmp(w, "white") || !strcmp(w, "black") || !strcmp(w, "random"))
			snprintf(c->color, sizeof c->color, "%s", w);
		else if (!strcmp(w, "rated"))
			c->rated = true;
		else if (!strcmp(w, "unrated"))
			c->rated = false;
		else if (ruleset_find(w))
			snprintf(c->rules, sizeof c->rules, "%s", w);
		else if (isdigit((unsigned char)w[0]) || !strcmp(w, "untimed") || !strcmp(w, "none")) {
			if (!parse_time(w, c))
				return fail(err, errlen, "bad time control \"%s\" (try 5+2, 10, 3d or untimed)", w);
		} else
			return fail(err, errlen, "unknown term \"%s\" (rule sets, a time like 5+2, white/black/random, rated)", w);
	}
	return 0;
}

static bool is_view(const char *w)
{
	return !strcmp(w, "white") || !strcmp(w, "black") || !strcmp(w, "umpire");
}

/* record GAME [VIEW]; pgn GAME [VIEW] [> FILE | >FILE] */
static int parse_view_file(struct cmd *c, char *err, size_t errlen)
{
	const char *usage = c->type == CMD_RECORD ? "record GAME [white|black|umpire]"
	                                          : "pgn GAME [white|black|umpire] [> FILE]";
	if (!parse_long(c->argv[0], &c->number))
		return fail(err, errlen, "a game is a number (usage: %s)", usage);
	for (int i = 1; i < c->argc; i++) {
		const char *w = c->argv[i];
		if (is_view(w) && !c->view[0] && !c->file[0]) {
			snprintf(c->view, sizeof c->view, "%.6s", w);   /* is_view(): at most "umpire" */
		} else if (c->type == CMD_PGN && w[0] == '>' && !c->file[0]) {
			const char *f = w[1] ? w + 1 : i + 1 < c->argc ? c->argv[++i] : "";
			if (!*f)
				return fail(err, errlen, "pgn: a file name after '>'");
			snprintf(c->file, sizeof c->file, "%s", f);
		} else {
			return fail(err, errlen, "usage: %s", usage);
		}
	}
	return 0;
}

static const struct cmd_def *find_def(const char *word)
{
	for (size_t i = 0; i < CMD_COUNT; i++)
		if (strcmp(cmd_table[i].name, word) == 0)
			return &cmd_table[i];
	return NULL;
}

int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen)
{
	char words[CMD_ARGS_MAX + 1][CMD_ARG_MAX] = { { 0 } };
	int nw = 0;
	const char *p = line;

	memset(c, 0, sizeof *c);
	c->number = -1;
	snprintf(c->color, sizeof c->color, "random");
	if (err && errlen)
		err[0] = '\0';
	if (strlen(line) >= CMD_LINE_MAX)
		return fail(err, errlen, "line too long (at most %d bytes)", CMD_LINE_MAX - 1);

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#' || *p == '\n' || *p == '\r')
		return 0;

	/* raw keeps the rest of the line as it is */
	if (strncmp(p, "raw", 3) == 0 && (p[3] == ' ' || p[3] == '\t')) {
		c->type = CMD_RAW;
		p += 3;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(c->raw, sizeof c->raw, "%s", p);
		size_t n = strlen(c->raw);
		while (n && (c->raw[n - 1] == '\n' || c->raw[n - 1] == '\r'))
			c->raw[--n] = '\0';
		c->argc = 1;
		snprintf(c->argv[0], CMD_ARG_MAX, "%s", "json");
		return 0;
	}

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		if (nw == CMD_ARGS_MAX + 1)
			return fail(err, errlen, "too many words (at most %d)", CMD_ARGS_MAX);
		size_t n = strcspn(p, " \t\r\n");
		if (n >= CMD_ARG_MAX)
			return fail(err, errlen, "word too long");
		memcpy(words[nw], p, n);
		words[nw][n] = '\0';
		nw++;
		p += n;
	}

	if (nw == 0)
		return 0;
	const struct cmd_def *def = find_def(words[0]);
	int first = 1;
	if (!def) {
		/* not a command: moves (one try, or a preference list) */
		def = find_def("move");
		first = 0;
	}
	c->type = def->type;
	c->argc = nw - first;
	if (c->argc > CMD_ARGS_MAX)
		return fail(err, errlen, "too many words (at most %d)", CMD_ARGS_MAX);
	for (int i = 0; i < c->argc; i++)
		memcpy(c->argv[i], words[first + i], CMD_ARG_MAX);
	if (c->argc < def->min || c->argc > def->max) {
		if (def->usage)
			return fail(err, errlen, "usage: %s", def->usage);
		return fail(err, errlen, "usage: %s", def->name);
	}

	switch (c->type) {
	case CMD_SEEK:
		return parse_terms(c, 0, err, errlen);
	case CMD_CHALLENGE:
		return parse_terms(c, 1, err, errlen);
	case CMD_ACCEPT:
	case CMD_DECLINE:
	case CMD_CANCEL:
		if (c->argc == 1 && !parse_long(c->argv[0], &c->number))
			return fail(err, errlen, "an offer is a number");
		return 0;
	case CMD_SWITCH:
		if (!parse_long(c->argv[0], &c->number))
			return fail(err, errlen, "a game is a number");
		return 0;
	case CMD_RECORD:
	case CMD_PGN:
		return parse_view_file(c, err, errlen);
	case CMD_DRAW:
		c->draw = DRAW_DEFAULT;
		if (c->argc == 1) {
			if (!strcmp(c->argv[0], "offer"))
				c->draw = DRAW_OFFER;
			else if (!strcmp(c->argv[0], "accept"))
				c->draw = DRAW_ACCEPT;
			else if (!strcmp(c->argv[0], "decline"))
				c->draw = DRAW_DECLINE;
			else
				return fail(err, errlen, "draw offer, draw accept or draw decline");
		}
		return 0;
	case CMD_GHOST_PLACE: {
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
				return fail(err, errlen, "usage: ghost clear [SQUARE]");
			want = c->argc - 1;
		} else {
			return fail(err, errlen, "usage: ghost place Nf6 | ghost move f6 e4 | ghost clear [SQUARE]");
		}
		if (c->argc - 1 != want)
			return fail(err, errlen, "usage: ghost place Nf6 | ghost move f6 e4 | ghost clear [SQUARE]");
		/* drop the sub-command word */
		for (int i = 1; i < c->argc; i++)
			memcpy(c->argv[i - 1], c->argv[i], CMD_ARG_MAX);
		c->argc--;
		return 0;
	}
	case CMD_WAIT:
	case CMD_SLEEP: {
		const char *num = c->type == CMD_WAIT ? (c->argc == 2 ? c->argv[1] : NULL) : c->argv[0];
		c->number = 30000;
		if (num) {
			char *end;
			double s = strtod(num, &end);
			if (end == num || *end || s < 0 || s > 3600)
				return fail(err, errlen, "seconds: a number from 0 to 3600");
			c->number = (long)(s * 1000);
		}
		return 0;
	}
	case CMD_MOVE:
	case CMD_QUIET:
		for (int i = 0; i < c->argc; i++)
			if (strlen(c->argv[i]) > 32)
				return fail(err, errlen, "\"%.40s...\" is too long to be a move", c->argv[i]);
		return 0;
	default:
		return 0;
	}
}

bool cmd_is_local(const struct cmd *c)
{
	switch (c->type) {
	case CMD_NONE: case CMD_HELP: case CMD_QUIT: case CMD_SWITCH: case CMD_BOARD:
	case CMD_GHOST_PLACE: case CMD_GHOST_MOVE: case CMD_GHOST_CLEAR: case CMD_WAIT: case CMD_SLEEP:
		return true;
	default:
		return false;
	}
}

static json_t *moves_array(const struct cmd *c)
{
	json_t *a = json_array();
	for (int i = 0; i < c->argc; i++)
		json_array_append_new(a, json_string(c->argv[i]));
	return a;
}

json_t *cmd_request(const struct cmd *c, long long id, long game, char *err, size_t errlen)
{
	const char *type = NULL;
	json_t *r;

	if (err && errlen)
		err[0] = '\0';
	if (cmd_is_local(c))
		return NULL;

	if (c->type == CMD_RAW) {
		json_error_t je;
		r = json_loads(c->raw, JSON_REJECT_DUPLICATES, &je);
		if (!r || !json_is_object(r)) {
			json_decref(r);
			fail(err, errlen, "raw: not a JSON object (%s)", r ? "not an object" : je.text);
			return NULL;
		}
		if (!json_object_get(r, "id"))
			json_object_set_new(r, "id", json_integer(id));
		return r;
	}

	switch (c->type) {
	case CMD_MOVE: case CMD_QUIET: case CMD_ANY: case CMD_RESIGN: case CMD_DRAW:
	case CMD_ABORT: case CMD_GAME: case CMD_POSSIBLE:
		if (game < 0) {
			fail(err, errlen, "no current game (see \"games\" and \"switch\")");
			return NULL;
		}
		break;
	case CMD_LOGIN: case CMD_REGISTER:
		if (c->argc < 2) {
			fail(err, errlen, "%s needs a password", cmd_name(c->type));
			return NULL;
		}
		break;
	case CMD_RECORD:
		if (!c->view[0]) {
			fail(err, errlen, "record: which view? (white, black or umpire)");
			return NULL;
		}
		break;
	case CMD_ACCEPT: case CMD_DECLINE: case CMD_CANCEL:
		if (c->number < 0) {
			fail(err, errlen, "which offer? (a number; see \"seeks\")");
			return NULL;
		}
		break;
	default:
		break;
	}

	r = json_object();
	json_object_set_new(r, "id", json_integer(id));
	switch (c->type) {
	case CMD_LOGIN:
	case CMD_REGISTER:
		type = c->type == CMD_LOGIN ? "login" : "register";
		json_object_set_new(r, "user", json_string(c->argv[0]));
		json_object_set_new(r, "password", json_string(c->argv[1]));
		break;
	case CMD_GUEST: type = "guest"; break;
	case CMD_RESUME:
		type = "resume";
		json_object_set_new(r, "token", json_string(c->argv[0]));
		break;
	case CMD_HISTORY:
		type = "history";
		if (c->argc == 1)
			json_object_set_new(r, "user", json_string(c->argv[0]));
		break;
	case CMD_RECORD:
	case CMD_PGN:
		type = c->type == CMD_RECORD ? "record" : "pgn";
		json_object_set_new(r, "game", json_integer(c->number));
		if (c->view[0])
			json_object_set_new(r, "view", json_string(c->view));
		break;
	case CMD_LOGOUT: type = "logout"; break;
	case CMD_PING: type = "ping"; break;
	case CMD_WHO: type = "who"; break;
	case CMD_SEEKS: type = "seeks"; break;
	case CMD_GAMES: type = "games"; break;
	case CMD_SEEK:
	case CMD_CHALLENGE:
		type = c->type == CMD_SEEK ? "seek" : "challenge";
		if (c->type == CMD_CHALLENGE)
			json_object_set_new(r, "user", json_string(c->argv[0]));
		if (c->rules[0])
			json_object_set_new(r, "rules", json_string(c->rules));
		if (c->days)
			json_object_set_new(r, "time", json_pack("{s:I}", "days", (json_int_t)c->days));
		else if (c->base || c->inc)
			json_object_set_new(r, "time", json_pack("{s:I,s:I}", "base", (json_int_t)c->base,
			                                         "inc", (json_int_t)c->inc));
		json_object_set_new(r, "color", json_string(c->color));
		json_object_set_new(r, "rated", json_boolean(c->rated));
		break;
	case CMD_ACCEPT: type = "accept"; goto offer;
	case CMD_DECLINE: type = "decline"; goto offer;
	case CMD_CANCEL: type = "cancel";
	offer:
		json_object_set_new(r, "offer", json_integer(c->number));
		break;
	case CMD_MOVE:
		type = "move";
		json_object_set_new(r, "game", json_integer(game));
		if (c->argc == 1)
			json_object_set_new(r, "move", json_string(c->argv[0]));
		else
			json_object_set_new(r, "moves", moves_array(c));
		break;
	case CMD_QUIET:
		type = "quiet";
		json_object_set_new(r, "game", json_integer(game));
		json_object_set_new(r, "moves", moves_array(c));
		break;
	case CMD_ANY: type = "any"; goto game;
	case CMD_RESIGN: type = "resign"; goto game;
	case CMD_ABORT: type = "abort"; goto game;
	case CMD_GAME: type = "game"; goto game;
	case CMD_POSSIBLE: type = "possible"; goto game;
	case CMD_DRAW:
		type = "draw";
		json_object_set_new(r, "action", json_string(c->draw == DRAW_ACCEPT ? "accept"
		                                             : c->draw == DRAW_DECLINE ? "decline" : "offer"));
	game:
		json_object_set_new(r, "game", json_integer(game));
		break;
	default:
		json_decref(r);
		fail(err, errlen, "not a server command");
		return NULL;
	}
	json_object_set_new(r, "type", json_string(type));
	return r;
}
