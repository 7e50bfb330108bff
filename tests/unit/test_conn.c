/*
 * test_conn.c — conn_of_user() (server/conn.h) over its per-user index,
 * against a model: many users and connections attached over bufferevent
 * pairs (conn_attach, no socket), logins, logouts, switches of user,
 * closes (a kick's "send then close" while walking), frees, and the
 * closed hooks, during which the leaving connection is skipped.  After
 * every step each user's connections must be exactly the model's open
 * ones of that user, in accept order, and user 0 must list every
 * logged-in one; and conn_find() must find every open connection by its
 * id through the id index (which grows past its first size here) and no
 * closed one.  And the gates of a connection's output (conn_gate_open).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <jansson.h>
#include <event2/event.h>

#include "check_main.h"
#include "config.h"
#include "conn.h"
#include "conn_priv.h"
#include "log.h"
#include "server.h"

#define T_CONNS 600    /* more than the index's first size, so it grows */
#define T_USERS 97
#define T_STEPS 3000
_Static_assert(T_CONNS / 2 > 2 * IDTABLE_FIRST, "the id index must grow in the test, twice");

struct model {
	struct conn *c;
	uint64_t id;
	struct bufferevent *far;
	int64_t user;         /* 0: not logged in */
	bool open;
};

static struct server srv;
static struct model m[T_CONNS];
static int nconns;

static void world_new(void)
{
	log_set_level(LOGL_WARN);
	srv = (struct server){ 0 };
	srv.cfg = config_new();
	ck_assert_ptr_nonnull(srv.base = event_base_new());
	srv.conns = connset_new();
	nconns = 0;
}

static void world_free(void)
{
	connset_free(&srv);
	for (int i = 0; i < nconns; i++)
		if (m[i].far != NULL)
			bufferevent_free(m[i].far);
	event_base_free(srv.base);
	config_free(srv.cfg);
}

static int attach(void)
{
	struct bufferevent *pair[2];

	ck_assert_int_lt(nconns, T_CONNS);
	ck_assert_int_eq(bufferevent_pair_new(srv.base, 0, pair), 0);
	struct conn *c = conn_attach(&srv, pair[0]);
	m[nconns] = (struct model){ c, conn_id(c), pair[1], 0, true };
	return nconns++;
}

static int model_of(const struct conn *c)
{
	for (int i = 0; i < nconns; i++)
		if (m[i].open && m[i].c == c)
			return i;
	return -1;
}

/* conn_of_user(user) walks exactly the model's open connections of user
 * (any logged-in one for 0), in accept order. */
static void check_user(int64_t user)
{
	struct conn *c = NULL;
	int i = 0;

	for (;;) {
		while (i < nconns && !(m[i].open && m[i].user != 0 && (user == 0 || m[i].user == user)))
			i++;
		c = conn_of_user(&srv, user, c);
		if (i == nconns) {
			ck_assert_msg(c == NULL, "user %lld: an extra connection", (long long)user);
			return;
		}
		ck_assert_msg(c == m[i].c, "user %lld: connection %d missing or out of order (got %d)",
		              (long long)user, i, c != NULL ? model_of(c) : -2);
		ck_assert_int_eq(conn_user(c), m[i].user);
		i++;
	}
}

static void check_all(void)
{
	for (int64_t u = 0; u <= T_USERS; u++)
		check_user(u);
	ck_assert_ptr_null(conn_of_user(&srv, T_USERS + 1000, NULL));
	for (int i = 0; i < nconns; i++)
		ck_assert_msg(conn_find(&srv, m[i].id) == (m[i].open ? m[i].c : NULL),
		              "conn_find: connection %d (%s) found wrong", i,
		              m[i].open ? "open" : "closed");
	ck_assert_ptr_null(conn_find(&srv, m[nconns - 1].id + 1));
}

static void set_user(int i, int64_t user)
{
	conn_set_user(m[i].c, user, user != 0 ? "someone" : NULL);
	m[i].user = user;
}

static void close_one(int i)
{
	conn_close(m[i].c, "test");
	m[i].open = false;
}

/* The deferred frees run. */
static void settle(void)
{
	event_base_loop(srv.base, EVLOOP_NONBLOCK);
	event_base_loop(srv.base, EVLOOP_NONBLOCK);
}

/* The peer goes away (EOF): the connection, open or lingering, is torn
 * down and freed, which takes it out of the index. */
static void vanish(int i)
{
	/* A pair tells its partner EOF on a finishing flush, not on a free. */
	size_t before = conn_count(&srv);
	bufferevent_flush(m[i].far, EV_WRITE, BEV_FINISHED);
	bufferevent_free(m[i].far);
	m[i].far = NULL;
	m[i].open = false;
	settle();
	ck_assert_uint_eq(conn_count(&srv), before - 1);
}

START_TEST(random_logins_logouts_closes)
{
	unsigned seed = 13;

	world_new();
	for (int i = 0; i < T_CONNS / 2; i++)
		set_user(attach(), 1 + rand_r(&seed) % T_USERS);
	check_all();
	for (int step = 0; step < T_STEPS; step++) {
		int i = (int)(rand_r(&seed) % (unsigned)nconns);
		unsigned op = rand_r(&seed) % 9;
		if (m[i].far == NULL)
			op = 7;
		else if (!m[i].open && op != 8)
			op = 6;
		switch (op) {
		case 0: case 1: case 2:   /* log in (or in as someone else) */
			set_user(i, 1 + rand_r(&seed) % T_USERS);
			break;
		case 3:                   /* the same user again: nothing moves */
			set_user(i, m[i].user);
			break;
		case 4:                   /* log out */
			set_user(i, 0);
			break;
		case 5:                   /* close (stays indexed until freed) */
			close_one(i);
			break;
		case 6:
			settle();
			break;
		case 7:                   /* a new connection, later in accept order */
			if (nconns < T_CONNS)
				set_user(attach(), rand_r(&seed) % 3 == 0 ? 0 : 1 + rand_r(&seed) % T_USERS);
			break;
		case 8:                   /* its peer goes away: freed */
			vanish(i);
			break;
		}
		if (step % 50 == 0 || op != 6)
			check_user(m[i].user);
		if (step % 200 == 0)
			check_all();
	}
	settle();
	check_all();
	world_free();
}
END_TEST

/* admin's kick: send to each and close it while walking; the walk still
 * reaches every one, and afterwards none is left. */
START_TEST(close_while_walking)
{
	world_new();
	for (int i = 0; i < 40; i++)
		set_user(attach(), i % 4 == 0 ? 7 : 1 + i % 3);
	int n = 0;
	for (struct conn *o = NULL; (o = conn_of_user(&srv, 7, o)) != NULL; n++) {
		conn_send(o, json_pack("{s:s}", "event", "session_ended"));
		close_one(model_of(o));
	}
	ck_assert_int_eq(n, 10);
	ck_assert_ptr_null(conn_of_user(&srv, 7, NULL));
	check_all();
	settle();
	check_all();
	for (int i = 0; i < nconns; i++)
		if (!m[i].open)
			vanish(i);
	check_all();
	world_free();
}
END_TEST

/* The one a caller holds is logged out, or in as someone else, mid-walk:
 * the walk goes on with the next connection of the user it walks, by
 * accept order, as the walk over all connections did. */
START_TEST(user_changes_while_walking)
{
	world_new();
	for (int i = 0; i < 30; i++)
		set_user(attach(), i % 2 == 0 ? 5 : 6);
	int n = 0, k = 0;
	for (struct conn *o = NULL; (o = conn_of_user(&srv, 5, o)) != NULL; n++) {
		ck_assert_int_eq(conn_user(o), 5);
		int i = model_of(o);
		ck_assert_int_eq(i, 2 * n);   /* every one of user 5, in order */
		set_user(i, k++ % 2 == 0 ? 0 : 6);
	}
	ck_assert_int_eq(n, 15);
	ck_assert_ptr_null(conn_of_user(&srv, 5, NULL));
	check_all();
	/* Logged back in, they take their places by accept order, not by
	 * login order. */
	for (int i = 28; i >= 0; i -= 2)
		set_user(i, 5);
	check_all();
	world_free();
}
END_TEST

/* During the closed hooks of a connection (logout, close) conn_of_user
 * skips it: a module asks "was that the user's last connection?". */
static int hook_calls, hook_others;

static void count_others(struct server *s, struct conn *c)
{
	hook_calls++;
	hook_others = 0;
	for (struct conn *o = NULL; (o = conn_of_user(s, conn_user(c), o)) != NULL;) {
		ck_assert_ptr_ne(o, c);
		hook_others++;
	}
}

START_TEST(closed_hooks_skip_the_leaving)
{
	world_new();
	conn_hook_add(&srv, NULL, count_others);
	int a = attach(), b = attach(), c = attach();
	set_user(a, 9);
	set_user(b, 9);
	set_user(c, 9);
	set_user(b, 0);
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_int_eq(hook_others, 2);
	set_user(a, 10);
	ck_assert_int_eq(hook_calls, 2);
	ck_assert_int_eq(hook_others, 1);
	close_one(c);
	ck_assert_int_eq(hook_calls, 3);
	ck_assert_int_eq(hook_others, 0);
	check_all();
	settle();
	check_all();
	world_free();
}
END_TEST

/* An address's replay budget (conn_rate_charge) is shared by its
 * connections and outlives them while in debt: the last one closing keeps
 * it, a new one from the address finds the debt; once full again it is
 * forgotten.  (Every attached connection has the address "attached".) */
START_TEST(host_budget_outlives_connections)
{
	world_new();
	srv.cfg->rate_limit = 1;     /* a debt that lasts the test */
	srv.cfg->rate_burst = 10;
	int a = attach(), b = attach();
	ck_assert_ptr_eq(m[a].c->hb, m[b].c->hb);
	conn_rate_charge(m[a].c, 100.0);
	ck_assert(m[b].c->hb->tokens < -80.0);
	vanish(a);
	vanish(b);
	ck_assert_uint_eq(srv.conns->hosts.count, 1);   /* kept, in debt */
	int c = attach();
	ck_assert_msg(m[c].c->hb->tokens < -80.0, "the debt was forgotten: %.1f",
	              m[c].c->hb->tokens);
	/* Paid (a reload raised the rate): the next close forgets it. */
	srv.cfg->rate_limit = 1000000;
	nanosleep(&(struct timespec){ 0, 3000000 }, NULL);   /* time for the refill */
	vanish(c);
	ck_assert_uint_eq(srv.conns->hosts.count, 0);
	world_free();
}
END_TEST

/* What the far end of connection i has received, as one string (the
 * buffer is emptied). */
static void received(int i, char *out, size_t len)
{
	bufferevent_enable(m[i].far, EV_READ);
	settle();
	struct evbuffer *in = bufferevent_get_input(m[i].far);
	size_t n = evbuffer_get_length(in);
	ck_assert_uint_lt(n, len);
	evbuffer_remove(in, out, n);
	out[n] = '\0';
}

static void send_n(struct conn *c, int n, bool paced)
{
	json_t *msg = json_pack("{s:i}", "n", n);
	if (paced)
		conn_send_paced(c, msg);
	else
		conn_send(c, msg);
}

static struct paced *line_n(int n)
{
	char s[32];
	return conn_paced_new(s, (size_t)snprintf(s, sizeof s, "{\"n\":%d}", n));
}

/* A gate (a login's state made off the loop: game_view.c) keeps its place:
 * nothing sent after it goes out before it is closed, whether sent plain
 * or paced, or put into a later gate closed first; the lines put into it
 * go out in its place; two gates close in any order.  A closing
 * connection opens none. */
START_TEST(gates_keep_their_place)
{
	char got[512];
	world_new();
	int a = attach();
	struct conn *c = m[a].c;
	send_n(c, 1, false);
	struct paced *first = conn_gate_open(c);
	send_n(c, 4, false);
	struct paced *second = conn_gate_open(c);
	send_n(c, 7, true);
	send_n(c, 8, false);
	received(a, got, sizeof got);
	ck_assert_str_eq(got, "{\"n\":1}\n");
	conn_gate_put(c, second, line_n(5));
	conn_gate_put(c, second, line_n(6));
	conn_gate_close(c, second);
	received(a, got, sizeof got);
	ck_assert_str_eq(got, "");   /* still behind the first */
	conn_gate_put(c, first, line_n(2));
	conn_gate_put(c, first, line_n(3));
	conn_gate_close(c, first);
	received(a, got, sizeof got);
	ck_assert_str_eq(got, "{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n{\"n\":5}\n{\"n\":6}\n"
	                      "{\"n\":7}\n{\"n\":8}\n");
	send_n(c, 9, false);   /* no gate left: straight out */
	received(a, got, sizeof got);
	ck_assert_str_eq(got, "{\"n\":9}\n");
	/* A gate left open is freed with its connection (ASan, valgrind). */
	struct paced *left = conn_gate_open(c);
	ck_assert_ptr_nonnull(left);
	conn_gate_put(c, left, line_n(10));
	close_one(a);
	ck_assert_ptr_null(conn_gate_open(c));
	settle();
	world_free();
}
END_TEST

static Suite *conn_suite(void)
{
	Suite *s = suite_create("conn");
	TCase *tc = tcase_create("conn_of_user");

	tcase_add_test(tc, random_logins_logouts_closes);
	tcase_add_test(tc, close_while_walking);
	tcase_add_test(tc, user_changes_while_walking);
	tcase_add_test(tc, closed_hooks_skip_the_leaving);
	tcase_add_test(tc, host_budget_outlives_connections);
	tcase_add_test(tc, gates_keep_their_place);
	suite_add_tcase(s, tc);
	return s;
}

KRIEG_TEST_MAIN(conn_suite)
