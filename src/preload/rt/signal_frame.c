/* signal_frame.c — see signal_frame.h. */
#include "signal_frame.h"

#include <unwind.h>

struct frames_seen {
    int signal_frame;
    int n;
};

/* The unwinder marks the frame a signal interrupted: its IP is the
 * interrupted instruction, not a return address. */
static _Unwind_Reason_Code look_for_signal_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct frames_seen *seen = arg;
    int interrupted = 0;
    _Unwind_GetIPInfo(ctx, &interrupted);
    if (interrupted) {
        seen->signal_frame = 1;
        return _URC_END_OF_STACK;
    }
    return ++seen->n > 4096 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

int st_in_signal_handler(void)
{
    struct frames_seen seen = {0, 0};
    _Unwind_Backtrace(look_for_signal_frame, &seen);
    return seen.signal_frame;
}
