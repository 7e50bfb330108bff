/*
 * fuzz_client.c — the terminal client's core (client-cli/krieg/client.h)
 * talking to a hostile server: any lines received, with commands typed
 * between them.  The client connects to servers its user names, so what
 * a server sends is untrusted input like any other.
 *
 * Each line of the input is one step: "> TEXT" is TEXT typed at the
 * prompt (client_command), "< LINE" or any other line is LINE received
 * (client_receive); PROTOCOL.md's transcripts are inputs as they stand.
 * The client's clock moves 250 ms a step, and it flushes its deferred
 * words after each.  Typed lines naming a path ('/') are skipped: the pgn
 * command writes the file it names when the server's answer ends.  So are
 * typed lines holding a control character: the user's own keystrokes are
 * the user's (the terminal's line editor has them first), not a server's.
 *
 * Beyond "no crash, no sanitizer report", the promises checked:
 *  - every line sent is one JSON object with a string "type", no newline;
 *  - nothing printed holds a control character but newline and tab (ESC,
 *    CSI and the rest would be commands to the user's terminal; colours
 *    are off here, so none is the renderer's own).
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "client.h"
#include "fuzz_util.h"
#include "scrub.h"

#define STEPS_MAX 256          /* lines of one input that are run */

static long clock_ms;

static int on_send(void *ctx, const char *line)
{
	(void)ctx;
	FUZZ_ASSERT(strchr(line, '\n') == NULL, "a newline in a request: %s", line);
	json_t *j = json_loads(line, 0, NULL);
	FUZZ_ASSERT(json_is_object(j) && json_is_string(json_object_get(j, "type")),
	            "a request that is not an object with a type: %s", line);
	json_decref(j);
	return 0;
}

static void on_print(void *ctx, const char *text)
{
	(void)ctx;
	size_t n = strlen(text);
	FUZZ_ASSERT(scrub_count(text, n) == 0, "a control character shown: %s", text);
}

static long on_now(void *ctx)
{
	(void)ctx;
	return clock_ms;
}

static long long on_wall(void *ctx)
{
	(void)ctx;
	return 1800000000000LL + clock_ms;
}

static char scratch[] = "/tmp/fuzz_client.XXXXXX";

/* The scratch directory goes at exit (with what a pgn command left in it:
 * files named without a '/', so directly inside it). */
static void scratch_remove(void)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	if (d != NULL)
		closedir(d);
	rmdir(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool moved;
	if (!moved) {
		/* a scratch directory to stand in, whatever a command writes */
		if (mkdtemp(scratch) == NULL || chdir(scratch) != 0)
			abort();
		atexit(scratch_remove);
		moved = true;
	}
	char *text = fuzz_cstr(data, size);
	struct client c;
	client_init(&c);
	c.send = on_send;
	c.print = on_print;
	c.now = on_now;
	c.wall = on_wall;
	clock_ms = 100000;
	client_hello(&c);
	char *save = NULL;
	int steps = 0;
	for (char *line = strtok_r(text, "\n", &save); line != NULL && steps < STEPS_MAX;
	     line = strtok_r(NULL, "\n", &save), steps++) {
		clock_ms += 250;
		if (line[0] == '>' && line[1] == ' ') {
			if (strchr(line, '/') == NULL && scrub_count(line, strlen(line)) == 0 &&
			    client_command(&c, line + 2) == CLIENT_QUIT)
				break;
		} else {
			client_receive(&c, line[0] == '<' && line[1] == ' ' ? line + 2 : line);
		}
		client_flush(&c);
	}
	client_disconnected(&c);
	client_free(&c);
	free(text);
	return 0;
}
