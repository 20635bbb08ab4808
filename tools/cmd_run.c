/* cmd_run.c — seektrace run: trace a whole program tree, report once.
 *
 * Preloads the library into the command (keeping any LD_PRELOAD the user
 * had), points SEEKTRACE_TRACE at a directory so that every process of the
 * tree — children, and whatever they exec — writes its own trace, waits,
 * and prints one report over all of them. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "labels.h"
#include "report_cli.h"
#include "tool.h"

#ifndef ST_LIB_FROM_BIN_INSTALLED
#define ST_LIB_FROM_BIN_INSTALLED "../lib/libseektrace.so"
#endif
#ifndef ST_LIB_FROM_BIN_BUILD
#define ST_LIB_FROM_BIN_BUILD "libseektrace.so"
#endif

static const char usage[] =
    "usage: seektrace run [OPTIONS] [-- ] COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND with libseektrace preloaded, follows every process it starts (fork,\n"
    "exec, pipelines, make-like fan-out: each writes its own trace), and prints one\n"
    "report over them all: a line per process and their reads merged by file.\n"
    "\n"
    "  --trace DIR        keep the traces in DIR (created if needed; must hold no\n"
    "                     traces yet; a DIR of mode 1777 lets processes that switch\n"
    "                     user write there too). Without it a private temporary\n"
    "                     directory is used and removed afterwards.\n"
    "  --output FILE, -o  write the report to FILE instead of stderr; with a check\n"
    "                     in --format json or junit, the check's document instead\n"
    "                     (the report then goes to stderr)\n"
    "  --json             the report as JSON (seektrace.report/2 for one process,\n"
    "                     seektrace.merged/2 for several)\n"
    "  --by file|site|process  what the report lists (see seektrace report)\n"
    "  --top N            rows in site and process tables\n"
    "  --full             list every process, file, stream and call site (see\n"
    "                     seektrace report)\n"
    "  --check            check the run against the limits that follow (the same\n"
    "                     options as seektrace check: --max-amplification X,\n"
    "                     --max-read-syscalls N, --max-reread-bytes B,\n"
    "                     --max-write-syscalls-per-mib N, --file GLOB,\n"
    "                     --site GLOB, --min-bytes B, --min-waste B, --format\n"
    "                     text|json|junit); giving a limit implies --check. A\n"
    "                     JSON or JUnit result goes to stdout (or -o FILE), never\n"
    "                     into the report on stderr\n"
    "  --html FILE        also write the report as a self-contained HTML page\n"
    "                     (see seektrace html)\n"
    "  --label KEY=VALUE  record a label in every trace of the run (repeatable): a\n"
    "                     job id, commit or test name for fleet analysis (seektrace\n"
    "                     load). KEY: up to 64 of A-Z a-z 0-9 _ . -; VALUE: up to\n"
    "                     256 bytes, no ','. Added to SEEKTRACE_LABELS's (k=v,k=v),\n"
    "                     replacing a label of the same key\n"
    "  --process-reports  also have each process write its own report at exit, as\n"
    "                     JSON, to DIR/reports/<pid>.json (kept with --trace DIR).\n"
    "                     Without it no process writes one (SEEKTRACE_REPORT=off):\n"
    "                     the run's report is made from the traces alone, and the\n"
    "                     sites are named here once per module\n"
    "  --quiet, -q        no report (with --check: only the check's result)\n"
    "  --help             this text\n"
    "\n"
    "Environment: SEEKTRACE_LIBRARY overrides where the library is found (by default\n"
    "next to this program: the build tree, or ../lib of an installed seektrace).\n"
    "No process writes a report of its own at exit (see --process-reports).\n"
    "\n"
    "Exit status: the command's own (128+N when a signal N killed it); with checks,\n"
    "1 when a limit is exceeded (else the command's status); 2 when seektrace itself\n"
    "cannot run (bad usage, no library, unreadable traces) or the command cannot be\n"
    "started (127 when it is not found, as in a shell).\n";

/* See tool.h. */
char *tool_find_library(void)
{
    const char *env = getenv("SEEKTRACE_LIBRARY");
    if (env && *env) {
        if (access(env, R_OK) != 0)
            tool_bad_input("SEEKTRACE_LIBRARY=%s: %s", env, strerror(errno));
        return realpath(env, NULL);
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        tool_bad_input("cannot find my own executable (/proc/self/exe): %s", strerror(errno));
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    const char *rel[] = {ST_LIB_FROM_BIN_INSTALLED, ST_LIB_FROM_BIN_BUILD};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", self, rel[i]);
        if (access(path, R_OK) == 0)
            return realpath(path, NULL);
    }
    tool_bad_input("cannot find libseektrace.so beside %s (looked for %s/%s and %s/%s); "
                   "set SEEKTRACE_LIBRARY to its path",
                   self, self, ST_LIB_FROM_BIN_INSTALLED, self, ST_LIB_FROM_BIN_BUILD);
}

/* The file execvp would run, or NULL. */
static char *resolve_command(const char *cmd)
{
    if (strchr(cmd, '/'))
        return access(cmd, X_OK) == 0 ? realpath(cmd, NULL) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", *dir ? dir : ".", cmd);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) {
            free(copy);
            return realpath(full, NULL);
        }
    }
    free(copy);
    return NULL;
}

/* Why the loader would ignore LD_PRELOAD for path, or NULL. Follows one
 * "#!" interpreter. */
/* Recursion: once at most (depth 1), for the interpreter of a script. */
static const char *preload_ignored(const char *path, char *why, size_t size, int depth) // NOLINT(misc-no-recursion)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    if (((st.st_mode & S_ISUID) && st.st_uid != getuid()) ||
        ((st.st_mode & S_ISGID) && st.st_gid != getgid())) {
        snprintf(why, size, "%s is set%cid: the loader ignores LD_PRELOAD there, so it is not "
                            "traced (programs it starts may be)",
                 path, (st.st_mode & S_ISUID) && st.st_uid != getuid() ? 'u' : 'g');
        return why;
    }
    if (getxattr(path, "security.capability", NULL, 0) > 0 && getuid() != 0) {
        snprintf(why, size, "%s has file capabilities: the loader ignores LD_PRELOAD there, so it "
                            "is not traced (programs it starts may be)", path);
        return why;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    unsigned char head[256];
    ssize_t n = read(fd, head, sizeof head);
    if (n >= 4 && head[0] == '#' && head[1] == '!' && depth == 0) {
        close(fd);
        char interp[256];
        size_t i = 2, k = 0;
        while (i < (size_t)n && (head[i] == ' ' || head[i] == '\t'))
            i++;
        while (i < (size_t)n && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
               k + 1 < sizeof interp)
            interp[k++] = (char)head[i++];
        interp[k] = '\0';
        return k ? preload_ignored(interp, why, size, 1) : NULL;
    }
    Elf64_Ehdr eh;
    if (n < (ssize_t)sizeof eh || memcmp(head, ELFMAG, SELFMAG) != 0 ||
        head[EI_CLASS] != ELFCLASS64) {
        close(fd);
        return NULL;
    }
    memcpy(&eh, head, sizeof eh);
    int interp = 0, dynamic = 0;
    for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
            (ssize_t)sizeof ph)
            break;
        interp |= ph.p_type == PT_INTERP;
        dynamic |= ph.p_type == PT_DYNAMIC;
    }
    close(fd);
    if (!interp && (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
        if (eh.e_type == ET_DYN && dynamic && strstr(path, ".so"))
            return NULL; /* the loader itself, run directly: it honours LD_PRELOAD */
        snprintf(why, size, "%s is statically linked: LD_PRELOAD cannot reach it, so it is not "
                            "traced (programs it starts may be)", path);
        return why;
    }
    return NULL;
}

static int has_traces(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    size_t sl = strlen(ST_TRACE_SUFFIX);
    int found = 0;
    while (!found && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        found = n > sl && strcmp(e->d_name + n - sl, ST_TRACE_SUFFIX) == 0;
    }
    closedir(d);
    return found;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0; /* what cannot be removed stays; the rest goes */
}

/* dir and everything under it, depth first, never following a link. */
static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* See tool.h. */
char *tool_preload_list(const char *lib, const char *old)
{
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 3;
    char *first = calloc(1, n), *rest = calloc(1, n), *copy = strdup(old ? old : "");
    char *save = NULL, *out = NULL;
    if (!first || !rest || !copy)
        goto done;
    for (char *e = strtok_r(copy, ": \t", &save); e; e = strtok_r(NULL, ": \t", &save)) {
        const char *base = strrchr(e, '/') ? strrchr(e, '/') + 1 : e;
        int runtime = strncmp(base, "lib", 3) == 0 && strstr(base, "san.so") != NULL;
        char *dst = runtime ? first : rest;
        size_t used = strlen(dst);
        /* n holds every entry and a ':' before each: never cut short. */
        snprintf(dst + used, n - used, "%s%s", used ? ":" : "", e);
    }
    if (asprintf(&out, "%s%s%s%s%s", first, *first ? ":" : "", lib, *rest ? ":" : "", rest) < 0)
        out = NULL;
done:
    free(first);
    free(rest);
    free(copy);
    return out;
}

static pid_t child_pid;

/* --label's, encoded (labels.h). */
static char run_labels[ST_LABELS_BYTES];
static size_t run_labels_len;

static void add_label(const char *kv)
{
    size_t at;
    const char *why = st_label_check(kv, strlen(kv));
    if (!why)
        why = st_labels_add(kv, run_labels, sizeof run_labels, &run_labels_len, &at);
    if (why)
        tool_usage_error("run", "--label %s: %s", kv, why);
}

/* SEEKTRACE_LABELS for the command: the environment's labels whose keys
 * --label did not give, then --label's, joined by ','. NULL: none. */
static char *labels_env(void)
{
    static char env[ST_LABELS_BYTES], all[ST_LABELS_BYTES];
    size_t env_len = 0, all_len = 0, at;
    const char *v = getenv("SEEKTRACE_LABELS");
    if (v && *v) {
        const char *why = st_labels_add(v, env, sizeof env, &env_len, &at);
        if (why)
            tool_bad_input("SEEKTRACE_LABELS=%s: %s (at byte %zu)", v, why, at);
    }
    for (size_t k = 0; k < env_len; k += strlen(env + k) + 1) {
        size_t klen = strcspn(env + k, "=");
        int given = 0;
        for (size_t j = 0; j < run_labels_len; j += strlen(run_labels + j) + 1)
            given |= strncmp(run_labels + j, env + k, klen + 1) == 0;
        if (!given)
            st_labels_add(env + k, all, sizeof all, &all_len, &at);
    }
    for (size_t j = 0; j < run_labels_len; j += strlen(run_labels + j) + 1)
        if (st_labels_add(run_labels + j, all, sizeof all, &all_len, &at))
            tool_usage_error("run", "more labels than %d", ST_LABELS_MAX);
    if (!all_len)
        return NULL;
    for (size_t k = 0; k + 1 < all_len; k++)
        if (all[k] == '\0')
            all[k] = ',';
    return all;
}

static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

/* run's options, up to the command; returns the command's index in argv,
 * or 0 after --help. */
static int parse_options(int argc, char **argv, struct report_opts *ro, struct check_opts *co,
                         const char **trace_dir, const char **output, const char **html,
                         int *quiet, int *process_reports)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            return 0;
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (opt_value("run", argc, argv, &i, "--trace", &v)) {
            *trace_dir = v;
        } else if (opt_value("run", argc, argv, &i, "--output", &v) ||
                   opt_value("run", argc, argv, &i, "-o", &v)) {
            *output = v;
        } else if (opt_value("run", argc, argv, &i, "--html", &v)) {
            *html = v;
        } else if (strcmp(a, "--json") == 0) {
            ro->json = 1;
        } else if (opt_value("run", argc, argv, &i, "--label", &v)) {
            add_label(v);
        } else if (strcmp(a, "--full") == 0) {
            ro->full = 1;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            *quiet = 1;
        } else if (strcmp(a, "--process-reports") == 0) {
            *process_reports = 1;
        } else if (opt_value("run", argc, argv, &i, "--by", &v)) {
            ro->by = !strcmp(v, "file") ? BY_FILE : !strcmp(v, "site") ? BY_SITE
                  : !strcmp(v, "process") ? BY_PROCESS : (enum report_by)-1;
            if ((int)ro->by < 0)
                tool_usage_error("run", "--by takes file, site or process, not '%s'", v);
        } else if (opt_value("run", argc, argv, &i, "--top", &v)) {
            long n = strtol(v, NULL, 10);
            if (n <= 0)
                tool_usage_error("run", "--top takes a positive number, not '%s'", v);
            ro->top = (size_t)n;
        } else if (strcmp(a, "--check") == 0 || check_opts_parse(co, "run", argc, argv, &i)) {
            continue; /* a limit, or the word before the limits */
        } else if (a[0] == '-') {
            tool_usage_error("run", "unknown option '%s' (put the command after --)", a);
        } else {
            break;
        }
    }
    return i;
}

/* The report over the run's traces, and the check. The report goes to
 * stderr (the command's stdout is its own) or FILE. A check's JSON or JUnit
 * document is for a machine: alone in FILE, or on stdout after everything
 * the command wrote, never inside the report. Returns check's status. */
static int report_and_check(const char *dir, const struct report_opts *ro,
                            const struct check_opts *co, const char *output, int quiet,
                            const char *cmd, int not_traced)
{
    fflush(stdout);
    int saved = dup(1);
    int machine = co->any && strcmp(co->format, "text") != 0;
    int file = output ? open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
    if (output && file < 0)
        tool_bad_input("--output %s: %s", output, strerror(errno));
    int report_fd = file >= 0 && !machine ? dup(file) : dup(2);
    int check_fd = !machine ? dup(report_fd) : file >= 0 ? dup(file) : dup(saved);
    if (file >= 0)
        close(file);
    dup2(report_fd, 1);
    close(report_fd);
    int check_rc = 0;
    if (!has_traces(dir)) {
        if (!quiet)
            tool_warn("no process wrote a trace: %s made no file reads seektrace could see%s",
                      cmd, not_traced ? " (see above)" : "");
        if (ro->json) /* still a document: one with no process in it */
            report_paths(ro, NULL, 0);
    } else {
        struct inputs in;
        char *args[] = {(char *)dir};
        inputs_collect(args, 1, &in);
        if (!quiet)
            report_paths(ro, in.paths, in.n);
        if (co->any) {
            if (!quiet && !machine)
                out_printf("\n");
            fflush(stdout);
            dup2(check_fd, 1);
            check_rc = check_run(co, in.paths, (int)in.n);
        }
        inputs_free(&in);
    }
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(check_fd);
    return check_rc;
}

/* run --html: the page of the run's traces (of none, when no process
 * wrote one). */
static void write_html(const char *dir, const char *html)
{
    struct html_opts o = {0};
    if (!has_traces(dir)) {
        html_paths(html, NULL, 0, &o);
        return;
    }
    struct inputs in;
    char *args[] = {(char *)dir};
    inputs_collect(args, 1, &in);
    html_paths(html, in.paths, in.n, &o);
    inputs_free(&in);
}

int cmd_run(int argc, char **argv)
{
    struct report_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.by = BY_FILE;
    struct check_opts co;
    check_opts_init(&co);
    const char *trace_dir = NULL, *output = NULL, *html = NULL;
    int quiet = 0, process_reports = 0;
    int i = parse_options(argc, argv, &ro, &co, &trace_dir, &output, &html, &quiet,
                          &process_reports);
    if (i == 0) {
        check_opts_free(&co);
        return 0;
    }
    if (i >= argc)
        tool_usage_error("run", "no command given");
    char **cmd = argv + i;
    const char *labels = labels_env();

    char *lib = tool_find_library();
    if (strpbrk(lib, " :\t\n"))
        tool_bad_input("the library's path %s holds a space or ':', which LD_PRELOAD cannot "
                       "express; move the build or install elsewhere", lib);
    char *exe = resolve_command(cmd[0]);
    char why[PATH_MAX + 200];
    if (exe && preload_ignored(exe, why, sizeof why, 0))
        tool_warn("%s", why);

    /* The trace directory. */
    char tmpl[PATH_MAX];
    int temporary = !trace_dir;
    if (temporary) {
        const char *tmp = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/seektrace.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmpl))
            tool_bad_input("cannot create a directory for the traces in %s: %s",
                           tmp && *tmp ? tmp : "/tmp", strerror(errno));
        trace_dir = tmpl;
    } else {
        if (mkdir(trace_dir, 0700) != 0 && errno != EEXIST)
            tool_bad_input("--trace %s: %s", trace_dir, strerror(errno));
        if (has_traces(trace_dir))
            tool_bad_input("--trace %s already holds traces; give an empty or new directory",
                           trace_dir);
    }
    char *dir = realpath(trace_dir, NULL);
    if (!dir)
        tool_bad_input("--trace %s: %s", trace_dir, strerror(errno));
    /* Each process's own report, when asked for: creating a file per
     * process cost 0.2 to 0.8 ms each under a slow /tmp, for reports the
     * run's own never reads (it is made from the traces). */
    char *report_pattern = NULL;
    if (process_reports) {
        char *reports;
        if (asprintf(&reports, "%s/reports", dir) < 0 ||
            asprintf(&report_pattern, "%s/%%p.json", reports) < 0)
            tool_bad_input("out of memory");
        /* As open as the directory given: one the user made writable for
         * all (mode 1777) lets a process that switched user (su, setpriv)
         * write its report too. */
        struct stat dst;
        if (mkdir(reports, 0700) == 0 && stat(dir, &dst) == 0 && (dst.st_mode & 07777) != 0700)
            chmod(reports, dst.st_mode & 07777); /* mkdir's mode passes through the umask */
        free(reports);
    }

    fflush(NULL);
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        tool_bad_input("pipe: %s", strerror(errno));
    child_pid = fork();
    if (child_pid < 0)
        tool_bad_input("fork: %s", strerror(errno));
    if (child_pid == 0) {
        close(ready[0]);
        const char *old = getenv("LD_PRELOAD");
        char *preload = tool_preload_list(lib, old);
        if (!preload)
            _exit(127);
        setenv("LD_PRELOAD", preload, 1);
        setenv("SEEKTRACE_TRACE", dir, 1);
        if (report_pattern) {
            setenv("SEEKTRACE_REPORT", "on", 1);
            setenv("SEEKTRACE_OUTPUT", report_pattern, 1);
            setenv("SEEKTRACE_FORMAT", "json", 1);
        } else {
            setenv("SEEKTRACE_REPORT", "off", 1);
        }
        if (labels)
            setenv("SEEKTRACE_LABELS", labels, 1);
        /* Sites are named once for the whole job, here, from the traces:
         * no process opens a module file or loads libdw (issue 21). Reports
         * of their own are read as they are: those processes name theirs. */
        if (!report_pattern)
            setenv("SEEKTRACE_SYMBOLIZE", "later", 0);
        execvp(cmd[0], cmd);
        int e = errno;
        (void)!write(ready[1], &e, sizeof e);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(ready[1]);
    /* Terminal signals reach the whole process group; the command decides
     * what they mean. Others sent to us are passed on. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, forward);
    signal(SIGHUP, forward);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(ready[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    int status = 0;
    while (waitpid(child_pid, &status, 0) < 0 && errno == EINTR)
        ;
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (got == (ssize_t)sizeof exec_errno) {
        tool_warn("cannot run %s: %s", cmd[0], strerror(exec_errno));
        if (temporary)
            remove_tree(dir);
        return exec_errno == ENOENT ? 127 : 126;
    }
    int rc = WIFEXITED(status) ? WEXITSTATUS(status)
           : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;

    int check_rc = report_and_check(dir, &ro, &co, output, quiet, cmd[0],
                                    exe && preload_ignored(exe, why, sizeof why, 0));
    if (html)
        write_html(dir, html);
    if (temporary)
        remove_tree(dir);
    else if (!quiet)
        tool_warn("traces kept in %s", dir);
    free(dir);
    free(report_pattern);
    free(lib);
    free(exe);
    check_opts_free(&co);
    return check_rc ? check_rc : rc;
}
