/* One result to several destinations (report/post/targets.c). */
#ifndef IX_POST_TARGETS_H
#define IX_POST_TARGETS_H

#include <stddef.h>

#include <jansson.h>

#include "probes/core/err.h"
#include "report/post/post.h"

struct ix_post_target {
	enum ix_post_format format;
	const char *url; /* IX_POST_TEXTFILE: the directory */
};

/* "[FORMAT=]URL": FORMAT one of ix_post_format_parse's names (dflt when
 * there is none); the URL http(s), or for textfile a directory. Usage
 * errors name the argument. t->url points into spec. */
int ix_post_target_parse(const char *spec, enum ix_post_format dflt, struct ix_post_target *t,
			 struct ix_err *err);

struct ix_post_each {
	/* The HTML report of doc, for html targets (*html malloc'd). */
	int (*html)(void *arg, json_t *doc, char **html, size_t *len, struct ix_err *err);
	/* Each target's outcome: err NULL when delivered. */
	void (*done)(void *arg, const struct ix_post_target *t, const struct ix_err *err);
	void *arg;
};

/* Post doc to every target in turn with the options of base (its url
 * and format replaced by each target's): what the spool holds for a URL
 * goes before it. A target that fails does not stop the others. Returns
 * how many failed (each told to how->done). */
size_t ix_post_targets(const struct ix_post_opts *base, const struct ix_post_target *t, size_t n,
		       json_t *doc, const struct ix_post_each *how);

#endif
