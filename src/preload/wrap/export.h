/* export.h — defining an interposed symbol.
 *
 * Wrappers are C functions named st_wrap_<name> exported under the exact
 * symbol <name>. Going through an asm label rather than the C name keeps
 * glibc's headers out of the way: they redirect some names (scanf to
 * __isoc99_scanf) and turn others into macros (fread_unlocked). */
#ifndef SEEKTRACE_EXPORT_H
#define SEEKTRACE_EXPORT_H

#define ST_EXPORT(ret, name, params)                                                 \
    __attribute__((visibility("default"))) ret st_wrap_##name params __asm__(#name); \
    ret st_wrap_##name params

#endif
