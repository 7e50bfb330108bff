/*
 * line.c — splitting an action line into words (line.h).
 */
#include "line.h"

#include <string.h>

#include "board.h"
#include "notation.h"

size_t line_split(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(line, " \t,;", &save); tok; tok = strtok_r(NULL, " \t,;", &save)) {
		if (n > 0 && notation_is_ep_word(tok)) {   /* as notation_join_list() */
			/* Move the suffix left against the end of the previous word;
			 * it only moves towards text already read, so the rest of
			 * the line (after tok) is untouched. */
			char *end = words[n - 1] + strlen(words[n - 1]);
			memmove(end, tok, strlen(tok) + 1);
			continue;
		}
		if (n == max)
			return max + 1;
		words[n++] = tok;
	}
	return n;
}

int line_side(const char *word)
{
	if (strcmp(word, "white") == 0)
		return WHITE;
	if (strcmp(word, "black") == 0)
		return BLACK;
	return -1;
}
