/* debuginfo_local.h — libdwfl's find_debuginfo without an idle debuginfod.
 *
 * dwfl_standard_find_debuginfo ends, when nothing is found on this
 * machine, by asking debuginfod: libdw then dlopens libdebuginfod, and with
 * it libcurl, GnuTLS and OpenSSL, although with DEBUGINFOD_URLS unset there
 * is no server to ask. Every stripped module a report names (grep, sed, a
 * distribution's libraries) got there: `seektrace report` of one grep -r
 * trace peaked at 12.4 MB of RSS and took 44.6 ms, 4.7 MB and 38.4 ms
 * without. */
#ifndef SEEKTRACE_DEBUGINFO_LOCAL_H
#define SEEKTRACE_DEBUGINFO_LOCAL_H

#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks.find_debuginfo for the default debuginfo_path. With
 * debuginfod servers configured, or a file on this machine the standard
 * search could take (by build ID or by debug link, in the directories of
 * the default path), it is dwfl_standard_find_debuginfo; otherwise -1, as
 * that search would have answered after asking no server. */
int debuginfo_find_local(Dwfl_Module *mod, void **userdata, const char *modname,
                         Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                         GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif
