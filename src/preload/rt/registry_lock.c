/* registry_lock.c — see registry_lock.h. */
#include "registry_lock.h"

#include "sync.h"

static st_spin lock;

void st_registry_lock(void) { st_spin_lock(&lock); }
void st_registry_unlock(void) { st_spin_unlock(&lock); }
void st_registry_reset_in_child(void) { lock.locked = 0; }
