/* signal_frame.h — whether this thread is running a signal handler.
 *
 * Found by unwinding the thread's stack (libgcc's unwinder, as sites.c
 * does) up to a frame the unwinder marks as interrupted by a signal, as
 * far as unwind information goes: a handler in code without it is not
 * seen. No lock, no allocation: a handler may ask. Tens of microseconds,
 * so only asked on rare paths: a report, a wait for another thread's fork
 * (registry_lock.h). */
#ifndef SEEKTRACE_SIGNAL_FRAME_H
#define SEEKTRACE_SIGNAL_FRAME_H

int st_in_signal_handler(void);

#endif
