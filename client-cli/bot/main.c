/*
 * main.c — krieg-bot: a computer opponent that is a client like any other.
 * It speaks the protocol over TLS with net.c (the terminal client's
 * connection), decodes announcements with proto/event_json.c, and plays
 * each game with a bot (bot.h) fed only the events addressed to it.
 *
 *   krieg-bot play HOST[:PORT] (--user U --password-file F | --guest) [options]
 *   krieg-bot arena --white L --black L --games N --rules R [--movetime MS]
 *                   [--max-plies N] [--server HOST:PORT [--umpire U --umpire-password-file F]
 *                   | --kriegd PATH] [--local [--fen FEN] [--pgn FILE]]
 *
 * `play` answers challenges within its rule sets and time controls and,
 * with --seek, keeps seeks open for them (one per rule set and time
 * control, as many as --max-games leaves room for; session.c).
 *
 * `arena` over the network plays through kriegd and attaches an umpire
 * connection to each game, whose `board` events are the true position
 * every ply: each bot's belief is measured against it before the bot
 * acts on that ply (the truth reaches the measurement, never a bot).
 * `arena --local` plays in-process through the rules core (local.h) and
 * measures the same with the referee's board; --pgn writes every game's
 * full record there (the umpire's PGN, proto/PGN.md), to study its play.
 *
 * Here: the options and the two modes' loops; a session is session.c's,
 * the arena's games and score arena.c's.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "fen.h"
#include "session.h"

/* The numeric options' ceilings: generous, but a typo's extra digits are refused. */
#define GAMES_MAX 1000000          /* --games */
#define PLIES_MAX 100000           /* --max-plies; a record holds at most 50,000 actions */
#define MOVETIME_MAX_MS 3600000    /* --movetime: an hour a decision */
#define BELIEF_SIZE_MAX 10000000   /* --particles, --exact-max, --rejuv-div */

/* ------------------------------------------------------------------ */
/* play                                                                */

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) { stop_requested = sig; }

static int play(struct sess *s, const char *hostport, bool insecure, const char *known)
{
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	long delay = 0;
	/* Whether games may be waiting for it at the server (sess_retry_ms):
	 * until it has logged in once it cannot know it has none (it may have
	 * been restarted while the server was down). */
	bool games = true;
	while (!stop_requested) {
		s->dead = false;
		s->logged_in = false;
		s->resume_req = 0;
		int c = sess_connect(s, hostport, insecure, known);
		if (c == SESS_CONNECT_UNTRUSTED) {
			/* A changed pinned certificate is no transient failure: every
			 * retry would print the banner again and change nothing until
			 * an operator removes the pin (sess_connect said which line). */
			sess_say(s, "the server's certificate is refused: not trying again (exit %d)", PLAY_EXIT_UNTRUSTED);
			return PLAY_EXIT_UNTRUSTED;
		}
		if (c == 0) {
			struct sess *ss[1] = { s };
			while (!s->dead && !stop_requested)
				sess_pump(ss, 1, 100);
			/* A connection the server closed before a login (its
			 * address's limit: "try again later") is no return of the
			 * server: the wait goes on growing (it started again at 1 s,
			 * a connection a second: bot probe). */
			if (s->logged_in)
				delay = 0;
			if (s->refused) {
				net_free(s->net);
				s->net = NULL;
				sess_say(s, "the %s was refused for good: not trying again (exit %d)",
				         s->logged_in ? "account" : "login", PLAY_EXIT_REFUSED);
				return PLAY_EXIT_REFUSED;
			}
			/* its games are rebuilt from game_state at the next login */
			int had = sess_lost(s);
			if (s->logged_in)
				games = had > 0;
			net_free(s->net);
			s->net = NULL;
			if (!stop_requested)
				fprintf(stderr, "krieg-bot: connection lost; reconnecting\n");
		}
		if (stop_requested)
			break;
		delay = sess_retry_ms(delay, games);
		usleep((useconds_t)delay * 1000);
	}
	return 0;
}

/*
 * A numeric option's value: a whole number in [lo, hi], all of it (atoi
 * took "4x" for 4 and "x" for 0, and an out-of-range count was quietly
 * cut to the limit, so the bot ran with a setting nobody asked for).
 * 0, or -1 said on stderr (the caller exits 2).
 */
static int opt_num(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	/* strtoll also skips leading blanks and takes a sign: neither is a count */
	if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno == ERANGE || x < lo || x > hi) {
		fprintf(stderr, "krieg-bot: %s takes a whole number from %lld to %lld, not '%s'\n", opt, lo, hi, v);
		return -1;
	}
	*out = x;
	return 0;
}

/* --level, --white, --black: a level's name (the message names the option:
 * it said "counts are positive" of a misspelt level; bot probe). */
static int opt_level(const char *opt, const char *v, int *out)
{
	int l = bot_level_parse(v);
	if (l < 0) {
		fprintf(stderr, "krieg-bot: %s takes a level, random, greedy or full, not '%s'\n", opt, v);
		return -1;
	}
	*out = l;
	return 0;
}

/*
 * The comma-separated items of option opt's value, split in buf (kept:
 * the items point into it), empty ones kept for the caller to refuse:
 * their count, or -1 said (too long).
 */
#define LIST_ITEMS_MAX 64
static int list_items(const char *opt, const char *list, char *buf, size_t len, char **items)
{
	if (snprintf(buf, len, "%s", list) >= (int)len) {
		fprintf(stderr, "krieg-bot: %s is too long\n", opt);
		return -1;
	}
	int n = 0;
	for (char *t = buf, *next; t && n < LIST_ITEMS_MAX; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		items[n++] = t;
	}
	return n;
}

/*
 * --rules R,R,...: each a known rule set, none empty (`--rules ""` or
 * "icc,,english" named nothing and was read as "all"), at most RULES_MAX.
 * 0, or -1 said on stderr (the caller exits 2).
 */
static int rules_parse(struct sess *s, const char *list)
{
	static char buf[256];
	char *items[LIST_ITEMS_MAX];
	int n = list_items("--rules", list, buf, sizeof buf, items);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char *t = items[i];
		if (!*t || !ruleset_find(t)) {
			fprintf(stderr, "krieg-bot: --rules takes rule sets separated by commas; %s%s%s\n",
			        *t ? "unknown rule set '" : "an empty name", t, *t ? "'" : "");
			return -1;
		}
		if (s->nrules >= RULES_MAX) {
			fprintf(stderr, "krieg-bot: --rules takes at most %d rule sets\n", RULES_MAX);
			return -1;
		}
		s->rules[s->nrules++] = t;
	}
	return 0;
}

/*
 * Which runs an option is for: one given to the other was read and
 * ignored (`play --games 5 --local` played; `arena --local --server X`
 * played locally: bot probe).
 */
enum {
	FOR_PLAY = 1,
	FOR_LOCAL = 2,   /* arena --local */
	FOR_NET = 4,     /* arena over the network */
	FOR_KRK = 8,     /* krk-fen, the benchmark's starts */
	FOR_ARENA = FOR_LOCAL | FOR_NET,
};

static const struct {
	const char *name;
	unsigned runs;
} option_runs[] = {
	{ "--games", FOR_ARENA }, { "--max-games", FOR_PLAY }, { "--max-plies", FOR_ARENA },
	{ "--movetime", FOR_PLAY | FOR_ARENA }, { "--rate", FOR_PLAY }, { "--particles", FOR_LOCAL },
	{ "--exact-max", FOR_LOCAL }, { "--rejuv-div", FOR_LOCAL }, { "--seed", FOR_PLAY | FOR_LOCAL | FOR_KRK },
	{ "--white", FOR_ARENA }, { "--black", FOR_ARENA }, { "--level", FOR_PLAY },
	{ "--rules", FOR_PLAY | FOR_ARENA }, { "--server", FOR_NET }, { "--kriegd", FOR_NET },
	{ "--fen", FOR_LOCAL }, { "--pgn", FOR_LOCAL }, { "--user", FOR_PLAY }, { "--password-file", FOR_PLAY },
	{ "--umpire", FOR_NET }, { "--umpire-password-file", FOR_NET }, { "--known-servers", FOR_PLAY },
	{ "--time", FOR_PLAY }, { "--seek", FOR_PLAY }, { "--local", FOR_ARENA }, { "--insecure", FOR_PLAY },
	{ "--guest", FOR_PLAY },
};

/* Was option `name` among those given (not a default: $KRIEGD is one)? */
static bool option_given(const char *const *given, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(given[i], name) == 0)
			return true;
	return false;
}

/* The runs in r, in words: "play and arena --local". */
static void runs_words(unsigned r, char *buf, size_t len)
{
	const char *w[3];
	int n = 0;
	if (r & FOR_PLAY)
		w[n++] = "play";
	if ((r & FOR_ARENA) == FOR_ARENA)
		w[n++] = "arena";
	else if (r & FOR_LOCAL)
		w[n++] = "arena --local";
	else if (r & FOR_NET)
		w[n++] = "arena without --local";
	if (r & FOR_KRK)
		w[n++] = "krk-fen";
	snprintf(buf, len, "%s%s%s%s%s", n > 0 ? w[0] : "", n > 1 ? " and " : "", n > 1 ? w[1] : "",
	         n > 2 ? " and " : "", n > 2 ? w[2] : "");
}

/* 0, or -1 said: the option `opt` (as typed) is not for this run. */
static int option_fits(const char *opt, unsigned run)
{
	for (size_t i = 0; i < sizeof option_runs / sizeof option_runs[0]; i++) {
		if (strcmp(option_runs[i].name, opt) != 0 || (option_runs[i].runs & run))
			continue;
		char is_for[64], here[64];
		runs_words(option_runs[i].runs & ~(unsigned)FOR_KRK, is_for, sizeof is_for);
		runs_words(run, here, sizeof here);
		fprintf(stderr, "krieg-bot: %s is for %s, not %s\n", opt, is_for, here);
		return -1;
	}
	return 0;
}

/*
 * --time a,b,c: each untimed, Nd or MINUTES+INC, none empty (`--time ""`
 * named nothing and was read as "any": bot probe), at most TIMES_MAX.
 * 0, or -1 said on stderr (the caller exits 2).
 */
static int times_parse(struct sess *s, const char *list)
{
	char buf[256], *items[LIST_ITEMS_MAX];
	int n = list_items("--time", list, buf, sizeof buf, items);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *t = items[i];
		if (s->ntimes >= TIMES_MAX || !*t || sess_tc_parse(t, &s->times[s->ntimes]) != 0) {
			fprintf(stderr, "krieg-bot: --time takes at most %d of untimed, Nd (days per move, 1..60) or "
			        "MINUTES+INC (5+2: five minutes, two seconds more a move; 1:40+0.5; a base of 1 s "
			        "to 1440 minutes, an increment to 600 s), separated by commas, not '%s'\n",
			        TIMES_MAX, *t ? t : "(empty)");
			return -1;
		}
		s->ntimes++;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: krieg-bot play HOST[:PORT] (--user NAME --password-file FILE | --guest)\n"
	      "                [--level random|greedy|full] [--rules R,R,...] [--max-games N]\n"
	      "                [--time untimed|Nd|MINUTES+INC|M:SS+INC,...] [--seek]\n"
	      "                [--movetime MS] [--rate N] [--insecure] [--known-servers FILE]\n"
	      "       krieg-bot arena --white LEVEL --black LEVEL --games N --rules R [--movetime MS]\n"
	      "                [--max-plies N (a draw by agreement there; 0: none)]\n"
	      "                [--server HOST:PORT [--umpire NAME --umpire-password-file FILE] | --kriegd PATH]\n"
	      "                [--local [--fen FEN] [--pgn FILE]] [--seed N]\n"
	      "                [--particles N] [--exact-max N] [--rejuv-div N (0: never)]\n"
	      "       krieg-bot --version | --help\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("krieg-bot %s (protocol %d)\n", KRIEG_RELEASE, PROTO_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "play") != 0 && strcmp(cmd, "arena") != 0 && strcmp(cmd, "krk-fen") != 0) {
		fprintf(stderr, "krieg-bot: unknown command '%s' (play or arena)\n", cmd);
		usage(stderr);
		return 2;
	}
	const char *given[argc];   /* the options given, for option_fits */
	int ngiven = 0;
	int la = BOT_FULL, lb = BOT_RANDOM, games = 2, level = BOT_FULL, max_games = 4, max_plies = 0;
	long movetime = 0;
	int rate = SESS_RATE_DEFAULT;
	/* rules NULL: no --rules (play: every rule set; arena: RULESET_DEFAULT) */
	const char *rules = NULL, *server = NULL, *kriegd = getenv("KRIEGD"), *fen = NULL, *pgn = NULL;
	const char *user = NULL, *pwfile = NULL, *known = NULL, *target = NULL;
	const char *umpire = NULL, *umpire_pwfile = NULL;
	bool local = false, insecure = false, guest = false, seek = false;
	const char *times = NULL;
	uint64_t seed = 1;
	struct belief_limits lim = { BELIEF_EXACT_MAX, BELIEF_PARTICLES, BELIEF_REJUV_DIV };
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(name) (strcmp(a, name) == 0 && v && (i++, 1))
		/* a numeric option: its value in x, or bad (said) */
		long long x = 0;
		bool bad = false;
#define NUM(name, lo, hi) (strcmp(a, name) == 0 && v && (i++, opt_num(name, v, lo, hi, &x) == 0 || (bad = true)))
		if (NUM("--games", 1, GAMES_MAX))
			games = (int)x;
		else if (NUM("--max-games", 1, PLAY_GAMES_MAX))
			max_games = (int)x;
		else if (NUM("--max-plies", 0, PLIES_MAX))
			max_plies = (int)x;
		else if (NUM("--movetime", 0, MOVETIME_MAX_MS))
			movetime = (long)x;
		else if (NUM("--rate", 1, SESS_RATE_MAX))
			rate = (int)x;
		else if (NUM("--particles", 1, BELIEF_SIZE_MAX))
			lim.particles = (size_t)x;
		else if (NUM("--exact-max", 1, BELIEF_SIZE_MAX))
			lim.exact_max = (size_t)x;
		else if (NUM("--rejuv-div", 0, BELIEF_SIZE_MAX))
			lim.rejuv_div = x > 0 ? (size_t)x : SIZE_MAX;
		else if (NUM("--seed", 0, LLONG_MAX))
			seed = (uint64_t)x;
		else if (TAKE("--white"))
			bad = opt_level(a, v, &la) != 0;
		else if (TAKE("--black"))
			bad = opt_level(a, v, &lb) != 0;
		else if (TAKE("--level"))
			bad = opt_level(a, v, &level) != 0;
		else if (TAKE("--rules"))
			rules = v;
		else if (TAKE("--server"))
			server = v;
		else if (TAKE("--kriegd"))
			kriegd = v;
		else if (TAKE("--fen"))
			fen = v;
		else if (TAKE("--pgn"))
			pgn = v;
		else if (TAKE("--user"))
			user = v;
		else if (TAKE("--password-file"))
			pwfile = v;
		else if (TAKE("--umpire"))
			umpire = v;
		else if (TAKE("--umpire-password-file"))
			umpire_pwfile = v;
		else if (TAKE("--known-servers"))
			known = v;
		else if (TAKE("--time"))
			times = v;
		else if (strcmp(a, "--seek") == 0)
			seek = true;
		else if (strcmp(a, "--local") == 0)
			local = true;
		else if (strcmp(a, "--insecure") == 0)
			insecure = true;
		else if (strcmp(a, "--guest") == 0)
			guest = true;
		else if (a[0] != '-' && !target && strcmp(cmd, "play") == 0)
			target = a;
		else {
			fprintf(stderr, "krieg-bot: %s '%s'\n",
			        a[0] != '-' ? "unexpected word" : "unknown or incomplete option", a);
			usage(stderr);
			return 2;
		}
		if (bad)
			return 2;
		if (a[0] == '-')
			given[ngiven++] = a;
#undef NUM
#undef TAKE
	}
	if (kriegd && !*kriegd)
		kriegd = NULL;   /* KRIEGD= names nothing: as unset (it was "could not start ") */
	unsigned run = strcmp(cmd, "play") == 0 ? FOR_PLAY : strcmp(cmd, "krk-fen") == 0 ? FOR_KRK
	             : local ? FOR_LOCAL : FOR_NET;
	for (int i = 0; i < ngiven; i++)
		if (option_fits(given[i], run) != 0)
			return 2;
	if (strcmp(cmd, "arena") == 0) {
		if (!rules)
			rules = RULESET_DEFAULT;
		const struct ruleset *rs = ruleset_find(rules);
		if (!rs) {
			fprintf(stderr, "krieg-bot: unknown rule set '%s'\n", rules);
			return 2;
		}
		/* Thinking as play's default (an untimed game's: bot.h), as the
		 * network arena's bots think: 0 here was the least search, so
		 * the man page's example measured a weaker bot (bot probe). */
		if (local && !option_given(given, ngiven, "--movetime"))
			movetime = BOT_BUDGET_DEFAULT_MS;
		if (local)
			return arena_local(la, lb, games, rs, movetime, max_plies, fen, seed, &lim, pgn);
		if (server && option_given(given, ngiven, "--kriegd")) {
			fprintf(stderr, "krieg-bot: --server and --kriegd are alternatives: a running kriegd, or one "
			        "the arena starts\n");
			return 2;
		}
		if (!server && !kriegd) {
			fprintf(stderr, "krieg-bot: arena needs --server HOST:PORT, --kriegd PATH or $KRIEGD\n");
			return 2;
		}
		signal(SIGPIPE, SIG_IGN);
		struct arena_opts ao = { .la = la, .lb = lb, .games = games, .max_plies = max_plies, .rules = rules,
		                         .movetime = movetime, .server = server, .kriegd = kriegd,
		                         .umpire = umpire, .umpire_pwfile = umpire_pwfile };
		return arena_net(&ao);
	}
	if (strcmp(cmd, "krk-fen") == 0) {
		char start[FEN_MAX];
		local_krk_fen(seed, start, sizeof start);
		printf("%s\n", start);
		return 0;
	}
	if (strcmp(cmd, "play") == 0) {
		static char password[PROTO_PASSWORD_MAX + 2];
		/* What is missing or at odds, named (the usage alone was printed,
		 * and --guest beside --user quietly made a guest: bot probe). */
		const char *wrong = !target ? "play needs HOST[:PORT], the server"
		                  : guest && (user || pwfile) ? "--guest and --user/--password-file are "
		                                                "alternatives: a guest has no account"
		                  : guest ? NULL
		                  : !user && !pwfile ? "play needs --user NAME --password-file FILE, or --guest"
		                  : !pwfile ? "--user needs --password-file FILE"
		                  : !user ? "--password-file needs --user NAME" : NULL;
		if (wrong) {
			fprintf(stderr, "krieg-bot: %s\n", wrong);
			usage(stderr);
			return 2;
		}
		/* A mistyped address is a usage error, not a server to wait for:
		 * it was retried for good, a journal line a minute (bot probe). */
		char host[NET_HOST_MAX], port[16];
		if (net_split_hostport(target, host, sizeof host, port, sizeof port) != 0) {
			fprintf(stderr, "krieg-bot: bad address '%s': HOST or HOST:PORT (a port from 1 to 65535; "
			        "[::1]:7474 for IPv6)\n", target);
			return 2;
		}
		const char *why = guest ? NULL : sess_read_password(pwfile, password, sizeof password);
		if (why != NULL) {
			fprintf(stderr, "krieg-bot: cannot read the password file %s: %s\n", pwfile, why);
			return 2;
		}
		struct sess s = { .name = "play", .journal = true, .level = level, .movetime_ms = movetime, .max_games = max_games,
		                  .login_user = guest ? NULL : user, .login_password = password, .seed = seed,
		                  .pace = { .rate = rate, .max = rate } };
		/* --rules a,b,c: the rule sets whose challenges are accepted, and
		 * only those (a lone `icc`, the default's name, was read as no list
		 * and accepted all).  No --rules: every rule set. */
		if (rules && rules_parse(&s, rules) != 0)
			return 2;
		/* --time a,b,c: the time controls it accepts and seeks */
		if (times && times_parse(&s, times) != 0)
			return 2;
		/* --seek: a seek per rule set and time control, as many open as
		 * --max-games leaves room for (seeks_reconcile) */
		if (seek) {
			int nr = s.nrules ? s.nrules : 1, nt = s.ntimes ? s.ntimes : 1;
			if (nr * nt > SEEKS_MAX) {
				fprintf(stderr, "krieg-bot: --seek: at most %d rule sets times time controls\n", SEEKS_MAX);
				return 2;
			}
			for (int r = 0; r < nr; r++)
				for (int t = 0; t < nt; t++)
					s.seeks[s.nseeks++] = (struct seekslot){ .rules = s.nrules ? s.rules[r] : RULESET_DEFAULT,
					                                          .tc = s.ntimes ? s.times[t] : (struct tc){ 0 } };
		}
		return play(&s, target, insecure, known);
	}
	return 2;   /* not reached: the command was checked first */
}
