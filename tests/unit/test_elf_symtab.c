/* Unit tests: names from ELF symbol tables (src/preload/sites/elf_symtab.c)
 * against libdwfl's dwfl_module_addrname, the routing of modules with DWARF
 * to libdw, and truncated or corrupt files.
 *
 * Built without -g (CMakeLists.txt), so that this binary is itself one of
 * the modules compared. PROG_* are elf_symtab_prog.c's builds. */
#define _GNU_SOURCE 1
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_symtab.h"

/* An empty directory, as the debug root where no debug file exists: the
 * names compared are those of the files' own tables even where a debug
 * package is installed (libc6-dbg). */
static char no_debug[] = "/tmp/test_elf_symtab.XXXXXX";
static char *no_debug_path = no_debug;

/* libdw as symbolize.c sets it up (local debug files only), looking for
 * them in no_debug, or (the last one) where symbolize.c's libdw looks. */
static const Dwfl_Callbacks proc_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .debuginfo_path = &no_debug_path,
};
static const Dwfl_Callbacks file_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &no_debug_path,
};
static const Dwfl_Callbacks symbolize_callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_build_id_find_debuginfo,
};

static int setup(void **state)
{
    (void)state;
    return mkdtemp(no_debug) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(no_debug);
}

/* Whether elf_symtab's answer is libdwfl's name (want, NULL for none). */
static int agrees(enum st_elf_answer a, const char *got, const char *want)
{
    return a == ST_ELF_NAME ? want && strcmp(want, got) == 0 : a == ST_ELF_NO_NAME && !want;
}

/* Compares the fast path with libdwfl at the start + 1, middle and end of
 * every symbol of mod (the file at path, lowest mapping at low_addr): each
 * address alone, then all of them in one st_elf_addrnames (in the table's
 * order, not the addresses'). */
static void compare_module(Dwfl_Module *mod, const char *path, uintptr_t low_addr)
{
    struct st_elf *e = st_elf_open(path, low_addr, no_debug);
    assert_non_null(e);
    int n = dwfl_module_getsymtab(mod);
    assert_true(n > 0);
    size_t room = 3 * (size_t)n, compared = 0, mismatches = 0;
    uint64_t *addrs = calloc(room, sizeof *addrs);
    const char **wants = calloc(room, sizeof *wants), **gots = calloc(room, sizeof *gots);
    enum st_elf_answer *answers = calloc(room, sizeof *answers);
    assert_true(addrs && wants && gots && answers);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL) ||
            sym.st_shndx == SHN_UNDEF || value < low_addr)
            continue;
        const GElf_Addr at[] = {value + 1, value + sym.st_size / 2, value + sym.st_size};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            const char *want = dwfl_module_addrname(mod, at[k]);
            const char *got = NULL;
            enum st_elf_answer a = st_elf_addrname(e, at[k], &got);
            addrs[compared] = at[k];
            wants[compared++] = want;
            if (!agrees(a, got, want) && mismatches++ < 10)
                print_message("%s %#lx: libdwfl %s, elf_symtab %s (answer %d)\n", path,
                              (unsigned long)at[k], want ? want : "-", got ? got : "-", a);
        }
    }
    assert_int_equal(st_elf_addrnames(e, addrs, compared, answers, gots), 0);
    for (size_t k = 0; k < compared; k++)
        if (!agrees(answers[k], gots[k], wants[k]) && mismatches++ < 20)
            print_message("%s %#lx, all at once: libdwfl %s, elf_symtab %s (answer %d)\n", path,
                          (unsigned long)addrs[k], wants[k] ? wants[k] : "-",
                          answers[k] == ST_ELF_NAME ? gots[k] : "-", answers[k]);
    st_elf_close(e);
    free(addrs);
    free(wants);
    free(gots);
    free(answers);
    print_message("%s: %zu addresses compared, alone and all at once\n", path, compared);
    assert_true(compared > 10);
    assert_int_equal(mismatches, 0);
}

/* A program file as libdwfl reads it from disk, at an arbitrary base. */
static void compare_file(const char *path)
{
    Dwfl *dwfl = dwfl_begin(&file_callbacks);
    assert_non_null(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, -1, 0x7f1234560000, false);
    assert_non_null(mod);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    Dwarf_Addr low;
    dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
    compare_module(mod, path, low);
    dwfl_end(dwfl);
}

static void same_names_as_libdwfl_no_debug_pie(void **state)
{
    (void)state;
    compare_file(PROG_PIE);
}

static void same_names_as_libdwfl_no_debug_exec(void **state)
{
    (void)state;
    compare_file(PROG_EXEC);
}

/* A module of this process, as symbolize.c finds it: dladdr's dli_fbase is
 * libdwfl's low address, the file is the one libdwfl reads. */
static void compare_loaded(const void *addr, const char *path)
{
    Dl_info info;
    assert_true(dladdr(addr, &info));
    Dwfl *dwfl = dwfl_begin(&proc_callbacks);
    assert_non_null(dwfl);
    assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, (Dwarf_Addr)(uintptr_t)addr);
    assert_non_null(mod);
    Dwarf_Addr low;
    dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL, NULL, NULL);
    assert_int_equal(low, (uintptr_t)info.dli_fbase);
    path = path ? path : info.dli_fname;
    /* A sanitizer build links runtime objects with DWARF into the test:
     * then the module must be libdw's, and libdw must indeed find DWARF. */
    struct st_elf *e = st_elf_open(path, low, no_debug);
    Dwarf_Addr bias;
    if (!e && dwfl_module_getdwarf(mod, &bias))
        print_message("%s has DWARF: libdw's, not compared\n", path);
    else
        compare_module(mod, path, low);
    st_elf_close(e);
    dwfl_end(dwfl);
}

/* A function of libc itself (with ASan, &fclose is the sanitizer's). */
static void *in_libc(void)
{
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(libc);
    void *f = dlsym(libc, "fclose");
    dlclose(libc);
    assert_non_null(f);
    return f;
}

static void same_names_as_libdwfl_libc(void **state)
{
    (void)state;
    compare_loaded(in_libc(), NULL);
}

static void same_names_as_libdwfl_this_program(void **state)
{
    (void)state;
    compare_loaded((void *)&compare_loaded, "/proc/self/exe");
}

/* DWARF in the file, or a debug file for its build ID: libdw's. */
static void modules_with_dwarf_go_to_libdw(void **state)
{
    (void)state;
    assert_null(st_elf_open(PROG_DEBUG, 0x555555554000, no_debug));

    struct st_elf *e = st_elf_open(PROG_PIE, 0x555555554000, no_debug);
    assert_non_null(e);
    const unsigned char *id;
    size_t len = st_elf_build_id(e, &id);
    assert_true(len >= 3);
    char root[] = "/tmp/test_elf_symtab_debug.XXXXXX", dir[256], file[512];
    assert_non_null(mkdtemp(root));
    snprintf(dir, sizeof dir, "%s/.build-id", root);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(dir, sizeof dir, "%s/.build-id/%02x", root, id[0]);
    assert_int_equal(mkdir(dir, 0700), 0);
    int n = snprintf(file, sizeof file, "%s/", dir);
    for (size_t i = 1; i < len; i++)
        n += snprintf(file + n, sizeof file - (size_t)n, "%02x", id[i]);
    snprintf(file + n, sizeof file - (size_t)n, ".debug");
    st_elf_close(e);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    close(fd);

    assert_null(st_elf_open(PROG_PIE, 0x555555554000, root));

    /* libc: libdw finds DWARF exactly when a debug package is installed. */
    Dl_info info;
    void *f = in_libc();
    assert_true(dladdr(f, &info));
    Dwfl *dwfl = dwfl_begin(&symbolize_callbacks);
    assert_non_null(dwfl);
    assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
    assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
    Dwarf_Addr bias;
    int has_dwarf = dwfl_module_getdwarf(dwfl_addrmodule(dwfl, (uintptr_t)f), &bias) != NULL;
    e = st_elf_open(info.dli_fname, (uintptr_t)info.dli_fbase, "/usr/lib/debug");
    print_message("libc: DWARF %s\n", has_dwarf ? "found (debug package)" : "none");
    assert_int_equal(e == NULL, has_dwarf);
    st_elf_close(e);
    dwfl_end(dwfl);

    unlink(file);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/.build-id", root);
    rmdir(dir);
    rmdir(root);
}

static unsigned char *read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    unsigned char *b = malloc((size_t)st.st_size);
    assert_non_null(b);
    assert_int_equal(read(fd, b, (size_t)st.st_size), st.st_size);
    close(fd);
    *size = (size_t)st.st_size;
    return b;
}

static void write_file(const char *path, const unsigned char *b, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b, size), (ssize_t)size);
    close(fd);
}

/* Every lookup a symbolizer would make in the file, which must not fault. */
static int names_any(const char *path)
{
    struct st_elf *e = st_elf_open(path, 0x555555554000, no_debug);
    if (!e)
        return 0;
    int named = 0;
    for (uint64_t a = 0x555555554000; a < 0x555555554000 + 0x3000; a += 7) {
        const char *name;
        if (st_elf_addrname(e, a, &name) == ST_ELF_NAME)
            named += name[0] != '\0';
    }
    st_elf_close(e);
    return named;
}

/* The section headers and symbol table come last: any truncation loses
 * them, so no name; random damage must never fault (the ASan build of this
 * test catches a read outside the mapping). */
static void truncated_or_corrupt_files_give_no_name(void **state)
{
    (void)state;
    size_t size;
    unsigned char *orig = read_file(PROG_PIE, &size);
    char path[sizeof no_debug + 16];
    snprintf(path, sizeof path, "%s/elf", no_debug);
    write_file(path, orig, size);
    assert_true(names_any(path) > 0);

    for (size_t len = 0; len < size; len += len < 128 ? 1 : 61) {
        write_file(path, orig, len);
        assert_int_equal(names_any(path), 0);
    }

    unsigned char *b = malloc(size);
    assert_non_null(b);
    srand(2006);
    for (int round = 0; round < 400; round++) {
        memcpy(b, orig, size);
        for (int k = 0; k < 1 + round % 8; k++) {
            /* Headers and tables hold the offsets: hit them most. */
            size_t at = rand() % 2 ? (size_t)rand() % 64 : size - 1 - (size_t)rand() % (size / 4);
            b[at] = (unsigned char)rand();
        }
        write_file(path, b, size);
        names_any(path);
    }
    free(b);
    free(orig);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_names_as_libdwfl_no_debug_pie),
        cmocka_unit_test(same_names_as_libdwfl_no_debug_exec),
        cmocka_unit_test(same_names_as_libdwfl_libc),
        cmocka_unit_test(same_names_as_libdwfl_this_program),
        cmocka_unit_test(modules_with_dwarf_go_to_libdw),
        cmocka_unit_test(truncated_or_corrupt_files_give_no_name),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
