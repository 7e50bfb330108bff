/*
 * line.c — an outgoing message encoded once (line.h).
 */
#include "line.h"

#include <string.h>

#include "dispatch.h"
#include "jsonline.h"
#include "log.h"
#include "proto.h"
#include "xmalloc.h"

struct line {
	unsigned refs;
	size_t len;
	char text[];                 /* len bytes, then '\n' */
};

size_t line_encode_into(json_t *msg, char *buf)
{
	if (msg == NULL)
		return 0;
	size_t n = jsonline_dump(msg, buf, PROTO_LINE_MAX - 1);

	if (n == 0)
		log_warnx("could not encode a message");
	else if (n > PROTO_LINE_MAX - 1) {
		log_warnx("BUG: refusing to send a line of %zu bytes, over the protocol's %d", n + 1,
		          PROTO_LINE_MAX);
		n = 0;
		json_t *ok = json_object_get(msg, "ok");
		if (ok != NULL && json_object_get(msg, "event") == NULL) {
			json_t *id = json_object_get(msg, "id");
			json_t *err = dispatch_error_msg(id, PE_INTERNAL,
			                                 "the reply would be longer than a line");
			n = jsonline_dump(err, buf, PROTO_LINE_MAX - 1);
			if (n > PROTO_LINE_MAX - 1)
				n = 0;
			json_decref(err);
		}
	}
	json_decref(msg);
	return n;
}

struct line *line_new(const char *s, size_t n)
{
	if (n == 0 || n > PROTO_LINE_MAX - 1) {
		log_warnx("BUG: refusing to send a line of %zu bytes (the protocol's are 2 to %d)",
		          n + 1, PROTO_LINE_MAX);
		return NULL;
	}
	struct line *l = xmalloc(sizeof *l + n + 1);
	l->refs = 1;
	l->len = n;
	memcpy(l->text, s, n);
	l->text[n] = '\n';
	return l;
}

struct line *line_encode(json_t *msg)
{
	char buf[PROTO_LINE_MAX];
	size_t n = line_encode_into(msg, buf);
	return n == 0 ? NULL : line_new(buf, n);
}

struct line *line_ref(struct line *l)
{
	if (l != NULL)
		l->refs++;
	return l;
}

void line_unref(struct line *l)
{
	if (l != NULL && --l->refs == 0)
		free(l);
}

const char *line_text(const struct line *l)
{
	return l->text;
}

size_t line_len(const struct line *l)
{
	return l->len;
}
