/* thread_state.c — the per-thread state itself (zero at thread start). */
#include "thread_state.h"

__thread struct st_thread st_self __attribute__((tls_model("initial-exec")));
