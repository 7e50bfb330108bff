/*
 * krieg-referee — the umpire on stdin/stdout, for scripts, tests and
 * post-mortems.  Reads one action per line, acted by the side to move
 * (line.h: the line becomes a struct action, applied by referee_apply as
 * every record's action is), and writes every resulting announcement as
 * one JSON line, exactly the object kriegd sends (proto/event_json.h),
 * with its audience.
 *
 *   krieg-referee [--rules NAME] [--fen FEN] [--pov white|black|umpire|spectator]
 *   krieg-referee perft DEPTH [FEN]
 *   krieg-referee pgn [--pov P] FILE|-    (replay a Kriegspiel PGN; pgn_cmd.h)
 *   krieg-referee topgn [options] < actions (write one; pgn_cmd.h)
 *
 * Actions: a try in any accepted notation; several tries on one line
 * (spaces or commas) = a preference list (nost), a spaced "e.p." going with
 * the move before it; "any"; "quiet M1 M2 ..."; "resign" (the side to
 * move) or "resign white|black" (either side, as a record may need);
 * "draw" or "draw white|black" (a draw offer, accepting the opponent's
 * standing one, as kriegd's `draw`); "possible" (the mover's possible
 * attempts, a tool-only line).  What kriegd would refuse between actions
 * is refused too (line_record: e.g. an offer made twice).  Empty lines and lines starting with '#'
 * are skipped.  A refused action prints {"event":"error",...} (under
 * --pov only to the side that acted, or the umpire: its words are the
 * mover's) and changes nothing; so does a line too long or holding a NUL
 * byte (an answer about the input, whatever --pov says).  An error names
 * its input line ("line": N).  A draw offer or its refusal prints kriegd's
 * notice (draw_offer, draw_declined: line_notice).
 * Exit 0 at end of input, 1 when the output cannot be written or the
 * input read, 2 on a usage error.
 */
#include <errno.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "action.h"
#include "event_json.h"
#include "fen.h"
#include "line.h"
#include "proto.h"
#include "movegen.h"
#include "notation.h"
#include "pgn_cmd.h"
#include "referee.h"
#include "ruleset.h"

#define LINE_MAX_BYTES 1024   /* longer input lines are refused whole */
#define PERFT_DEPTH_MAX 10

static void usage(FILE *f)
{
	fputs("usage: krieg-referee [--rules NAME] [--fen FEN] [--pov white|black|umpire|spectator]\n"
	      "       krieg-referee perft DEPTH [FEN]\n"
	      "       krieg-referee pgn [--pov white|black|umpire|spectator] FILE|-\n"
	      "       krieg-referee topgn [--rules NAME] [--fen FEN] [--view white|black|umpire|spectator]\n"
	      "                           [--white NAME] [--black NAME] [--event E] [--site S] [--date D]\n"
	      "       krieg-referee --version | --help\n"
	      "actions, one a line on stdin: a move (e.g. e4, Nf3, exd6 e.p., O-O); several moves\n"
	      "  (a preference list, nost); any; quiet M1 M2 ...; resign [white|black];\n"
	      "  draw [white|black] (an offer; offering back accepts); possible\n"
	      "rule sets:",
	      f);
	for (size_t i = 0; i < ruleset_count(); i++)
		fprintf(f, " %s", ruleset_at(i)->name);
	fputc('\n', f);
}

/* One line of what every view hears (pgn_cmd_print_heard, pov 0). */
static void print_json(json_t *o)
{
	pgn_cmd_print_heard(o, 0, 0);
}

/* A usage error: what was wrong, then the usage (it printed the usage
 * alone: referee probe). */
static int usage_error(const char *what, const char *word)
{
	fprintf(stderr, "krieg-referee: %s '%s'\n", what, word);
	usage(stderr);
	return 2;
}

static int run_perft(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "krieg-referee: perft needs a DEPTH\n");
		usage(stderr);
		return 2;
	}
	if (argc > 4)
		return usage_error("unexpected word", argv[4]);
	char *end;
	errno = 0;
	long depth = strtol(argv[2], &end, 10);
	if (errno || end == argv[2] || *end || depth < 0 || depth > PERFT_DEPTH_MAX) {
		fprintf(stderr, "krieg-referee: perft depth must be 0..%d\n", PERFT_DEPTH_MAX);
		return 2;
	}
	struct board b;
	char err[128];
	if (fen_parse(argc == 4 ? argv[3] : FEN_START, &b, err, sizeof err) != 0) {
		fprintf(stderr, "krieg-referee: bad FEN: %s\n", err);
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t nodes = perft(&b, (int)depth);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("nodes %llu\ntime %.3f\nnps %llu\n", (unsigned long long)nodes, s,
	       (unsigned long long)(s > 0 ? (double)nodes / s : 0));
	return 0;
}

struct tool {
	struct referee *ref;
	const struct ruleset *rs;
	unsigned pov;     /* 0 = everything */
	struct evlist ev;
	struct action_record_state rec;   /* offers, as kriegd keeps them (line_record) */
	long lineno;      /* the input line being read, named in its refusal */
};

static void flush_events(struct tool *t)
{
	pgn_cmd_print_events(&t->ev, t->rs, t->pov);
	evlist_clear(&t->ev);
}

/* Under --pov, what the side to move alone hears (its refusals, its
 * possible attempts) reaches P only if P is that side or the umpire: a
 * refusal's words name the mover's men ("no own queen can move to e3"),
 * which Black printed for White's try (referee probe). */
static bool mover_heard(const struct tool *t)
{
	return !t->pov || (t->pov & (aud_of(referee_side_to_move(t->ref)) | AUD_UMPIRE));
}

/* A refusal names its input line ("line": N, the tool's own member):
 * which of a script's lines was refused was left to counting (the
 * referee probe). */
static void print_error(const struct tool *t, int status, const char *msg)
{
	json_t *o = event_json_error(status, msg);
	if (o != NULL)
		json_object_set_new(o, "line", json_integer(t->lineno));
	print_json(o);
}

static void print_refusal(struct tool *t, int status, const char *msg)
{
	if (mover_heard(t))
		print_error(t, status, msg);
}

static void print_possible(struct tool *t)
{
	struct movelist ml;
	int side = referee_side_to_move(t->ref);
	if (!mover_heard(t))
		return;
	referee_possible(t->ref, side, &ml);
	json_t *o = json_object(), *a = json_array();
	json_object_set_new(o, "event", json_string("possible"));
	json_object_set_new(o, "by", json_string(side == WHITE ? "white" : "black"));
	for (int i = 0; i < ml.n; i++) {
		char buf[NOTATION_MAX];
		notation_uci(ml.m[i], buf);
		json_array_append_new(a, json_string(buf));
	}
	json_object_set_new(o, "moves", a);
	print_json(o);
}

/* One line: its action applied through referee_apply, as every record's is. */
static void act(struct tool *t, char *line)
{
	struct action a;
	int status;
	const char *msg;

	switch (line_action(line, referee_side_to_move(t->ref), &a, &status, &msg)) {
	case LINE_EMPTY:
		return;
	case LINE_POSSIBLE:
		print_possible(t);
		return;
	case LINE_BAD:
		print_refusal(t, status, msg);
		return;
	}
	msg = line_record(&t->rec, t->ref, &a, &status);
	if (msg != NULL) {
		print_refusal(t, status, msg);   /* kriegd's illegal_action */
		return;
	}
	int plies = referee_plies(t->ref);
	int st = referee_apply(t->ref, &a, &t->ev);
	if (st != REF_OK) {
		print_refusal(t, st, referee_error(t->ref));
		return;
	}
	action_record_next(&t->rec, &a, plies, referee_plies(t->ref));
	flush_events(t);
	unsigned aud;
	json_t *notice = line_notice(&a, plies, &aud);
	pgn_cmd_print_heard(notice, aud, t->pov);
}

/* What was printed reached its reader, or exit 1 saying why: a full disk
 * or a closed pipe was exit 0 with a truncated record (referee probe). */
static int output_done(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "krieg-referee: writing the output: %s\n", strerror(errno));
		return rc == 2 ? 2 : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *rules = RULESET_DEFAULT, *fen = NULL;
	struct tool t;
	memset(&t, 0, sizeof t);

	if (argc > 2 && strcmp(argv[1], "--version") == 0)
		return usage_error("unexpected word", argv[2]);   /* the word that was wrong (PGN probe) */
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("krieg-referee %s (protocol %d)\n", KRIEG_RELEASE, PROTO_VERSION);
		return output_done(0);
	}
	if (argc >= 2 && strcmp(argv[1], "perft") == 0)
		return output_done(run_perft(argc, argv));
	if (argc >= 2 && strcmp(argv[1], "pgn") == 0)
		return output_done(pgn_cmd_replay(argc, argv));
	if (argc >= 2 && strcmp(argv[1], "topgn") == 0)
		return output_done(pgn_cmd_topgn(argc, argv));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool valued = strcmp(a, "--rules") == 0 || strcmp(a, "--fen") == 0 ||
		              strcmp(a, "--pov") == 0;
		if (valued && i + 1 == argc)
			return usage_error("a value is needed after", a);
		if (strcmp(a, "--rules") == 0) {
			rules = argv[++i];
		} else if (strcmp(a, "--fen") == 0) {
			fen = argv[++i];
		} else if (strcmp(a, "--pov") == 0) {
			int bit = audience_parse(argv[++i]);
			if (bit < 0)
				return usage_error("--pov is white, black, umpire or spectator, not", argv[i]);
			t.pov = (unsigned)bit;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);   /* asked for: the answer, not an error */
			return output_done(0);
		} else {
			return usage_error(a[0] == '-' ? "unknown option" : "unexpected word", a);
		}
	}
	t.rs = ruleset_find(rules);
	if (t.rs == NULL) {
		fprintf(stderr, "krieg-referee: unknown rule set \"%s\"\n", rules);
		usage(stderr);
		return 2;
	}
	char err[160];
	t.ref = referee_new(t.rs, fen, err, sizeof err);
	if (t.ref == NULL) {
		fprintf(stderr, "krieg-referee: %s\n", err);
		return 2;
	}
	evlist_init(&t.ev);
	action_record_init(&t.rec);
	referee_begin(t.ref, &t.ev);
	flush_events(&t);

	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, stdin)) != -1) {
		t.lineno++;
		if (len > LINE_MAX_BYTES) {
			print_error(&t, REF_E_BAD_ARGUMENT, "line too long");
			continue;
		}
		const char *why = line_check(line, (size_t)len);
		if (why != NULL) {
			print_error(&t, REF_E_BAD_ARGUMENT, why);
			fflush(stdout);
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		act(&t, p);
		fflush(stdout);
	}
	int unread = ferror(stdin) ? errno : 0;
	free(line);
	evlist_free(&t.ev);
	referee_free(t.ref);
	if (unread) {   /* not the end of the input: said, not taken for it (referee probe) */
		fprintf(stderr, "krieg-referee: reading the input: %s\n", strerror(unread));
		return output_done(1);
	}
	return output_done(0);
}
