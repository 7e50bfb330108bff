/*
 * line.h — an outgoing message encoded once: the bytes of one protocol
 * line, shared by every connection it goes to and held by a batch until
 * its commit (batch.h).  An announcement to both players and an umpire is
 * written once, not once a reader; an event is written straight into a
 * line with no JSON tree (server/announce.h), the try path's largest cost
 * while it had one (BENCHMARKS.md).
 *
 * Owns the encoding policy of every outgoing message (conn_send() applies
 * it too): a line over PROTO_LINE_MAX breaks the protocol for every
 * client, so it is never sent; it is logged as the bug it is, and a
 * response is replaced by an `internal` error with its id (an event is
 * dropped).
 *
 * Reference counted without atomics: lines are made, held, sent and freed
 * on the event loop's thread only (the store writer never sees one).
 */
#ifndef KRIEG_LINE_H
#define KRIEG_LINE_H

#include <jansson.h>
#include <stddef.h>

struct line;

/* Encode msg (stolen) into buf, which holds PROTO_LINE_MAX bytes: the
 * message, then room for the '\n' the caller puts at buf[n].  Returns the
 * length, 0 when there is nothing to send (msg NULL, or it cannot be
 * encoded; logged). */
size_t line_encode_into(json_t *msg, char *buf);

/* msg (stolen) as a new line (one reference); NULL when there is nothing
 * to send, as above. */
struct line *line_encode(json_t *msg);

/* A new line (one reference) of the text s, n bytes without the '\n',
 * which the caller wrote as jsonline_dump() would.  NULL (logged) when n
 * is 0 or the line would be over PROTO_LINE_MAX. */
struct line *line_new(const char *s, size_t n);

struct line *line_ref(struct line *l);
/* Drop a reference; the last one frees.  NULL is ignored. */
void line_unref(struct line *l);

/* The text, followed by its '\n' (line_len() does not count it). */
const char *line_text(const struct line *l);
size_t line_len(const struct line *l);

#endif
