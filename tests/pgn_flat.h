/*
 * pgn_flat.h — a PGN text read as one line, as a reader does (proto/PGN.md):
 * a line end is a space, but after an escape's '%', where pgn_write breaks
 * a long text.  Assertions on a record's words must not depend on where
 * its lines were broken.  Shared by test_pgn, test_umpire and the fuzzers'
 * pgn_check.h so that the three read a record alike.
 */
#ifndef KRIEG_TESTS_PGN_FLAT_H
#define KRIEG_TESTS_PGN_FLAT_H

/* Flattens s in place (it never grows); returns s. */
static inline char *pgn_flat(char *s)
{
	char *o = s;
	for (const char *q = s; *q; q++)
		if (*q != '\n')
			*o++ = *q;
		else if (q == s || q[-1] != '%')
			*o++ = ' ';
	*o = '\0';
	return s;
}

#endif
