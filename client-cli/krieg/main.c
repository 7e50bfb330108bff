/*
 * main.c — krieg, the terminal client: flags, the connection, and the two
 * loops (interactive with libedit, and --batch for scripts).  Both poll the
 * terminal (or stdin) and the server together with a one-second tick, so
 * the clocks keep moving while nobody types.
 *
 * libedit's own interface (histedit.h), not its readline wrapper: what is
 * printed while a line is half typed, and each tick of the clocks, takes
 * the prompt and the line off the screen first, every row they wrap over,
 * and only el_wline() says where in the line the cursor stands (the
 * wrapper's rl_point is not kept up to date while a line is read).
 *
 * Every word shown passes through show() (and the prompt through
 * set_prompt), in the locale's character set (render_term_out): UTF-8 as
 * it is, any other converted, so that a C1 control byte from a server's
 * text never reaches an 8-bit terminal; a line typed is read back into
 * UTF-8 (typed()).  --batch's protocol lines stay as the server sent them.
 */
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include <histedit.h>

#include "client.h"
#include "cmd.h"
#include "known.h"
#include "mstime.h"
#include "net.h"
#include "proto.h"
#include "render.h"
#include "words.h"
#include "xmalloc.h"

#define STDIN_LINE_MAX CMD_LINE_MAX
#define QUIET_MS 40                    /* no more lines for this long: what arrived together is all in */
#define RECONNECT_FIRST_MS 1000        /* then 2, 4, 8 ... s */
#define RECONNECT_DELAY_MAX_MS 10000  /* a network back waits no longer (30 s was half the
                                       * abandonment grace: the phone probe, of the page's) */
#define RECONNECT_GIVE_UP_MS 120000
#define PIPE_EOF_WAIT_MS 10000         /* input from a pipe ended: its answers awaited this long at most */
#define HISTORY_MAX 10000              /* lines the arrow keys go back over */

struct ui {
	struct client cl;
	struct net *net;
	enum net_status send_status;   /* NET_OK, or why the last send failed (--batch says it) */
	struct net_opts nopts;  /* how to connect again */
	char hostport[NET_HOST_MAX + 16];
	bool readline;        /* libedit owns the terminal */
	/* --plain (screen readers): no libedit, no redraws; the prompt printed
	 * once when krieg waits for input after output (prompting: stdin a terminal) */
	bool prompting;
	bool owe_prompt;      /* output (or a line typed) since the prompt was last printed */
	bool prompt_open;     /* the prompt is the last thing on the screen's line */
	EditLine *el;         /* the line editor (readline), and its history */
	History *hist;
	bool editing;         /* inside el_gets(): a prompt and a half-typed line are on screen */
	bool interrupt_signalled;   /* the Ctrl-C next_key hands libedit came as the signal */
	sigset_t wait_mask;   /* the signal mask while next_key waits: SIGWINCH let in (edit_open) */
	bool net_down;
	bool quit;
	struct render_term term;   /* the terminal's character set */
	bool lossy_said;           /* the word on the C locale's ASCII was said (show) */
	char prompt_said[256];     /* the client's prompt (UTF-8) */
	char *prompt;              /* as the terminal shows it: what libedit draws */
	/* stdin line reader (batch, and interactive without a terminal) */
	char in[STDIN_LINE_MAX + 1];
	size_t in_len;
	bool in_eof;
};

static struct ui *the_ui;   /* the libedit line callback has no context argument */
static volatile sig_atomic_t winched;   /* SIGWINCH came: libedit to be told (on_winch) */
static volatile sig_atomic_t continued;   /* SIGCONT came: the line to be drawn again (on_cont) */

static long mono_ms(void *ctx)
{
	return (long)mstime_mono();
}

static int ui_send(void *ctx, const char *line)
{
	struct ui *u = ctx;
	if (!u->net)
		return -1;
	u->send_status = net_send_line(u->net, line);
	return u->send_status == NET_OK ? 0 : -1;
}

/*
 * Take the prompt and the half-typed line off the screen: from the row the
 * cursor stands on, up to the prompt's first, then everything below.  A
 * line longer than the terminal is wide wraps over several rows, and
 * clearing the cursor's row alone left copies of the others behind at
 * each redraw.  On one row, as most lines are, this is "\r\033[J".
 */
static void edit_erase(struct ui *u)
{
	const LineInfoW *li = el_wline(u->el);
	int cols = 0;
	if (el_get(u->el, EL_GETTC, "co", &cols, (void *)0) != 0)
		cols = 0;
	int up = render_edit_row(u->prompt, li->buffer, (size_t)(li->lastchar - li->buffer),
	                         (size_t)(li->cursor - li->buffer), cols);
	if (up > 0)
		printf("\033[%dA", up);
	fputs("\r\033[J", stdout);
}

/* Draw the prompt and the half-typed line again (after edit_erase and output, or when the clocks moved). */
static void redraw(struct ui *u)
{
	fflush(stdout);
	el_set(u->el, EL_REFRESH);   /* everything, from where the cursor is: the prompt's first row */
}

/* Words (UTF-8) onto the terminal, in its character set: the one place they are written. */
__attribute__((format(printf, 3, 4)))
static void show(struct ui *u, FILE *f, const char *fmt, ...)
{
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		char *text = xmalloc((size_t)n + 1);
		vsnprintf(text, (size_t)n + 1, fmt, again);
		char *shown = render_term_out(&u->term, text);
		fputs(shown, f);
		/* Once, after the first whole line that lost a character to the
		 * C locale (LANG unset: "ě" shown as "e"), how to see it. */
		if (!u->lossy_said && n > 0 && text[n - 1] == '\n' && render_term_lossy(&u->term, text)) {
			u->lossy_said = true;
			fputs("krieg: (no locale is set, so letters beyond ASCII are shown plainer or as '?'; "
			      "LANG=C.UTF-8 shows them)\n", f);
		}
		free(shown);
		free(text);
	}
	va_end(again);
}

/* A line typed (libedit's, stdin's), in UTF-8 for the client: a new string. */
static char *typed(struct ui *u, const char *line)
{
	return render_term_in(&u->term, line);
}

/* The client's prompt p, and as libedit is to draw it. */
static void set_prompt(struct ui *u, const char *p)
{
	snprintf(u->prompt_said, sizeof u->prompt_said, "%s", p);
	free(u->prompt);
	u->prompt = render_term_out(&u->term, p);
}

static void ui_print(void *ctx, const char *text)
{
	struct ui *u = ctx;
	if (u->cl.batch) {
		show(u, stderr, "krieg: %s\n", text);
		return;
	}
	if (u->readline && u->editing) {
		/* erase the prompt and the typed text, print, then draw them again */
		edit_erase(u);
		show(u, stdout, "%s\n", text);
		redraw(u);
		return;
	}
	if (u->prompting) {
		if (u->prompt_open)
			fputc('\n', stdout);   /* not on the prompt's line */
		u->prompt_open = false;
		u->owe_prompt = true;
	}
	show(u, stdout, "%s\n", text);
	fflush(stdout);
}

/* --plain: the prompt, once, when krieg waits for input after output. */
static void plain_prompt(struct ui *u)
{
	if (!u->prompting || !u->owe_prompt)
		return;
	char p[sizeof u->prompt_said];
	client_prompt(&u->cl, p, sizeof p);
	show(u, stdout, "%s", p);
	fflush(stdout);
	u->owe_prompt = false;
	u->prompt_open = true;
}

static void ui_print_raw(void *ctx, const char *line)
{
	(void)ctx;
	fputs(line, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Ctrl-C outside the line editor: a wait or a prompt given up (no SA_RESTART). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Catch Ctrl-C from now on, the flag cleared; without SA_RESTART, so a
 * read or a wait it comes in ends at once.  The old handler into *old. */
static void sigint_catch(struct sigaction *old)
{
	struct sigaction sa = { .sa_handler = on_sigint };
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, old);
}

/* Read a password with echo off (termios); the terminal is in cooked mode here. */
static int ui_ask_password(void *ctx, const char *prompt, char *buf, size_t len)
{
	struct ui *u = ctx;
	struct termios old, quiet;
	bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &old) == 0;

	if (u->cl.batch)
		return -1;   /* scripts give the password on the command line */
	/* echo off before the prompt shows, and keep typeahead (TCSANOW, not
	 * TCSAFLUSH): a fast typist or a script may already have sent it */
	if (tty) {
		quiet = old;
		quiet.c_lflag &= (tcflag_t)~ECHO;
		quiet.c_lflag |= ICANON;
		tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
	}
	/* Ctrl-C gives the prompt up, the terminal's echo put back (it killed
	 * krieg with echo off: a review), as it drops a line being edited.
	 * Caught before the prompt shows, and looked for before each read: one
	 * typed as soon as it showed was lost, the read waiting for ever. */
	struct sigaction oldsa;
	sigint_catch(&oldsa);
	show(u, stdout, "%s", prompt);
	fflush(stdout);
	size_t n = 0;
	int rc = 0;
	for (;;) {
		char ch;
		ssize_t r = interrupted ? -1 : read(STDIN_FILENO, &ch, 1);
		if (r < 0 && errno == EINTR && !interrupted)
			continue;
		if (r <= 0 || interrupted) {
			rc = n && !interrupted ? 0 : -1;
			break;
		}
		if (ch == '\n' || ch == '\r')
			break;
		if (n + 1 < len)
			buf[n++] = ch;
	}
	sigaction(SIGINT, &oldsa, NULL);
	if (interrupted)
		n = 0;   /* nothing of it said too long below */
	interrupted = 0;   /* the prompt's, not the line's being edited */
	buf[n] = '\0';
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &old);
	/* typed in the terminal's character set, as a command line is (typed) */
	char *utf8 = typed(u, buf);
	if (strlen(utf8) < len) {
		memcpy(buf, utf8, strlen(utf8) + 1);
	} else {   /* longer once in UTF-8 than any password may be: said, not sent as typed */
		explicit_bzero(buf, len);
		rc = -1;
	}
	explicit_bzero(utf8, strlen(utf8));
	free(utf8);
	fputc('\n', stdout);
	if (rc != 0 && n > 0)
		show(u, stdout, "That password is too long once written in UTF-8 (at most %zu bytes).\n", len - 1);
	fflush(stdout);
	return rc;
}

/* ssh's question for a first-seen server: yes or no, typed out in full; end of input is no. */
static int ui_confirm(void *ctx, const char *question)
{
	struct ui *u = ctx;
	show(u, stdout, "%s", question);
	fflush(stdout);
	for (;;) {
		char ans[16];
		size_t n = 0;
		bool eof = false;
		for (;;) {
			char ch;
			ssize_t r = read(STDIN_FILENO, &ch, 1);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				eof = true;
				break;
			}
			if (ch == '\n' || ch == '\r')
				break;
			if (n + 1 < sizeof ans)
				ans[n++] = ch;
		}
		ans[n] = '\0';
		if (!strcmp(ans, "yes"))
			return 1;
		if (eof || !strcmp(ans, "no"))
			return 0;
		fputs("Please type 'yes' or 'no': ", stdout);
		fflush(stdout);
	}
}

static void update_prompt(struct ui *u, bool force)
{
	char p[sizeof u->prompt_said];
	client_prompt(&u->cl, p, sizeof p);
	if (!force && strcmp(p, u->prompt_said) == 0)
		return;
	if (u->readline && u->editing)
		edit_erase(u);   /* laid out with the old prompt, which is still on the screen */
	set_prompt(u, p);
	if (u->readline && u->editing)
		redraw(u);   /* libedit reads the prompt from u->prompt (edit_prompt) */
}

/* Feed whatever the server sent to the client.  NET_OK, or why the connection ended. */
static enum net_status pump_net(struct ui *u)
{
	static char line[PROTO_LINE_MAX + 1];
	enum net_status st = net_read(u->net);
	while (net_next_line(u->net, line, sizeof line))
		client_receive(&u->cl, line);
	return st;
}

static const char *lost_why(enum net_status st)
{
	return st == NET_E_CLOSED ? "the server closed the connection"
	     : st == NET_E_RESET ? "the connection was reset"
	     : st == NET_E_LINE_TOO_LONG ? "the server sent an over-long line"
	     : "connection error";
}

/* Why a silent connection is taken for lost (client_alive), for the messages. */
static const char *silent_why(struct ui *u, char *buf, size_t len)
{
	snprintf(buf, len, "no answer from the server for %ld s; the network may be down",
	         (client_silent_ms(&u->cl) + 500) / 1000);
	return buf;
}

/*
 * Interactive: the connection is gone.  Say so, then connect again with a
 * growing pause (1, 2, 4 ... 30 s) for up to two minutes or until Ctrl-C,
 * and resume the session: the server then sends each live game's state,
 * which rebuilds the views.  0 reconnected, -1 gave up.
 */
static int reconnect(struct ui *u, const char *why)
{
	char msg[NET_ERR_MAX + 128];
	net_free(u->net);
	u->net = NULL;
	int dropped = client_disconnected(&u->cl);
	/* "your games go on" only to a player of one (director probe: said to
	 * a director who played none) */
	bool playing = client_playing(&u->cl);
	snprintf(msg, sizeof msg, "Connection to %s lost (%s)%s. Reconnecting%s (Ctrl-C gives up)",
	         u->hostport, why, playing ? "; your games go on" : "",
	         u->cl.ropts.unicode ? "\u2026" : "...");
	ui_print(u, msg);
	if (dropped > 0) {
		snprintf(msg, sizeof msg, "(%d request%s got no answer; the games' state after reconnecting shows what happened)",
		         dropped, dropped == 1 ? "" : "s");
		ui_print(u, msg);
	}

	struct sigaction old;
	sigint_catch(&old);   /* a Ctrl-C ends the wait at once */
	long start = mono_ms(NULL), delay = RECONNECT_FIRST_MS;
	bool fatal = false;
	int rc = -1;
	while (!interrupted && !fatal) {
		long left = start + RECONNECT_GIVE_UP_MS - mono_ms(NULL);
		if (left <= 0)
			break;
		poll(NULL, 0, (int)(delay < left ? delay : left));
		if (interrupted)
			break;
		struct net_opts o = u->nopts;
		o.tofu = NET_TOFU_REFUSE;   /* pinned a moment ago: a new certificate now is no first use */
		char err[NET_ERR_MAX];
		enum net_status st = net_connect(&o, &u->net, err, sizeof err);
		if (st == NET_OK) {
			rc = 0;
			break;
		}
		fatal = st == NET_E_CERT_CHANGED || st == NET_E_NOT_TRUSTED || st == NET_E_KNOWN_FILE;
		delay = delay * 2 < RECONNECT_DELAY_MAX_MS ? delay * 2 : RECONNECT_DELAY_MAX_MS;
		if (fatal)
			snprintf(msg, sizeof msg, "%s", err);
		else
			snprintf(msg, sizeof msg, "Not yet (%s); next try in %ld s.", err, delay / 1000);
		ui_print(u, msg);
	}
	sigaction(SIGINT, &old, NULL);
	if (rc != 0) {
		ui_print(u, interrupted ? "Gave up reconnecting. Your games go on; run krieg again to resume them."
		            : "Could not reconnect. Your games go on; run krieg again to resume them.");
		return -1;
	}
	snprintf(msg, sizeof msg, "Reconnected to %s.", u->hostport);
	ui_print(u, msg);
	client_hello(&u->cl);
	if (client_resume(&u->cl) != 0 && !u->cl.logged_in)
		ui_print(u, "Type \"login NAME\", \"register NAME\" or \"guest\".");
	return 0;
}

/* Interactive: read from the server (when `ready`), and see that it still
 * answers (client_alive); on a lost connection, reconnect.  0, or -1: give up. */
static int serve_net(struct ui *u, bool ready)
{
	if (!ready && net_readable(u->net))
		ready = true;
	enum net_status st = ready ? pump_net(u) : NET_OK;
	if (u->send_status != NET_OK) {
		/* a send failed: gone, for the send's reason (a reset taken by
		 * the write leaves the read an end of stream: CI saw "the server
		 * closed the connection" said of a reset, after the login's
		 * settling ping met it) */
		st = u->send_status;
		u->send_status = NET_OK;
	} else if (st == NET_OK && (ready || client_alive(&u->cl))) {
		return 0;
	}
	client_flush(&u->cl);
	if (st == NET_OK) {   /* a dead path: nothing came, not even a close */
		char why[128];
		return reconnect(u, silent_why(u, why, sizeof why));
	}
	if (u->cl.ended) {
		ui_print(u, "Not reconnecting: the server ended the session. Your games go on; run krieg again to log in.");
		return -1;
	}
	return reconnect(u, lost_why(st));
}

/* stdin without libedit: read what is there, split into lines. */
static int read_stdin(struct ui *u)
{
	if (u->in_len >= STDIN_LINE_MAX)
		return -1;
	ssize_t r = read(STDIN_FILENO, u->in + u->in_len, STDIN_LINE_MAX - u->in_len);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		u->in_eof = true;
		return 0;
	}
	u->in_len += (size_t)r;
	return 0;
}

static bool next_stdin_line(struct ui *u, char *buf, size_t len)
{
	char *nl = memchr(u->in, '\n', u->in_len);
	size_t ll;
	if (nl)
		ll = (size_t)(nl - u->in);
	else if (u->in_eof && u->in_len)
		ll = u->in_len;   /* a last line without its newline */
	else
		return false;
	size_t copy = ll < len - 1 ? ll : len - 1;
	memcpy(buf, u->in, copy);
	buf[copy] = '\0';
	size_t drop = nl ? ll + 1 : ll;
	memmove(u->in, u->in + drop, u->in_len - drop);
	u->in_len -= drop;
	return true;
}

/* --batch: the connection is gone, and said so; 1.  Scripts decide what
 * to do next: no reconnecting behind their back. */
static int batch_lost(struct ui *u, const char *why)
{
	show(u, stderr, "krieg: connection to %s lost (%s); --batch does not reconnect\n", u->hostport, why);
	return 1;
}

/* --batch: one command per line, each waiting for its response. */
static int batch_loop(struct ui *u)
{
	char line[STDIN_LINE_MAX + 1];
	char waiting[32] = "";
	long wait_until = 0, sleep_until = 0;

	for (;;) {
		/* a send that failed: the connection lost, said as a read's loss is
		 * (CI: a reset met by login_settle's ping said only "could not
		 * send the request") */
		if (u->cl.errors > 0)
			return u->send_status != NET_OK ? batch_lost(u, lost_why(u->send_status)) : 1;
		long t = mono_ms(NULL);
		if (waiting[0] && client_take_event(&u->cl, waiting))
			waiting[0] = '\0';
		if (waiting[0] && t >= wait_until) {
			show(u, stderr, "krieg: timed out waiting for \"%s\"\n", waiting);
			return 1;
		}
		if (sleep_until && t >= sleep_until)
			sleep_until = 0;
		while (!waiting[0] && !sleep_until && !client_busy(&u->cl) &&
		       next_stdin_line(u, line, sizeof line)) {
			struct cmd cmd;
			char err[256];
			char *l = typed(u, line);
			if (cmd_parse(l, &cmd, err, sizeof err) != 0) {
				show(u, stderr, "krieg: %s\n", err);
				free(l);
				return 1;
			}
			if (cmd.type == CMD_WAIT) {
				snprintf(waiting, sizeof waiting, "%.*s", (int)words_fit(cmd.argv[0], sizeof waiting - 1),
				         cmd.argv[0]);
				wait_until = t + cmd.number;
				if (client_take_event(&u->cl, waiting))
					waiting[0] = '\0';
				free(l);
				continue;
			}
			if (cmd.type == CMD_SLEEP) {
				sleep_until = t + cmd.number;
				free(l);
				break;
			}
			int rc = client_command(&u->cl, l);
			free(l);
			if (rc == CLIENT_QUIT)
				return 0;
			if (rc != 0)
				return 1;
		}
		if (u->in_eof && u->in_len == 0 && !waiting[0] && !sleep_until && !client_busy(&u->cl))
			return 0;

		struct pollfd p[2] = {
			{ .fd = net_fd(u->net), .events = POLLIN },
			{ .fd = u->in_eof ? -1 : STDIN_FILENO, .events = POLLIN },
		};
		int timeout = 1000;
		if (waiting[0] && wait_until - t < timeout)
			timeout = (int)(wait_until - t);
		if (sleep_until && sleep_until - t < timeout)
			timeout = (int)(sleep_until - t);
		if (timeout < 0)
			timeout = 0;
		if (net_has_line(u->net))
			timeout = 0;
		if (poll(p, 2, timeout) < 0 && errno != EINTR)
			return 1;
		if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) || net_has_line(u->net) ||
		    net_readable(u->net)) {
			enum net_status st = pump_net(u);
			if (st != NET_OK)
				return batch_lost(u, lost_why(st));
		} else if (!client_alive(&u->cl)) {
			char why[128];
			return batch_lost(u, silent_why(u, why, sizeof why));
		}
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR))
			read_stdin(u);
	}
}

/*
 * libedit asks us for each key.  While it waits we serve the network and
 * the one-second tick, so announcements appear and the clocks move while a
 * line is half typed.  A byte, or EOF.
 */
static int next_key(struct ui *u)
{
	for (;;) {
		if (u->net_down)
			return EOF;
		/* A Ctrl-C that came as the signal (the terminal not in libedit's
		 * edit mode: a line typed ahead of el_gets, as at the start before
		 * the server's hello, keeps it cooked) is the key, that only drops
		 * the line (edit_interrupt): the terminal took what was typed. */
		if (interrupted) {
			interrupted = 0;
			u->interrupt_signalled = true;
			return 0x03;
		}
		if (winched && u->el != NULL) {
			winched = 0;
			el_resize(u->el);   /* before the next erase lays the line out at the old width */
		}
		if (continued && u->el != NULL) {
			continued = 0;
			if (u->editing)
				redraw(u);   /* after fg: the shell's lines are below the old prompt */
		}
		long t = mono_ms(NULL);
		/* Wake on the second, and just after a clock shows its next one
		 * (its seconds need not start on ours: woken on ours alone, a late
		 * wake-up could skip one). */
		int timeout = (int)(1000 - t % 1000);
		long tick = client_prompt_tick(&u->cl) + 1;
		if (tick < timeout)
			timeout = (int)tick;
		bool deferred = client_deferred(&u->cl);
		if (deferred && timeout > QUIET_MS)
			timeout = QUIET_MS;
		if (net_has_line(u->net))
			timeout = 0;
		/* SIGWINCH is let in only while waiting here (edit_open). */
		int nfd = net_fd(u->net);
		fd_set rd;
		FD_ZERO(&rd);
		FD_SET(nfd, &rd);
		FD_SET(STDIN_FILENO, &rd);
		struct timespec ts = { timeout / 1000, (long)(timeout % 1000) * 1000000L };
		int n = pselect((nfd > STDIN_FILENO ? nfd : STDIN_FILENO) + 1, &rd, NULL, NULL, &ts, &u->wait_mask);
		if (n < 0 && errno != EINTR)
			return EOF;
		if (n < 0)
			FD_ZERO(&rd);
		bool net_ready = FD_ISSET(nfd, &rd) || net_has_line(u->net);
		if (serve_net(u, net_ready) != 0) {
			u->net_down = true;
			return EOF;
		}
		if (!net_ready && deferred)
			client_flush(&u->cl);   /* nothing more came: the action's words are all in */
		update_prompt(u, false);
		if (FD_ISSET(STDIN_FILENO, &rd)) {
			unsigned char ch;
			ssize_t r = read(STDIN_FILENO, &ch, 1);
			if (r == 1)
				return ch;
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return EOF;
		}
	}
}

/*
 * A character for libedit, its bytes decoded in the locale's encoding (as
 * libedit's own reader does): handed over a byte at a time, "é" was two
 * characters "Ã©", on the screen and on the wire.  A byte that starts no
 * character goes as it is.  1, or 0 at the end.
 */
static int edit_getc(EditLine *el, wchar_t *wc)
{
	(void)el;
	mbstate_t st;
	memset(&st, 0, sizeof st);
	for (;;) {
		int ch = next_key(the_ui);
		if (ch == EOF)
			return 0;
		char b = (char)ch;
		size_t r = mbrtowc(wc, &b, 1, &st);
		if (r == (size_t)-2)
			continue;   /* more bytes to come */
		if (r == (size_t)-1)
			*wc = (wchar_t)(unsigned char)b;
		return 1;
	}
}

static char *edit_prompt(EditLine *el)
{
	(void)el;
	return the_ui->prompt;
}

static unsigned char edit_suspend(EditLine *el, int ch)
{
	(void)el;
	(void)ch;
	kill(0, SIGTSTP);   /* libedit (EL_SIGNAL) gives the terminal back, and takes it again on SIGCONT */
	return CC_REDISPLAY;   /* back (fg): the prompt and the half-typed line again */
}

/*
 * Ctrl-C while a line is edited: a half-typed line is dropped, as a shell
 * drops it; at an empty prompt krieg leaves, as at Ctrl-D (the games go
 * on, as after quit).  It left at once whatever was typed, killed by the signal
 * (status 130): a player clearing a mistyped move left the club, and in a
 * timed game began the countdown of its abandonment (the client probe).
 * The terminal sends it as a character while libedit edits (edit_open:
 * isig off in its edit mode); one that came as the signal (a line typed
 * ahead while the terminal was cooked) is handed over by next_key, and
 * only drops the line: the terminal took what was typed.
 */
static unsigned char edit_interrupt(EditLine *el, int ch)
{
	(void)ch;
	const LineInfoW *li = el_wline(el);
	bool signalled = the_ui->interrupt_signalled;
	the_ui->interrupt_signalled = false;
	if (li->lastchar > li->buffer) {
		el_cursor(el, (int)(li->lastchar - li->cursor));
		el_wdeletestr(el, (int)(li->lastchar - li->buffer));
		return CC_REDISPLAY;
	}
	if (signalled)
		return CC_REDISPLAY;   /* the terminal dropped a line libedit never saw */
	return CC_EOF;   /* as Ctrl-D at an empty prompt */
}

/* libedit follows SIGWINCH only once an el_gets() (its handler is put back
 * at the next), so a window resized twice while one line was typed kept
 * the first new width, and each redraw went up the wrong number of rows,
 * erasing the lines above the prompt.  krieg takes it itself: the flag is
 * seen by next_key, which tells libedit. */
static void on_winch(int sig)
{
	(void)sig;
	winched = 1;
}

/* Back from a stop (Ctrl-Z, then fg): libedit's own redraw on SIGCONT
 * draws nothing, so the prompt and the half-typed line were gone until
 * the next clock tick (none outside a timed game).  next_key draws them. */
static void on_cont(int sig)
{
	(void)sig;
	continued = 1;
}

/*
 * The line editor, set up as libedit's readline wrapper set it up (the keys
 * it bound stay bound: Tab completes a file name, Ctrl-R searches the
 * history, Home, End, Delete...), then ~/.editrc.  0, or -1.
 */
static int edit_open(struct ui *u)
{
	static const char *const keys[][2] = {
		{ "^R", "em-inc-search-prev" },
		{ "\\e[1~", "ed-move-to-beg" }, { "\\e[4~", "ed-move-to-end" },
		{ "\\e[7~", "ed-move-to-beg" }, { "\\e[8~", "ed-move-to-end" },
		{ "\\e[H", "ed-move-to-beg" }, { "\\e[F", "ed-move-to-end" },
		{ "\\e[3~", "ed-delete-next-char" }, { "\\e[2~", "ed-quoted-insert" },
		{ "\\e[1;5C", "em-next-word" }, { "\\e[1;5D", "ed-prev-word" },
		{ "\\e[5C", "em-next-word" }, { "\\e[5D", "ed-prev-word" },
		{ "\\e\\e[C", "em-next-word" }, { "\\e\\e[D", "ed-prev-word" },
	};
	HistEvent ev;
	u->hist = history_init();
	u->el = el_init("krieg", stdin, stdout, stderr);
	if (!u->hist || !u->el)
		return -1;
	history(u->hist, &ev, H_SETSIZE, HISTORY_MAX);
	el_set(u->el, EL_HIST, history, u->hist);
	el_set(u->el, EL_PROMPT, edit_prompt);
	struct sigaction sa = { .sa_handler = on_winch };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	/* libedit's own SIGWINCH handler (EL_SIGNAL, inside el_gets) resizes
	 * its buffers in the handler: arriving while krieg was in malloc (a
	 * line from the server being parsed), it corrupted the heap ("free():
	 * invalid next size", test_client resized_twice_while_typing, about
	 * one run in eight).  So SIGWINCH is blocked but while next_key waits
	 * in pselect, where nothing else runs. */
	sigset_t winch;
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	sigprocmask(SIG_BLOCK, &winch, &u->wait_mask);
	sigdelset(&u->wait_mask, SIGWINCH);
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, NULL);
	el_set(u->el, EL_SIGNAL, 1);
	el_set(u->el, EL_EDITOR, "emacs");
	el_set(u->el, EL_GETCFN, edit_getc);
	/* wide, so libedit keeps these names as they are: el_set() copies them and never frees the copies */
	el_wset(u->el, EL_ADDFN, L"krieg-complete", L"Complete a file name", _el_fn_complete);
	el_set(u->el, EL_BIND, "^I", "krieg-complete", NULL);
	el_wset(u->el, EL_ADDFN, L"krieg-suspend", L"Suspend krieg", edit_suspend);
	el_set(u->el, EL_BIND, "^Z", "krieg-suspend", NULL);
	el_set(u->el, EL_SETTY, "-d", "-isig", NULL);   /* ^C (and ^\) are keys while editing */
	el_wset(u->el, EL_ADDFN, L"krieg-interrupt", L"Drop the line, or leave", edit_interrupt);
	el_set(u->el, EL_BIND, "^C", "krieg-interrupt", NULL);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		el_set(u->el, EL_BIND, keys[i][0], keys[i][1], NULL);
	el_source(u->el, NULL);
	return 0;
}

static void edit_close(struct ui *u)
{
	if (u->el)
		el_end(u->el);
	if (u->hist)
		history_end(u->hist);
	u->el = NULL;
	u->hist = NULL;
}

static int interactive_loop(struct ui *u)
{
	char line[STDIN_LINE_MAX + 1];

	if (u->readline) {
		/* Ctrl-C never kills krieg while it edits (next_key): it came as
		 * the signal when libedit had left the terminal cooked, and the
		 * player clearing a line left the club (a client probe). */
		struct sigaction oldsa;
		sigint_catch(&oldsa);
		if (edit_open(u) != 0) {
			edit_close(u);
			sigaction(SIGINT, &oldsa, NULL);
			fprintf(stderr, "krieg: cannot start the line editor\n");
			return 1;
		}
		while (!u->quit && !u->net_down) {
			char p[sizeof u->prompt_said];
			client_prompt(&u->cl, p, sizeof p);
			set_prompt(u, p);
			/* Edit mode (isig off) before the prompt shows: el_gets
			 * draws the prompt first and sets the terminal as it reads
			 * the first key (with a getc function of ours), so a Ctrl-C
			 * typed as soon as the prompt showed came as the signal,
			 * which only drops a line, and krieg stayed (the CI on
			 * a861ab4, test_client ctrl_c_drops_the_line_then_leaves). */
			el_set(u->el, EL_PREP_TERM, 1);
			u->editing = true;
			int n = 0;
			const char *got = el_gets(u->el, &n);
			u->editing = false;
			if (!got || n <= 0) {
				fputc('\n', stdout);
				break;
			}
			char *l = xstrdup(got);
			l[strcspn(l, "\n")] = '\0';
			if (*l && !cmd_has_secret(l)) {
				HistEvent ev;
				history(u->hist, &ev, H_ENTER, l);   /* as typed: in the terminal's character set */
			}
			char *said = typed(u, l);
			if (client_command(&u->cl, said) == CLIENT_QUIT)
				u->quit = true;
			free(said);
			free(l);
		}
		edit_close(u);
		sigaction(SIGINT, &oldsa, NULL);
		return u->net_down ? 1 : 0;
	}
	/* no terminal: plain lines, same loop shape as --batch without waiting,
	 * but at the end of the input the answers still owed are waited for
	 * (PIPE_EOF_WAIT_MS at most): `printf 'guest\nwho\n' | krieg` ended
	 * before they came and printed nothing of them. */
	long eof_at = 0;
	while (!u->quit) {
		if (u->in_eof) {
			if (eof_at == 0)
				eof_at = mono_ms(NULL);
			if ((!client_busy(&u->cl) && !client_deferred(&u->cl)) ||
			    mono_ms(NULL) - eof_at > PIPE_EOF_WAIT_MS)
				break;
		}
		struct pollfd p[2] = {
			{ .fd = net_fd(u->net), .events = POLLIN },
			{ .fd = u->in_eof ? -1 : STDIN_FILENO, .events = POLLIN },
		};
		bool deferred = client_deferred(&u->cl);
		bool owed = u->prompting && u->owe_prompt;
		if (poll(p, 2, deferred || owed ? QUIET_MS : 1000) < 0 && errno != EINTR)
			break;
		bool ready = (p[0].revents & (POLLIN | POLLHUP | POLLERR)) || net_has_line(u->net);
		if (serve_net(u, ready) != 0)
			return 1;
		if (!ready && deferred)
			client_flush(&u->cl);
		client_tick(&u->cl);
		bool typing = p[1].revents & (POLLIN | POLLHUP | POLLERR);
		if (typing) {
			read_stdin(u);
			while (!u->quit && next_stdin_line(u, line, sizeof line)) {
				char *said = typed(u, line);
				u->prompt_open = false;   /* the line typed ended with its newline */
				u->owe_prompt = true;     /* a prompt again after its answer, or at once if none */
				if (client_command(&u->cl, said) == CLIENT_QUIT)
					u->quit = true;
				free(said);
			}
		}
		/* all that arrived together is shown, and nothing is being typed: ask */
		if (!ready && !typing && !client_deferred(&u->cl) && !u->quit)
			plain_prompt(u);
	}
	return 0;
}

/* Whether host names this machine. */
static bool is_local(const char *host)
{
	return !strcmp(host, "localhost") || !strncmp(host, "127.", 4) || !strcmp(host, "::1");
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: krieg [options] [HOST[:PORT]]   (default localhost:%s)\n"
	        "       krieg [options] [HOST[:PORT]] watch GAME    log in, then watch GAME\n"
	        "       krieg [options] [HOST[:PORT]] umpire GAME   log in, then take GAME's umpire's chair\n"
	        "       krieg help [WORD]                    the commands; a command, or a rule set (help rules)\n"
	        "options:\n"
	        "  --batch               commands on stdin, each read once the one before is answered;\n"
	        "                        received protocol lines on stdout (without it, piped lines\n"
	        "                        are sent as they come, not waiting for answers)\n"
	        "  --user NAME           log in as NAME at start (the password is asked for)\n"
	        "  --guest               play as a guest at start\n"
	        "  --ascii               letters instead of chess glyphs\n"
	        "  --no-color            no colour (also: NO_COLOR set, or stdout not a terminal)\n"
	        "  --plain               for screen readers and braille: no redraws, no escape\n"
	        "                        sequences, no ticking clock (ask with \"time\"), the board\n"
	        "                        on demand; the prompt once when krieg waits (also on a\n"
	        "                        terminal with TERM=dumb, or with INSIDE_EMACS set)\n"
	        "  --bell                ring the terminal's bell when it is your move or you are challenged\n"
	        "  --known-servers FILE  pinned certificates (default: $KRIEG_KNOWN_SERVERS,\n"
	        "                        $XDG_CONFIG_HOME/krieg/known_servers, ~/.config/krieg/known_servers)\n"
	        "  --insecure            do not verify the server (development only; warns every time)\n"
	        "  --trust-new           pin a server seen for the first time without asking\n"
	        "                        (also KRIEG_TRUST_NEW=1; always so in --batch)\n"
	        "  -V, --version         print the version\n"
	        "  -h, --help            print this\n",
	        NET_PORT_DEFAULT);
}

int main(int argc, char **argv)
{
	static struct ui u;
	const char *target = "localhost", *known = NULL, *user = NULL;
	bool target_given = false;
	char then[64] = "";   /* krieg watch GAME / krieg umpire GAME: run once logged in */
	bool batch = false, ascii = false, no_color = false, insecure = false, guest = false, bell = false;
	/* plain: asked for, or output to a terminal that cannot take escape
	 * sequences (TERM=dumb, Emacs's shell); TERM says nothing of a pipe */
	const char *term = getenv("TERM"), *emacs = getenv("INSIDE_EMACS");
	bool plain = isatty(STDOUT_FILENO) && ((term && !strcmp(term, "dumb")) || (emacs && emacs[0]));
	bool trust_new = getenv("KRIEG_TRUST_NEW") && !strcmp(getenv("KRIEG_TRUST_NEW"), "1");

	setlocale(LC_ALL, "");
	render_term_open(&u.term, nl_langinfo(CODESET));   /* u is static: kept to the end, as the prompt */
	signal(SIGPIPE, SIG_IGN);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--batch"))
			batch = true;
		else if (!strcmp(a, "--ascii"))
			ascii = true;
		else if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour"))
			no_color = true;
		else if (!strcmp(a, "--bell"))
			bell = true;
		else if (!strcmp(a, "--plain"))
			plain = true;
		else if (!strcmp(a, "--insecure"))
			insecure = true;
		else if (!strcmp(a, "--guest"))
			guest = true;
		else if (!strcmp(a, "--trust-new"))
			trust_new = true;
		else if (!strcmp(a, "--known-servers") && i + 1 < argc)
			known = argv[++i];
		else if (!strcmp(a, "--user") && i + 1 < argc)
			user = argv[++i];
		else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("krieg %s (protocol %d)\n", KRIEG_RELEASE, PROTO_VERSION);
			return 0;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "help")) {
			if (i + 2 < argc) {   /* "krieg help login" tried to reach a host named "login" */
				fprintf(stderr, "krieg: \"help\" takes one word at most\n");
				return 2;
			}
			if (i + 1 < argc) {   /* what "help WORD" says inside krieg (the newcomer probe) */
				char text[CMD_HELP_MAX];
				if (!cmd_help_about(argv[i + 1], text, sizeof text)) {
					fprintf(stderr, "krieg: no command or rule set is named \"%s\", nor does a command "
					        "mention it; \"krieg help\" lists them all\n", argv[i + 1]);
					return 2;
				}
				show(&u, stdout, "%s\n", text);
				return 0;
			}
			usage(stdout);
			show(&u, stdout, "\n%s", cmd_help());
			printf("\nSee krieg(1) for more.\n");
			return 0;
		} else if (!strcmp(a, "watch") || !strcmp(a, "umpire")) {
			char *end;
			long game = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
			if (i + 1 >= argc || end == argv[i + 1] || *end || game < 1) {
				fprintf(stderr, "krieg: %s GAME: a game number\n", a);
				return 2;
			}
			snprintf(then, sizeof then, "%s %ld", a, game);
			i++;
		} else if (a[0] == '-') {
			bool valued = !strcmp(a, "--known-servers") || !strcmp(a, "--user");   /* the last word */
			fprintf(stderr, valued ? "krieg: %s needs a value\n" : "krieg: unknown option \"%s\"\n", a);
			usage(stderr);
			return 2;
		} else if (target_given || then[0]) {
			/* one HOST[:PORT], before watch/umpire GAME: a second word was
			 * taken for the host (the help probe: "watch 1 2" reached "2") */
			fprintf(stderr, "krieg: unexpected \"%s\"\n", a);
			usage(stderr);
			return 2;
		} else {
			target = a;
			target_given = true;
		}
	}

	/* the name as the client sends it (typed: in the terminal's character set) */
	char name[65] = "";
	if (user) {
		char *said = typed(&u, user);
		snprintf(name, sizeof name, "%.*s", (int)words_fit(said, sizeof name - 1), said);
		free(said);
	}
	if (batch && user) {
		show(&u, stderr, "krieg: --user asks for the password, which --batch cannot; "
		     "send \"login %s PASSWORD\" as the first line instead\n", name);
		return 2;
	}

	char host[NET_HOST_MAX], port[8];
	if (net_split_hostport(target, host, sizeof host, port, sizeof port) != 0) {
		fprintf(stderr, "krieg: bad server address \"%s\" (HOST[:PORT])\n", target);
		return 2;
	}

	/* A first-seen server: ask on a terminal, as ssh does; scripts (and
	 * --trust-new) pin it with a notice.  Nothing to ask without a terminal. */
	bool ask = !batch && !trust_new && isatty(STDIN_FILENO);
	u.nopts = (struct net_opts){ .host = host, .port = port, .insecure = insecure, .known_path = known,
	                             .tofu = ask ? NET_TOFU_ASK : NET_TOFU_AUTO, .confirm = ui_confirm,
	                             .confirm_ctx = &u };
	snprintf(u.hostport, sizeof u.hostport, "%s%s%s:%s", strchr(host, ':') ? "[" : "", host,
	         strchr(host, ':') ? "]" : "", port);
	char err[NET_ERR_MAX];
	enum net_status st = net_connect(&u.nopts, &u.net, err, sizeof err);
	if (st != NET_OK) {
		/* nobody there: what to check, and for one's own machine how to
		 * start a server (the newcomer probe: no next step was said) */
		show(&u, stderr, "krieg: %s\n", err);
		if (st == NET_E_REFUSED)
			show(&u, stderr, "krieg: is kriegd running there, on that port (krieg HOST:PORT)?%s\n",
			     is_local(host) ? " On this machine \"make run\" in krieg's source starts one, or "
			                      "\"systemctl start kriegd\" where it is installed." : "");
		return 1;
	}

	client_init(&u.cl);
	the_ui = &u;
	u.cl.batch = batch;
	u.cl.ctx = &u;
	u.cl.print = ui_print;
	u.cl.print_raw = ui_print_raw;
	u.cl.send = ui_send;
	u.cl.now = mono_ms;
	u.cl.ask_password = ui_ask_password;
	u.cl.ropts.unicode = !ascii && render_locale_utf8();
	u.cl.ropts.color = !no_color && render_want_color(STDOUT_FILENO);
	u.cl.bell = bell;
	plain = plain && !batch;
	if (plain) {   /* letters, no colour: nothing but text and newlines */
		u.cl.ropts.unicode = false;
		u.cl.ropts.color = false;
	}
	u.cl.plain = plain;
	u.prompting = plain && isatty(STDIN_FILENO);
	u.owe_prompt = true;
	u.readline = !batch && !plain && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	/* Someone types at a terminal, whether or not krieg draws on one:
	 * `krieg | tee log` (stdout a pipe) still asks before a resign, and
	 * still asks for passwords unseen.  What may be asked depends on
	 * stdin, what is drawn on stdout. */
	u.cl.interactive = !batch && isatty(STDIN_FILENO);
	snprintf(u.cl.on_login, sizeof u.cl.on_login, "%s", then);

	client_hello(&u.cl);
	int rc;
	if (batch) {
		if (guest)   /* sent first: the loop reads stdin once it is answered */
			client_command(&u.cl, "guest");
		rc = batch_loop(&u);
	} else {
		if (guest)
			client_command(&u.cl, "guest");
		else if (user) {
			char cmdline[128];
			snprintf(cmdline, sizeof cmdline, "login %s", name);
			client_command(&u.cl, cmdline);
		} else
			show(&u, stdout, "Connected to %s:%s. Type \"login NAME\", \"register NAME\", \"guest\" or "
			     "\"help\"%s%s%s.\n", host, port, then[0] ? " (then: " : "", then, then[0] ? ")" : "");
		rc = interactive_loop(&u);
	}
	net_free(u.net);
	client_free(&u.cl);
	free(u.prompt);
	render_term_close(&u.term);
	return rc;
}
