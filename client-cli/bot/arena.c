/*
 * arena.c — see arena.h: bots against each other, scored.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "mstime.h"
#include "pgn.h"
#include "session.h"

#define ARENA_GAME_MS_MAX 600000  /* one arena game: give up after ten minutes */

/* One line of containment figures, after `label` ("belief", "umpire's check"). */
static void stats_print(const char *label, const struct local_belief_stats *bs)
{
	printf("%s: exact %ld/%ld plies hold the true position (%.1f%%, in the top half of the weight %.1f%%); "
	       "sampled %ld plies: held %.1f%%, in the top half of the weight %.1f%%\n",
	       label, bs->exact_in, bs->exact_plies, bs->exact_plies ? 100.0 * bs->exact_in / bs->exact_plies : 100.0,
	       bs->exact_plies ? 100.0 * bs->exact_top / bs->exact_plies : 100.0,
	       bs->sampled_plies, bs->sampled_plies ? 100.0 * bs->sampled_in / bs->sampled_plies : 0,
	       bs->sampled_plies ? 100.0 * bs->sampled_top / bs->sampled_plies : 0);
}

/* ------------------------------------------------------------------ */
/* a local kriegd for the arena                                        */

static pid_t kriegd_pid = -1;
static char kriegd_dir[256];

#define ARENA_UMPIRE "arena-umpire"

/*
 * The umpire account of the arena's own kriegd, made offline before it
 * starts (`kriegd user add NAME --role umpire --password-stdin`), with a
 * random password written to the tool's stdin.  0, or -1.
 */
static int kriegd_add_umpire(const char *bin, const char *state, const char *conf, char *password,
                             size_t len)
{
	unsigned char r[12];
	int rfd = open("/dev/urandom", O_RDONLY);
	if (rfd < 0 || read(rfd, r, sizeof r) != (ssize_t)sizeof r || len < 2 * sizeof r + 1) {
		if (rfd >= 0)
			close(rfd);
		return -1;
	}
	close(rfd);
	for (size_t i = 0; i < sizeof r; i++)
		snprintf(password + 2 * i, 3, "%02x", r[i]);
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		close(p[1]);
		dup2(p[0], 0);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execl(bin, bin, "--state-dir", state, "--config", conf, "user", "add", ARENA_UMPIRE, "--role",
		      "umpire", "--password-stdin", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	bool ok = dprintf(p[1], "%s\n", password) > 0;
	close(p[1]);
	int status;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ok = false;
	return ok ? 0 : -1;
}

/*
 * A private kriegd in a new directory of $TMPDIR: 0, or -1 said on stderr.
 * Whatever it made is undone by kriegd_stop, which the caller runs either
 * way (a failed start left its directory behind).
 */
static int kriegd_start(const char *bin, char *hostport, size_t len, char *umpire_pw, size_t pwlen)
{
	if (access(bin, X_OK) != 0) {
		fprintf(stderr, "krieg-bot: %s: %s\n", bin, strerror(errno));
		return -1;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(kriegd_dir, sizeof kriegd_dir, "%s/krieg-bot-arena-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(kriegd_dir)) {
		fprintf(stderr, "krieg-bot: %s: %s\n", kriegd_dir, strerror(errno));
		kriegd_dir[0] = '\0';
		return -1;
	}
	char state[300], logp[300], conf[300];
	snprintf(state, sizeof state, "%s/state", kriegd_dir);
	snprintf(logp, sizeof logp, "%s/kriegd.log", kriegd_dir);
	snprintf(conf, sizeof conf, "%s/kriegd.conf", kriegd_dir);
	FILE *f = fopen(conf, "w");
	if (!f)
		return -1;
	/* two bots from one address, as fast as they think; and a throwaway
	 * daemon's passwords (the arena's random ones) hashed at scrypt's
	 * lowest cost, not 170 ms at every login and at the daemon's start */
	fputs("guests_per_address = 0\ngames_per_hour = 0\nrate_limit = 1000\nrate_burst = 1000\npassword_cost = 10\n", f);
	fclose(f);
	if (kriegd_add_umpire(bin, state, conf, umpire_pw, pwlen) != 0) {
		fprintf(stderr, "krieg-bot: could not make the arena's umpire account (%s user add)\n", bin);
		return -1;
	}
	pid_t parent = getpid();
	kriegd_pid = fork();
	if (kriegd_pid < 0)
		return -1;
	if (kriegd_pid == 0) {
		int fd = open(logp, O_WRONLY | O_CREAT | O_APPEND, 0600);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execl(bin, bin, "--state-dir", state, "--listen", "127.0.0.1:0", "--config", conf, (char *)NULL);
		_exit(127);
	}
	const char *needle = "kriegd: listening on 127.0.0.1:";
	for (int tries = 0; tries < 6000; tries++) {   /* a minute: a kriegd under valgrind is slow */
		char buf[8192] = "";
		FILE *lf = fopen(logp, "r");
		if (lf) {
			size_t n = fread(buf, 1, sizeof buf - 1, lf);
			buf[n] = '\0';
			fclose(lf);
		}
		char *p = strstr(buf, needle);
		if (p && strstr(buf, "kriegd: ready")) {
			snprintf(hostport, len, "127.0.0.1:%d", atoi(p + strlen(needle)));
			return 0;
		}
		if (waitpid(kriegd_pid, NULL, WNOHANG) == kriegd_pid)
			return -1;
		usleep(10000);
	}
	return -1;
}

static void kriegd_stop(void)
{
	if (kriegd_pid > 0) {
		kill(kriegd_pid, SIGTERM);
		waitpid(kriegd_pid, NULL, 0);
		kriegd_pid = -1;
	}
	if (kriegd_dir[0]) {
		/* the directory goes whether or not kriegd started in it; rm run
		 * without a shell, as $TMPDIR may hold a quote */
		pid_t pid = fork();
		int status = -1;
		if (pid == 0) {
			execlp("rm", "rm", "-rf", "--", kriegd_dir, (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "krieg-bot: could not remove %s\n", kriegd_dir);
		kriegd_dir[0] = '\0';
	}
}

/* ------------------------------------------------------------------ */
/* arena                                                               */

struct score {
	double a;       /* points of player A (--white's level) */
	int n, wins, draws, losses;
};

static void score_add(struct score *sc, int result, int a_color)
{
	double p = result == RESULT_DRAW ? 0.5 : result == (a_color == WHITE ? RESULT_WHITE : RESULT_BLACK) ? 1 : 0;
	if (result == RESULT_NONE)
		p = 0.5; /* unfinished (aborted, move cap): counted as a draw */
	sc->a += p;
	sc->n++;
	if (p == 1)
		sc->wins++;
	else if (p == 0)
		sc->losses++;
	else
		sc->draws++;
}

static void score_print(const struct score *sc, const char *la, const char *lb, const char *rules, double ms_per_move)
{
	double m = sc->n ? sc->a / sc->n : 0;
	/* Wilson interval for the score share (draws as half points) */
	double z = 1.96, n = sc->n ? sc->n : 1;
	double den = 1 + z * z / n, mid = (m + z * z / (2 * n)) / den;
	double half = z * sqrt(m * (1 - m) / n + z * z / (4 * n * n)) / den;
	printf("arena %s: %s vs %s, games %d: +%d =%d -%d, score %.3f (95%% CI %.3f..%.3f), %.1f ms per move\n",
	       rules, la, lb, sc->n, sc->wins, sc->draws, sc->losses, m, mid - half < 0 ? 0 : mid - half,
	       mid + half > 1 ? 1 : mid + half, ms_per_move);
}

/* One game's full record (the umpire's view: every try and announcement;
 * krieg-referee pgn reads it back) appended to f.  Players "A (level)" and
 * "B (level)", Round the game's number. */
static int arena_pgn(FILE *f, const struct ruleset *rs, const char *fen, int g, int a_color, int la, int lb,
                     const struct local_result *res)
{
	struct pgn_header h;
	pgn_header_init(&h);
	snprintf(h.event, sizeof h.event, "krieg-bot arena");
	snprintf(h.site, sizeof h.site, "local");
	snprintf(h.round, sizeof h.round, "%d", g + 1);
	snprintf(a_color == WHITE ? h.white : h.black, sizeof h.white, "A (%s)", bot_level_name(la));
	snprintf(a_color == WHITE ? h.black : h.white, sizeof h.white, "B (%s)", bot_level_name(lb));
	snprintf(h.rules, sizeof h.rules, "%s", rs->name);
	if (fen)
		snprintf(h.fen, sizeof h.fen, "%s", fen);
	char *text, err[160];
	if (pgn_write(&h, res->acts, res->nacts, AUD_UMPIRE, &text, err, sizeof err) != 0) {
		fprintf(stderr, "krieg-bot: game %d: no PGN: %s\n", g + 1, err);
		return -1;
	}
	fprintf(f, "%s\n", text);
	free(text);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

int arena_local(int la, int lb, int games, const struct ruleset *rs, long movetime, int max_plies,
                       const char *fen, uint64_t seed, const struct belief_limits *lim, const char *pgn)
{
	FILE *pf = NULL;
	if (pgn && !(pf = fopen(pgn, "w"))) {
		fprintf(stderr, "krieg-bot: %s: %s\n", pgn, strerror(errno));
		return 2;
	}
	struct score sc = { 0 };
	long ms = 0, moves = 0, full_moves = 0, a_ms = 0, a_searched = 0;
	double a_upkeep = 0;
	struct local_belief_stats bs = { 0 };
	for (int g = 0; g < games; g++) {
		int a_color = g % 2 == 0 ? WHITE : BLACK;
		struct local_opts o = { .fen = fen, .movetime_ms = movetime, .check_belief = true, .seed = seed + (uint64_t)g,
		                        .lim = *lim, .max_plies = max_plies, .record = pf != NULL };
		struct local_result res;
		char err[128];
		if (local_play(rs, a_color == WHITE ? la : lb, a_color == WHITE ? lb : la, &o, &res, err, sizeof err) != 0) {
			fprintf(stderr, "krieg-bot: %s\n", err);
			if (pf)
				fclose(pf);
			return 2;
		}
		int wrote = pf ? arena_pgn(pf, rs, fen, g, a_color, la, lb, &res) : 0;
		free(res.acts);
		if (wrote != 0) {
			fprintf(stderr, "krieg-bot: %s: the games could not be written\n", pgn);
			fclose(pf);
			return 2;
		}
		score_add(&sc, res.result, a_color);
		for (int c = 0; c < 2; c++) {
			ms += res.ms[c];
			moves += res.moves[c];
			local_stats_add(&bs, &res.bs[c]);
		}
		full_moves += res.moves[a_color];
		a_ms += res.ms[a_color];
		a_upkeep += res.upkeep_ms[a_color];
		a_searched += res.searched[a_color];
		printf("game %d: %s %s in %ld moves of A\n", g + 1, game_result_name(res.result),
		       game_reason_name(res.reason) ? game_reason_name(res.reason) : "unfinished", res.moves[a_color]);
		fflush(stdout); /* a long arena shows its progress */
	}
	score_print(&sc, bot_level_name(la), bot_level_name(lb), rs->name, moves ? (double)ms / (double)moves : 0);
	stats_print("belief", &bs);
	printf("belief: %ld rejuvenations, %ld announcements fitted by nothing, %ld samples made exact again "
	       "(a bare king), %ld kings and pawns spread again (few men), %ld lost samples put back on the bot's men "
	       "and turn; sampled plies with few men: %ld, held %.1f%%\n",
	       bs.rejuvenations, bs.lost, bs.reexact, bs.respread, bs.reanchored, bs.few_plies,
	       bs.few_plies ? 100.0 * bs.few_in / bs.few_plies : 0);
	/* The budget bounds the thinking; taking in the opponent's move (the
	 * belief's expansion, filtering, spreading) comes on top of it */
	printf("time per move of A (%s): %.1f ms thinking (%.0f positions searched a second), %.1f ms taking in "
	       "events\n",
	       bot_level_name(la), full_moves ? (double)a_ms / (double)full_moves : 0,
	       a_ms ? 1000.0 * (double)a_searched / (double)a_ms : 0, full_moves ? a_upkeep / (double)full_moves : 0);
	if (fen)
		printf("moves of A per game: %.1f\n", games ? (double)full_moves / games : 0);
	if (pf && fclose(pf) != 0) {
		fprintf(stderr, "krieg-bot: %s: %s\n", pgn, strerror(errno));
		return 2;
	}
	return 0;
}

int arena_net(const struct arena_opts *ao)
{
	char hostport[128];
	static char umpire_pw[PROTO_PASSWORD_MAX + 2];
	const char *umpire = NULL;
	if (ao->server) {
		snprintf(hostport, sizeof hostport, "%s", ao->server);
		if (ao->umpire) {
			const char *why = ao->umpire_pwfile ? sess_read_password(ao->umpire_pwfile, umpire_pw,
			                                                         sizeof umpire_pw)
			                                    : "none given";
			if (why != NULL) {
				fprintf(stderr, "krieg-bot: --umpire needs a readable --umpire-password-file (%s%s%s)\n",
				        ao->umpire_pwfile ? ao->umpire_pwfile : "", ao->umpire_pwfile ? ": " : "", why);
				return 2;
			}
			umpire = ao->umpire;
		}
	} else if (kriegd_start(ao->kriegd, hostport, sizeof hostport, umpire_pw, sizeof umpire_pw) != 0) {
		fprintf(stderr, "krieg-bot: could not start %s\n", ao->kriegd);
		kriegd_stop();
		return 2;
	} else {
		umpire = ARENA_UMPIRE;
	}
	struct sess a = { .name = "A", .level = ao->la, .movetime_ms = ao->movetime, .max_games = 1, .seed = 1,
	                  .max_plies = ao->max_plies };
	struct sess b = { .name = "B", .level = ao->lb, .movetime_ms = ao->movetime, .max_games = 1, .seed = 2,
	                  .accept_draws = true };
	struct sess u = { .name = "umpire", .is_umpire = true, .login_user = umpire, .login_password = umpire_pw };
	/* the umpire first: its board of a ply is read before the bots act on that ply */
	struct sess *ss[3] = { &u, &a, &b };
	int nss = 0;
	int rc = 0;
	if (sess_connect(&a, hostport, true, NULL) != 0 || sess_connect(&b, hostport, true, NULL) != 0 ||
	    (umpire && sess_connect(&u, hostport, true, NULL) != 0)) {
		rc = 2;
		goto out;
	}
	struct sess **sp = umpire ? ss : ss + 1;
	nss = umpire ? 3 : 2;
	if (umpire)
		a.umpire = b.umpire = &u;
	struct score sc = { 0 };
	int64_t t_start = 0;
	bool in_game = false;
	int capped = 0;
	while (sc.n < ao->games && !a.dead && !b.dead) {
		sess_pump(sp, nss, 20);
		bool umpire_ok = umpire && !u.dead && !u.ufailed;
		if (!a.logged_in || !b.logged_in || (umpire_ok && !u.logged_in))
			continue;
		if (!in_game) {
			int a_color = sc.n % 2 == 0 ? WHITE : BLACK;
			sess_send(&a, json_pack("{s:s,s:s,s:s,s:s}", "type", "challenge", "user", b.user, "rules", ao->rules,
			                        "color", a_color == WHITE ? "white" : "black"));
			in_game = true;
			t_start = mstime_mono();
			a.finished = b.finished = 0;
		} else if (a.finished && b.finished) {
			score_add(&sc, a.last_result[0], a.last_result[1]);
			capped += a.last_reason == REASON_AGREEMENT; /* only the ply cap's offer is ever accepted */
			in_game = false;
			u.ugame = 0;
			u.useated = false;
		} else if (mstime_mono() - t_start > ARENA_GAME_MS_MAX) {
			fprintf(stderr, "krieg-bot: a game took too long\n");
			rc = 2;
			break;
		} else if (umpire_ok && u.ugame == 0) {
			/* the game has begun (A holds it): take its chair */
			for (int i = 0; i < SESS_GAMES_MAX; i++)
				if (a.games[i].bot) {
					u.ugame = a.games[i].id;
					u.umpire_req = sess_send(&u, json_pack("{s:s,s:I}", "type", "umpire", "game",
					                                      (json_int_t)u.ugame));
				}
		}
	}
	if (a.dead || b.dead) {
		fprintf(stderr, "krieg-bot: lost the connection to %s\n", hostport);
		rc = 2;
	}
	long moves = a.moves + b.moves;
	score_print(&sc, bot_level_name(ao->la), bot_level_name(ao->lb), ao->rules,
	            moves ? (double)(a.think_ms + b.think_ms) / (double)moves : 0);
	if (ao->max_plies > 0)
		printf("ply cap %d: %d of %d games drawn there by agreement\n", ao->max_plies, capped, sc.n);
	if (umpire && !u.dead && !u.ufailed) {
		struct local_belief_stats bs = { 0 };
		local_stats_add(&bs, &a.bs);
		local_stats_add(&bs, &b.bs);
		stats_print("umpire's check", &bs);
	} else {
		printf("umpire's check: not made (%s)\n",
		       !umpire ? "no umpire account: --umpire NAME --umpire-password-file FILE"
		               : "the umpire's connection or chair failed");
	}
out:
	for (int i = 0; i < 3; i++) {
		for (int g = 0; g < SESS_GAMES_MAX; g++)
			if (ss[i]->games[g].bot)
				sess_game_close(ss[i], &ss[i]->games[g]);
		net_free(ss[i]->net);
	}
	kriegd_stop();
	return rc;
}
