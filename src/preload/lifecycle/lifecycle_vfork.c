/* lifecycle_vfork.c — vfork.
 *
 * A vfork child runs on its parent's memory, and on the calling thread's
 * state, until it execs or _exits; that thread of the parent waits
 * meanwhile. The child has a descriptor table of its own, though (vfork
 * shares memory, not descriptors): a dup2, open or close it makes before
 * exec (Python's subprocess arranges the child's stdin and stdout that
 * way) must not move this library's fd table, which is the parent's, or
 * the parent's later reads on those descriptors would be charged to the
 * child's files. So the thread is made busy for the child's life, its own
 * I/O as seektrace's own is: whatever the child calls passes through
 * unrecorded (strace shows it under the child's pid, and the program the
 * child execs is traced by its own copy of the library). Busy is set before
 * the syscall and cleared when it returns in the parent.
 *
 * The wrapper is wrap/wrap_process.c's, in assembly (it says why); it
 * calls the two functions here around the syscall. x86-64 only; elsewhere
 * vfork is not interposed (docs/reliability.md). */
#define _GNU_SOURCE 1
#include <errno.h>

#include "lifecycle.h"
#include "thread_state.h"

#if defined(__x86_64__)

/* Before the syscall: the thread passes everything through until the
 * child is gone. */
void st_lifecycle_vfork_enter(void)
{
    st_self.busy++;
    st_self.own_io++;
}

/* After it, in the child (0) and in the parent: the parent's thread is
 * itself again. Returns what vfork returns, errno set on failure. */
long st_lifecycle_vfork_leave(long result)
{
    if (result == 0)
        return 0;
    st_self.own_io--;
    st_self.busy--;
    if (result < 0 && result > -4096) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

#endif
