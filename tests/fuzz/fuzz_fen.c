/*
 * fuzz_fen.c — fen_parse on any text.  A FEN it accepts must format back
 * to a FEN that parses to the same board, and format the same again (the
 * writer's output is the canonical form).
 */
#include "board.h"
#include "fen.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	char err[160], out[FEN_MAX], again[FEN_MAX];
	struct board b, b2;

	if (fen_parse(text, &b, err, sizeof err) == 0) {
		fen_format(&b, out, sizeof out);
		FUZZ_ASSERT(fen_parse(out, &b2, err, sizeof err) == 0, "%s: %s", out, err);
		fen_format(&b2, again, sizeof again);
		FUZZ_ASSERT(strcmp(out, again) == 0, "%s -> %s", out, again);
		FUZZ_ASSERT(board_compute_key(&b) == board_compute_key(&b2), "%s", out);
	} else {
		FUZZ_ASSERT(err[0] != '\0', "no message for a refused FEN");
	}
	free(text);
	return 0;
}
