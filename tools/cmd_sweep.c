/* cmd_sweep.c — seektrace sweep: run a program at each buffer size, measure.
 *
 * The measured half of issue 5's "what would another buffer size cost":
 * runs the command once per size and repetition with the library preloaded
 * and SEEKTRACE_BUFSIZE forcing every stream's buffer to that size, sums the
 * JSON reports its processes write at exit, and prints one row per size.
 * Sizes are interleaved within each repetition (512, 4k, ..., 512, 4k, ...)
 * so that a machine getting slower or faster over the sweep spreads over
 * all sizes instead of biasing one. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "units.h"

static const char usage[] =
    "usage: seektrace sweep [OPTIONS] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND once per buffer size (and repetition) with libseektrace preloaded\n"
    "and every stdio stream it opens given a buffer of that size\n"
    "(SEEKTRACE_BUFSIZE), and prints per size: median wall time, read and lseek\n"
    "syscalls, kernel bytes read, amplification (kernel bytes per byte\n"
    "delivered), the bytes the block device read ('-' where a file read has no\n"
    "block device under it), and when the command wrote, its write syscalls and\n"
    "kernel bytes written, summed over every process of the run.\n"
    "\n"
    "  --sizes LIST   comma-separated sizes: 512, 4k, 128KiB, 1M (powers of 1024);\n"
    "                 default 512,1k,2k,4k,8k,16k,32k,64k,128k,256k,512k,1M\n"
    "  --reps N       runs per size (default 3); sizes are interleaved and the\n"
    "                 counts are those of the run with the median wall time\n"
    "  --fadvise LIST readahead policies to cross with the sizes, comma-separated:\n"
    "                 normal, random, sequential, noreuse (SEEKTRACE_FADVISE gives\n"
    "                 it to every file the command opens); one row per policy and size\n"
    "  --cold         empty the page cache of the files the command reads before\n"
    "                 each run (posix_fadvise POSIX_FADV_DONTNEED, unprivileged; a\n"
    "                 first, untimed run finds them) and say which stayed cached\n"
    "  --json         the table as JSON (seektrace.sweep/1)\n"
    "  --help         this text\n"
    "\n"
    "In the table '*' marks the fastest size (median wall time) and '+' the one\n"
    "reading the fewest kernel bytes (the smallest size on a tie). The command's\n"
    "standard output is discarded; its standard error is kept. Streams the\n"
    "program opens are resized; stdin is not (the library only resizes streams it\n"
    "sees opened).\n"
    "\n"
    "Exit status: 0 success; 1 the command failed (exited non-zero or was killed)\n"
    "in some run — the table is still printed, a failed run without a report\n"
    "counting zero; 2 bad usage, no library, the command cannot be started, a\n"
    "report cannot be read, or a successful run left no report (a statically\n"
    "linked command).\n";


/* What one run measured. */
struct run {
    uint64_t wall_ns;
    int status; /* the command's exit status, 128+N when killed by N */
    struct st_counts sum;
    struct st_report_storage storage;
};

/* SEEKTRACE_FADVISE's values, the policies --fadvise crosses with sizes. */
static const char *const policies[] = {"normal", "random", "sequential", "noreuse"};
#define NPOLICIES (sizeof policies / sizeof policies[0])

/* What a run's reports hold: their sums, and (--cold) the files read. */
struct sums {
    struct run *run;
    struct sweep *sweep;
};

struct sweep {
    uint64_t sizes[TOOL_MAX_SIZES];
    size_t nsizes;
    long reps;
    int json;
    char **cmd;
    char *preload;
    char *dir;          /* where the runs' reports go */
    char *pattern;      /* SEEKTRACE_OUTPUT: dir/r.%p.json */
    int policy[NPOLICIES]; /* --fadvise: indices into policies */
    size_t npolicies;      /* 0: no SEEKTRACE_FADVISE, one row per size */
    int cold;
    char **files;          /* --cold: the files the command read, to evict */
    size_t nfiles, capfiles;
    char **kept;           /* ... and why each that stayed cached did */
    long *kept_runs;       /* before how many runs it stayed */
    long evictions;        /* runs started from a cold cache */
    struct run *runs;   /* [(rep * rows_per_size + policy) * nsizes + size] */
};

/* Rows per size: one per policy, or one. */
static size_t npol(const struct sweep *s)
{
    return s->npolicies ? s->npolicies : 1;
}

static void policy_list_parse(struct sweep *s, const char *list)
{
    s->npolicies = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        size_t k = 0;
        while (k < NPOLICIES && !(strlen(policies[k]) == len && strncmp(policies[k], p, len) == 0))
            k++;
        if (k == NPOLICIES)
            tool_usage_error("sweep", "--fadvise takes normal, random, sequential or noreuse, "
                             "comma-separated, not '%.*s'", (int)len, p);
        for (size_t j = 0; j < s->npolicies; j++)
            if (s->policy[j] == (int)k)
                tool_usage_error("sweep", "--fadvise names '%s' twice", policies[k]);
        s->policy[s->npolicies++] = (int)k;
        p += len;
        if (*p == ',' && *++p == '\0')
            tool_usage_error("sweep", "--fadvise: empty policy after ','");
    }
    if (!s->npolicies)
        tool_usage_error("sweep", "--fadvise: no policy given");
}

/* Parses options; returns the index of the command in argv. */
static int parse_args(struct sweep *s, int argc, char **argv)
{
    s->nsizes = size_list_parse("sweep", TOOL_DEFAULT_SIZES, s->sizes);
    s->reps = 3;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            exit(0);
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (opt_value("sweep", argc, argv, &i, "--sizes", &v)) {
            s->nsizes = size_list_parse("sweep", v, s->sizes);
        } else if (opt_value("sweep", argc, argv, &i, "--reps", &v)) {
            char *end;
            s->reps = strtol(v, &end, 10);
            if (*end || s->reps < 1 || s->reps > 1000)
                tool_usage_error("sweep", "--reps takes a number from 1 to 1000, not '%s'", v);
        } else if (opt_value("sweep", argc, argv, &i, "--fadvise", &v)) {
            policy_list_parse(s, v);
        } else if (strcmp(a, "--cold") == 0) {
            s->cold = 1;
        } else if (strcmp(a, "--json") == 0) {
            s->json = 1;
        } else if (a[0] == '-') {
            tool_usage_error("sweep", "unknown option '%s' (put the command after --)", a);
        } else {
            break;
        }
    }
    if (i >= argc)
        tool_usage_error("sweep", "no command given");
    return i;
}

/* Removes the reports a run left, so the next run's sum starts empty. */
static void clear_reports(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

/* A file --cold empties the cache of: one the kernel read, by path, with
 * data of its own (not /proc, /sys or /dev). */
static void note_file(struct sweep *s, const struct st_report_file *f)
{
    if (!f->counts.kernel_read_bytes || f->path[0] != '/' || !strncmp(f->path, "/proc/", 6) ||
        !strncmp(f->path, "/sys/", 5) || !strncmp(f->path, "/dev/", 5))
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i], f->path) == 0)
            return;
    if (s->nfiles == s->capfiles) {
        s->capfiles = s->capfiles ? 2 * s->capfiles : 16;
        s->files = realloc(s->files, s->capfiles * sizeof *s->files);
        s->kept = realloc(s->kept, s->capfiles * sizeof *s->kept);
        s->kept_runs = realloc(s->kept_runs, s->capfiles * sizeof *s->kept_runs);
        if (!s->files || !s->kept || !s->kept_runs)
            tool_bad_input("out of memory");
    }
    s->kept[s->nfiles] = NULL;
    s->kept_runs[s->nfiles] = 0;
    if (!(s->files[s->nfiles++] = strdup(f->path)))
        tool_bad_input("out of memory");
}

static int add_process(struct process *p, void *ctx)
{
    struct sums *m = ctx;
    st_counts_add(&m->run->sum, &p->report.totals);
    st_storage_add(&m->run->storage, &p->report.storage);
    if (m->sweep->cold)
        for (size_t i = 0; i < p->report.nfiles; i++)
            note_file(m->sweep, &p->report.files[i]);
    return 0;
}

/* Sums the totals of every report in dir into r; returns how many files
 * held them. Exits 2 on a report it cannot read. */
static int sum_reports(struct sweep *s, const char *dir, struct run *r)
{
    memset(&r->sum, 0, sizeof r->sum);
    memset(&r->storage, 0, sizeof r->storage);
    struct sums sum = {r, s};
    DIR *d = opendir(dir);
    if (!d)
        tool_bad_input("%s: %s", dir, strerror(errno));
    struct dirent *e;
    struct load_opts lo = {0};
    int found = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX], err[ST_TRACE_ERROR_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (load_file(path, &lo, add_process, &sum, err) != 0)
            tool_bad_input("%s", err);
        found++;
    }
    closedir(d);
    return found;
}

/* The reports' directory, removed at exit whichever way the sweep ends. */
static char sweep_dir[PATH_MAX];

static void remove_sweep_dir(void)
{
    clear_reports(sweep_dir);
    rmdir(sweep_dir);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Why path's pages could not all be dropped, or NULL when none is cached
 * after POSIX_FADV_DONTNEED (dirty, mapped or locked pages stay). */
static char *evict(const char *path)
{
    char *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (asprintf(&why, "cannot open it: %s", strerror(errno)) < 0)
            why = NULL;
        if (fd >= 0)
            close(fd);
        return why;
    }
    int e = S_ISREG(st.st_mode) ? posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) : 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = ((size_t)st.st_size + page - 1) / page;
    unsigned char *vec = pages ? malloc(pages) : NULL;
    void *map = pages && S_ISREG(st.st_mode)
                    ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    size_t cached = 0;
    if (e == 0 && vec && map != MAP_FAILED && mincore(map, (size_t)st.st_size, vec) == 0)
        for (size_t i = 0; i < pages; i++)
            cached += vec[i] & 1;
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    free(vec);
    close(fd);
    int n = e ? asprintf(&why, "posix_fadvise: %s", strerror(e))
          : cached ? asprintf(&why, "%zu of its %zu pages stayed cached (dirty, mapped or locked)",
                              cached, pages)
                   : 0;
    return n < 0 ? NULL : why;
}

/* --cold: every file the command has been seen reading, out of the page
 * cache; the latest reason each one stayed is kept. */
static void evict_all(struct sweep *s)
{
    s->evictions += s->nfiles > 0; /* the first run has none to evict */
    for (size_t i = 0; i < s->nfiles; i++) {
        char *why = evict(s->files[i]);
        if (why) {
            free(s->kept[i]);
            s->kept[i] = why;
            s->kept_runs[i]++;
        }
    }
}

/* Runs the command once at size and policy (-1: none); fills r. Exits 2 if
 * it cannot start. */
static void run_once(struct sweep *s, uint64_t size, int policy, struct run *r)
{
    clear_reports(s->dir);
    if (s->cold)
        evict_all(s);
    fflush(NULL);
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        tool_bad_input("pipe: %s", strerror(errno));
    uint64_t start = now_ns();
    pid_t pid = fork();
    if (pid < 0)
        tool_bad_input("fork: %s", strerror(errno));
    if (pid == 0) {
        close(ready[0]);
        char n[32];
        snprintf(n, sizeof n, "%" PRIu64, size);
        setenv("LD_PRELOAD", s->preload, 1);
        setenv("SEEKTRACE_BUFSIZE", n, 1);
        if (policy >= 0)
            setenv("SEEKTRACE_FADVISE", policies[policy], 1);
        /* Each run's report is what the sweep reads (a `seektrace run`
         * around the sweep turns them off for its processes). */
        setenv("SEEKTRACE_REPORT", "on", 1);
        setenv("SEEKTRACE_FORMAT", "json", 1);
        setenv("SEEKTRACE_OUTPUT", s->pattern, 1);
        /* Recording a trace costs time the sweep would then measure. */
        unsetenv("SEEKTRACE_TRACE");
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 1); /* dup2 clears close-on-exec on fd 1 only */
        execvp(s->cmd[0], s->cmd);
        int e = errno;
        (void)!write(ready[1], &e, sizeof e);
        _exit(127);
    }
    close(ready[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(ready[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    r->wall_ns = now_ns() - start;
    if (got == (ssize_t)sizeof exec_errno)
        tool_bad_input("cannot run %s: %s", s->cmd[0], strerror(exec_errno));
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* A failed run without a report counts as zero (run_all names it); a
     * successful one without a report means the library never ran. */
    if (!sum_reports(s, s->dir, r) && r->status == 0)
        tool_bad_input("the run at %" PRIu64 " bytes wrote no report: is %s dynamically "
                       "linked?", size, s->cmd[0]);
}

/* Rows of the table: policy p's size k is row p * nsizes + k. */
static size_t nrows(const struct sweep *s)
{
    return npol(s) * s->nsizes;
}

/* The run with the median wall time of row k (the lower median for an
 * even number of reps: a real run, whose counts belong to its time).
 * Ranks by counting, ties broken by run order: reps are few. */
static const struct run *median_run(const struct sweep *s, size_t k)
{
    const struct run *runs = s->runs + k;
    size_t stride = nrows(s);
    for (long i = 0; i < s->reps; i++) {
        uint64_t t = runs[(size_t)i * stride].wall_ns;
        long rank = 0;
        for (long j = 0; j < s->reps; j++) {
            uint64_t u = runs[(size_t)j * stride].wall_ns;
            rank += u < t || (u == t && j < i);
        }
        if (rank == (s->reps - 1) / 2)
            return &runs[(size_t)i * stride];
    }
    return runs; /* not reached: some run has that rank */
}

/* Indices of the fastest row and of the one reading the fewest bytes. */
static void best_sizes(const struct sweep *s, size_t *fastest, size_t *fewest)
{
    *fastest = *fewest = 0;
    for (size_t k = 1; k < nrows(s); k++) {
        const struct run *m = median_run(s, k);
        if (m->wall_ns < median_run(s, *fastest)->wall_ns)
            *fastest = k;
        if (m->sum.kernel_read_bytes < median_run(s, *fewest)->sum.kernel_read_bytes)
            *fewest = k;
    }
}

static void print_text(const struct sweep *s)
{
    size_t fastest, fewest;
    best_sizes(s, &fastest, &fewest);
    char cmd[400];
    size_t used = 0;
    cmd[0] = '\0';
    for (char **a = s->cmd; *a && used < sizeof cmd; a++)
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s%s", a == s->cmd ? "" : " ", *a);
    out_printf("sweep of: %s (%ld run%s per size, median wall time%s)\n\n", cmd, s->reps,
               s->reps == 1 ? "" : "s", s->cold ? ", cold page cache" : "");
    /* The write columns only when some run wrote. */
    int writes = 0;
    for (size_t k = 0; k < nrows(s); k++)
        writes |= median_run(s, k)->sum.write_syscalls != 0;
    out_printf("%-10s %s%12s %14s %10s %14s %14s %14s", "  size", s->npolicies ? "   fadvise " : "",
               "wall time", "read syscalls", "lseeks", "kernel bytes", "amplification",
               "device bytes");
    out_printf(writes ? " %14s %14s\n" : "\n", "write syscalls", "bytes written");
    for (size_t k = 0; k < nrows(s); k++) {
        const struct run *m = median_run(s, k);
        char size[32], reads[32], seeks[32], bytes[32], amp[32], dev[32], pol[16] = "";
        st_fmt_bytes(size, sizeof size, s->sizes[k % s->nsizes]);
        st_fmt_count(reads, sizeof reads, m->sum.read_syscalls);
        st_fmt_count(seeks, sizeof seeks, m->sum.lseek_syscalls);
        st_fmt_bytes(bytes, sizeof bytes, m->sum.kernel_read_bytes);
        st_fmt_ratio(amp, sizeof amp, st_counts_amplification(&m->sum));
        if (m->storage.measured)
            st_fmt_bytes(dev, sizeof dev, m->storage.device_read_bytes);
        else
            snprintf(dev, sizeof dev, "-");
        if (s->npolicies)
            snprintf(pol, sizeof pol, "%10s ", policies[s->policy[k / s->nsizes]]);
        out_printf("%c%c%-8s %s%9.1f ms %14s %10s %14s %14s %14s", k == fastest ? '*' : ' ',
                   k == fewest ? '+' : ' ', size, pol, (double)m->wall_ns / 1e6, reads, seeks,
                   bytes, amp, dev);
        if (writes) {
            st_fmt_count(reads, sizeof reads, m->sum.write_syscalls);
            st_fmt_bytes(bytes, sizeof bytes, m->sum.kernel_write_bytes);
            out_printf(" %14s %14s", reads, bytes);
        }
        out_printf("\n");
    }
    out_printf("\n* fastest   + fewest kernel bytes\n");
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->kept[i])
            out_printf("not evicted before %ld of %ld runs: %s: %s\n", s->kept_runs[i],
                       s->evictions, s->files[i], s->kept[i]);
}

static void print_json(const struct sweep *s)
{
    size_t fastest, fewest;
    best_sizes(s, &fastest, &fewest);
    fflush(stdout);
    FILE *f = stdout;
    fprintf(f, "{\"schema\":\"seektrace.sweep/1\",\"command\":[");
    for (char **a = s->cmd; *a; a++) {
        fputs(a == s->cmd ? "" : ",", f);
        json_str(f, *a);
    }
    fprintf(f, "],\"reps\":%ld,\"cold\":%s,\"cold_runs\":%ld,\"not_evicted\":[", s->reps,
            s->cold ? "true" : "false", s->evictions);
    int first = 1;
    for (size_t i = 0; i < s->nfiles; i++)
        if (s->kept[i]) {
            fputs(first ? "{\"path\":" : ",{\"path\":", f);
            json_str(f, s->files[i]);
            fputs(",\"why\":", f);
            json_str(f, s->kept[i]);
            fprintf(f, ",\"runs\":%ld}", s->kept_runs[i]);
            first = 0;
        }
    fprintf(f, "],\"sizes\":[");
    for (size_t k = 0; k < nrows(s); k++) {
        const struct run *m = median_run(s, k);
        fprintf(f, "%s{\"size\":%" PRIu64 ",", k ? "," : "", s->sizes[k % s->nsizes]);
        if (s->npolicies)
            fprintf(f, "\"fadvise\":\"%s\",", policies[s->policy[k / s->nsizes]]);
        if (m->storage.measured)
            fprintf(f, "\"device_read_bytes\":%" PRIu64 ",", m->storage.device_read_bytes);
        else
            fprintf(f, "\"device_read_bytes\":null,");
        fprintf(f, "\"wall_ns\":%" PRIu64 ",\"runs_wall_ns\":[", m->wall_ns);
        for (long r = 0; r < s->reps; r++)
            fprintf(f, "%s%" PRIu64, r ? "," : "", s->runs[(size_t)r * nrows(s) + k].wall_ns);
        fprintf(f,
                "],\"read_syscalls\":%" PRIu64 ",\"lseek_syscalls\":%" PRIu64
                ",\"kernel_read_bytes\":%" PRIu64 ",\"delivered_bytes\":%" PRIu64
                ",\"amplification\":%.6g,\"write_syscalls\":%" PRIu64
                ",\"kernel_write_bytes\":%" PRIu64 ",\"written_bytes\":%" PRIu64
                ",\"fastest\":%s,\"fewest_kernel_bytes\":%s}",
                m->sum.read_syscalls, m->sum.lseek_syscalls, m->sum.kernel_read_bytes,
                m->sum.delivered_bytes, st_counts_amplification(&m->sum), m->sum.write_syscalls,
                m->sum.kernel_write_bytes, m->sum.written_bytes,
                k == fastest ? "true" : "false", k == fewest ? "true" : "false");
    }
    fprintf(f, "]}\n");
    if (fflush(f) != 0)
        tool_bad_input("cannot write the output: %s", strerror(errno));
}

/* Runs every repetition of every size; returns 1 if any run failed. */
static int run_all(struct sweep *s)
{
    int failed = 0;
    if (s->cold) {
        /* Which files to evict: those an untimed first run reads. */
        struct run first;
        run_once(s, s->sizes[0], s->npolicies ? s->policy[0] : -1, &first);
    }
    for (long r = 0; r < s->reps; r++) {
        for (size_t k = 0; k < nrows(s); k++) {
            struct run *run = &s->runs[(size_t)r * nrows(s) + k];
            int policy = s->npolicies ? s->policy[k / s->nsizes] : -1;
            uint64_t size = s->sizes[k % s->nsizes];
            run_once(s, size, policy, run);
            if (run->status != 0) {
                tool_warn("run %ld at %" PRIu64 " bytes%s%s: the command exited with status %d",
                          r + 1, size, policy >= 0 ? ", fadvise " : "",
                          policy >= 0 ? policies[policy] : "", run->status);
                failed = 1;
            }
        }
    }
    return failed;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep s;
    memset(&s, 0, sizeof s);
    s.cmd = argv + parse_args(&s, argc, argv);
    char *lib = tool_find_library();
    if (strpbrk(lib, " :\t\n"))
        tool_bad_input("the library's path %s holds a space or ':', which LD_PRELOAD cannot "
                       "express; move the build or install elsewhere", lib);
    s.preload = tool_preload_list(lib, getenv("LD_PRELOAD"));
    const char *tmp = getenv("TMPDIR");
    snprintf(sweep_dir, sizeof sweep_dir, "%s/seektrace-sweep.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    s.runs = calloc((size_t)s.reps * nrows(&s), sizeof *s.runs);
    if (!s.preload || !s.runs || !mkdtemp(sweep_dir) ||
        asprintf(&s.pattern, "%s/r.%%p.json", sweep_dir) < 0)
        tool_bad_input("cannot prepare the sweep in %s: %s", sweep_dir, strerror(errno));
    atexit(remove_sweep_dir);
    s.dir = sweep_dir;
    int failed = run_all(&s);
    if (s.json)
        print_json(&s);
    else
        print_text(&s);
    free(s.runs);
    for (size_t i = 0; i < s.nfiles; i++) {
        free(s.files[i]);
        free(s.kept[i]);
    }
    free(s.files);
    free(s.kept);
    free(s.kept_runs);
    free(s.pattern);
    free(s.preload);
    free(lib);
    return failed ? 1 : 0;
}
