/*
 * cmd.h — the commands, shared by the interactive prompt and --batch (one
 * command per line).
 *
 * Every command is one entry of one const table (after tmux's cmd_entry):
 * its word and usage line, how its words are read (parse), the protocol
 * request it becomes (request), what the client does with it before
 * sending or instead of sending (exec), and what it does with the answer
 * (done, refused).  cmd_parse(), cmd_request(), cmd_help() and the client's
 * dispatch (client.c) read the table; no other code lists the commands.
 *
 * Commands the client handles alone (ghosts, help, board, switch, wait,
 * quit) have no request hook: cmd_request() returns NULL for them, which is
 * how the tests prove that a ghost never reaches the server.
 */
#ifndef KRIEG_CMD_H
#define KRIEG_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "proto.h"

#define CMD_LINE_MAX 1024       /* longer command lines are refused */
#define CMD_ARGS_MAX 20         /* words in one command line */
#define CMD_ARG_MAX 272         /* bytes in one word (a password of PROTO_PASSWORD_MAX fits) */
#define CMD_REASON_MAX 200      /* an umpire's reason or note, in bytes (the wire's limit) */
#define CMD_ADDTIME_MAX 86400   /* seconds an umpire adds at once (the wire's limit) */
/* wait and sleep outside --batch (after "NAME: ") */
#define CMD_BATCH_ONLY "only in --batch (where each command waits for its answer)"

/* Names a command where code must single one out (main.c's wait and sleep, the tests). */
enum cmd_type {
	CMD_NONE = 0,      /* an empty line or a comment */
	CMD_HELP,
	CMD_QUIT,
	/* session */
	CMD_LOGIN, CMD_REGISTER, CMD_GUEST, CMD_LOGOUT, CMD_PING,
	CMD_RESUME,        /* resume TOKEN: what the client sends after reconnecting */
	CMD_PASSWD,        /* passwd [OLD [NEW]]: one's own password, or the one a reset login waits on */
	/* lobby */
	CMD_WHO, CMD_SEEKS, CMD_SEEK, CMD_CHALLENGE, CMD_ACCEPT, CMD_DECLINE, CMD_CANCEL,
	CMD_REMATCH,       /* rematch [GAME]: the same game again, colours swapped */
	CMD_STANDINGS,     /* standings [RULES]: the club table of a rating pool */
	CMD_TOURNAMENT,    /* tournament NAME...: a tournament's score table */
	CMD_PROFILE,       /* profile [USER]: a player's record and ratings */
	CMD_LOBBY,         /* lobby [on|off]: lobby_watch / lobby_unwatch */
	CMD_PLAY,          /* play OFFER: accept a seek */
	/* games */
	CMD_MOVE,          /* one try (args[0]) or, with several, a preference list */
	CMD_QUIET,         /* an "if quiet" sequence */
	CMD_ANY, CMD_RESIGN, CMD_DRAW, CMD_ABORT, CMD_GAMES, CMD_GAME, CMD_POSSIBLE, CMD_SWITCH,
	CMD_ADJOURN,       /* adjourn [offer|accept|decline] (PROTOCOL.md, "Adjournment") */
	CMD_UNADJOURN,
	/* history */
	CMD_HISTORY,       /* history [USER] */
	CMD_RECORD,        /* record GAME [VIEW] */
	CMD_PGN,           /* pgn GAME [VIEW] [> FILE] */
	/* watching (PROTOCOL.md, "Watching") */
	CMD_LIVE, CMD_WATCH, CMD_UMPIRE, CMD_UNWATCH,
	CMD_FOLLOW, CMD_UNFOLLOW,  /* follow [USER]: their games told (and watched); unfollow [USER] */
	/* the umpire's actions, on the chair's game */
	CMD_PAUSE, CMD_UNPAUSE, CMD_ADDTIME, CMD_ADJUDICATE,
	CMD_PAIR,          /* pair WHITE BLACK [TERMS] [round N] [tournament NAME...]: a director starts a game */
	CMD_UMPIRE_ABORT,  /* "abort REASON...": the entry is abort's; a reason makes it the umpire's */
	CMD_NOTE,
	CMD_ANNOUNCE,      /* announce [round N] TOURNAMENT: TEXT: a note to every live game of it */
	/* words between people (PROTOCOL.md, "Chat") */
	CMD_SAY, CMD_SPEC, CMD_TELL, CMD_MESSAGE, CMD_MESSAGES, CMD_MUTE, CMD_UNMUTE,
	/* an admin's (PROTOCOL.md, "Administration"); the rest through raw */
	CMD_INVITE, CMD_KICK, CMD_BROADCAST,
	/* local only */
	CMD_BOARD, CMD_TIME, CMD_PIECES, CMD_GHOST_PLACE, CMD_GHOST_MOVE, CMD_GHOST_CLEAR, CMD_WAIT, CMD_SLEEP,
	/* a JSON request line sent as it is (scripts, tests) */
	CMD_RAW,
};

enum draw_action { DRAW_OFFER = 0, DRAW_ACCEPT = 1, DRAW_DECLINE = 2, DRAW_DEFAULT = 3 };

struct cmd {
	const struct cmd_entry *entry;         /* NULL: an empty line or a comment */
	enum cmd_type type;                    /* entry->type, but "ghost" has three */
	int argc;                              /* positional words after the command word */
	char argv[CMD_ARGS_MAX][CMD_ARG_MAX];
	/* seek / challenge terms */
	char rules[32];                        /* "" = server default */
	long long base_ms, inc_ms;             /* the clock's base and increment, ms */
	long days;                             /* correspondence: days a move; all 0 = untimed */
	char color[8];                         /* "white", "black", "random" */
	bool rated;
	enum draw_action draw;
	long number;                           /* offer, game, seconds (wait/sleep); -1 = none;
	                                        * the umpire's actions: the chair's game (set by exec) */
	char view[8];                          /* record/pgn: "white", "black", "umpire", "" = default */
	char file[CMD_ARG_MAX];                /* pgn: where to write it ("" = show it) */
	char raw[CMD_LINE_MAX];                /* a verbatim entry (raw): the rest of the line */
	char invite[CMD_ARG_MAX];              /* register --invite CODE ("" = none) */
	/* the umpire's actions */
	long seconds;                          /* addtime */
	char result[8];                        /* adjudicate: "1-0", "0-1", "1/2-1/2" */
	bool public_note;                      /* note --public */
	char text[CMD_REASON_MAX + 1];         /* the reason, or the note's text */
	bool yes;                              /* resign / abort --yes: no confirmation asked */
	char round[PROTO_ROUND_MAX + 1];       /* pair, announce: the round ("" = none); pair's tournament is text */
	char tournament[PROTO_TOURNAMENT_MAX + 1];   /* announce: the tournament (text: the note) */
};

struct client;
struct pending;

struct cmd_entry {
	const char *name;       /* the word typed; the request's "type" */
	const char *usage;      /* the help line; "usage: ..." when the words do not fit */
	bool verbatim;          /* the rest of the line is one argument, in c->raw, not split */
	bool game;              /* about the current game: refused without one */
	enum cmd_type type;
	int min, max;           /* positional word counts */
	/* Check and read the words (counted already).  NULL: the words are all. */
	int (*parse)(struct cmd *c, char *err, size_t errlen);
	/* The request {id, ..., type} for game `game`, or NULL with err set.  NULL hook: a local command. */
	json_t *(*request)(const struct cmd *c, long long id, long game, char *err, size_t errlen);
	/*
	 * In the client: a local command's whole work; for the others what must
	 * be filled in or checked before sending (c and the pending record p
	 * may be changed).  0, CLIENT_QUIT, CLIENT_HANDLED (done here, nothing
	 * to send), or -1 after client_error().  NULL: nothing.
	 */
	int (*exec)(struct client *cl, struct cmd *c, struct pending *p);
	/* The server's answer: ok, or refused (after the refusal is shown).  NULL: nothing more. */
	void (*done)(struct client *cl, const json_t *res, const struct pending *p);
	void (*refused)(struct client *cl, const struct pending *p);
};

/* The i-th command of the table, NULL past the last (tests, help). */
const struct cmd_entry *cmd_entry_at(size_t i);

/*
 * Parse one line.  Returns 0, or -1 with a message in err.  A line whose
 * first word is not a command is read as moves: one word is a try,
 * several are a preference list.
 */
int cmd_parse(const char *line, struct cmd *c, char *err, size_t errlen);

/* Does this command stay inside the client (no request of its own)? */
bool cmd_is_local(const struct cmd *c);

/*
 * The protocol request for c, with request id `id` and current game
 * `game` (-1: none; game commands then fail with a message in err).
 * Returns a new reference, or NULL: for local commands (err empty) or on
 * error (err set).  raw returns the parsed object with `id` added if it
 * has none.
 */
json_t *cmd_request(const struct cmd *c, long long id, long game, char *err, size_t errlen);

/* Does this line carry a secret (login/register USER PASSWORD..., an invite code, passwd OLD...,
 * resume TOKEN)?  Such a line is kept out of the history. */
bool cmd_has_secret(const char *line);

/* The help text (all commands, one per line). */
const char *cmd_help(void);
#define CMD_HELP_MAX 8192   /* bytes of what help WORD says (cmd_help_about) */
bool cmd_help_about(const char *word, char *out, size_t len);

#endif
