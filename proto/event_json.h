/*
 * event_json.h — struct event <-> the JSON object of the wire protocol
 * (proto/PROTOCOL.md, "Announcements").  kriegd, krieg and krieg-referee
 * all use this one codec, so both ends read and write the same objects.
 *
 * The encoder writes only what the event holds: a redacted copy (no move)
 * has no "move" key, a capture without a piece kind has no "what" key.
 * It writes text (jsonline.h), the form the server sends without building
 * a tree on the try path; the tree is that text parsed, so the two never
 * differ (tests/unit/test_event_json.c checks the text is jansson's own).
 */
#ifndef KRIEG_EVENT_JSON_H
#define KRIEG_EVENT_JSON_H

#include <jansson.h>

#include "event.h"
#include "ruleset.h"

struct jsonline_out;

/*
 * The announcement object of e as text, the one place its form is made:
 * {"event": NAME, "by": "white", "ply": n, "audience": ["white","umpire"],
 * ...fields..., "say": text — from the '{' on, WITHOUT the closing '}', so
 * that the server can add its own members (server/announce.h) to the
 * line it sends.  rs NULL leaves "say" out.  Returns 0, or -1 for an
 * event of unknown type (nothing written).
 */
int event_json_put(struct jsonline_out *o, const struct event *e, const struct ruleset *rs);

/*
 * The same object as a tree (event_json_put's text, parsed), with
 * "game": id last; game_id < 0 leaves it out (krieg-referee).  Returns a
 * new reference, or NULL for an event of unknown type.
 */
json_t *event_to_json(const struct event *e, const struct ruleset *rs, int game_id);

/* An audience set (AUD_* bits) as the array of names both forms write,
 * e.g. ["white","umpire"]: for the umpire's copies, which name who else
 * was told.  Returns a new reference. */
json_t *event_json_audience(unsigned aud);

/*
 * The reverse, for the client and the tests: fills *e from an announcement
 * object.  Unknown keys ("game", "say", "clock", ...) are ignored; a known
 * key of the wrong type or value is an error.  A missing "audience" leaves
 * e->audience 0.  Returns 0, or -1 with *e zeroed.
 */
int event_from_json(const json_t *o, struct event *e);

/* The wire error code (proto.h names) for a referee status: "notation",
 * "not_your_turn", "game_over", "illegal_action", "bad_request"; "internal"
 * for an unknown status. */
const char *event_json_error_code(int referee_status);

/* {"event":"error","code":CODE,"detail":referee_status_name,"message":msg},
 * the object krieg-referee writes for a refused action. */
json_t *event_json_error(int referee_status, const char *message);

#endif
