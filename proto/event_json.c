/*
 * event_json.c — the announcement codec (see event_json.h).
 */
#include "event_json.h"

#include <string.h>

#include "jsonline.h"
#include "notation.h"
#include "referee.h"

#define SAY_MAX 160

/* Room for any announcement object as event_to_json writes it: "say" is
 * under SAY_MAX, the rest is a few dozen short fields. */
#define EVENT_JSON_MAX 1024

static const char *color_name(int c)
{
	return c == WHITE ? "white" : c == BLACK ? "black" : NULL;
}

static void put_key_str(struct jsonline_out *o, const char *key, const char *v)
{
	jsonline_put_key(o, key);
	jsonline_put_str(o, v, strlen(v));
}

static void put_key_square(struct jsonline_out *o, const char *key, int sq)
{
	char name[3];
	square_name(sq, name);
	put_key_str(o, key, name);
}

json_t *event_json_audience(unsigned aud)
{
	json_t *a = json_array();
	for (size_t i = 0; i < AUD_COUNT; i++)
		if (aud & audience_bits[i])
			json_array_append_new(a, json_string(audience_name(audience_bits[i])));
	return a;
}

int event_json_put(struct jsonline_out *o, const struct event *e, const struct ruleset *rs)
{
	const char *name = event_type_name(e->type);
	if (name == NULL)
		return -1;
	jsonline_put(o, "{", 1);
	put_key_str(o, "event", name);
	if (color_name(e->by))
		put_key_str(o, "by", color_name(e->by));
	jsonline_put_key(o, "ply");
	jsonline_put_int(o, e->ply);
	jsonline_put_key(o, "audience");
	jsonline_put(o, "[", 1);
	for (size_t i = 0, n = 0; i < AUD_COUNT; i++)
		if (e->audience & audience_bits[i]) {
			if (n++ > 0)
				jsonline_put(o, ",", 1);
			const char *who = audience_name(audience_bits[i]);
			jsonline_put_str(o, who, strlen(who));
		}
	jsonline_put(o, "]", 1);

	if (e->move != MOVE_NONE) {
		char uci[NOTATION_MAX];
		notation_uci(e->move, uci);
		put_key_str(o, "move", uci);
		if (e->san[0]) {
			jsonline_put_key(o, "san");
			jsonline_put_str(o, e->san, strnlen(e->san, sizeof e->san));
		}
	}
	switch (e->type) {
	case EV_CAPTURE:
		if (e->square >= 0 && e->square < 64)
			put_key_square(o, "square", e->square);
		if (captured_kind_name(e->what))
			put_key_str(o, "what", captured_kind_name(e->what));
		if (e->en_passant) {
			jsonline_put_key(o, "en_passant");
			jsonline_put(o, "true", 4);
		}
		break;
	case EV_DROP:
		if (captured_kind_name(e->what))
			put_key_str(o, "what", captured_kind_name(e->what));
		break;
	case EV_CHECK:
		jsonline_put_key(o, "checks");
		jsonline_put(o, "[", 1);
		for (int i = 0, n = 0; i < 2; i++)
			if (check_dir_name(e->checks[i])) {
				if (n++ > 0)
					jsonline_put(o, ",", 1);
				const char *dir = check_dir_name(e->checks[i]);
				jsonline_put_str(o, dir, strlen(dir));
			}
		jsonline_put(o, "]", 1);
		/* the square of the capture made with the checking move, if all heard it */
		if (e->square >= 0 && e->square < 64)
			put_key_square(o, "square", e->square);
		break;
	case EV_PAWN_TRIES:
	case EV_ILLEGAL_COUNT:
	case EV_QUIET_ENDED:
		jsonline_put_key(o, "count");
		jsonline_put_int(o, e->count);
		break;
	case EV_PAWN_CAPTURES:
		jsonline_put_key(o, "available");
		if (e->answer != 0)
			jsonline_put(o, "true", 4);
		else
			jsonline_put(o, "false", 5);
		break;
	case EV_PAWN_SQUARES:
		/* in square order, a1 first: the order says nothing */
		jsonline_put_key(o, "squares");
		jsonline_put(o, "[", 1);
		for (int sq = 0, n = 0; sq < 64; sq++) {
			char sqn[3];
			if (!(e->squares >> sq & 1))
				continue;
			if (n++ > 0)
				jsonline_put(o, ",", 1);
			square_name(sq, sqn);
			jsonline_put_str(o, sqn, 2);
		}
		jsonline_put(o, "]", 1);
		break;
	case EV_ANY:
		put_key_str(o, "answer", any_answer_name(e->answer) ? any_answer_name(e->answer) : "no");
		break;
	case EV_GAME_OVER:
		put_key_str(o, "result", game_result_name(e->result) ? game_result_name(e->result) : "*");
		if (game_reason_name(e->reason))
			put_key_str(o, "reason", game_reason_name(e->reason));
		break;
	default:
		break;
	}
	if (rs != NULL) {
		char say[SAY_MAX];
		ruleset_say(rs, e, say, sizeof say);
		put_key_str(o, "say", say);
	}
	return 0;
}

json_t *event_to_json(const struct event *e, const struct ruleset *rs, int game_id)
{
	char buf[EVENT_JSON_MAX];
	struct jsonline_out o = { .buf = buf, .size = sizeof buf, .used = 0 };
	if (event_json_put(&o, e, rs) != 0)
		return NULL;
	if (game_id >= 0) {
		jsonline_put_key(&o, "game");
		jsonline_put_int(&o, game_id);
	}
	jsonline_put(&o, "}", 1);
	if (o.used > o.size)
		return NULL;
	return json_loadb(buf, o.used, 0, NULL);
}

/* ------------------------------------------------------------------ */

static int get_str(const json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);
	*out = NULL;
	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

static int get_int(const json_t *o, const char *key, long lo, long hi, long *out, bool *present)
{
	json_t *v = json_object_get(o, key);
	*present = v != NULL;
	if (v == NULL)
		return 0;
	if (!json_is_integer(v))
		return -1;
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi)
		return -1;
	*out = (long)x;
	return 0;
}

/* A move in coordinates.  The codec sees no board, so the kind comes from
 * the text: a fifth letter is a promotion, a SAN "O-O" a castling; an en
 * passant reads as a normal move.  That is all a view needs (from, to,
 * promotion piece, castling). */
static int parse_uci(const char *s, const char *san, move_t *m)
{
	size_t n = strlen(s);
	if (n == 4 && s[1] == '@') {
		/* a drop, "N@f3" (crazykrieg) */
		int type = piece_from_letter(s[0]), to = square_parse((char[3]){ s[2], s[3], 0 });
		if (s[0] < 'A' || s[0] > 'Z' || type > QUEEN || to == SQ_NONE ||
		    (type == PAWN && (to < 8 || to >= 56)))
			return -1;
		*m = move_make_drop(type, to);
		return 0;
	}
	if (n != 4 && n != 5)
		return -1;
	int from = square_parse((char[3]){ s[0], s[1], 0 });
	int to = square_parse((char[3]){ s[2], s[3], 0 });
	if (from == SQ_NONE || to == SQ_NONE || from == to)
		return -1;
	if (n == 5) {
		int p;
		switch (s[4]) {
		case 'n': p = KNIGHT; break;
		case 'b': p = BISHOP; break;
		case 'r': p = ROOK; break;
		case 'q': p = QUEEN; break;
		default: return -1;
		}
		*m = move_make(from, to, MOVE_PROMOTION, p);
		return 0;
	}
	if (san && (strncmp(san, "O-O", 3) == 0 || strncmp(san, "0-0", 3) == 0))
		*m = move_make(from, to, MOVE_CASTLING, KNIGHT);
	else
		*m = move_make(from, to, MOVE_NORMAL, KNIGHT);
	return 0;
}

int event_from_json(const json_t *o, struct event *e)
{
	const char *s, *san = NULL;
	long x;
	bool have;

	memset(e, 0, sizeof *e);
	e->by = -1;
	e->square = -1;
	if (!json_is_object(o))
		goto bad;
	if (get_str(o, "event", &s) || s == NULL || event_type_parse(s) <= 0)
		goto bad;
	e->type = (uint8_t)event_type_parse(s);

	if (get_str(o, "by", &s))
		goto bad;
	if (s) {
		if (strcmp(s, "white") == 0)
			e->by = WHITE;
		else if (strcmp(s, "black") == 0)
			e->by = BLACK;
		else
			goto bad;
	}
	if (get_int(o, "ply", 0, 65535, &x, &have))
		goto bad;
	if (have)
		e->ply = (uint16_t)x;

	json_t *aud = json_object_get(o, "audience");
	if (aud) {
		size_t i;
		json_t *v;
		if (!json_is_array(aud))
			goto bad;
		json_array_foreach(aud, i, v) {
			int bit = json_is_string(v) ? audience_parse(json_string_value(v)) : -1;
			if (bit < 0)
				goto bad;
			e->audience |= (uint8_t)bit;
		}
	}

	if (get_str(o, "san", &san))
		goto bad;
	if (san) {
		if (strlen(san) >= sizeof e->san)
			goto bad;
		memcpy(e->san, san, strlen(san) + 1);
	}
	if (get_str(o, "move", &s))
		goto bad;
	if (s && parse_uci(s, san, &e->move))
		goto bad;

	switch (e->type) {
	case EV_CAPTURE:
		if (get_str(o, "square", &s))
			goto bad;
		if (s) {
			int sq = square_parse(s);
			if (sq == SQ_NONE)
				goto bad;
			e->square = (int8_t)sq;
		}
		if (get_str(o, "what", &s))
			goto bad;
		if (s) {
			int w = captured_kind_parse(s);
			if (w < 0)
				goto bad;
			e->what = (uint8_t)w;
		}
		if (json_object_get(o, "en_passant")) {
			if (!json_is_boolean(json_object_get(o, "en_passant")))
				goto bad;
			e->en_passant = json_is_true(json_object_get(o, "en_passant"));
		}
		break;
	case EV_CHECK: {
		json_t *a = json_object_get(o, "checks"), *v;
		size_t i;
		if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > 2)
			goto bad;
		if (get_str(o, "square", &s))
			goto bad;
		if (s) {
			int sq = square_parse(s);
			if (sq == SQ_NONE)
				goto bad;
			e->square = (int8_t)sq;
		}
		json_array_foreach(a, i, v) {
			int d = json_is_string(v) ? check_dir_parse(json_string_value(v)) : -1;
			if (d <= 0)
				goto bad;
			e->checks[i] = (uint8_t)d;
		}
		break;
	}
	case EV_DROP: {
		int w = -1;
		if (get_str(o, "what", &s))
			goto bad;
		if (s)
			w = captured_kind_parse(s);
		if (captured_type(w) == PIECE_NONE)
			goto bad; /* a drop names its man */
		e->what = (uint8_t)w;
		break;
	}
	case EV_PAWN_TRIES:
	case EV_ILLEGAL_COUNT:
	case EV_QUIET_ENDED:
		if (get_int(o, "count", 0, 32767, &x, &have) || !have)
			goto bad;
		e->count = (int16_t)x;
		break;
	case EV_PAWN_CAPTURES: {
		json_t *v = json_object_get(o, "available");
		if (!json_is_boolean(v))
			goto bad;
		e->answer = json_is_true(v);
		break;
	}
	case EV_PAWN_SQUARES: {
		json_t *a = json_object_get(o, "squares"), *v;
		size_t i;
		if (!json_is_array(a) || json_array_size(a) > 8)
			goto bad;
		json_array_foreach(a, i, v) {
			int sq = json_is_string(v) ? square_parse(json_string_value(v)) : SQ_NONE;
			if (sq == SQ_NONE || (e->squares >> sq & 1))
				goto bad;
			e->squares |= 1ULL << sq;
		}
		break;
	}
	case EV_ANY: {
		int a;
		if (get_str(o, "answer", &s) || s == NULL || (a = any_answer_parse(s)) < 0)
			goto bad;
		e->answer = (uint8_t)a;
		break;
	}
	case EV_GAME_OVER: {
		int r;
		if (get_str(o, "result", &s) || s == NULL || (r = game_result_parse(s)) < 0)
			goto bad;
		e->result = (uint8_t)r;
		if (get_str(o, "reason", &s))
			goto bad;
		if (s) {
			if ((r = game_reason_parse(s)) <= 0)
				goto bad;
			e->reason = (uint8_t)r;
		}
		break;
	}
	default:
		break;
	}
	return 0;
bad:
	memset(e, 0, sizeof *e);
	return -1;
}

const char *event_json_error_code(int status)
{
	switch (status) {
	case REF_E_GAME_OVER: return "game_over";
	case REF_E_NOT_YOUR_TURN: return "not_your_turn";
	case REF_E_SYNTAX:
	case REF_E_NO_PIECE:
	case REF_E_AMBIGUOUS: return "notation";
	case REF_E_UNSUPPORTED:
	case REF_E_MUST_TRY_CAPTURE:
	case REF_E_ANY_ALREADY:
	case REF_E_ANY_TOO_EARLY:
	case REF_E_ALREADY_TRIED:
	case REF_E_TOO_MANY: return "illegal_action";
	case REF_E_BAD_ARGUMENT: return "bad_request";
	default: return "internal";
	}
}

json_t *event_json_error(int status, const char *message)
{
	json_t *o = json_object();
	json_object_set_new(o, "event", json_string("error"));
	json_object_set_new(o, "code", json_string(event_json_error_code(status)));
	json_object_set_new(o, "detail", json_string(referee_status_name(status)));
	json_object_set_new(o, "message", json_string(message ? message : ""));
	return o;
}
