/*
 * pgn_cmd.c — `krieg-referee pgn` (replay a PGN) and `krieg-referee topgn`
 * (write one).  The checking is pgn_read's: this file only reads files,
 * prints events the way the normal mode does, and turns stdin lines into
 * actions (line_action, as the normal mode reads them); every action is
 * applied through referee_apply.
 */
#include "pgn_cmd.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "event_json.h"
#include "line.h"
#include "pgn.h"
#include "referee.h"
#include "ruleset.h"
#include "xmalloc.h"

#define TOPGN_LINE_MAX 1024   /* = the normal mode's LINE_MAX_BYTES */
#define SLURP_FIRST (1u << 16) /* the first read's buffer; it doubles, up to the limit's */

static void usage(void)
{
	fputs("usage: krieg-referee pgn [--pov white|black|umpire|spectator] FILE|-\n"
	      "       krieg-referee topgn [--rules NAME] [--fen FEN] [--view white|black|umpire|spectator]\n"
	      "                           [--white NAME] [--black NAME] [--event E] [--site S] [--date D]\n",
	      stderr);
}

/* A usage error: what was wrong, then the usage (it printed the usage
 * alone: the referee probe). */
static int usage_error(const char *what, const char *word)
{
	fprintf(stderr, "krieg-referee: %s '%s'\n", what, word);
	usage();
	return 2;
}

void pgn_cmd_print_heard(json_t *o, unsigned aud, unsigned pov)
{
	char *s = o != NULL && (!pov || (aud & pov)) ? json_dumps(o, JSON_COMPACT) : NULL;
	if (s) {
		puts(s);
		free(s);
	}
	json_decref(o);
}

void pgn_cmd_print_events(const struct evlist *ev, const struct ruleset *rs, unsigned pov)
{
	for (size_t i = 0; i < ev->n; i++) {
		struct event told = ev->v[i];   /* as kriegd sends it: event_told's audience */
		told.audience = (uint8_t)event_told(ev, i);
		pgn_cmd_print_heard(event_to_json(&told, rs, -1), ev->v[i].audience, pov);
	}
}

/*
 * The whole of a file (or stdin for "-"), refused once more than
 * PGN_INPUT_MAX bytes have been read: at most one byte more is asked for,
 * enough to know.  (The limit was checked on the buffer's size before it
 * doubled: files of up to 16 MiB were taken, and a longer one refused
 * only after 16 MiB were read; the PGN probe.)
 */
static char *slurp(const char *path, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	const size_t most = (size_t)PGN_INPUT_MAX + 1; /* bytes ever read: one past the limit */
	size_t cap = SLURP_FIRST, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 == cap) {
			/* Room for `most` bytes and the NUL at the most. */
			cap = cap * 2 < most + 1 ? cap * 2 : most + 1;
			buf = xreallocarray(buf, cap, 1);
		}
		size_t want = cap - 1 - n;
		if (want > most - n)
			want = most - n;
		size_t got = fread(buf + n, 1, want, f);
		n += got;
		if (n > PGN_INPUT_MAX) {
			snprintf(err, errlen, "longer than %u bytes (%u MiB), the most a PGN may hold",
			         PGN_INPUT_MAX, PGN_INPUT_MAX >> 20);
			break;
		}
		if (got < want) {
			if (ferror(f))   /* why ("Is a directory"), not only that (referee probe) */
				snprintf(err, errlen, "%s", strerror(errno));
			else
				buf[n] = '\0';
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (err[0] == '\0' && strlen(buf) != n)
		snprintf(err, errlen, "a NUL byte in the text");
	if (err[0] != '\0') {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Read the game at pos (the game'th of the file), then print its replay.
 * *several: the file holds more than this one game, known once it is
 * read; then each message names the game, and a JSON line
 * {"game":N,"line":L,...} heads its events.  0, or 1 (said).
 */
static int replay_game(struct pgn_pos *pos, const char *path, int game, bool *several, unsigned pov)
{
	char err[256] = "", gname[32] = "";
	const char *start = pos->p;
	int line = pos->line;
	struct pgn_header h;
	struct action *a;
	size_t n;
	int rc = pgn_read_next(pos, &h, &a, &n, err, sizeof err);
	/* A game whose text does not read: the next game begins at the next
	 * tag pair, as pgn-extract reads on (the rest of the file was dropped
	 * unread and uncounted: the PGN probe). */
	if (pos->p == NULL)
		pgn_resync(pos, start, line);
	*several |= *pos->p != '\0';
	if (*several)
		snprintf(gname, sizeof gname, "game %d: ", game);
	if (rc != 0) {
		fprintf(stderr, "krieg-referee: %s: %s%s\n", path, gname, err);
		return 1;
	}

	/* pgn_read_next replayed and checked everything; this prints the same replay. */
	const struct ruleset *rs = ruleset_find(h.rules);
	struct referee *r = referee_new(rs, h.fen[0] ? h.fen : NULL, err, sizeof err);
	if (r == NULL) {
		fprintf(stderr, "krieg-referee: %s: %s%s\n", path, gname, err);
		free(a);
		return 1;
	}
	if (*several) {
		json_t *o = json_pack("{s:i,s:i,s:s,s:s,s:s,s:s}", "game", game, "line", line, "white", h.white,
		                      "black", h.black, "round", h.round, "result", h.result);
		char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
		if (s)
			puts(s);
		free(s);
		json_decref(o);
	}
	struct evlist ev;
	evlist_init(&ev);
	referee_begin(r, &ev);
	pgn_cmd_print_events(&ev, rs, pov);
	for (size_t i = 0; i < n; i++) {
		evlist_clear(&ev);
		int plies = referee_plies(r);
		if (referee_apply(r, &a[i], &ev) != REF_OK) {
			/* Cannot happen after pgn_read_next succeeded; said rather than hidden. */
			fprintf(stderr, "krieg-referee: %s: %saction %zu refused on replay: %s\n", path, gname, i + 1,
			        referee_error(r));
			rc = 1;
			break;
		}
		pgn_cmd_print_events(&ev, rs, pov);
		unsigned aud;
		json_t *notice = line_notice(&a[i], plies, &aud);   /* as the normal mode prints it */
		pgn_cmd_print_heard(notice, aud, pov);
	}
	/* A result the record does not reach (a resignation or a flag fall
	 * another program did not write down): taken, as PGN.md says, and
	 * said, as it replayed silently (the referee probe). */
	if (rc == 0 && !referee_over(r) && strcmp(h.result, "*") != 0)
		fprintf(stderr, "krieg-referee: %s: %sResult \"%s\" but the record does not end the game "
		        "(no mate, resignation or other end in it): the events stop where the record does\n",
		        path, gname, h.result);
	evlist_free(&ev);
	referee_free(r);
	free(a);
	return rc;
}

int pgn_cmd_replay(int argc, char **argv)
{
	unsigned pov = 0;
	const char *path = NULL;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--pov") == 0 && i + 1 == argc)
			return usage_error("a value is needed after", argv[i]);
		if (strcmp(argv[i], "--pov") == 0) {
			int bit = audience_parse(argv[++i]);
			if (bit < 0)
				return usage_error("--pov is white, black, umpire or spectator, not", argv[i]);
			pov = (unsigned)bit;
		} else if (path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)) {
			path = argv[i];
		} else {
			return usage_error(argv[i][0] == '-' && argv[i][1] ? "unknown option" : "unexpected word",
			                   argv[i]);
		}
	}
	if (path == NULL) {
		fprintf(stderr, "krieg-referee: pgn needs a FILE (- for standard input)\n");
		usage();
		return 2;
	}

	char err[256] = "";
	char *text = slurp(path, err, sizeof err);
	if (text == NULL) {
		fprintf(stderr, "krieg-referee: %s: %s\n", path, err);
		return 1;
	}
	/* Every game of the file in turn (PGN's export form, as krieg-bot
	 * arena --pgn writes it).  A file of one game reads as it always has;
	 * in a file of several, each game's messages name it, and a game that
	 * is refused, or does not read, does not stop the next from being read.
	 * A file of no game (empty, blank) is refused by pgn_read_next: "no
	 * game in the text". */
	struct pgn_pos pos = { text, 1 };
	int rc = 0, game = 0, failed = 0;
	bool several = false;
	do {
		game++;
		if (replay_game(&pos, path, game, &several, pov) != 0) {
			rc = 1;
			failed++;
		}
	} while (*pos.p != '\0');
	if (several && failed)
		fprintf(stderr, "krieg-referee: %s: %d of %d games did not replay\n", path, failed, game);
	free(text);
	return rc;
}

/* ------------------------------------------------------------------ */

/* The accepted actions, in order. */
struct record {
	struct action *v;
	size_t n, cap;
};

static void record_push(struct record *rec, const struct action *a)
{
	rec->v = xgrow(rec->v, &rec->cap, rec->n + 1, sizeof *rec->v, 64);
	rec->v[rec->n++] = *a;
}

/* A PGN Date: "YYYY.MM.DD", any part "??"s when unknown (the second PGN
 * probe: "yesterday" was written as the game's date). */
static bool date_ok(const char *d)
{
	if (strlen(d) != 10 || d[4] != '.' || d[7] != '.')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !(d[i] >= '0' && d[i] <= '9') && d[i] != '?')
			return false;
	/* a part written whole is a real month or day; a part half known is none */
	for (int at = 5; at <= 8; at += 3) {
		bool q0 = d[at] == '?', q1 = d[at + 1] == '?';
		int v = q0 || q1 ? 0 : (d[at] - '0') * 10 + (d[at + 1] - '0');
		if (q0 != q1 || (!q0 && (v < 1 || v > (at == 5 ? 12 : 31))))
			return false;
	}
	return true;
}

int pgn_cmd_topgn(int argc, char **argv)
{
	struct pgn_header h;
	unsigned view = AUD_UMPIRE;
	pgn_header_init(&h);
	for (int i = 2; i < argc; i += 2) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *field = NULL;
		size_t cap = 0;
		if (o[0] != '-')
			return usage_error("unexpected word", o);
		if (v == NULL)
			return usage_error("a value is needed after", o);
		if (strcmp(o, "--rules") == 0) {
			field = h.rules;
			cap = sizeof h.rules;
		} else if (strcmp(o, "--fen") == 0) {
			field = h.fen;
			cap = sizeof h.fen;
		} else if (strcmp(o, "--white") == 0) {
			field = h.white;
			cap = sizeof h.white;
		} else if (strcmp(o, "--black") == 0) {
			field = h.black;
			cap = sizeof h.black;
		} else if (strcmp(o, "--event") == 0) {
			field = h.event;
			cap = sizeof h.event;
		} else if (strcmp(o, "--site") == 0) {
			field = h.site;
			cap = sizeof h.site;
		} else if (strcmp(o, "--date") == 0) {
			field = h.date;
			cap = sizeof h.date;
		} else if (strcmp(o, "--view") == 0) {
			int bit = audience_parse(v);
			if (bit < 0)
				return usage_error("--view is white, black, umpire or spectator, not", v);
			view = (unsigned)bit;
		} else {
			return usage_error("unknown option", o);
		}
		if (field == h.date && !date_ok(v))
			return usage_error("--date is YYYY.MM.DD (a part unknown: ?\?), not", v);
		if (field) {
			if (strlen(v) >= cap) {
				fprintf(stderr, "krieg-referee: %s too long\n", o);
				return 2;
			}
			snprintf(field, cap, "%s", v);
		}
	}
	const struct ruleset *rs = ruleset_find(h.rules);
	if (rs == NULL) {
		char names[RULESET_NAMES_MAX];
		ruleset_names(names, sizeof names);
		fprintf(stderr, "krieg-referee: unknown rule set \"%s\" (%s)\n", h.rules, names);
		return 2;
	}
	char err[256];
	struct referee *r = referee_new(rs, h.fen[0] ? h.fen : NULL, err, sizeof err);
	if (r == NULL) {
		fprintf(stderr, "krieg-referee: %s\n", err);
		return 2;
	}
	struct evlist ev;
	evlist_init(&ev);
	referee_begin(r, &ev);

	/* Only accepted actions enter the record, as on the server, which
	 * also keeps the offers beside the referee (line_record). */
	struct record rec = { 0 };
	struct action_record_state state;
	action_record_init(&state);
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	long lineno = 0;
	while ((len = getline(&line, &lcap, stdin)) != -1) {
		lineno++;
		if (len > TOPGN_LINE_MAX) {
			fprintf(stderr, "krieg-referee: line %ld: too long, skipped\n", lineno);
			continue;
		}
		const char *why = line_check(line, (size_t)len);
		if (why != NULL) {
			fprintf(stderr, "krieg-referee: line %ld: %s, skipped\n", lineno, why);
			continue;
		}
		line[strcspn(line, "\r\n")] = '\0';
		char *p = line + strspn(line, " \t");
		if (*p == '\0' || *p == '#')
			continue;
		struct action a;
		int st;
		switch (line_action(p, referee_side_to_move(r), &a, &st, &why)) {
		case LINE_ACTION:
			break;
		case LINE_BAD:
			fprintf(stderr, "krieg-referee: line %ld: not an action (%s), skipped\n", lineno,
			        why);
			continue;
		default:
			fprintf(stderr, "krieg-referee: line %ld: not an action, skipped\n", lineno);
			continue;
		}
		int refusal;
		why = line_record(&state, r, &a, &refusal);
		if (why != NULL) {
			fprintf(stderr, "krieg-referee: line %ld: refused (%s), not recorded\n", lineno, why);
			continue;
		}
		int plies = referee_plies(r);
		evlist_clear(&ev);
		st = referee_apply(r, &a, &ev);
		if (st != REF_OK) {   /* the referee's words, as the normal mode says them */
			fprintf(stderr, "krieg-referee: line %ld: refused (%s), not recorded\n", lineno,
			        referee_error(r));
			continue;
		}
		action_record_next(&state, &a, plies, referee_plies(r));
		record_push(&rec, &a);
	}
	/* An input that could not be read is no game: it was taken for
	 * the end of one, and an empty record written (referee probe). */
	int unread = ferror(stdin) ? errno : 0;
	free(line);
	evlist_free(&ev);
	referee_free(r);
	if (unread) {
		free(rec.v);
		fprintf(stderr, "krieg-referee: reading the actions: %s\n", strerror(unread));
		return 1;
	}

	char *out;
	int rc = pgn_write(&h, rec.v, rec.n, view, &out, err, sizeof err);
	free(rec.v);
	if (rc != 0) {
		fprintf(stderr, "krieg-referee: %s\n", err);
		return 1;
	}
	fputs(out, stdout);
	free(out);
	return 0;
}
