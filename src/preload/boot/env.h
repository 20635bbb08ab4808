/* env.h — the environment variables start-up reads, found in one pass.
 *
 * getenv walks the whole environment for each name it is asked, and
 * start-up asks for all of these: ~300 instructions a name among 40
 * variables, ~1,000 among the 150 of a CI job. st_env_load reads the
 * environment once (wrap/init.c, first thing); st_env then answers as
 * getenv would have at that moment. Start-up only: every setting is read
 * once, at start-up, and so is what decides how the real functions are
 * found (real.c). Before st_env_load, st_env asks getenv. */
#ifndef SEEKTRACE_ENV_H
#define SEEKTRACE_ENV_H

#define ST_ENV_NAMES(X)                                                              \
    X(SEEKTRACE_FORMAT) X(SEEKTRACE_REPORT) X(SEEKTRACE_SYMBOLIZE) X(SEEKTRACE_STACK)  \
    X(SEEKTRACE_REPORT_FILES) X(SEEKTRACE_LABELS) X(SEEKTRACE_BUFSIZE)                \
    X(SEEKTRACE_FADVISE) X(SEEKTRACE_STORAGE) X(SEEKTRACE_TRACE)                      \
    X(SEEKTRACE_TRACE_MAX) X(SEEKTRACE_TRACE_CLOCK) X(SEEKTRACE_CAPTURE)              \
    X(SEEKTRACE_OUTPUT) X(SEEKTRACE_SIGNALS) X(LD_AUDIT) X(LD_DYNAMIC_WEAK)           \
    X(GLIBC_TUNABLES)

enum st_env_id {
#define ST_ENV_ID(name) ST_ENV_ID_##name,
    ST_ENV_NAMES(ST_ENV_ID)
#undef ST_ENV_ID
    ST_ENV_COUNT
};

void st_env_load(void);

/* getenv(name) of one of the names above: its value, or NULL. */
const char *st_env(enum st_env_id id);

/* The name itself, for messages. */
const char *st_env_name(enum st_env_id id);
#define ST_ENV(name) st_env(ST_ENV_ID_##name)

#endif
