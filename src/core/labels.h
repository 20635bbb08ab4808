/* labels.h — a run's labels (job id, commit, test name): KEY=VALUE pairs
 * from `seektrace run --label` and SEEKTRACE_LABELS ("k=v,k=v"), recorded
 * in a trace's ST_TRACE_INFO_LABELS record.
 *
 * A key is 1 to 64 of [A-Za-z0-9_.-], not starting with '.' or '-'; a value
 * at most 256 bytes with no ',' and no control character (so that the list
 * survives the environment variable and a ClickHouse Map). At most
 * ST_LABELS_MAX labels, each key once. No malloc: the preload library
 * parses them inside the traced process. */
#ifndef SEEKTRACE_LABELS_H
#define SEEKTRACE_LABELS_H

#include <stddef.h>

#define ST_LABELS_MAX 32
#define ST_LABEL_KEY_MAX 64
#define ST_LABEL_VALUE_MAX 256
/* The encoded list at its largest: every label "key=value\0". */
#define ST_LABELS_BYTES (ST_LABELS_MAX * (ST_LABEL_KEY_MAX + ST_LABEL_VALUE_MAX + 2))

/* Checks one "KEY=VALUE" of len bytes. Returns NULL when it is good, else
 * why not ("the key is empty", ...). */
const char *st_label_check(const char *kv, size_t len);

/* Appends the labels of spec ("k=v,k=v"; "" is none) to the encoded list
 * out[0..*len), each "k=v\0"; a key already there is an error. Returns
 * NULL, or why spec is bad (out and *len then unchanged); bad_at gets the
 * offending label's start in spec. */
const char *st_labels_add(const char *spec, char *out, size_t size, size_t *len,
                          size_t *bad_at);

/* Appends to out[0..*len) each of the n labels ("KEY=VALUE", checked
 * already) whose key it does not hold yet: a run's labels from its
 * processes', the first value of a key kept. One that no longer fits is
 * left out. */
void st_labels_merge(char *out, size_t size, size_t *len, char *const *labels, int n);

#endif
