-- docs/clickhouse.sql — seektrace's tables in ClickHouse, for fleet analysis
-- (docs/fleet.md). Tested against ClickHouse 18.16 (Debian 12's) by
-- tests/fleet, and written in what that version has: no Map, no DateTime64
-- (wall-clock times are UInt64 ns since the epoch beside a DateTime).
--
-- Rows come from `seektrace export --format clickhouse` or `seektrace load`.
-- A column named as a key of the JSON report (docs/report-json.md) holds that
-- key's value: the counts (read_syscalls, kernel_read_bytes, lseek_syscalls,
-- requested_bytes, delivered_bytes, ...) of a whole run (runs), a process's
-- totals (processes), a file of one process (files), a stream (streams), a
-- call site on a file (sites). calls.name / calls.count: the report's
-- "calls" object, as a Nested column. Every row has run_id (one per
-- `seektrace run` or trace set, 32 hex digits derived from its traces), the
-- host and pid of its process, and start_time (the process's start; runs:
-- the run's), which partitions the tables by month.
--
-- Strings are as the JSON report writes them (docs/report-json.md, Strings):
-- a path's byte that is not UTF-8 is U+FFFD and its two hex digits, so
-- paths stay exact and every string is valid UTF-8.
--
-- labels.key / labels.value: the run's labels (`seektrace run --label`,
-- SEEKTRACE_LABELS): `labels.value[indexOf(labels.key, 'commit')]`.
--
-- ORDER BY is chosen for docs/fleet.md's questions: files by path (one
-- file's history), sites by module and function (waste by call site over
-- all jobs), streams by host and buffer size (st_blksize per host),
-- findings by rule, events by run and process (drill-down into one run).
--
-- A sharded cluster: create these tables on every shard, then the
-- Distributed tables at the end of this file (commented out: they name
-- your cluster), and load with `seektrace load --distributed`, which
-- inserts into the *_dist tables with insert_distributed_sync=1. The
-- sharding key cityHash64(run_id) keeps each run on one shard.

CREATE DATABASE IF NOT EXISTS seektrace;

-- One row per run: its root process's host and command, every host, the earliest
-- start to the latest end, its labels, and the sum of its processes' totals.
-- Written last by a load: a run with a row here has all its other rows.
CREATE TABLE IF NOT EXISTS seektrace.runs
(
    run_id      String,
    host        String,
    hosts       Array(String),
    command     String,
    start_time  DateTime,
    start_time_ns UInt64,
    duration_ns UInt64,
    processes   UInt64,
    labels Nested(key String, value String),
    read_syscalls                 UInt64,
    kernel_read_bytes             UInt64,
    lseek_syscalls                UInt64,
    fstat_syscalls                UInt64,
    write_syscalls                UInt64,
    kernel_write_bytes            UInt64,
    requested_bytes               UInt64,
    delivered_bytes               UInt64,
    reread_bytes                  UInt64,
    seeks_in_buffer               UInt64,
    seeks_discarding_buffer       UInt64,
    resync_lseeks                 UInt64,
    whatif_4k_kernel_read_bytes   UInt64,
    whatif_4k_recorded_bytes      UInt64,
    written_bytes                 UInt64,
    flushes_fflush                UInt64,
    flushes_full                  UInt64,
    flushes_newline               UInt64,
    flushes_unbuffered            UInt64,
    flushes_seek                  UInt64,
    flushes_close                 UInt64,
    flushes_exit                  UInt64,
    flushes_read                  UInt64,
    calls Nested(name String, count UInt64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (start_time, run_id);

-- One row per process (trace): status complete, partial (crashed, killed) or
-- truncated; its totals.
CREATE TABLE IF NOT EXISTS seektrace.processes
(
    run_id      String,
    host        String,
    pid         Int64,
    start_time  DateTime,
    ppid        Int64,
    command     String,
    argv        Array(String),
    exe         String,
    status      String,
    capture     String,
    libc_version String,
    start_time_ns UInt64,
    duration_ns UInt64,
    events_lost UInt64,
    files       UInt64,
    labels Nested(key String, value String),
    read_syscalls                 UInt64,
    kernel_read_bytes             UInt64,
    lseek_syscalls                UInt64,
    fstat_syscalls                UInt64,
    write_syscalls                UInt64,
    kernel_write_bytes            UInt64,
    requested_bytes               UInt64,
    delivered_bytes               UInt64,
    reread_bytes                  UInt64,
    seeks_in_buffer               UInt64,
    seeks_discarding_buffer       UInt64,
    resync_lseeks                 UInt64,
    whatif_4k_kernel_read_bytes   UInt64,
    whatif_4k_recorded_bytes      UInt64,
    written_bytes                 UInt64,
    flushes_fflush                UInt64,
    flushes_full                  UInt64,
    flushes_newline               UInt64,
    flushes_unbuffered            UInt64,
    flushes_seek                  UInt64,
    flushes_close                 UInt64,
    flushes_exit                  UInt64,
    flushes_read                  UInt64,
    calls Nested(name String, count UInt64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (start_time, run_id, pid);

-- One row per file of a process. A process whose report kept rows for its
-- worst files only has one more row, path '' and other_files > 0, with the
-- rest's sums: a run's files sum to its totals exactly.
CREATE TABLE IF NOT EXISTS seektrace.files
(
    run_id      String,
    host        String,
    pid         Int64,
    start_time  DateTime,
    path        String,
    other_files UInt64,
    streams     UInt64,
    read_syscalls                 UInt64,
    kernel_read_bytes             UInt64,
    lseek_syscalls                UInt64,
    fstat_syscalls                UInt64,
    write_syscalls                UInt64,
    kernel_write_bytes            UInt64,
    requested_bytes               UInt64,
    delivered_bytes               UInt64,
    reread_bytes                  UInt64,
    seeks_in_buffer               UInt64,
    seeks_discarding_buffer       UInt64,
    resync_lseeks                 UInt64,
    whatif_4k_kernel_read_bytes   UInt64,
    whatif_4k_recorded_bytes      UInt64,
    written_bytes                 UInt64,
    flushes_fflush                UInt64,
    flushes_full                  UInt64,
    flushes_newline               UInt64,
    flushes_unbuffered            UInt64,
    flushes_seek                  UInt64,
    flushes_close                 UInt64,
    flushes_exit                  UInt64,
    flushes_read                  UInt64,
    calls Nested(name String, count UInt64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (path, start_time, run_id, pid);

-- One row per stdio stream; buffer_origin 'default' means glibc sized the
-- buffer from the file's st_blksize.
CREATE TABLE IF NOT EXISTS seektrace.streams
(
    run_id      String,
    host        String,
    pid         Int64,
    start_time  DateTime,
    path        String,
    fd          Int32,
    buffer_size UInt64,
    requested_buffer_size UInt64,
    buffer_mode String,
    buffer_origin String,
    caveat      String,
    read_syscalls                 UInt64,
    kernel_read_bytes             UInt64,
    lseek_syscalls                UInt64,
    fstat_syscalls                UInt64,
    write_syscalls                UInt64,
    kernel_write_bytes            UInt64,
    requested_bytes               UInt64,
    delivered_bytes               UInt64,
    reread_bytes                  UInt64,
    seeks_in_buffer               UInt64,
    seeks_discarding_buffer       UInt64,
    resync_lseeks                 UInt64,
    whatif_4k_kernel_read_bytes   UInt64,
    whatif_4k_recorded_bytes      UInt64,
    written_bytes                 UInt64,
    flushes_fflush                UInt64,
    flushes_full                  UInt64,
    flushes_newline               UInt64,
    flushes_unbuffered            UInt64,
    flushes_seek                  UInt64,
    flushes_close                 UInt64,
    flushes_exit                  UInt64,
    flushes_read                  UInt64,
    calls Nested(name String, count UInt64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (host, buffer_size, start_time, run_id);

-- One row per (file, call site) of a process: frames[1] is the site itself.
CREATE TABLE IF NOT EXISTS seektrace.sites
(
    run_id      String,
    host        String,
    pid         Int64,
    start_time  DateTime,
    path        String,
    function    String,
    source      String,
    line        UInt32,
    module      String,
    offset      UInt64,
    frames      Array(String),
    read_syscalls                 UInt64,
    kernel_read_bytes             UInt64,
    lseek_syscalls                UInt64,
    fstat_syscalls                UInt64,
    write_syscalls                UInt64,
    kernel_write_bytes            UInt64,
    requested_bytes               UInt64,
    delivered_bytes               UInt64,
    reread_bytes                  UInt64,
    seeks_in_buffer               UInt64,
    seeks_discarding_buffer       UInt64,
    resync_lseeks                 UInt64,
    whatif_4k_kernel_read_bytes   UInt64,
    whatif_4k_recorded_bytes      UInt64,
    written_bytes                 UInt64,
    flushes_fflush                UInt64,
    flushes_full                  UInt64,
    flushes_newline               UInt64,
    flushes_unbuffered            UInt64,
    flushes_seek                  UInt64,
    flushes_close                 UInt64,
    flushes_exit                  UInt64,
    flushes_read                  UInt64,
    calls Nested(name String, count UInt64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (module, function, start_time, run_id);

-- The diagnosis rules that fired (docs/findings.md), per process.
CREATE TABLE IF NOT EXISTS seektrace.findings
(
    run_id      String,
    host        String,
    pid         Int64,
    start_time  DateTime,
    rule        String,
    path        String,
    cost        UInt64,
    what        String,
    change      String,
    function    String,
    source      String,
    line        UInt32,
    module      String,
    offset      UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_time)
ORDER BY (rule, start_time, run_id);

-- Every recorded event, for drill-down: the columns of `seektrace export
-- --format jsonl` (docs/seektrace.1); time_ns counts from the process's
-- start (processes.start_time_ns); fd and offset are -1 when none.
CREATE TABLE IF NOT EXISTS seektrace.events
(
    run_id      String,
    host        String,
    pid         Int64,
    tid         UInt32,
    time_ns     UInt64,
    dur_ns      UInt64,
    event       String,
    call        String,
    counted     UInt8,
    path        String,
    label       String,
    fd          Int32,
    offset      Int64,
    bytes       Int64,
    buffer_size UInt64,
    lost        UInt64,
    written     UInt64,
    requested   UInt64,
    delivered   UInt64,
    reread      UInt64,
    kept        UInt8,
    resync      UInt64,
    site        String
)
ENGINE = MergeTree
ORDER BY (run_id, pid, tid, time_ns);

-- The Distributed variant, for a cluster named in the servers' remote_servers
-- (replace my_cluster). Query and load the *_dist tables; each shard holds
-- the tables above.
--
-- CREATE TABLE IF NOT EXISTS seektrace.runs_dist AS seektrace.runs
--     ENGINE = Distributed(my_cluster, seektrace, runs, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.processes_dist AS seektrace.processes
--     ENGINE = Distributed(my_cluster, seektrace, processes, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.files_dist AS seektrace.files
--     ENGINE = Distributed(my_cluster, seektrace, files, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.streams_dist AS seektrace.streams
--     ENGINE = Distributed(my_cluster, seektrace, streams, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.sites_dist AS seektrace.sites
--     ENGINE = Distributed(my_cluster, seektrace, sites, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.findings_dist AS seektrace.findings
--     ENGINE = Distributed(my_cluster, seektrace, findings, cityHash64(run_id));
-- CREATE TABLE IF NOT EXISTS seektrace.events_dist AS seektrace.events
--     ENGINE = Distributed(my_cluster, seektrace, events, cityHash64(run_id));
