/* own_stack.h — running the report on a stack of the library's own.
 *
 * The report's frames take tens of KiB (findings, rows of counts: ~66 KiB
 * sanitized). The program may end on a stack it chose small: a thread of
 * 16-32 KiB that calls exit (it overflowed there: SIGSEGV where the program
 * exits 0), a coroutine's, a signal's alternate stack. Only the main
 * thread's stack, with room under its limit, is taken as it is. */
#ifndef SEEKTRACE_OWN_STACK_H
#define SEEKTRACE_OWN_STACK_H

/* Whether the caller runs on the main thread's stack with at least the
 * room a report needs left under RLIMIT_STACK (one prlimit64). */
int st_stack_is_roomy(void);

/* Runs fn on a fresh stack of ours (mmap'd, unmapped after), or on this
 * one when none can be had: under ASan (it cannot follow the switch), out
 * of memory, or while another thread is on ours. */
void st_run_on_own_stack(void (*fn)(void));

#endif
