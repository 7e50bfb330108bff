/*
 * line.c — splitting an action line into words (line.h).
 */
#include "line.h"

#include <string.h>

#include "board.h"

/* "e.p." / "ep", possibly followed by + # ! ? marks. */
static bool is_ep_suffix(const char *w)
{
	size_t n = strlen(w);
	while (n > 0 && strchr("+#!?", w[n - 1]))
		n--;
	return (n == 4 && strncmp(w, "e.p.", 4) == 0) || (n == 2 && strncmp(w, "ep", 2) == 0);
}

size_t line_split(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(line, " \t,;", &save); tok; tok = strtok_r(NULL, " \t,;", &save)) {
		if (n > 0 && is_ep_suffix(tok)) {
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
