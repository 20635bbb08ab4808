/* rl_malloc.c — a program with its own malloc, which reads a file.
 *
 * usage: rl_malloc reads FILE          (malloc reads FILE on its first call)
 *        rl_malloc in_handler FILE B   (SIGTERM arrives inside malloc)
 *
 * reads: the allocator reads its "configuration" on first use, which can be
 * inside the dynamic loader's or libseektrace's start-up (dlsym -> calloc).
 * No crash, no hang, and every read counted.
 *
 * in_handler: malloc raises SIGTERM while it holds its (non-reentrant) lock,
 * as a program does when it aborts on heap corruption. Whatever runs in the
 * signal handler before the program dies must not call malloc: if it does,
 * this allocator says so on stderr. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static char arena[64 << 20];
static size_t used;
static int inside;
static int configured;
static const char *config_path;
static int raise_on_call = -1;
static long calls;

static void say(const char *s)
{
    syscall(SYS_write, 2, s, strlen(s));
}

static void configure(void)
{
    if (configured)
        return;
    configured = 1;
    /* getenv only: no allocation. The reads go through libc's read(). */
    const char *p = getenv("RL_MALLOC_CONFIG");
    if (!p)
        return;
    config_path = p;
    char b[512];
    int fd = open(p, O_RDONLY);
    if (fd >= 0) {
        while (read(fd, b, sizeof b) > 0)
            ;
        close(fd);
    }
}

void *malloc(size_t n)
{
    if (inside)
        say("rl_malloc: MALLOC RE-ENTERED from a signal handler\n");
    inside = 1;
    configure();
    if (++calls == raise_on_call)
        raise(SIGTERM); /* the handler runs with our lock held */
    n = (n + 15) & ~(size_t)15;
    void *p = NULL;
    if (used + n + 16 <= sizeof arena) {
        *(size_t *)(arena + used) = n;
        p = arena + used + 16;
        used += n + 16;
    }
    inside = 0;
    if (!p)
        errno = ENOMEM;
    return p;
}

void free(void *p) { (void)p; }

void *calloc(size_t a, size_t b)
{
    if (b && a > SIZE_MAX / b)
        return NULL;
    void *p = malloc(a * b);
    if (p)
        memset(p, 0, a * b);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p = malloc(n);
    if (p && old) {
        size_t was = *(size_t *)((char *)old - 16);
        memcpy(p, old, was < n ? was : n);
    }
    return p;
}

void *aligned_alloc(size_t al, size_t n)
{
    void *p = malloc(n + al);
    return p ? (void *)(((uintptr_t)p + al - 1) & ~(uintptr_t)(al - 1)) : NULL;
}

void *memalign(size_t al, size_t n) { return aligned_alloc(al, n); }

int posix_memalign(void **out, size_t al, size_t n)
{
    void *p = aligned_alloc(al, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

size_t malloc_usable_size(void *p) { return p ? *(size_t *)((char *)p - 16) : 0; }

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    char b[4096];
    if (strcmp(argv[1], "reads") == 0) {
        FILE *f = fopen(argv[2], "r");
        if (!f || fread(b, 1, 3000, f) != 3000)
            return 3;
        printf("config %s; %ld mallocs\n", config_path ? "read" : "unset", calls > 0 ? 1L : 0L);
        return 0;
    }
    if (strcmp(argv[1], "in_handler") == 0 && argc > 3) {
        /* Two files read, so that a report has several to sort. */
        for (int i = 2; i < 4; i++) {
            FILE *f = fopen(argv[i], "r");
            if (!f || fread(b, 1, 1000, f) != 1000)
                return 3;
        }
        raise_on_call = calls + 1;
        void *p = malloc(100);
        printf("survived %p\n", p);
        return 0;
    }
    return 2;
}
