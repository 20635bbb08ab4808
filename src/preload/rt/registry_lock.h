/* registry_lock.h — the one lock guarding inserts into the registries
 * (files, fds, streams). Lookups never take it. Held across fork by the
 * atfork handlers so a child never inherits it locked. */
#ifndef SEEKTRACE_REGISTRY_LOCK_H
#define SEEKTRACE_REGISTRY_LOCK_H

void st_registry_lock(void);
void st_registry_unlock(void);
/* In a fork child: the lock is free, whatever the parent's threads held. */
void st_registry_reset_in_child(void);

#endif
