/*
 * pgn_cmd.h — krieg-referee's PGN subcommands (proto/PGN.md).
 *
 *   krieg-referee pgn [--pov white|black|umpire|spectator] FILE|-
 *       replay a full-record Kriegspiel PGN: every event as one JSON line,
 *       as the normal mode prints it; exit 1 with a message naming the
 *       move if the PGN's moves, tries or announcements differ from the
 *       replay, 2 on a usage error.  A file of several games is replayed
 *       game by game (pgn_read_next), each headed by a {"game":N,...}
 *       line, each message naming its game.
 *   krieg-referee topgn [--rules NAME] [--fen FEN] [--view V] [--white NAME]
 *                       [--black NAME] [--event E] [--site S] [--date D]
 *       read actions in the normal mode's language on stdin and write
 *       their PGN (the full record, or V's filtered one).
 */
#ifndef KRIEG_PGN_CMD_H
#define KRIEG_PGN_CMD_H

#include <jansson.h>

/* argv[1] is "pgn" / "topgn".  Returns the exit status. */
int pgn_cmd_replay(int argc, char **argv);
int pgn_cmd_topgn(int argc, char **argv);

/* The output both modes print (the normal mode's too, main.c): o as one
 * JSON line if its audience aud reaches pov (pov 0: everything), o
 * consumed (NULL: nothing); and each event of ev so. */
struct evlist;
struct ruleset;
void pgn_cmd_print_heard(json_t *o, unsigned aud, unsigned pov);
void pgn_cmd_print_events(const struct evlist *ev, const struct ruleset *rs, unsigned pov);

#endif
