/*
 * jsonline.h — a jansson object or array written as one compact JSON text:
 * the daemon's every outgoing line (server/line.c), and the same text
 * written piece by piece where no tree is built (an event's line).
 *
 * The text is byte for byte what json_dumpb(j, buf, size, JSON_COMPACT)
 * writes (tests/unit/test_jsonline.c compares the two over random trees,
 * tests/fuzz/fuzz_jsonline.c over any parsed input).  Why not json_dumpb
 * itself: on the try path it cost about 61,000 instructions a try, more
 * than the referee, the request's parse and the TLS work together
 * (BENCHMARKS.md, "the try path counted in instructions").  Most of that
 * is work a line never needs: a cycle check per object and array that
 * formats the value's address with snprintf and inserts it into a hash
 * table, a UTF-8 decode of every character of every key and string, an
 * snprintf per integer.  jansson still builds, parses and owns every
 * value; this only walks the finished tree once.
 *
 * What it relies on: strings and keys are valid UTF-8 (jansson's checked
 * constructors and its parser guarantee that, and this code makes no
 * other kind), and the tree has no cycles (it stops at
 * JSONLINE_DEPTH_MAX).  Reals are rare in the protocol and written by
 * jansson itself, so their digits are jansson's.
 */
#ifndef KRIEG_JSONLINE_H
#define KRIEG_JSONLINE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Deeper than anything the daemon builds, and than jansson's parser
 * accepts (2,048); a deeper tree is refused, not walked. */
#define JSONLINE_DEPTH_MAX 4096

/*
 * Write j into buf (size bytes; no '\0' is added).  Returns the text's
 * length, which is over size when it did not fit (buf then holds an
 * unspecified prefix, never more than size bytes), or 0 when j cannot be
 * written: NULL, not an object or array, or nested deeper than
 * JSONLINE_DEPTH_MAX.  The same contract as json_dumpb with JSON_COMPACT.
 */
size_t jsonline_dump(const json_t *j, char *buf, size_t size);

/*
 * The same text written piece by piece, for a line built without a tree
 * (an announcement on the try path: proto/event_json.h, server/announce.h).
 * Like jsonline_dump, a piece is copied only if it fits and `used` counts
 * every byte, so the caller learns the whole length and checks it against
 * size.  Each piece is written exactly as jsonline_dump writes the value.
 */
struct jsonline_out {
	char *buf;
	size_t size;
	size_t used;
	char last;                   /* the text's last byte so far, stored or not */
};

/* s as it is (braces, brackets, literals the caller knows to be JSON). */
void jsonline_put(struct jsonline_out *o, const char *s, size_t n);
/* A string (UTF-8, as above) in quotes, escaped as jsonline_dump does. */
void jsonline_put_str(struct jsonline_out *o, const char *s, size_t n);
void jsonline_put_int(struct jsonline_out *o, int64_t v);
/* "key": of an object member, with the comma before it unless it is the
 * first member (the text so far ends in '{', whether or not it fit).  key
 * is a constant of the caller's in printable ASCII with no '"' or '\\':
 * it is copied as it is. */
void jsonline_put_key(struct jsonline_out *o, const char *key);

#endif
