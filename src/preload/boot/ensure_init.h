/* ensure_init.h — the library starts on first use.
 *
 * Every entry point (each interposed function, the optional API) calls
 * st_ensure_init first: other libraries' constructors may call us before
 * ours runs. Declared here, at the bottom of the library, so that entry
 * points in any folder can; defined by wrap/init.c, the top, which starts
 * every layer in order. Inline: once initialised, one load and a branch. */
#ifndef SEEKTRACE_ENSURE_INIT_H
#define SEEKTRACE_ENSURE_INIT_H

extern int st_init_done;
void st_ensure_init_slow(void);
static inline void st_ensure_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&st_init_done, __ATOMIC_ACQUIRE), 0))
        st_ensure_init_slow();
}

#endif
