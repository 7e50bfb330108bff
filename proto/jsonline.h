/*
 * jsonline.h — a jansson object or array written as one compact JSON text:
 * the daemon's every outgoing line (server/conn_out.c).
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

#endif
