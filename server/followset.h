/*
 * followset.h — who follows whom (follow.c's data): each follow is a
 * connection's, of a user, under the name it was asked by, and sits in two
 * lists, its connection's and its followed user's, each headed in a table
 * by id.  So a `follow` list, a connection's close and an `unfollow` cost
 * that connection's follows, and a game start or an arrival costs that
 * user's followers, never every follow on the server.  No I/O.
 *
 * Bounded per connection (the caller's max): the connections' own bound
 * (max_connections) bounds the whole.  A server-wide cap had let 2,048
 * connections make `follow` answer `busy` to everyone (memory probe).
 */
#ifndef KRIEG_FOLLOWSET_H
#define KRIEG_FOLLOWSET_H

#include <stddef.h>
#include <stdint.h>

struct followset;

struct followset *followset_new(void);
void followset_free(struct followset *fs);   /* NULL: nothing */

/* Connection conn follows `user` (named `name`, cut at PROTO_NAME_MAX
 * bytes) from now on: FOLLOW_ADDED; FOLLOW_KNOWN if it did already
 * (nothing changed); FOLLOW_FULL if it follows `max` users already
 * (nothing changed). */
enum { FOLLOW_ADDED, FOLLOW_KNOWN, FOLLOW_FULL };
int followset_add(struct followset *fs, uint64_t conn, int64_t user, const char *name, size_t max);

/* Would followset_add say FOLLOW_FULL (no change)? */
int followset_check(const struct followset *fs, uint64_t conn, int64_t user, size_t max);

/* Connection conn no longer follows `user` (0: anyone); how many went. */
size_t followset_drop(struct followset *fs, uint64_t conn, int64_t user);

/* fn(conn, user, name, arg) for each follow of connection conn, oldest
 * first; or for each follower of user `user` (followset_each_follower),
 * oldest first.  fn must not change the set. */
typedef void followset_fn(uint64_t conn, int64_t user, const char *name, void *arg);
void followset_each_of_conn(const struct followset *fs, uint64_t conn, followset_fn *fn, void *arg);
void followset_each_follower(const struct followset *fs, int64_t user, followset_fn *fn, void *arg);

/* Follows held in all (tests, the status). */
size_t followset_count(const struct followset *fs);

#endif
