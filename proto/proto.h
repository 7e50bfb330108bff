/*
 * proto.h — the wire protocol's constants, shared by kriegd, krieg and the
 * tests.  proto/PROTOCOL.md is the contract; this header must agree with it.
 * Error codes are stored and parsed by peers: never renumber, never reuse;
 * a retired code keeps its number as a gap.
 */
#ifndef KRIEG_PROTO_H
#define KRIEG_PROTO_H

#include <stddef.h>

#define PROTO_VERSION 1
#define KRIEG_RELEASE "0.1"         /* the software's version: kriegd, krieg, krieg-bot, krieg-referee */
#define PROTO_LINE_MAX 16384        /* bytes in one line, including the '\n' */
#define PROTO_ID_MAX 64             /* a string request id's length */
#define PROTO_NAME_MAX 24           /* user names: [A-Za-z0-9_-], 3..24 */
#define PROTO_NAME_MIN 3
#define PROTO_PASSWORD_MIN 8
#define PROTO_PASSWORD_MAX 256
#define PROTO_TOKEN_LEN 43          /* resume tokens: 32 random bytes, base64url, no padding */
#define PROTO_TOURNAMENT_MAX 64     /* a pairing's tournament name (PGN's Event), bytes */
#define PROTO_ROUND_MAX 16          /* its round (PGN's Round): digits and dots, "3", "2.1" */

enum proto_error {
	PE_NONE = 0,
	PE_BAD_JSON = 1,          /* not JSON, not an object, invalid UTF-8 */
	PE_LINE_TOO_LONG = 2,     /* over PROTO_LINE_MAX; the connection is closed */
	PE_UNKNOWN_TYPE = 3,
	PE_BAD_REQUEST = 4,       /* a field missing, of the wrong type, too long, or unknown */
	PE_VERSION = 5,           /* hello with a protocol version we do not speak */
	PE_HELLO_FIRST = 6,       /* a request before hello */
	PE_NOT_LOGGED_IN = 7,
	PE_AUTH_FAILED = 8,       /* wrong user or password, or unknown/expired token */
	PE_USER_EXISTS = 9,
	PE_BAD_NAME = 10,
	PE_WEAK_PASSWORD = 11,
	PE_RATE_LIMITED = 12,
	PE_NO_SUCH_USER = 13,
	PE_NO_SUCH_OFFER = 14,    /* seek or challenge */
	PE_NO_SUCH_GAME = 15,     /* also: a game you may not see (no existence oracle) */
	PE_NOT_YOUR_TURN = 16,
	PE_GAME_OVER = 17,
	PE_ILLEGAL_ACTION = 18,   /* the rule set or the game state forbids this action now */
	PE_NOTATION = 19,         /* not a move, no own piece can make it, or ambiguous */
	PE_SERVER_FULL = 20,
	PE_STORAGE = 21,          /* the database refused; nothing was changed */
	PE_INTERNAL = 22,
	PE_BUSY = 23,             /* try again shortly (e.g. password hashing queue full) */
	PE_FLAGGED = 24,          /* the game's record failed its check at start: not played on,
	                             nothing replayed from it (only its stored announcements) */
	PE_FORBIDDEN = 25,        /* the account's role (or its part in a live game) forbids it */
	PE_ACCOUNT_DISABLED = 26, /* login or resume of a disabled account */
	PE_RETRY_AFTER = 27,      /* refused for now (login back-off, registration rate): the
	                             error's "retry_after" says in how many seconds to try again */
	PE_REGISTRATION_CLOSED = 28, /* `register` on a server whose registration policy is closed */
	PE_INVITE_REQUIRED = 29,  /* `register` without an invite code under the invite policy */
	PE_BAD_INVITE = 30,       /* an invite code that is unknown, used or expired */
	PE_GUESTS_DISABLED = 31,  /* `guest` on a server with guests = off */
	PE_PASSWORD_CHANGE_REQUIRED = 32, /* a login an admin's reset left waiting: only `passwd`
	                             (or another login) until the password is changed */
};
/* The highest code in use: a new code goes after it and moves this along. */
#define PE_LAST PE_PASSWORD_CHANGE_REQUIRED

/* Stable wire name ("bad_json", "line_too_long", ...) or NULL. */
const char *proto_error_name(int code);
/* Reverse of proto_error_name(); PE_NONE if unknown. */
int proto_error_parse(const char *name);

/* Is s a pairing's round (PGN's Round): 1..PROTO_ROUND_MAX bytes of digits
 * and dots, "3" or "2.1", no dot first, last or twice in a row?  kriegd
 * refuses any other, and krieg says so before sending it. */
int proto_round_ok(const char *s);

/* A tournament's name as kriegd keeps it: a person's words (common/text.h:
 * no control or direction-changing characters), spaces at the ends dropped
 * and runs of spaces made one, 1..PROTO_TOURNAMENT_MAX bytes.  Into out
 * (len > PROTO_TOURNAMENT_MAX); 0 if there is none such. */
int proto_tournament_name(const char *in, char *out, size_t len);

/* What an account name (ASCII: [A-Za-z0-9_-]) reads as, as a reserved
 * word is matched (PROTOCOL.md "register"), into out (len >
 * PROTO_NAME_MAX): lower case, '_' and '-' left out, and what passes for
 * another character, to the eye or as a digit written for a letter, taken
 * as it: 1, l and I read as i; 0 as o; 3 as e; 5 as s; rn as m; vv as w.
 * Returns the length of its stem: the skeleton without the characters at
 * its end that were digits or look like them (l, I, O): "umpire2",
 * "Adminl". */
size_t proto_name_skeleton(const char *name, char *out, size_t len);

/* What an account name looks like, into out (len > PROTO_NAME_MAX): '_'
 * and '-' left out, the characters a person cannot tell apart made one
 * before case is folded (I, l and 1 one stroke '|'; O and 0 one ring '0';
 * rn as m; vv as w), then the rest in lower case, as names are one in any
 * case.  Two registered names that look the same are one name (`aIice`,
 * `AIice`, `a1ice` and `alice_` look as `alice`, `BiII` as `bill`, `rnary`
 * as `Mary`; `Ella` and `Elia`, `Lisa` and `Iisa`, `bob` and `b0b` do
 * not).  Narrower than proto_name_skeleton's reading, which would keep
 * apart no people whose names are only alike. */
void proto_name_look(const char *name, char *out, size_t len);

#endif
