/*
 * client_fixture.h — a krieg client (client.h) with no server and no
 * terminal, for the client unit tests: what it sends and prints lands in a
 * struct sink, its clocks read the sink's.  Header-only (static), since
 * each tests/unit/test_*.c is a binary of its own.
 */
#ifndef KRIEG_CLIENT_FIXTURE_H
#define KRIEG_CLIENT_FIXTURE_H

#include "check_main.h"   /* check.h, with assertions that do not write on a pass */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "text.h"

#define SINK_SENT_MAX 64   /* requests kept (nsent counts them all) */

struct sink {
	char sent[SINK_SENT_MAX][1024];
	int nsent;
	size_t bytes;          /* every byte sent, newlines included */
	char printed[65536];   /* the words shown, one line each */
	char raw[4096];        /* the protocol lines shown verbatim (print_raw) */
	long now;
	long long wall;
	int asked;             /* prompts answered from answers[] */
	const char *answers[4];
};

static inline int sink_send(void *ctx, const char *line)
{
	struct sink *s = ctx;
	s->bytes += strlen(line) + 1;
	if (s->nsent < SINK_SENT_MAX)
		snprintf(s->sent[s->nsent], sizeof s->sent[0], "%s", line);
	s->nsent++;
	return 0;
}

static inline void sink_print(void *ctx, const char *text)
{
	struct sink *s = ctx;
	size_t n = strlen(s->printed);
	snprintf(s->printed + n, sizeof s->printed - n, "%s\n", text);
}

static inline void sink_raw(void *ctx, const char *line)
{
	struct sink *s = ctx;
	size_t n = strlen(s->raw);
	snprintf(s->raw + n, sizeof s->raw - n, "%s\n", line);
}

static inline long sink_now(void *ctx)
{
	return ((struct sink *)ctx)->now;
}

static inline long long sink_wall(void *ctx)
{
	return ((struct sink *)ctx)->wall;
}

/* c, fresh (client_init), sending and printing into s (emptied); its
 * monotonic clock reads s->now, from 100000.  The wall clock, print_raw
 * and the rest stay as client_init leaves them: each test sets its own. */
static inline void sink_client(struct client *c, struct sink *s)
{
	memset(s, 0, sizeof *s);
	s->now = 100000;
	client_init(c);
	c->ctx = s;
	c->send = sink_send;
	c->print = sink_print;
	c->now = sink_now;
}

/* sink_client, then logged in as "alice", its wall clock reading s->wall
 * from 2026-01-01. */
static inline void sink_logged_in(struct client *c, struct sink *s)
{
	sink_client(c, s);
	s->wall = 1767225600000LL;
	c->wall = sink_wall;
	c->logged_in = true;
	snprintf(c->user, sizeof c->user, "alice");
}

/* A game of alice's and bob's (icc) starts for c, then the client's output
 * is flushed; timed: 5+0 with both clocks full. */
static inline void sink_game_start(struct client *c, long id, const char *color, bool timed)
{
	char line[512];
	snprintf(line, sizeof line,
	         "{\"event\":\"game_start\",\"game\":%ld,\"rules\":\"icc\",\"white\":\"alice\","
	         "\"black\":\"bob\",\"color\":\"%s\",\"rated\":false%s}",
	         id, color, timed ? ",\"time\":{\"base\":300,\"inc\":0},\"clock\":{\"white\":300000,\"black\":300000}" : "");
	client_receive(c, line);
	client_flush(c);
}

/* The last request sent, parsed (a new reference). */
static inline json_t *sink_last(const struct sink *s)
{
	ck_assert_int_gt(s->nsent, 0);
	json_t *j = json_loads(s->sent[s->nsent - 1], 0, NULL);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* The id of request n sent. */
static inline long long sink_sent_id(const struct sink *s, int n)
{
	json_t *r = json_loads(s->sent[n], 0, NULL);
	ck_assert_ptr_nonnull(r);
	long long id = json_integer_value(json_object_get(r, "id"));
	json_decref(r);
	return id;
}

/* Answer the last request sent with {"id":..,"ok":true, <extra>}. */
static inline void sink_reply_ok(struct client *c, const struct sink *s, const char *extra)
{
	char line[4096];
	snprintf(line, sizeof line, "{\"id\":%lld,\"ok\":true%s%s}", sink_sent_id(s, s->nsent - 1),
	         extra && *extra ? "," : "", extra ? extra : "");
	client_receive(c, line);
}

#endif
