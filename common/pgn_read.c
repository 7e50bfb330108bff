/*
 * pgn_read.c — pgn_read and pgn_read_next (pgn.h): a game's PGN text
 * read into tags and half-move groups, the exact actions recovered from
 * them by replaying through referee_apply, and the text checked against
 * the game log those actions build (pgn_log.c).
 */
#include "pgn_priv.h"
#include "text.h"

#include <limits.h>
#include <stdlib.h>
#include <strings.h>

#define UTF8_BOM "\xEF\xBB\xBF"

/* ------------------------------------------------------------------ */
/* reading SAN on the true board, leniently                            */

/* A SAN move of the side to move on the true board b, read by the one
 * move grammar (notation_lex) and resolved leniently against the legal
 * moves (notation_resolve_legal).  MOVE_NONE with *why set otherwise. */
static move_t san_resolve(const struct board *b, const char *tok, const char **why)
{
	struct notation_parts p;
	move_t m = MOVE_NONE;
	enum notation_status st = notation_lex(tok, &p, NULL, 0);
	if (st == NOTATION_OK)
		st = notation_resolve_legal(b, &p, &m);
	switch (st) {
	case NOTATION_OK: *why = ""; return m;
	case NOTATION_NO_PIECE: *why = "illegal move"; break;
	case NOTATION_AMBIGUOUS: *why = "ambiguous move"; break;
	default: *why = "not a move"; break;
	}
	return MOVE_NONE;
}

/* A SAN token's check mark: '#', '+', or 0 when it writes none (annotation
 * marks such as "!?" after it are no mark). */
static char san_mark(const char *san)
{
	return strchr(san, '#') ? '#' : strchr(san, '+') ? '+' : 0;
}

static const char *mark_words(char mark)
{
	return mark == '#' ? "mate" : mark == '+' ? "check" : "neither check nor mate";
}

/* ------------------------------------------------------------------ */
/* reading the text                                                    */

/* What the text recorded for one group: the opening, a half-move, the trailing one. */
struct pgroup {
	char san[PGN_SAN_TOKEN_MAX + 1];
	int line;
	long num;           /* the move number written before it, 0: none */
	int dots;           /* its periods: 1 "3.", 3 "3...", 0 "3" */
	int comments;       /* comments read after the move */
	bool has_k;
	struct sbuf k_att, k_info;
	bool has_krieg;
	struct sbuf krieg;
	bool has_ann;
	struct sbuf ann;    /* '\n'-terminated announcements */
};

static void pgroup_init(struct pgroup *g)
{
	memset(g, 0, sizeof *g);
	sb_init(&g->k_att);
	sb_init(&g->k_info);
	sb_init(&g->krieg);
	sb_init(&g->ann);
}

static void pgroup_free(struct pgroup *g)
{
	free(g->k_att.p);
	free(g->k_info.p);
	free(g->krieg.p);
	free(g->ann.p);
}

/* s[0..n) without spaces at either end. */
static void put_trimmed(struct sbuf *b, const char *s, size_t n)
{
	while (n > 0 && *s == ' ') {
		s++;
		n--;
	}
	while (n > 0 && s[n - 1] == ' ')
		n--;
	sb_putn(b, s, n);
}

struct comment_parts {
	bool has_k, has_krieg;
	bool commentary;    /* words of free text beside them */
	struct sbuf k_att, k_info, krieg, ann;
	size_t nann;
};

/* The items of a (K:...) part, s[0..n), trimmed one by one into b:
 * "d4, Nf3" reads as "d4,Nf3". */
static void put_items(struct sbuf *b, const char *s, size_t n)
{
	const char *end = s + n;
	for (const char *q = s; q < end;) {
		const char *comma = memchr(q, ',', (size_t)(end - q));
		const char *stop = comma ? comma : end;
		put_trimmed(b, q, (size_t)(stop - q));
		if (comma)
			sb_puts(b, ",");
		q = comma ? comma + 1 : end;
	}
}

/*
 * Split one comment body (whitespace already made spaces) into its parts:
 * the (K:...) block, the [%krieg] command and the quoted announcements,
 * each found wherever it starts (another program's [%clk 0:01:00] may
 * stand before them), and whether free text stands beside them.
 */
static int parse_comment(const char *s, struct comment_parts *cp, int line, char *err, size_t errlen)
{
	const char *p = s;
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		if (strncmp(p, "(K:", 3) == 0) {
			const char *end = strchr(p, ')');
			const char *c1 = p + 3, *c2 = end ? memchr(c1, ':', (size_t)(end - c1)) : NULL;
			if (end == NULL || c2 == NULL)
				return failf(err, errlen, "line %d: bad (K:...) block", line);
			if (cp->has_k)
				return failf(err, errlen, "line %d: two (K:...) blocks in one comment", line);
			cp->has_k = true;
			put_items(&cp->k_att, c1, (size_t)(c2 - c1));
			put_items(&cp->k_info, c2 + 1, (size_t)(end - c2 - 1));
			p = end + 1;
		} else if (strncmp(p, "[%krieg", 7) == 0 && (p[7] == ' ' || p[7] == ']')) {
			const char *end = strchr(p, ']');
			if (end == NULL)
				return failf(err, errlen, "line %d: unterminated [%%krieg] command", line);
			if (cp->has_krieg)
				return failf(err, errlen, "line %d: two [%%krieg] commands in one comment", line);
			cp->has_krieg = true;
			put_trimmed(&cp->krieg, p + 7, (size_t)(end - p - 7));
			p = end + 1;
		} else if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			if (end == NULL)
				return failf(err, errlen, "line %d: unterminated quoted announcement", line);
			sb_putn(&cp->ann, p + 1, (size_t)(end - p - 1));
			sb_puts(&cp->ann, "\n");
			cp->nann++;
			p = end + 1;
		} else {
			/* A word of free text, up to where one of the parts above may
			 * start: ignored, but it makes the comment commentary unless
			 * a (K:...) block or a [%krieg] command stands in it too. */
			cp->commentary = true;
			p++;
			p += strcspn(p, " ([\"");
		}
	}
	return 0;
}

/* Is the comment krieg's (PGN.md), not commentary?  One with a (K:...)
 * block or a [%krieg] command, or of quoted announcements alone (the one
 * before the first move).  Quotes in free text are words quoted, not the
 * umpire's ("Kasparov called this "best by test"": the PGN probe). */
static bool krieg_comment(const struct comment_parts *cp)
{
	return cp->has_k || cp->has_krieg || (cp->nann > 0 && !cp->commentary);
}

static int parse_tag_value(const char **pp, char *val, size_t cap, size_t *len, int line, char *err,
                           size_t errlen)
{
	const char *p = *pp;
	size_t n = 0;
	bool over = false;
	if (*p != '"')
		return failf(err, errlen, "line %d: tag value must be quoted", line);
	for (p++; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n')
			return failf(err, errlen, "line %d: unterminated tag value", line);
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		if (n + 1 < cap)
			val[n++] = *p;
		else
			over = true;
	}
	val[n] = '\0';
	*len = over ? cap : n;
	*pp = p + 1;
	return 0;
}

/* The fields a tag fills, or NULL for a tag that is only checked or ignored. */
static char *tag_field(struct pgn_header *h, const char *name, size_t *cap)
{
	static const struct {
		const char *name;
		size_t off, cap;
	} fields[] = {
		{ "Event", offsetof(struct pgn_header, event), PGN_TAG_MAX },
		{ "Site", offsetof(struct pgn_header, site), PGN_TAG_MAX },
		{ "Date", offsetof(struct pgn_header, date), PGN_TAG_MAX },
		{ "Round", offsetof(struct pgn_header, round), PGN_TAG_MAX },
		{ "White", offsetof(struct pgn_header, white), PGN_TAG_MAX },
		{ "Black", offsetof(struct pgn_header, black), PGN_TAG_MAX },
		{ "Termination", offsetof(struct pgn_header, termination), PGN_TAG_MAX },
		{ "TimeControl", offsetof(struct pgn_header, time_control), PGN_TAG_MAX },
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		if (strcmp(fields[i].name, name) == 0) {
			*cap = fields[i].cap;
			return (char *)h + fields[i].off;
		}
	}
	return NULL;
}

struct ptext {
	struct pgroup open, trail;
	struct pgroup *hm;
	size_t nhm, caphm;
	bool has_trail;
	char result_token[8];
	bool setup;
	bool has_result;    /* a Result tag was read */
	size_t ntags;       /* tag pairs read */
};

static void ptext_free(struct ptext *t)
{
	pgroup_free(&t->open);
	pgroup_free(&t->trail);
	for (size_t i = 0; i < t->nhm; i++)
		pgroup_free(&t->hm[i]);
	free(t->hm);
}

static void merge_parts(struct pgroup *g, const struct comment_parts *cp)
{
	if (cp->has_k) {
		g->has_k = true;
		sb_putn(&g->k_att, cp->k_att.p, cp->k_att.n);
		sb_putn(&g->k_info, cp->k_info.p, cp->k_info.n);
	}
	if (cp->has_krieg) {
		g->has_krieg = true;
		sb_putn(&g->krieg, cp->krieg.p, cp->krieg.n);
	}
	if (cp->nann) {
		g->has_ann = true;
		sb_putn(&g->ann, cp->ann.p, cp->ann.n);
	}
}

/*
 * The group a comment of krieg's belongs to, *curp the group comments
 * attach to (the opening one, the last half-move, the trailing one).  A
 * half-move's first comment of krieg's is its own, whatever commentary
 * stood before it; a later one with a (K:...) block is its own too (the
 * block may follow an engine's comment), one with a [%krieg] command
 * alone opens the trailing group, one of announcements alone continues
 * the group.  A (K:...) block is never dropped: one the text cannot place
 * (before the first move, after the trailing comment, a half-move's
 * second) is an error.
 */
static int attach_comment(struct ptext *t, struct pgroup **curp, const struct comment_parts *cp,
                          int line, char *err, size_t errlen)
{
	struct pgroup *cur = *curp;
	bool hm = cur != &t->open && cur != &t->trail;
	if (hm && cur->comments == 0) {
		/* the half-move's own */
	} else if (cp->has_k) {
		if (cur == &t->open)
			return failf(err, errlen, "line %d: a (K:...) block before the first move", line);
		if (cur == &t->trail)
			return failf(err, errlen, "line %d: a (K:...) block after the trailing [%%krieg] comment",
			             line);
		if (cur->has_k)
			return failf(err, errlen, "line %d: a second (K:...) block for the move %s", line,
			             cur->san);
		if (cp->has_krieg && cur->has_krieg)
			return failf(err, errlen, "line %d: a second [%%krieg] command for the move %s", line,
			             cur->san);
	} else if (cp->has_krieg) {
		if (t->has_trail)
			return failf(err, errlen, "line %d: two trailing [%%krieg] comments", line);
		t->has_trail = true;
		cur = *curp = &t->trail;
	}
	merge_parts(cur, cp);
	cur->comments++;
	return 0;
}

/* Blanks between a tag pair's tokens: any whitespace but the newline
 * that ends the pair's line ([Event<TAB>"x"] is the standard's too). */
static bool tag_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_tag_blanks(const char *p)
{
	while (tag_blank(*p))
		p++;
	return p;
}

static bool tag_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/* Does the line at p start with a tag pair: '[', blanks, a tag name? */
static bool tag_line(const char *p)
{
	return *p == '[' && tag_name_char(*skip_tag_blanks(p + 1));
}

static int parse_tags(const char **pp, int *line, struct pgn_header *h, struct ptext *t, char *err,
                      size_t errlen)
{
	const char *p = *pp;
	/* The longest value kept (a field's, a FEN) and one more character,
	 * so that a longer one is known to be: parse_tag_value cuts there. */
	char val[(PGN_TAG_MAX > FEN_INPUT_MAX ? PGN_TAG_MAX : FEN_INPUT_MAX) + 2];
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			if (*p == '\n')
				(*line)++;
			p++;
		}
		if (*p == '%') { /* PGN escape line */
			p += strcspn(p, "\n");
			continue;
		}
		/* A comment before a tag pair (the import format allows one
		 * anywhere): skipped when a tag pair follows it, the moves'
		 * otherwise.  It was read as the moves' start, and the tags
		 * after it refused (referee probe). */
		if (*p == '{' || *p == ';') {
			const char *q = p;
			int nl = 0;
			while (q != NULL && (*q == '{' || *q == ';')) {
				const char *e = *q == '{' ? strchr(q, '}') : q + strcspn(q, "\n");
				if (e == NULL) {
					q = NULL;   /* unterminated: the moves' reader says so */
					break;
				}
				for (const char *r = q; r < e; r++)
					nl += *r == '\n';
				q = *e == '}' ? e + 1 : e;
				while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
					nl += *q++ == '\n';
			}
			if (q == NULL || !tag_line(q))
				break;
			*line += nl;
			p = q;
			continue;
		}
		if (*p != '[')
			break;
		p = skip_tag_blanks(p + 1);
		char name[32];
		size_t nn = 0;
		while (tag_name_char(*p)) {
			if (nn + 1 >= sizeof name)
				return failf(err, errlen, "line %d: tag name too long", *line);
			name[nn++] = *p++;
		}
		name[nn] = '\0';
		if (nn == 0)
			return failf(err, errlen, "line %d: bad tag pair", *line);
		p = skip_tag_blanks(p);
		size_t len = 0;
		if (parse_tag_value(&p, val, sizeof val, &len, *line, err, errlen) != 0)
			return -1;
		p = skip_tag_blanks(p);
		if (*p != ']')
			return failf(err, errlen, "line %d: tag pair without ']'", *line);
		p++;
		t->ntags++;

		size_t cap;
		char *field = tag_field(h, name, &cap);
		if (field) {
			/* Bytes that are no UTF-8 read as ISO 8859-1, the standard's
			 * character set (the second PGN probe: "M\xfcller" made the
			 * game's heading line, JSON, go unprinted) */
			size_t k = 0, used;
			for (size_t i = 0; i < len; i += used) {
				char c[4];
				size_t w = text_latin1_char((const unsigned char *)val + i, len - i, c, &used);
				if (k + w >= cap) {
					k = cap;
					break;
				}
				memcpy(field + k, c, w);
				k += w;
			}
			if (k >= cap)
				return failf(err, errlen, "line %d: tag %s too long", *line, name);
			field[k] = '\0';
		} else if (strcmp(name, "Result") == 0) {
			if (game_result_parse(val) < 0)
				return failf(err, errlen, "line %d: unknown Result \"%.20s\"", *line, val);
			snprintf(h->result, sizeof h->result, "%.7s", val);
			t->has_result = true;
		} else if (strcmp(name, "Variant") == 0) {
			if (strcasecmp(val, "Kriegspiel") != 0)
				return failf(err, errlen, "line %d: Variant \"%.40s\" is not Kriegspiel", *line, val);
		} else if (strcmp(name, "KriegRules") == 0) {
			if (len >= PGN_TAG_MAX || ruleset_find(val) == NULL)
				return failf(err, errlen, "line %d: unknown KriegRules \"%.40s\"", *line, val);
			snprintf(h->rules, sizeof h->rules, "%.*s", PGN_TAG_MAX - 1, val);
		} else if (strcmp(name, "KriegView") == 0) {
			if (strcmp(val, "white") == 0 || strcmp(val, "black") == 0 ||
			    strcmp(val, "spectator") == 0)
				return failf(err, errlen,
				             "a filtered PGN (KriegView \"%s\") holds only what one side heard and "
				             "cannot be replayed; export the umpire's record",
				             val);
			if (strcmp(val, "umpire") != 0)
				return failf(err, errlen, "line %d: unknown KriegView \"%.40s\"", *line, val);
		} else if (strcmp(name, "SetUp") == 0) {
			if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
				return failf(err, errlen, "line %d: SetUp must be \"0\" or \"1\"", *line);
			t->setup = val[0] == '1';
		} else if (strcmp(name, "FEN") == 0) {
			struct board b;
			char e[128];
			if (len > FEN_INPUT_MAX || fen_parse(val, &b, e, sizeof e) != 0)
				return failf(err, errlen, "line %d: bad FEN: %s", *line,
				             len > FEN_INPUT_MAX ? "too long" : e);
			memcpy(h->fen, val, len + 1); /* len <= FEN_INPUT_MAX */
		}
		/* Any other tag (PlyCount, ...) is ignored. */
	}
	*pp = p;
	return 0;
}

/* Past a UTF-8 byte order mark at p, as editors on Windows write one at
 * a file's start: not text (the PGN probe: "unexpected character"). */
static const char *skip_bom(const char *p)
{
	return strncmp(p, UTF8_BOM, sizeof UTF8_BOM - 1) == 0 ? p + sizeof UTF8_BOM - 1 : p;
}

static bool san_char(char c)
{
	/* Not the NUL: strchr finds every string's terminator, and a token
	 * scan that took it for a character ran past the end of the text
	 * (found by tests/fuzz/fuzz_pgn: a PGN ending in "1/2-1/2x"). */
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("+#=!?-.@", c) != NULL); /* '@': a drop, N@f3 (crazykrieg) */
}

/*
 * The movetext from *pp (its first line *linep) to the end of the text or,
 * with `one` false, to the first thing after the result token other than
 * blanks and escape lines: the next game's, where *pp and *linep are left.
 * With `one`, text after the result is refused (pgn_read: one game).
 */
/* Is the line at p blank (nothing but blanks before its end)? */
static bool blank_line(const char *p)
{
	p = skip_tag_blanks(p);
	return *p == '\n' || *p == '\r' || *p == '\0';
}

/*
 * Does a game begin in [p, end): a blank line, then a line that starts
 * with a tag pair?  A comment never closed in one game took the next '}'
 * anywhere for its end, and the games between were read as its text: no
 * error, a game lost (a review).  A tag pair after a blank line begins a
 * game, inside an unclosed comment too (pgn_resync agrees); pgn_write
 * writes no blank line inside a comment.
 */
static bool blank_then_tag(const char *nl, const char *end)
{
	const char *b = nl + 1;
	if (!blank_line(b))
		return false;
	b += strcspn(b, "\n");
	return b < end && *b == '\n' && tag_line(b + 1);
}

static bool game_after_blank(const char *p, const char *end)
{
	for (const char *q = memchr(p, '\n', (size_t)(end - p)); q != NULL && q < end;
	     q = memchr(q + 1, '\n', (size_t)(end - q - 1)))
		if (blank_then_tag(q, end))
			return true;
	return false;
}

/*
 * From the '(' at *pp to past its ')': a variation (the standard's RAV,
 * 8.2.5) is a line of play that was not played, nested ones in it too; its
 * moves, comments and (K:...) blocks are skipped.  An analysis export
 * (lichess's, ChessBase's) has them, and they were refused (the PGN
 * probe).  Comments, ';' comments and escape lines inside are read only to
 * find the ')' that ends it; one never closed is refused, as a comment is,
 * before a blank line and a tag pair (game_after_blank).
 */
static int skip_variation(const char **pp, int *linep, char *err, size_t errlen)
{
	const char *p = *pp + 1, *text_end = p + strlen(p);
	int line = *linep, depth = 1;
	bool at_line_start = false;
	while (depth > 0) {
		char c = *p;
		if (c == '\0' || (c == '\n' && blank_then_tag(p, text_end)))
			return failf(err, errlen, "line %d: unterminated variation", *linep);
		if ((c == '%' && at_line_start) || c == ';') {
			p += strcspn(p, "\n");
		} else if (c == '{') {
			const char *end = strchr(p + 1, '}');
			if (end == NULL || game_after_blank(p + 1, end))
				return failf(err, errlen, "line %d: unterminated comment", line);
			for (; p <= end; p++)
				line += *p == '\n';
		} else {
			line += c == '\n';
			depth += (c == '(') - (c == ')');
			p++;
		}
		at_line_start = c == '\n' || (at_line_start && (c == ' ' || c == '\t'));
	}
	*pp = p;
	*linep = line;
	return 0;
}

/* The n digits at p as a move number; a number too long for any game
 * (more than 9 digits) reads as LONG_MAX, which numbers no move. */
static long move_number(const char *p, size_t n)
{
	long v = 0;
	if (n > 9)
		return LONG_MAX;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (p[i] - '0');
	return v;
}

static int parse_movetext(const char **pp, int *linep, bool one, struct ptext *t, char *err, size_t errlen)
{
	const char *p = *pp;
	int line = *linep;
	struct pgroup *cur = &t->open; /* the group comments attach to */
	bool at_line_start = true;
	bool after_move = false;       /* the last token read was cur's move */
	long num = 0;                  /* a move number read, for the next move (0: none) */
	int dots = 0;                  /* its periods */
	struct comment_parts cp;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
			if (*p == '\n') {
				line++;
				at_line_start = true;
			}
			p++;
		}
		if (*p == '\0')
			break;
		if (t->result_token[0] && one)
			return failf(err, errlen, "line %d: text after the result (one game per file)", line);
		if (t->result_token[0] && !(*p == '%' && at_line_start))
			break; /* the next game's tags */
		if (*p == '%' && at_line_start) {
			p += strcspn(p, "\n");
			continue;
		}
		at_line_start = false;
		if (*p == '{') {
			const char *end = strchr(p + 1, '}');
			if (end == NULL || game_after_blank(p + 1, end))
				return failf(err, errlen, "line %d: unterminated comment", line);
			size_t n = (size_t)(end - p - 1);
			char *body = xcalloc(n + 1, 1);
			int start_line = line;
			/* Each line end one space: a CRLF is one, not two (a review:
			 * a text broken at its space by pgn_write read "a  b" from a
			 * CRLF file, which the referee refuses, texts having no runs
			 * of spaces). */
			size_t bn = 0;
			for (size_t i = 0; i < n; i++) {
				char c = p[1 + i];
				if (c == '\r' && i + 1 < n && p[2 + i] == '\n')
					continue;
				if (c == '\n')
					line++;
				body[bn++] = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
			}
			memset(&cp, 0, sizeof cp);
			sb_init(&cp.k_att);
			sb_init(&cp.k_info);
			sb_init(&cp.krieg);
			sb_init(&cp.ann);
			int rc = parse_comment(body, &cp, start_line, err, errlen);
			free(body);
			/* Commentary ([%clk], an engine's or a person's words) is ignored. */
			if (rc == 0 && krieg_comment(&cp))
				rc = attach_comment(t, &cur, &cp, start_line, err, errlen);
			after_move = false;
			free(cp.k_att.p);
			free(cp.k_info.p);
			free(cp.krieg.p);
			free(cp.ann.p);
			if (rc != 0)
				return -1;
			p = end + 1;
			continue;
		}
		if (*p == ';') {
			p += strcspn(p, "\n");
			after_move = false;
			continue;
		}
		if (*p == '(') {
			if (skip_variation(&p, &line, err, errlen) != 0)
				return -1;
			after_move = false;
			continue;
		}
		if (*p == ')')
			return failf(err, errlen, "line %d: a ')' without its variation's '('", line);
		if (*p == '[' && one)
			return failf(err, errlen, "line %d: a tag pair after the moves (one game per file)", line);
		if (*p == '[')
			return failf(err, errlen,
			             "line %d: a tag pair after the moves, before the game's result (1-0, 0-1, "
			             "1/2-1/2 or *) that ends it",
			             line);
		if (*p == '$') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			after_move = false;
			continue;
		}
		if (*p == '*') {
			snprintf(t->result_token, sizeof t->result_token, "*");
			p++;
			continue;
		}
		if (*p == '.') {
			/* A period is a token of its own (the standard, 7): "1 . e4". */
			size_t k = strspn(p, ".");
			dots += num ? (int)k : 0;
			p += k;
			after_move = false;
			continue;
		}
		if (*p >= '0' && *p <= '9') {
			/* A move number ends at its periods: "1.e4", "1...e5" (8.2.2.1). */
			size_t d = strspn(p, "0123456789");
			if (p[d] == '.') {
				num = move_number(p, d);
				dots = (int)strspn(p + d, ".");
				p += d + (size_t)dots;
				after_move = false;
				continue;
			}
		}
		if (!san_char(*p))
			return failf(err, errlen, "line %d: unexpected character '%c'", line,
			             (*p >= 0x20 && *p < 0x7f) ? *p : '?');
		const char *s = p;
		while (*p && san_char(*p))
			p++;
		if (*p == '/') /* only in 1/2-1/2 */
			while (*p == '/' || san_char(*p))
				p++;
		size_t n = (size_t)(p - s);
		char tok[PGN_SAN_TOKEN_MAX + 1];
		if (n > PGN_SAN_TOKEN_MAX)
			return failf(err, errlen, "line %d: token too long", line);
		memcpy(tok, s, n);
		tok[n] = '\0';
		if (strcmp(tok, "1-0") == 0 || strcmp(tok, "0-1") == 0 || strcmp(tok, "1/2-1/2") == 0) {
			memcpy(t->result_token, tok, n + 1); /* n <= 7 here */
			continue;
		}
		if (tok[0] >= '0' && tok[0] <= '9' && strncmp(tok, "0-0", 3) != 0) { /* not castling, 0-0+ */
			/* Those with periods were read above: a number without is one
			 * too (the standard: zero or more periods). */
			if (tok[strspn(tok, "0123456789")] != '\0')
				return failf(err, errlen, "line %d: bad move number \"%s\"", line, tok);
			num = move_number(tok, n);
			dots = 0;
			after_move = false;
			continue;
		}
		if (after_move && notation_is_ep_word(tok)) {
			/* "exd6 e.p.": the suffix is the move's, written as a word of
			 * its own (the PGN probe: it was read as Black's move). */
			size_t have = strlen(cur->san);
			if (have + 1 + n > PGN_SAN_TOKEN_MAX)
				return failf(err, errlen, "line %d: token too long", line);
			cur->san[have] = ' ';
			memcpy(cur->san + have + 1, tok, n + 1);
			after_move = false;
			continue;
		}
		if (strchr(tok, '/'))
			return failf(err, errlen, "line %d: bad token \"%s\"", line, tok);
		if (strncmp(tok, "??", 2) == 0 || strcmp(tok, "--") == 0)
			return failf(err, errlen,
			             "line %d: a filtered PGN (\"%s\" for a hidden move) cannot be replayed", line,
			             tok);
		if (t->has_trail)
			return failf(err, errlen, "line %d: a move after the trailing [%%krieg] comment", line);
		if (t->nhm >= PGN_ACTIONS_MAX)
			return failf(err, errlen, "line %d: more than %d moves", line, PGN_ACTIONS_MAX);
		t->hm = xgrow(t->hm, &t->caphm, t->nhm + 1, sizeof *t->hm, 64);
		cur = &t->hm[t->nhm++];
		pgroup_init(cur);
		snprintf(cur->san, sizeof cur->san, "%s", tok);
		cur->line = line;
		cur->num = num;
		cur->dots = dots;
		num = 0;
		dots = 0;
		after_move = true;
	}
	*pp = p;
	*linep = line;
	return 0;
}

/* ------------------------------------------------------------------ */
/* recovering and checking the actions                                 */

struct alist {
	struct action *v;
	size_t n, cap;
};

static void hm_label(const struct board *before, const char *san, char *buf, size_t len)
{
	snprintf(buf, len, "move %d%s %s", before->fullmove, before->side == WHITE ? "." : "...", san);
}

/* What recover() keeps while it replays: the referee, the actions so far
 * and the server's state beside the referee (offers, pause, adjournment). */
struct replay {
	struct referee *r;
	struct alist l;
	struct action_record_state rec;
	struct evlist ev;
};

/* Apply one recovered action, appending it to the list.  The record is
 * the server's: an action the server would not have taken in the game's
 * state (an agreement with no offer standing, a move while paused, ...)
 * is refused as the referee's refusals are. */
static int apply_new(struct replay *rp, int kind, const char *text, int color, const char *where,
                     char *err, size_t errlen)
{
	struct action a;
	char lab[64];
	if (rp->l.n >= PGN_ACTIONS_MAX)
		return failf(err, errlen, "more than %d actions", PGN_ACTIONS_MAX);
	if (action_set(&a, kind, color, text) != REF_OK)
		return failf(err, errlen, "%s: action text too long", where);
	action_label(&a, lab, sizeof lab);
	int plies = referee_plies(rp->r);
	const char *why = referee_over(rp->r) ? NULL
	                  : action_record_refusal(&rp->rec, &a, referee_side_to_move(rp->r), plies);
	bool offer = (a.kind == ACTION_DRAW || a.kind == ACTION_ADJOURN) &&
	             strcmp(a.text, "offer") == 0 && (a.color == WHITE || a.color == BLACK);
	int *stands = a.kind == ACTION_DRAW ? &rp->rec.draw_offer : &rp->rec.adjourn_offer;
	if (why != NULL && offer && *stands == a.color) {
		/* A side's offer made again while its own stood: kriegd took and
		 * recorded it until December 2026 (its full records must read,
		 * PGN.md), and the offer just went on standing.  Every other
		 * refusal of it still holds. */
		struct action_record_state again = rp->rec;
		*(a.kind == ACTION_DRAW ? &again.draw_offer : &again.adjourn_offer) = -1;
		why = action_record_refusal(&again, &a, referee_side_to_move(rp->r), plies);
	}
	if (why != NULL)
		return failf(err, errlen, "%s: \"%s\" (%s) refused: %s", where, lab,
		             pgn_color_word(a.color), why);
	evlist_clear(&rp->ev);
	int st = referee_apply(rp->r, &a, &rp->ev);
	if (st != REF_OK)
		return failf(err, errlen, "%s: \"%s\" refused by the referee: %s", where, lab,
		             st == REF_E_BAD_ARGUMENT ? "bad action" : referee_error(rp->r));
	action_record_next(&rp->rec, &a, plies, referee_plies(rp->r));
	rp->l.v = xgrow(rp->l.v, &rp->l.cap, rp->l.n + 1, sizeof *rp->l.v, 64);
	rp->l.v[rp->l.n++] = a;
	return 0;
}

/* "white" or "black" as a colour, else -1. */
static int side_word(const char *w)
{
	return strcmp(w, "white") == 0 ? WHITE : strcmp(w, "black") == 0 ? BLACK : -1;
}

/* Undo the %XX escapes of an umpire's text (PGN_ESCAPED and every byte
 * from 0x80: PGN is ASCII), in place.  A line may break after an escape's
 * '%' (pgn_write does, never before it: a line starting with '%' is an
 * escape line), read as spaces: "% XX" is XX.  What it gives is checked
 * again by referee_apply (action_umpire_parse: UTF-8, the normal form). */
static int unescape(char *s)
{
	char *o = s;
	for (const char *p = s; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		while (p[1] == ' ')
			p++;
		int v = 0;
		for (int k = 1; k <= 2; k++) {
			char c = p[k];
			int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (d < 0)
				return -1;
			v = v * 16 + d;
		}
		if (v < 0x80 && (v == 0 || strchr(PGN_ESCAPED, v) == NULL))
			return -1;
		*o++ = (char)v;
		p += 2;
	}
	*o = '\0';
	return 0;
}

/* A move text's runs of spaces made one, in place: they carry no meaning
 * (notation.h), and pgn_write writes one, so the record reads back as
 * read. */
static void one_space(char *text)
{
	char *d = text;
	for (const char *t = text; *t; t++)
		if (*t != ' ' || t[1] != ' ')
			*d++ = *t;
	*d = '\0';
}

/* The actions of a [%krieg ...] command, applied in order. */
static int apply_krieg(struct replay *rp, const char *body, const char *where, char *err,
                       size_t errlen)
{
	struct referee *r = rp->r;
	const char *p = body;
	while (*p) {
		size_t n = strcspn(p, ";");
		char item[3 * ACTION_TEXT_MAX + 32];   /* an umpire's text may be %XX-escaped */
		if (n >= sizeof item)
			return failf(err, errlen, "%s: [%%krieg] action too long", where);
		item[0] = '\0';
		size_t a0 = 0, a1 = n;
		while (a0 < a1 && p[a0] == ' ')
			a0++;
		while (a1 > a0 && p[a1 - 1] == ' ')
			a1--;
		memcpy(item, p + a0, a1 - a0);
		item[a1 - a0] = '\0';
		p += n;
		if (*p == ';')
			p++;
		if (item[0] == '\0')
			return failf(err, errlen, "%s: empty [%%krieg] action", where);
		char *text = item + strcspn(item, " ");
		if (*text) {
			*text++ = '\0';
			while (*text == ' ')
				text++;
		}
		int kind = action_kind_parse(item), color = referee_side_to_move(r);
		char *who;
		switch (kind) {
		case ACTION_TRY:
		case ACTION_LIST:
		case ACTION_QUIET:
			if (!*text)
				return failf(err, errlen, "%s: [%%krieg] %s without a move", where, item);
			one_space(text);
			break;
		case ACTION_ANY:
			if (*text)
				return failf(err, errlen, "%s: [%%krieg] any takes nothing", where);
			break;
		case ACTION_DRAW:
			/* draw offer|decline white|black */
			who = text + strcspn(text, " ");
			if (*who)
				*who++ = '\0';
			if ((color = side_word(who)) < 0)
				return failf(err, errlen, "%s: [%%krieg] draw: unknown side \"%.20s\"", where, who);
			if (strcmp(text, "offer") != 0 && strcmp(text, "decline") != 0)
				return failf(err, errlen, "%s: [%%krieg] draw: offer or decline, not \"%.20s\"",
				             where, text);
			break;
		case ACTION_ADJOURN:
			/* adjourn offer|agree|decline white|black */
			who = text + strcspn(text, " ");
			if (*who)
				*who++ = '\0';
			if ((color = side_word(who)) < 0)
				return failf(err, errlen, "%s: [%%krieg] adjourn: unknown side \"%.20s\"", where,
				             who);
			if (strcmp(text, "offer") != 0 && strcmp(text, "agree") != 0 &&
			    strcmp(text, "decline") != 0)
				return failf(err, errlen,
				             "%s: [%%krieg] adjourn: offer, agree or decline, not \"%.20s\"", where,
				             text);
			break;
		case ACTION_UNADJ:
			/* unadj white|black */
			if ((color = side_word(text)) < 0)
				return failf(err, errlen, "%s: [%%krieg] unadj: unknown side \"%.20s\"", where,
				             text);
			text[0] = '\0';
			break;
		case ACTION_END:
			/* end REASON [white|black] */
			who = text + strcspn(text, " ");
			color = -1;
			if (*who) {
				*who++ = '\0';
				if ((color = side_word(who)) < 0)
					return failf(err, errlen, "%s: [%%krieg] end: unknown side \"%.20s\"", where, who);
			}
			if (game_reason_parse(text) <= REASON_NONE)
				return failf(err, errlen, "%s: [%%krieg] end: unknown reason \"%.30s\"", where, text);
			break;
		case ACTION_PAUSE:
		case ACTION_UNPAUSE:
		case ACTION_ADDTIME:
		case ACTION_ADJUDGE:
		case ACTION_UABORT:
		case ACTION_NOTE:
		case ACTION_SAY:
		case ACTION_SPEC:
			/* [addtime|say white|black] TEXT, TEXT %XX-escaped (spec: "NAME TEXT") */
			color = -1;
			if (kind == ACTION_ADDTIME || kind == ACTION_SAY) {
				who = text;
				text += strcspn(text, " ");
				if (*text)
					*text++ = '\0';
				if ((color = side_word(who)) < 0)
					return failf(err, errlen, "%s: [%%krieg] %s: unknown side \"%.20s\"",
					             where, item, who);
			}
			if (unescape(text) != 0)
				return failf(err, errlen, "%s: [%%krieg] %s: a bad %%XX escape", where, item);
			break;
		default: /* "begin" is the server's, never written */
			return failf(err, errlen, "%s: unknown [%%krieg] action \"%.20s\"", where, item);
		}
		if (apply_new(rp, kind, text, color, where, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/* Compare two '\n'-separated announcement lists; on a difference, say which. */
static int compare_ann(const char *rec, const char *rep, const char *where, char *err, size_t errlen)
{
	while (*rec || *rep) {
		size_t a = strcspn(rec, "\n"), b = strcspn(rep, "\n");
		if (a != b || memcmp(rec, rep, a) != 0) {
			if (!*rec)
				return failf(err, errlen, "%s: the replay also announces \"%.*s\"", where, (int)b, rep);
			if (!*rep)
				return failf(err, errlen, "%s: PGN says \"%.*s\", the replay says nothing more", where,
				             (int)a, rec);
			return failf(err, errlen, "%s: PGN says \"%.*s\", the replay says \"%.*s\"", where, (int)a,
			             rec, (int)b, rep);
		}
		rec += a + (rec[a] == '\n');
		rep += b + (rep[b] == '\n');
	}
	return 0;
}

static int check_log(const struct ptext *t, const struct glog *g, const struct pgn_header *h, char *err,
                     size_t errlen)
{
	struct sbuf s;
	sb_init(&s);
	int rc = 0;
	char where[64];

	if (t->open.has_ann) {
		pgn_render_announcements(g, 0, g->open_end, AUD_UMPIRE, &s);
		rc = compare_ann(t->open.ann.p, s.p, "before the first move", err, errlen);
	}
	for (size_t i = 0; rc == 0 && i < g->nhm; i++) {
		const struct hm *hm = &g->hm[i];
		const struct pgroup *pg = &t->hm[i];
		const char *why;
		hm_label(&hm->before, pg->san, where, sizeof where);
		move_t m = san_resolve(&hm->before, pg->san, &why);
		if (m != hm->move) {
			rc = failf(err, errlen, "%s: the replay played %s", where, hm->san);
			break;
		}
		/* A mark written must be true of the replay (PGN probe: "e4#"
		 * read); one left out is no claim, nor is "+" for a mate, which is
		 * a check (an import is lenient: writers drop or simplify them). */
		char said = san_mark(pg->san), real = san_mark(hm->san);
		if ((said == '+' && !real) || (said == '#' && real != '#')) {
			rc = failf(err, errlen, "%s: PGN marks %s, the replay %s (%s)", where, mark_words(said),
			           mark_words(real), hm->san);
			break;
		}
		if (pg->has_k) {
			sb_clear(&s);
			pgn_render_attempts(g, hm, AUD_UMPIRE, &s);
			if (strcmp(s.p, pg->k_att.p) != 0) {
				rc = failf(err, errlen, "%s: PGN records the tries (K:%.60s:), the replay (K:%.60s:)",
				           where, pg->k_att.p, s.p);
				break;
			}
			sb_clear(&s);
			pgn_render_info(g, hm, AUD_UMPIRE, &s);
			if (strcmp(s.p, pg->k_info.p) != 0) {
				rc = failf(err, errlen, "%s: PGN says the opponent heard (K::%.40s), the replay (K::%.40s)",
				           where, pg->k_info.p, s.p);
				break;
			}
		}
		if (pg->has_ann) {
			sb_clear(&s);
			pgn_render_announcements(g, hm->ev_first, hm->ev_end, AUD_UMPIRE, &s);
			rc = compare_ann(pg->ann.p, s.p, where, err, errlen);
		}
	}
	if (rc == 0 && t->trail.has_ann) {
		sb_clear(&s);
		pgn_render_announcements(g, g->tr_ev_first, g->ev.n, AUD_UMPIRE, &s);
		rc = compare_ann(t->trail.ann.p, s.p, "after the last move", err, errlen);
	}
	if (rc == 0 && g->over && strcmp(h->result, pgn_result_of(g)) != 0)
		rc = failf(err, errlen, "Result \"%s\" but the replay ends %s", h->result, pgn_result_of(g));
	free(s.p);
	return rc;
}

static int recover(const struct ptext *t, const struct pgn_header *h, const struct ruleset *rs,
                   struct alist *l, char *err, size_t errlen)
{
	char e[160];
	struct replay rp = { 0 };
	rp.r = referee_new(rs, h->fen[0] ? h->fen : NULL, e, sizeof e);
	if (rp.r == NULL)
		return failf(err, errlen, "%s", e);
	struct referee *r = rp.r;
	action_record_init(&rp.rec);
	evlist_init(&rp.ev);
	referee_begin(r, &rp.ev);
	int rc = 0;
	char where[64];

	for (size_t i = 0; rc == 0 && i < t->nhm; i++) {
		const struct pgroup *pg = &t->hm[i];
		const struct board *b = referee_board(r);
		hm_label(b, pg->san, where, sizeof where);
		if (referee_over(r)) {
			rc = failf(err, errlen, "%s: the game is already over", where);
			break;
		}
		if ((size_t)referee_plies(r) > i) {
			/* Played by an "if quiet" sequence inside an earlier action. */
			if (pg->has_krieg && pg->krieg.p[0])
				rc = failf(err, errlen, "%s: a move played by a quiet sequence has no actions", where);
			continue;
		}
		/* Its number, when written, is this move's: "1... e5" at the start
		 * was read as White's e5 and refused as an illegal move (the
		 * referee probe).  "3." before Black's move is taken, as readers do. */
		if (pg->num != 0 && (pg->num != b->fullmove || (pg->dots >= 3 && b->side == WHITE))) {
			/* move_number's LONG_MAX is a number of more digits, not
			 * that one (a probe read "numbered 9223372036854775807."). */
			char num[32];
			if (pg->num == LONG_MAX)
				snprintf(num, sizeof num, "with more than 9 digits");
			else
				snprintf(num, sizeof num, "%ld%s", pg->num, pg->dots >= 3 ? "..." : pg->dots ? "." : "");
			rc = failf(err, errlen, "%s: numbered %s, but %s is to play move %d", where, num,
			           b->side == WHITE ? "White" : "Black", b->fullmove);
			break;
		}
		if (pg->has_krieg) {
			rc = apply_krieg(&rp, pg->krieg.p, where, err, errlen);
		} else {
			/* UMD: each attempt a try, then the move. */
			const char *p = pg->k_att.p;
			while (rc == 0 && *p) {
				size_t n = strcspn(p, ",");
				char tok[ACTION_TEXT_MAX];
				snprintf(tok, sizeof tok, "%.*s", (int)(n < sizeof tok - 1 ? n : sizeof tok - 1), p);
				p += n + (p[n] == ',');
				if (strcmp(tok, "??") == 0)
					rc = failf(err, errlen, "%s: a filtered PGN (\"??\" tries) cannot be replayed", where);
				else if (tok[0] == '\0')
					rc = failf(err, errlen, "%s: empty attempt in (K:...)", where);
				else
					rc = apply_new(&rp, ACTION_TRY, tok, referee_side_to_move(r), where, err,
					               errlen);
				if (rc == 0 && (size_t)referee_plies(r) > i)
					rc = failf(err, errlen, "%s: the attempt %s is legal: it was played", where, tok);
			}
			if (rc != 0)
				break;
			const char *why;
			b = referee_board(r);
			move_t m = san_resolve(b, pg->san, &why);
			if (m == MOVE_NONE) {
				rc = failf(err, errlen, "%s: %s", where, why);
				break;
			}
			struct board own;
			char san[NOTATION_MAX];
			board_own_view(b, b->side, &own);
			notation_san(&own, m, true, san);
			rc = apply_new(&rp, ACTION_TRY, san, b->side, where, err, errlen);
		}
		if (rc == 0 && (size_t)referee_plies(r) <= i)
			rc = failf(err, errlen, "%s: the recorded actions do not play a move", where);
	}
	if (rc == 0 && t->has_trail)
		rc = apply_krieg(&rp, t->trail.krieg.p, "after the last move", err, errlen);
	if (rc == 0 && (size_t)referee_plies(r) != t->nhm)
		rc = failf(err, errlen, "the replay plays %d moves, the PGN records %zu", referee_plies(r), t->nhm);
	*l = rp.l;
	evlist_free(&rp.ev);
	referee_free(r);
	return rc;
}

/*
 * One game from text (its first line `line`): pgn_read's work.  With
 * `one`, text after the game is refused; else *next and *next_line are
 * where the next game begins (the end of the text: *next == '\0'), set
 * once the game's text is read, even if its replay is then refused, and
 * NULL before (a text that does not read has no known end).
 */
static int read_game(const char *text, int line, bool one, const char **next, int *next_line,
                     struct pgn_header *h, struct action **a, size_t *n, char *err, size_t errlen)
{
	*a = NULL;
	*n = 0;
	*next = NULL;
	pgn_header_init(h);

	struct ptext t;
	memset(&t, 0, sizeof t);
	pgroup_init(&t.open);
	pgroup_init(&t.trail);
	const char *p = skip_bom(text);
	int rc = parse_tags(&p, &line, h, &t, err, errlen);
	/* Nothing but blanks and escape lines: no game at all, not one of no
	 * moves (the PGN probe: an empty file "replayed"). */
	if (rc == 0 && t.ntags == 0 && *p == '\0')
		rc = failf(err, errlen, "no game in the text");
	if (rc == 0 && t.setup && h->fen[0] == '\0')
		rc = failf(err, errlen, "SetUp \"1\" without a FEN tag");
	if (rc == 0)
		rc = parse_movetext(&p, &line, one, &t, err, errlen);
	if (rc == 0) {
		*next = p;
		*next_line = line;
	}
	/* The Result tag must agree with the movetext's result (PGN.md); an
	 * absent one reads as "*", so only "*" agrees with it.  Said as it is:
	 * the message named a tag the text does not hold ("the Result tag says
	 * *": the PGN probe). */
	if (rc == 0 && t.result_token[0] && strcmp(t.result_token, h->result) != 0)
		rc = t.has_result ? failf(err, errlen, "the movetext ends %s but the Result tag says %s",
		                          t.result_token, h->result)
		                  : failf(err, errlen, "the movetext ends %s but there is no Result tag",
		                          t.result_token);

	struct alist l = { 0 };
	const struct ruleset *rs = ruleset_find(h->rules);
	if (rc == 0)
		rc = recover(&t, h, rs, &l, err, errlen);
	if (rc == 0) {
		struct glog g;
		char e[200];
		if (pgn_glog_build(&g, rs, h->fen[0] ? h->fen : NULL, l.v, l.n, e, sizeof e) != 0)
			rc = failf(err, errlen, "replay: %s", e);
		else if (g.nhm != t.nhm)
			rc = failf(err, errlen, "the replay plays %zu moves, the PGN records %zu", g.nhm, t.nhm);
		else
			rc = check_log(&t, &g, h, err, errlen);
		pgn_glog_free(&g);
	}
	ptext_free(&t);
	if (rc != 0) {
		free(l.v);
		return -1;
	}
	*a = l.v;
	*n = l.n;
	return 0;
}

int pgn_read(const char *text, struct pgn_header *h, struct action **a, size_t *n, char *err,
             size_t errlen)
{
	*a = NULL;
	*n = 0;
	pgn_header_init(h);
	if (text == NULL)
		return failf(err, errlen, "no text");
	if (strnlen(text, PGN_INPUT_MAX + 1) > PGN_INPUT_MAX)
		return failf(err, errlen, "PGN longer than %u bytes", PGN_INPUT_MAX);
	const char *next;
	int next_line;
	return read_game(text, 1, true, &next, &next_line, h, a, n, err, errlen);
}

int pgn_read_next(struct pgn_pos *pos, struct pgn_header *h, struct action **a, size_t *n, char *err,
                  size_t errlen)
{
	if (pos->p == NULL) {
		*a = NULL;
		*n = 0;
		pgn_header_init(h);
		return failf(err, errlen, "no text");
	}
	return read_game(pos->p, pos->line, false, &pos->p, &pos->line, h, a, n, err, errlen);
}


/* The line after the one at *p (or the end of the text), counted. */
static void next_line(const char **p, int *line)
{
	*p += strcspn(*p, "\n");
	if (**p == '\n') {
		(*p)++;
		(*line)++;
	}
}

/* Could the line at p begin a movetext: a move number, a comment, a
 * variation, a NAG, the unfinished result? */
static bool movetext_line(const char *p)
{
	p = skip_tag_blanks(p);
	return (*p >= '0' && *p <= '9') || *p == '{' || *p == '(' || *p == ';' || *p == '$' || *p == '*';
}

/* From *p, to the next line that starts with a tag pair, outside comments
 * when `comments` (a comment's line "[Event ..." is no game; a line of
 * krieg's movetext starting "[%krieg" is no tag pair either); escape lines
 * skipped.  Whether the text ended inside a comment. */
static bool resync_scan(const char **pp, int *line, bool comments)
{
	const char *p = *pp;
	bool in_comment = false, line_start = true, after_blank = false;
	while (*p != '\0') {
		if (line_start && !in_comment && *p == '%') {
			next_line(&p, line);   /* an escape line */
			continue;
		}
		/* after a blank line, inside a comment too: as the reader ends an
		 * unclosed comment there (game_after_blank) */
		if (line_start && (!in_comment || after_blank) && tag_line(p))
			break;
		if (line_start)
			after_blank = blank_line(p);
		line_start = false;
		if (comments && !in_comment && *p == ';') {   /* a comment to the line's end */
			p += strcspn(p, "\n");
			continue;
		}
		if (comments && *p == '{')
			in_comment = true;   /* comments do not nest */
		else if (*p == '}')
			in_comment = false;
		if (*p == '\n') {
			(*line)++;
			line_start = true;
		}
		p++;
	}
	*pp = p;
	return in_comment;
}

void pgn_resync(struct pgn_pos *pos, const char *game, int line)
{
	const char *p = skip_bom(game);
	while (*p != '\0' && (blank_line(p) || *p == '%'))
		next_line(&p, &line);
	/* The unread game's own tag pairs, to the blank line after them or
	 * its movetext: its error may be in one, whose value may run on over
	 * lines (a review: the resync landed on the game's own next tag pair,
	 * a remnant read as a game; and, to a blank line alone, a game without
	 * one swallowed the next game's tags). */
	if (tag_line(p))
		while (*p != '\0' && !blank_line(p) && (tag_line(p) || !movetext_line(p)))
			next_line(&p, &line);
	/* Its movetext, to the next game's tag pairs outside its comments; a
	 * comment never closed (which is why it did not read) hides none: the
	 * next game then after any line, as the reader itself ends it. */
	const char *moves = p;
	int moves_line = line;
	if (resync_scan(&p, &line, true)) {
		p = moves;
		line = moves_line;
		resync_scan(&p, &line, false);
	}
	pos->p = p;
	pos->line = line;
}
