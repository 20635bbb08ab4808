/* bulk.h — large tables kept apart from the small variables.
 *
 * The first touch of a page of the library's .bss costs a page fault (tens
 * of microseconds under some hypervisors). Start-up and the exit report
 * touch small variables of almost every file; laid out in file order, the
 * large tables between them would give each a page of its own. ST_BULK
 * puts a table the program may never need in a section the link sorts after
 * all the others (CMakeLists.txt: --sort-section=name), so the small
 * variables share a few pages. AddressSanitizer leaves globals in sections
 * of their own unguarded: there the tables stay where they were. */
#ifndef SEEKTRACE_BULK_H
#define SEEKTRACE_BULK_H

#if defined(__SANITIZE_ADDRESS__)
#define ST_BULK
#else
#define ST_BULK __attribute__((section(".bss.st_bulk")))
#endif

/* ST_EARLY puts a variable start-up reads before it writes anything of the
 * .bss into .data instead: the loader has written the page .data ends in
 * (it zeroes the start of the .bss that shares it) before any code of ours
 * runs. Read first, a .bss page is mapped to the zero page, and the first
 * write then faults a second time. */
#define ST_EARLY __attribute__((section(".data")))

#endif
