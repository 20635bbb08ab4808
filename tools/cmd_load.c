/* cmd_load.c — seektrace load: traces into ClickHouse over its HTTP
 * interface (libcurl), for fleet analysis (docs/fleet.md).
 *
 * Each run is exported (export_clickhouse.c) to a temporary file, then
 * posted block by block, in chunks of rows, the runs row last. Idempotent
 * per run id: a run whose runs row exists is skipped; rows an interrupted
 * load left behind (no runs row) are deleted first, and a load that fails
 * half-way is retried from there. Credentials come from the environment
 * only, never the command line (where ps shows them). */
#define _GNU_SOURCE 1
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "curl_loaded.h"
#include "export_clickhouse.h"
#include "tool.h"

static const char usage[] =
    "usage: seektrace load --clickhouse URL [OPTIONS] TRACE|DIR ...\n"
    "\n"
    "Loads traces into ClickHouse through its HTTP interface, into the tables of\n"
    "docs/clickhouse.sql (create them first). Each DIR is one run (the traces one\n"
    "seektrace run wrote); the TRACE files given are one run together. A\n"
    "run's id comes from its traces: loading it again skips it (\"already loaded\"),\n"
    "and rows left by an interrupted load are deleted before it is loaded anew.\n"
    "\n"
    "  --clickhouse URL  the server's HTTP interface, e.g. http://127.0.0.1:8123/\n"
    "                    (no credentials in it: see the environment below)\n"
    "  --database DB     the tables' database (default seektrace)\n"
    "  --distributed     insert into the Distributed tables (TABLE_dist) of a\n"
    "                    sharded cluster, synchronously (insert_distributed_sync);\n"
    "                    leftovers of an interrupted load are then reported, not\n"
    "                    deleted\n"
    "  --retries N       attempts after a failure, waiting 1, 2, 4 ... s (default 3)\n"
    "  --chunk-rows N    rows per INSERT (default 100000)\n"
    "  --help            this text\n"
    "\n"
    "Environment: SEEKTRACE_CLICKHOUSE_USER and SEEKTRACE_CLICKHOUSE_PASSWORD, the\n"
    "credentials (HTTP basic authentication; none: ClickHouse's default user).\n"
    "Progress goes to stderr when it is a terminal; each run ends with one line\n"
    "there: its id and the rows loaded per second.\n"
    "Exit status: 0 every run loaded or already there, 2 bad usage, a trace that\n"
    "cannot be read, or a run that could not be loaded.\n";

#define MAX_CHUNK_BYTES (32u << 20)

struct loader {
    const struct curl_api *api;
    CURL *curl;
    char *url;          /* ends with '/' */
    const char *db;
    const char *suffix; /* "" or "_dist" */
    int retries;
    uint64_t chunk_rows;
    char answer[4096];  /* the last response's start */
    size_t answer_len;
    long status;
    uint64_t rows_done, rows_total, bytes_done;
};

static size_t on_answer(char *p, size_t size, size_t n, void *vl)
{
    struct loader *l = vl;
    size_t len = size * n, room = sizeof l->answer - 1 - l->answer_len;
    memcpy(l->answer + l->answer_len, p, len < room ? len : room);
    l->answer_len += len < room ? len : room;
    l->answer[l->answer_len] = '\0';
    return len;
}

/* One POST of body. 0: HTTP 200; 1: nothing reached the server (worth
 * sending again); -1: failed, or unknown whether it was applied; why in
 * l->answer. */
static int post_once(struct loader *l, const char *params, const char *body, size_t len)
{
    char url[2048];
    snprintf(url, sizeof url, "%s%s", l->url, params);
    l->api->easy_setopt(l->curl, CURLOPT_URL, url);
    l->api->easy_setopt(l->curl, CURLOPT_POSTFIELDS, body);
    l->api->easy_setopt(l->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    l->answer_len = 0;
    l->answer[0] = '\0';
    CURLcode rc = l->api->easy_perform(l->curl);
    if (rc != CURLE_OK) {
        snprintf(l->answer, sizeof l->answer, "%s", l->api->easy_strerror(rc));
        return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ? 1 : -1;
    }
    l->api->easy_getinfo(l->curl, CURLINFO_RESPONSE_CODE, &l->status);
    if (l->status == 200)
        return 0;
    /* ClickHouse's error: its first line. */
    l->answer[strcspn(l->answer, "\n")] = '\0';
    if (!l->answer[0])
        snprintf(l->answer, sizeof l->answer, "HTTP %ld", l->status);
    return l->status == 503 ? 1 : -1;
}

/* post_once, sent again while nothing reached the server. */
static int post(struct loader *l, const char *params, const char *body, size_t len)
{
    int rc;
    for (int k = 0;; k++) {
        rc = post_once(l, params, body, len);
        if (rc != 1 || k >= l->retries)
            break;
        sleep(1u << k);
    }
    return rc == 0 ? 0 : -1;
}

/* A query's answer as a number (count()), or -1 with the error in answer. */
static int64_t query_count(struct loader *l, const char *sql)
{
    if (post(l, "", sql, strlen(sql)) != 0)
        return -1;
    char *end;
    long long n = strtoll(l->answer, &end, 10);
    if (end == l->answer || n < 0) {
        snprintf(l->answer, sizeof l->answer, "unexpected answer to %s", sql);
        return -1;
    }
    return n;
}

static const char *const tables[] = {"processes", "files", "streams", "sites", "findings",
                                     "events"};

/* Rows of the run in a table other than runs: an earlier load's, cut
 * short. Deleted (and waited for), or in a cluster reported. */
static int clean_leftovers(struct loader *l, const char *id)
{
    char sql[512];
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        snprintf(sql, sizeof sql, "SELECT count() FROM %s.%s%s WHERE run_id = '%s'", l->db,
                 tables[t], l->suffix, id);
        int64_t n = query_count(l, sql);
        if (n < 0)
            return -1;
        if (n == 0)
            continue;
        if (*l->suffix) {
            snprintf(l->answer, sizeof l->answer,
                     "%" PRId64 " rows of run %s are in %s.%s%s from a load cut short; delete "
                     "them on every shard (ALTER TABLE %s.%s DELETE WHERE run_id = '%s') and "
                     "load again", n, id, l->db, tables[t], l->suffix, l->db, tables[t], id);
            return -1;
        }
        snprintf(sql, sizeof sql, "ALTER TABLE %s.%s DELETE WHERE run_id = '%s'", l->db,
                 tables[t], id);
        if (post(l, "", sql, strlen(sql)) != 0)
            return -1;
        /* Mutations run in the background: wait until it is done. */
        snprintf(sql, sizeof sql, "SELECT count() FROM system.mutations WHERE database = '%s' "
                 "AND table = '%s' AND is_done = 0", l->db, tables[t]);
        int64_t pending;
        for (int k = 0; (pending = query_count(l, sql)) > 0 && k < 600; k++)
            usleep(100000);
        if (pending != 0) {
            if (pending > 0)
                snprintf(l->answer, sizeof l->answer, "deleting run %s's rows from %s.%s did "
                         "not finish in 60 s", id, l->db, tables[t]);
            return -1;
        }
    }
    return 0;
}

/* body grown to hold n bytes (exits when out of memory). */
static char *grow(char *body, size_t *cap, size_t n)
{
    if (n <= *cap)
        return body;
    char *bigger = realloc(body, n * 2);
    if (!bigger)
        tool_bad_input("out of memory");
    *cap = n * 2;
    return bigger;
}

/* Posts the blocks of the export in f, each in chunks of rows. */
static int post_blocks(struct loader *l, FILE *f)
{
    char *line = NULL, *body = NULL;
    size_t cap = 0, bcap = 0, blen = 0, head = 0;
    uint64_t rows = 0;
    ssize_t n;
    int rc = 0;
    const char *params = *l->suffix ? "?insert_distributed_sync=1" : "";
    rewind(f);
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        int insert = strncmp(line, "INSERT INTO ", 12) == 0, end = n <= 1;
        if (!insert && !end) {
            body = grow(body, &bcap, blen + (size_t)n + 1);
            memcpy(body + blen, line, (size_t)n);
            blen += (size_t)n;
            rows++;
        }
        if (rows && (end || rows >= l->chunk_rows || blen >= MAX_CHUNK_BYTES)) {
            rc = post(l, params, body, blen);
            l->rows_done += rows;
            l->bytes_done += blen - head;
            progress_step(l->rows_done, l->bytes_done);
            blen = head;
            rows = 0;
        }
        if (insert) {
            body = grow(body, &bcap, (size_t)n + 1);
            memcpy(body, line, (size_t)n);
            blen = head = (size_t)n;
        }
    }
    free(line);
    free(body);
    return rc;
}

static uint64_t count_rows(FILE *f)
{
    uint64_t rows = 0;
    int c, prev = '\n', first = 0;
    rewind(f);
    /* Lines that start with '{' are rows. */
    while ((c = getc(f)) != EOF) {
        if (prev == '\n')
            first = c;
        if (c == '\n' && first == '{')
            rows++;
        prev = c;
    }
    return rows;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Loads one run. Returns 0 (loaded or already there) or -1 (said why). */
static int load_run(struct loader *l, char **paths, size_t n, const char *name)
{
    char id[33], sql[512];
    clickhouse_run_id(paths, n, id);
    FILE *f = tmpfile();
    if (!f)
        tool_bad_input("cannot make a temporary file");
    progress_start("exporting traces", n);
    clickhouse_export(f, paths, n, l->db, l->suffix);
    progress_end();
    if (fflush(f) != 0 || ferror(f))
        tool_bad_input("cannot write a temporary file (is TMPDIR full?)");
    uint64_t rows = count_rows(f);
    double t0 = now_s();
    int rc = -1;
    for (int attempt = 0; attempt <= l->retries; attempt++) {
        if (attempt)
            sleep(1u << (attempt - 1));
        snprintf(sql, sizeof sql, "SELECT count() FROM %s.runs%s WHERE run_id = '%s'", l->db,
                 l->suffix, id);
        int64_t have = query_count(l, sql);
        if (have > 0) {
            fprintf(stderr, "%s: %s: run %s is already loaded: skipped\n", st_prog, name, id);
            fclose(f);
            return 0;
        }
        /* Questions were already asked again (post): their failure ends it. */
        if (have < 0 || clean_leftovers(l, id) != 0)
            break;
        l->rows_done = l->bytes_done = 0;
        progress_start("loading rows", rows);
        rc = post_blocks(l, f);
        progress_end();
        if (rc == 0 || *l->suffix)
            break; /* a cluster's half-loaded run is not deleted here */
    }
    fclose(f);
    if (rc != 0) {
        fprintf(stderr, "%s: %s: run %s not loaded: %s\n", st_prog, name, id, l->answer);
        return -1;
    }
    double dt = now_s() - t0;
    fprintf(stderr, "%s: %s: run %s: %" PRIu64 " rows loaded in %.2f s (%.0f rows/s)\n", st_prog,
            name, id, rows, dt, dt > 0 ? (double)rows / dt : 0.0);
    return 0;
}

/* An http(s) URL without credentials, made to end with '/'. */
static char *check_url(const char *u)
{
    if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
        tool_usage_error("load", "--clickhouse takes an http:// or https:// URL, not '%s'", u);
    const char *host = strstr(u, "//") + 2;
    size_t auth = strcspn(host, "/?#");
    if (memchr(host, '@', auth))
        tool_usage_error("load", "--clickhouse: no credentials in the URL (they would show in "
                                 "ps); set SEEKTRACE_CLICKHOUSE_USER and "
                                 "SEEKTRACE_CLICKHOUSE_PASSWORD");
    if (strpbrk(u, "?#"))
        tool_usage_error("load", "--clickhouse: the URL takes no query or fragment");
    char *url;
    if (asprintf(&url, "%s%s", u, u[strlen(u) - 1] == '/' ? "" : "/") < 0)
        tool_bad_input("out of memory");
    return url;
}

int cmd_load(int argc, char **argv)
{
    struct loader l;
    memset(&l, 0, sizeof l);
    l.db = "seektrace";
    l.suffix = "";
    l.retries = 3;
    l.chunk_rows = 100000;
    const char *url = NULL;
    char **pos = calloc((size_t)argc + 1, sizeof *pos);
    int npos = 0;
    if (!pos)
        tool_bad_input("out of memory");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            out_printf("%s", usage);
            free(pos);
            return 0;
        } else if (opt_value("load", argc, argv, &i, "--clickhouse", &v)) {
            url = v;
        } else if (opt_value("load", argc, argv, &i, "--database", &v)) {
            l.db = v;
        } else if (strcmp(a, "--distributed") == 0) {
            l.suffix = "_dist";
        } else if (opt_value("load", argc, argv, &i, "--retries", &v)) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || end == v || n < 0 || n > 10)
                tool_usage_error("load", "--retries takes a number from 0 to 10, not '%s'", v);
            l.retries = (int)n;
        } else if (opt_value("load", argc, argv, &i, "--chunk-rows", &v)) {
            char *end;
            long long n = strtoll(v, &end, 10);
            if (*end || end == v || n < 1 || n > 100000000)
                tool_usage_error("load", "--chunk-rows takes a number from 1 to 100000000, "
                                         "not '%s'", v);
            l.chunk_rows = (uint64_t)n;
        } else {
            opt_positional("load", argc, argv, &i, pos, &npos);
        }
    }
    if (!url)
        tool_usage_error("load", "--clickhouse URL is required");
    if (!clickhouse_database_ok(l.db))
        tool_usage_error("load", "--database takes a name of A-Z a-z 0-9 _, not '%s'", l.db);
    if (!npos)
        tool_usage_error("load", "no trace or directory given");
    l.url = check_url(url);
    const char *why = NULL;
    if (!(l.api = curl_loaded(&why)))
        tool_bad_input("cannot load libcurl (%s): install Debian's libcurl4", why);
    if (l.api->global_init(CURL_GLOBAL_DEFAULT) != 0 || !(l.curl = l.api->easy_init()))
        tool_bad_input("cannot initialise libcurl");
    l.api->easy_setopt(l.curl, CURLOPT_WRITEFUNCTION, on_answer);
    l.api->easy_setopt(l.curl, CURLOPT_WRITEDATA, &l);
    l.api->easy_setopt(l.curl, CURLOPT_CONNECTTIMEOUT, 10L);
    /* A stalled server, not a long insert, is what ends a request. */
    l.api->easy_setopt(l.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    l.api->easy_setopt(l.curl, CURLOPT_LOW_SPEED_TIME, 300L);
    l.api->easy_setopt(l.curl, CURLOPT_NOSIGNAL, 1L);
    const char *user = getenv("SEEKTRACE_CLICKHOUSE_USER");
    const char *password = getenv("SEEKTRACE_CLICKHOUSE_PASSWORD");
    if (user && *user) {
        l.api->easy_setopt(l.curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
        l.api->easy_setopt(l.curl, CURLOPT_USERNAME, user);
        l.api->easy_setopt(l.curl, CURLOPT_PASSWORD, password ? password : "");
    }
    /* Each directory a run; the trace files given, one run together. */
    int failed = 0;
    char **files = calloc((size_t)npos + 1, sizeof *files);
    size_t nfiles = 0;
    if (!files)
        tool_bad_input("out of memory");
    for (int i = 0; i < npos; i++) {
        struct stat st;
        if (stat(pos[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            struct inputs in;
            inputs_collect(&pos[i], 1, &in);
            failed |= load_run(&l, in.paths, in.n, pos[i]) != 0;
            inputs_free(&in);
        } else {
            files[nfiles++] = pos[i];
        }
    }
    if (nfiles) {
        struct inputs in;
        inputs_collect(files, (int)nfiles, &in);
        failed |= load_run(&l, in.paths, in.n, nfiles == 1 ? files[0] : "the traces given") != 0;
        inputs_free(&in);
    }
    free(files);
    free(pos);
    l.api->easy_cleanup(l.curl);
    l.api->global_cleanup();
    free(l.url);
    return failed ? EXIT_BAD_INPUT : 0;
}
