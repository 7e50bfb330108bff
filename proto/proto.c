/*
 * proto.c — the stable wire names of the error codes (proto.h).  The table
 * is indexed by code; a retired code keeps its slot as NULL.
 */
#include "proto.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "referee.h"
#include "text.h"

int proto_tournament_name(const char *in, char *out, size_t len)
{
	char words[PROTO_TOURNAMENT_MAX + 1], norm[ACTION_REASON_MAX + 1];
	if (in == NULL || strlen(in) > PROTO_TOURNAMENT_MAX || len <= PROTO_TOURNAMENT_MAX ||
	    !text_words(in, words, sizeof words) || action_umpire_text(words, norm, sizeof norm) != REF_OK)
		return 0;
	snprintf(out, len, "%s", norm);
	return 1;
}

int proto_round_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > PROTO_ROUND_MAX || s[0] == '.' || s[n - 1] == '.' || strstr(s, "..") != NULL)
		return 0;
	return strspn(s, "0123456789.") == n;
}

static const char *const error_names[] = {
	[PE_NONE] = NULL,
	[PE_BAD_JSON] = "bad_json",
	[PE_LINE_TOO_LONG] = "line_too_long",
	[PE_UNKNOWN_TYPE] = "unknown_type",
	[PE_BAD_REQUEST] = "bad_request",
	[PE_VERSION] = "version",
	[PE_HELLO_FIRST] = "hello_first",
	[PE_NOT_LOGGED_IN] = "not_logged_in",
	[PE_AUTH_FAILED] = "auth_failed",
	[PE_USER_EXISTS] = "user_exists",
	[PE_BAD_NAME] = "bad_name",
	[PE_WEAK_PASSWORD] = "weak_password",
	[PE_RATE_LIMITED] = "rate_limited",
	[PE_NO_SUCH_USER] = "no_such_user",
	[PE_NO_SUCH_OFFER] = "no_such_offer",
	[PE_NO_SUCH_GAME] = "no_such_game",
	[PE_NOT_YOUR_TURN] = "not_your_turn",
	[PE_GAME_OVER] = "game_over",
	[PE_ILLEGAL_ACTION] = "illegal_action",
	[PE_NOTATION] = "notation",
	[PE_SERVER_FULL] = "server_full",
	[PE_STORAGE] = "storage",
	[PE_INTERNAL] = "internal",
	[PE_BUSY] = "busy",
	[PE_FLAGGED] = "flagged",
	[PE_FORBIDDEN] = "forbidden",
	[PE_ACCOUNT_DISABLED] = "account_disabled",
	[PE_RETRY_AFTER] = "retry_after",
	[PE_REGISTRATION_CLOSED] = "registration_closed",
	[PE_INVITE_REQUIRED] = "invite_required",
	[PE_BAD_INVITE] = "bad_invite",
	[PE_GUESTS_DISABLED] = "guests_disabled",
	[PE_PASSWORD_CHANGE_REQUIRED] = "password_change_required",
};

#define NERRORS ((int)(sizeof error_names / sizeof error_names[0]))

const char *proto_error_name(int code)
{
	if (code <= 0 || code >= NERRORS)
		return NULL;
	return error_names[code];
}

int proto_error_parse(const char *name)
{
	if (name == NULL)
		return PE_NONE;
	for (int i = 1; i < NERRORS; i++)
		if (error_names[i] != NULL && strcmp(error_names[i], name) == 0)
			return i;
	return PE_NONE;
}

size_t proto_name_skeleton(const char *name, char *out, size_t len)
{
	size_t n = 0, stem = 0;

	for (const char *p = name; *p != '\0' && n + 1 < len; p++) {
		char raw = *p, ch = (char)tolower((unsigned char)raw), next = (char)tolower((unsigned char)p[1]);
		if (ch == '_' || ch == '-')
			continue;
		if (ch == 'r' && next == 'n') {   /* two letters that read as one (p[1] is no NUL) */
			ch = 'm';
			p++;
		} else if (ch == 'v' && next == 'v') {
			ch = 'w';
			p++;
		} else {
			ch = ch == '1' || ch == 'l' ? 'i' : ch == '0' ? 'o' : ch == '3' ? 'e' : ch == '5' ? 's' : ch;
		}
		out[n++] = ch;
		/* the stem ends after the last character that is not a digit or one's look-alike */
		if (!isdigit((unsigned char)raw) && raw != 'l' && raw != 'I' && raw != 'O')
			stem = n;
	}
	out[n] = '\0';
	return stem;
}

void proto_name_look(const char *name, char *out, size_t len)
{
	size_t n = 0;

	for (const char *p = name; *p != '\0' && n + 1 < len; p++) {
		char ch = *p;
		if (ch == '_' || ch == '-')
			continue;
		if ((ch == 'r' && p[1] == 'n') || (tolower((unsigned char)ch) == 'v' && tolower((unsigned char)p[1]) == 'v')) {
			ch = ch == 'r' ? 'm' : 'w';   /* two letters that look one (p[1] no NUL) */
			p++;
		} else if (ch == 'I' || ch == 'l' || ch == '1') {
			ch = '|';   /* one stroke: out of case folding's reach ('L' and 'i' are not it) */
		} else if (ch == 'O' || ch == '0') {
			ch = '0';   /* a ring: 'o' is not it */
		} else {
			ch = (char)tolower((unsigned char)ch);   /* names are one in any case */
		}
		out[n++] = ch;
	}
	out[n] = '\0';
}
