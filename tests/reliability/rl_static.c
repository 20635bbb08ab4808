/* rl_static.c — a statically linked program: the dynamic loader is not
 * involved, so LD_PRELOAD is ignored. It must run unchanged (and nothing is
 * reported: docs/reliability.md). */
#include <stdio.h>

int main(int argc, char **argv)
{
    char b[4096];
    size_t total = 0, n;
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    while (f && (n = fread(b, 1, sizeof b, f)) > 0)
        total += n;
    printf("static read %zu\n", total);
    return f ? 0 : 1;
}
