/*
 * harness_replay.h — every consumer of a game record must read the same
 * game.  The harness runs this on each kriegd's database when a test
 * stops it (kd_stop), so every game played by the integration and kill -9
 * suites goes through it.
 */
#ifndef KRIEG_HARNESS_REPLAY_H
#define KRIEG_HARNESS_REPLAY_H

#include <stddef.h>

/*
 * For every game in the database at path, not flagged: recovery's check
 * (the replay equals the stored announcements), the record views
 * (announce_replay) of white, black, umpire and spectator against the stored
 * announcements, and the full PGN exported (pgn_write), read back
 * (pgn_read) and replayed, against the same.  Returns the number of games
 * checked, or -1 with the first difference in err, e.g.
 * "game 3: pgn re-import: white event 4 differs: ...".
 */
int replay_check_db(const char *path, char *err, size_t errlen);

#endif
