/* env.c — see env.h. The names are one block of characters, each found by
 * its offset (no pointers for the loader to relocate, as in real.c). */
#include "env.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct names {
#define ST_ENV_NAME(name) char name[sizeof #name];
    ST_ENV_NAMES(ST_ENV_NAME)
#undef ST_ENV_NAME
} names = {
#define ST_ENV_NAME(name) #name,
    ST_ENV_NAMES(ST_ENV_NAME)
#undef ST_ENV_NAME
};

static const unsigned short offsets[ST_ENV_COUNT] = {
#define ST_ENV_OFFSET(name) offsetof(struct names, name),
    ST_ENV_NAMES(ST_ENV_OFFSET)
#undef ST_ENV_OFFSET
};

static const char *values[ST_ENV_COUNT];
static int loaded;

static const char *name_of(int id)
{
    return (const char *)&names + offsets[id];
}

/* The value of `entry` ("NAME=value") if NAME is name, else NULL. */
static const char *value_if(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=' ? entry + n + 1 : NULL;
}

/* A name's first two characters, compared at once as getenv does. */
static unsigned key(const char *s)
{
    return (unsigned char)s[0] | (unsigned)(unsigned char)s[1] << 8;
}

void st_env_load(void)
{
    /* Most variables begin with none of the names' first letters: one test
     * of this set each rules them out; the others are compared by their
     * first two characters with each name's before in full. */
    unsigned char first[256 / 8] = {0};
    unsigned keys[ST_ENV_COUNT];
    for (int id = 0; id < ST_ENV_COUNT; id++) {
        unsigned char c = (unsigned char)name_of(id)[0];
        first[c / 8] |= (unsigned char)(1u << (c % 8));
        keys[id] = key(name_of(id));
    }
    memset(values, 0, sizeof values);
    for (char **e = environ; e && *e; e++) {
        unsigned char c = (unsigned char)(*e)[0];
        if (!(first[c / 8] >> (c % 8) & 1))
            continue;
        unsigned k = key(*e); /* (*e)[1] is there: c is not the terminator */
        for (int id = 0; id < ST_ENV_COUNT; id++) {
            const char *v = keys[id] == k && !values[id] ? value_if(*e, name_of(id)) : NULL;
            if (v) {
                values[id] = v; /* the first, as getenv takes it */
                break;
            }
        }
    }
    loaded = 1;
}

const char *st_env(enum st_env_id id)
{
    return loaded ? values[id] : getenv(name_of(id));
}

const char *st_env_name(enum st_env_id id)
{
    return name_of(id);
}
