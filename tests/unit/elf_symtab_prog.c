/* elf_symtab_prog.c — a program whose symbol table holds the cases libdwfl's
 * choice of a name tells apart (local, global, weak, aliases at one address,
 * sizeless assembly labels), built with and without -g, PIE and not, for
 * test_elf_symtab, which only reads the files. Running it prints a number. */
#include <stdio.h>

__attribute__((noinline)) static int local_fn(int x)
{
    return x * 3 + 1;
}

int global_fn(int x)
{
    return local_fn(x) + 2;
}

__attribute__((weak)) int weak_fn(int x)
{
    return x - 7;
}

int alias_target(int x)
{
    return x ^ 5;
}
extern int strong_alias(int) __attribute__((alias("alias_target")));
extern int weak_alias(int) __attribute__((weak, alias("alias_target")));

/* Symbols without st_size, global and local, as handwritten assembly has. */
__asm__(".text\n"
        ".globl sizeless_global\n"
        ".type sizeless_global, @function\n"
        "sizeless_global:\n"
        "  nop\n"
        "  nop\n"
        "sizeless_local:\n"
        "  nop\n"
        "  ret\n");

int main(int argc, char **argv)
{
    (void)argv;
    int (*volatile fns[])(int) = {global_fn, weak_fn, strong_alias, weak_alias};
    int sum = 0;
    for (unsigned i = 0; i < sizeof fns / sizeof fns[0]; i++)
        sum += fns[i](argc);
    printf("%d\n", sum);
    return 0;
}
