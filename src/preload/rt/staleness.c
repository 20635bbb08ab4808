/* staleness.c — see staleness.h. */
#include "staleness.h"

uint64_t st_staleness;
