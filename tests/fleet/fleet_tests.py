#!/usr/bin/env python3
"""fleet_tests.py — seektrace's runs in a real ClickHouse (issue 26).

Against the server tests/fleet/clickhouse_server.py started (its DIR):
  load         runs of several kinds (the demo at two buffer sizes, a
               multi-process make, a crashed run) loaded with seektrace load;
               every run's SQL sums (runs, processes, files, streams, sites,
               events) equal `seektrace report --json` totals exactly; a
               reload is skipped, a load cut short is redone without double
               counting, credentials come from the environment only
  distributed  the same runs through Distributed tables over the server's
               two-shard cluster (127.0.0.1 and 127.0.0.2), both shards
               holding rows
  queries      every query of docs/fleet.md, its answer checked against one
               computed from the reports

Usage: fleet_tests.py CASE --server DIR --seektrace BIN --demo BIN
       --crasher BIN --source ROOT --work DIR"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls", "fstat_syscalls",
           "write_syscalls", "kernel_write_bytes", "requested_bytes", "delivered_bytes",
           "reread_bytes", "seeks_in_buffer", "seeks_discarding_buffer", "resync_lseeks",
           "written_bytes")
TABLES = ("runs", "processes", "files", "streams", "sites", "findings", "events")


class Failure(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Failure(msg)


class Ctx:
    def __init__(self, a):
        self.a = a
        with open(os.path.join(a.server, "server.json")) as fh:
            self.server = json.load(fh)
        self.url = self.server["url"]
        self.auth = {"SEEKTRACE_CLICKHOUSE_USER": self.server["user"],
                     "SEEKTRACE_CLICKHOUSE_PASSWORD": self.server["password"]}

    def sql(self, q, db_fmt="TabSeparated"):
        """The answer to q, as rows of strings (TabSeparated) or parsed JSON
        rows (db_fmt="JSONEachRow")."""
        body = (q + f" FORMAT {db_fmt}" if q.lstrip().upper().startswith("SELECT") else q)
        req = urllib.request.Request(self.url, data=body.encode())
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as e:
            raise Failure(f"ClickHouse refused {q[:200]!r}: {e.read().decode()[:500]}")
        if db_fmt == "JSONEachRow":
            return [json.loads(line) for line in text.splitlines() if line]
        return [line.split("\t") for line in text.splitlines()]

    def one(self, q):
        rows = self.sql(q)
        expect(len(rows) == 1 and len(rows[0]) == 1, f"{q}: {rows}")
        return int(rows[0][0])

    def st(self, *args, rc=0, env=None):
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.run([self.a.seektrace, *args], capture_output=True, env=e, timeout=300)
        expect(p.returncode == rc, f"seektrace {' '.join(args)} exited {p.returncode}, not {rc}:"
                                   f" {p.stderr.decode(errors='replace')[-1500:]}")
        return p.stdout.decode(), p.stderr.decode()

    def schema(self, db):
        """docs/clickhouse.sql, for database db, as docs/fleet.md says:
        clickhouse-client --multiquery < docs/clickhouse.sql."""
        with open(os.path.join(self.a.source, "docs", "clickhouse.sql")) as fh:
            text = fh.read()
        stmts = [s for s in re.sub(r"--[^\n]*", "", text).split(";") if s.strip()]
        expect(len(stmts) == 1 + len(TABLES), f"{len(stmts)} statements in clickhouse.sql")
        text = text.replace("seektrace.", f"{db}.").replace("DATABASE IF NOT EXISTS seektrace",
                                                             f"DATABASE IF NOT EXISTS {db}")
        p = subprocess.run(["clickhouse-client", "--host", "127.0.0.1", "--port",
                            str(self.server["tcp"]), "--multiquery"], input=text.encode(),
                           capture_output=True, timeout=60)
        expect(p.returncode == 0, f"clickhouse-client: {p.stderr.decode()[-800:]}")
        got = {r[0] for r in self.sql(f"SHOW TABLES FROM {db}")}
        expect(got == set(TABLES), f"tables of {db}: {sorted(got)}")


def make_runs(ctx):
    """The runs (once per work directory: the cases share them): name ->
    (trace dir, labels)."""
    work = ctx.a.work
    done = os.path.join(work, "runs.json")
    if os.path.exists(done):
        with open(done) as fh:
            return json.load(fh)
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    runs = {}

    def run(name, labels, argv, env=None, rc=0):
        d = os.path.join(work, name)
        args = ["run", "--trace", d, "-q"]
        for k, v in labels.items():
            args += ["--label", f"{k}={v}"]
        ctx.st(*args, "--", *argv, env=env, rc=rc)
        runs[name] = d

    data = os.path.join(work, "d.dat")
    # The demo at two buffer sizes: test_io at two commits.
    run("demo_4k", {"test": "test_io", "commit": "c1", "job": "101"},
        [ctx.a.demo, data, "--seeks", "2000"], env={"SEEKTRACE_BUFSIZE": "4k"})
    run("demo_64k", {"test": "test_io", "commit": "c2", "job": "102"},
        [ctx.a.demo, data, "--seeks", "2000"], env={"SEEKTRACE_BUFSIZE": "64k"})
    # A multi-process make: each target a process of its own.
    mk = os.path.join(work, "mk")
    os.makedirs(mk)
    with open(os.path.join(mk, "Makefile"), "w") as fh:
        fh.write("all: a.out b.out c.out\n"
                 "%.out: %.in\n\tsort $< > $@ && wc -c $@ > $@.n\n")
    for n, size in (("a", 40000), ("b", 90000), ("c", 7000)):
        with open(os.path.join(mk, f"{n}.in"), "w") as fh:
            fh.write("".join(f"line {i * 7919 % size}\n" for i in range(size // 10)))
    run("make", {"test": "build", "commit": "c2", "job": "103"}, ["make", "-s", "-j2", "-C", mk])
    # A crashed run: killed (SIGKILL) after its reads, its trace partial.
    with open(os.path.join(work, "crash.bin"), "wb") as fh:
        fh.write(os.urandom(1 << 20))
    run("crash", {"test": "crash", "commit": "c2", "job": "104"},
        [ctx.a.crasher, os.path.join(work, "crash.bin"), "500", "kill", "2"], rc=128 + 9)
    with open(done, "w") as fh:
        json.dump(runs, fh)
    return runs


def report(ctx, d):
    return json.loads(ctx.st("report", "--json", d)[0])


def processes_of(j):
    return j["processes"] if "processes" in j else [j]


def totals_of(j):
    return j["merged"]["totals"] if "merged" in j else j["totals"]


def run_id(ctx, d):
    out, _ = ctx.st("export", "--format", "clickhouse", d)
    m = re.search(r'"run_id":"([0-9a-f]{32})"', out)
    expect(m is not None, f"no run_id in the export of {d}")
    return m.group(1)


def check_sums(ctx, db, suffix, runs):
    """Every run's sums in SQL equal its report's totals exactly."""
    for name, d in runs.items():
        j = report(ctx, d)
        rid = run_id(ctx, d)
        want = totals_of(j)
        procs = processes_of(j)
        cols = ", ".join(f"sum({k})" for k in FIGURES)
        for table in ("runs", "processes", "files"):
            (got,) = ctx.sql(f"SELECT {cols} FROM {db}.{table}{suffix} WHERE run_id = '{rid}'")
            got = dict(zip(FIGURES, map(int, got)))
            expect(got == {k: want[k] for k in FIGURES},
                   f"{name}: {db}.{table}{suffix} sums {got}\n  report totals "
                   f"{ {k: want[k] for k in FIGURES} }")
        # Streams and sites: each process's, as its report lists them.
        for table, key in (("streams", "streams"), ("sites", "sites")):
            exp = {k: 0 for k in ("read_syscalls", "kernel_read_bytes", "delivered_bytes")}
            for p in procs:
                rows = [s for f in p["files"] for s in f.get(key, [])]
                for k in exp:
                    exp[k] += sum(r[k] for r in rows)
            (got,) = ctx.sql(f"SELECT {', '.join(f'sum({k})' for k in exp)} FROM "
                             f"{db}.{table}{suffix} WHERE run_id = '{rid}'")
            expect(dict(zip(exp, map(int, got))) == exp, f"{name}: {table} {got} != {exp}")
        n = ctx.one(f"SELECT count() FROM {db}.processes{suffix} WHERE run_id = '{rid}'")
        expect(n == len(procs), f"{name}: {n} processes, report has {len(procs)}")
        (row,) = ctx.sql(f"SELECT processes, labels.key, labels.value, hosts FROM "
                         f"{db}.runs{suffix} WHERE run_id = '{rid}'", "JSONEachRow")
        labels = dict(zip(row["labels.key"], row["labels.value"]))
        want_labels = procs[0]["labels"]
        expect(int(row["processes"]) == len(procs) and labels == want_labels
               and row["hosts"] == [os.uname().nodename], f"{name}: runs row {row}")
        # Events: complete traces' read events sum to the reads' figures.
        if all(p.get("trace", {}).get("status", "complete") == "complete" for p in procs):
            (got,) = ctx.sql(f"SELECT count(), sumIf(bytes, bytes > 0) FROM {db}.events{suffix} "
                             f"WHERE run_id = '{rid}' AND event = 'read'")
            expect([int(got[0]), int(got[1])] == [want["read_syscalls"],
                                                  want["kernel_read_bytes"]],
                   f"{name}: events {got}, report {want['read_syscalls']} reads, "
                   f"{want['kernel_read_bytes']} bytes")


def counts(ctx, db, suffix=""):
    return {t: ctx.one(f"SELECT count() FROM {db}.{t}{suffix}") for t in TABLES}


def case_load(ctx):
    runs = make_runs(ctx)
    db = "seektrace"
    ctx.schema(db)
    t0 = time.time()
    _, err = ctx.st("load", "--clickhouse", ctx.url, *runs.values(), env=ctx.auth)
    took = time.time() - t0
    expect(err.count("rows loaded in") == len(runs), err)
    check_sums(ctx, db, "", runs)
    first = counts(ctx, db)
    expect(first["runs"] == len(runs) and all(first[t] > 0 for t in TABLES), f"rows {first}")
    # Loaded again: skipped, nothing doubled.
    _, err = ctx.st("load", "--clickhouse", ctx.url, *runs.values(), env=ctx.auth)
    expect(err.count("already loaded: skipped") == len(runs), err)
    expect(counts(ctx, db) == first, "a reload changed the tables")
    # A load cut short (its runs row never written): loaded anew, its
    # leftovers deleted first.
    rid = run_id(ctx, runs["make"])
    ctx.sql(f"ALTER TABLE {db}.runs DELETE WHERE run_id = '{rid}'")
    deadline = time.time() + 30
    while ctx.one(f"SELECT count() FROM {db}.runs WHERE run_id = '{rid}'") and \
            time.time() < deadline:
        time.sleep(0.1)
    _, err = ctx.st("load", "--clickhouse", ctx.url, runs["make"], env=ctx.auth)
    expect("rows loaded in" in err, err)
    expect(counts(ctx, db) == first, f"after a redone load {counts(ctx, db)} != {first}")
    check_sums(ctx, db, "", {"make": runs["make"]})
    # Credentials: only from the environment; a wrong one is one line, exit 2.
    _, err = ctx.st("load", "--clickhouse", ctx.url, "--retries", "0", runs["make"], rc=2,
                    env={"SEEKTRACE_CLICKHOUSE_USER": "loader",
                         "SEEKTRACE_CLICKHOUSE_PASSWORD": "wrong"})
    expect(len(err.strip().splitlines()) == 1 and "not loaded" in err and "password" in err, err)
    u = urllib.parse.urlsplit(ctx.url)
    _, err = ctx.st("load", "--clickhouse", f"http://loader:x@{u.netloc}/", runs["make"], rc=2)
    expect("SEEKTRACE_CLICKHOUSE_USER" in err and len(err.strip().splitlines()) == 1, err)
    # No server there: one line, exit 2.
    _, err = ctx.st("load", "--clickhouse", "http://127.0.0.1:1/", "--retries", "0",
                    runs["make"], rc=2)
    expect(len(err.strip().splitlines()) == 1 and "not loaded" in err, err)
    rows = sum(first.values())
    print(f"fleet.load: {rows} rows of {len(runs)} runs loaded in {took:.2f} s")


def case_distributed(ctx):
    runs = make_runs(ctx)
    for shard in ("seektrace_s1", "seektrace_s2"):
        ctx.schema(shard)
    ctx.sql("CREATE DATABASE IF NOT EXISTS seektrace_dist")
    for t in TABLES:
        # database '': each shard's default_database (clickhouse_server.py);
        # rand(): rows spread over both shards whatever the run ids.
        ctx.sql(f"CREATE TABLE IF NOT EXISTS seektrace_dist.{t}_dist AS seektrace_s1.{t} "
                f"ENGINE = Distributed(seektrace_2shards, '', {t}, rand())")
    _, err = ctx.st("load", "--clickhouse", ctx.url, "--database", "seektrace_dist",
                    "--distributed", *runs.values(), env=ctx.auth)
    expect(err.count("rows loaded in") == len(runs), err)
    check_sums(ctx, "seektrace_dist", "_dist", runs)
    total = counts(ctx, "seektrace_dist", "_dist")
    s1, s2 = counts(ctx, "seektrace_s1"), counts(ctx, "seektrace_s2")
    expect(all(s1[t] + s2[t] == total[t] for t in TABLES), f"shards {s1} + {s2} != {total}")
    expect(s1["events"] > 0 and s2["events"] > 0 and s1["files"] > 0 and s2["files"] > 0,
           f"a shard holds no rows: {s1} {s2}")
    _, err = ctx.st("load", "--clickhouse", ctx.url, "--database", "seektrace_dist",
                    "--distributed", *runs.values(), env=ctx.auth)
    expect(err.count("already loaded: skipped") == len(runs), err)
    # A load cut short on a cluster: its leftovers are named, not deleted
    # (that takes every shard); deleted there, the run loads again.
    rid = run_id(ctx, runs["make"])

    def delete_on_shards(tables):
        for shard in ("seektrace_s1", "seektrace_s2"):
            for t in tables:
                ctx.sql(f"ALTER TABLE {shard}.{t} DELETE WHERE run_id = '{rid}'")
        deadline = time.time() + 30
        while ctx.one("SELECT count() FROM system.mutations WHERE is_done = 0") and \
                time.time() < deadline:
            time.sleep(0.1)

    delete_on_shards(["runs"])
    _, err = ctx.st("load", "--clickhouse", ctx.url, "--database", "seektrace_dist",
                    "--distributed", "--retries", "0", runs["make"], rc=2, env=ctx.auth)
    expect(len(err.strip().splitlines()) == 1 and "from a load cut short" in err
           and f"DELETE WHERE run_id = '{rid}'" in err, err)
    delete_on_shards(TABLES)
    _, err = ctx.st("load", "--clickhouse", ctx.url, "--database", "seektrace_dist",
                    "--distributed", runs["make"], env=ctx.auth)
    expect("rows loaded in" in err, err)
    expect(counts(ctx, "seektrace_dist", "_dist") == total, "the run reloaded differs")
    check_sums(ctx, "seektrace_dist", "_dist", {"make": runs["make"]})


def fleet_queries(ctx):
    """docs/fleet.md's queries: name -> SQL (each after '<!-- query NAME -->')."""
    with open(os.path.join(ctx.a.source, "docs", "fleet.md")) as fh:
        text = fh.read()
    found = re.findall(r"<!-- query (\w+) -->\s*```sql\n(.*?)```", text, re.S)
    return dict(found)


def case_queries(ctx):
    runs = make_runs(ctx)
    # The load case's database: loaded again here if this case runs alone.
    ctx.schema("seektrace")
    ctx.st("load", "--clickhouse", ctx.url, *runs.values(), env=ctx.auth)
    q = fleet_queries(ctx)
    want_names = {"waste_by_site", "amplification_by_commit", "blksize_by_host",
                  "blksize_128k", "unfinished", "run_reads"}
    expect(set(q) == want_names, f"docs/fleet.md queries {sorted(q)}")
    reps = {name: report(ctx, d) for name, d in runs.items()}
    procs = [p for j in reps.values() for p in processes_of(j)]

    # Waste by call site over all jobs this week.
    waste = {}
    for p in procs:
        for s in p["sites"]:
            key = (s["module"] or "", s["function"] or "", s["source"] or "", s["line"])
            waste[key] = waste.get(key, 0) + s["kernel_read_bytes"] - s["delivered_bytes"]
    rows = ctx.sql(q["waste_by_site"], "JSONEachRow")
    expect(rows and int(rows[0]["wasted_bytes"]) == max(waste.values()), f"top {rows[:1]}")
    for r in rows:
        key = (r["module"], r["function"], r["source"], int(r["line"]))
        expect(waste.get(key) == int(r["wasted_bytes"]), f"site {key}: {r} vs {waste.get(key)}")

    # test_io's amplification per commit, in order.
    rows = ctx.sql(q["amplification_by_commit"], "JSONEachRow")
    exp = []
    for name in ("demo_4k", "demo_64k"):
        t = totals_of(reps[name])
        exp.append((processes_of(reps[name])[0]["labels"]["commit"], t["kernel_read_bytes"],
                    t["delivered_bytes"]))
    got = [(r["commit"], int(r["kernel_read"]), int(r["delivered"])) for r in rows]
    expect(got == exp, f"amplification by commit {got} != {exp}")
    expect(rows[0]["amplification"] != rows[1]["amplification"], "the buffer sizes did not show")

    # Buffer sizes glibc chose from st_blksize, per host.
    blk = {}
    for p in procs:
        for f in p["files"]:
            for s in f.get("streams", []):
                if s["buffer_origin"] == "default" and s["buffer_size"] > 0:
                    key = (p["host"], s["buffer_size"])
                    blk[key] = blk.get(key, 0) + 1
    rows = ctx.sql(q["blksize_by_host"], "JSONEachRow")
    got = {(r["host"], int(r["buffer_size"])): int(r["streams"]) for r in rows}
    expect(got == blk and got, f"st_blksize by host {got} != {blk}")
    rows = ctx.sql(q["blksize_128k"], "JSONEachRow")
    exp = sorted(h for (h, size) in blk if size == 131072)
    expect(sorted(r["host"] for r in rows) == exp, f"128 KiB hosts {rows} != {exp}")

    # Processes that did not finish: the crashed run's.
    rows = ctx.sql(q["unfinished"], "JSONEachRow")
    exp = sorted(p["pid"] for p in procs if p.get("trace", {}).get("status", "complete")
                 != "complete")
    expect(exp and sorted(int(r["pid"]) for r in rows) == exp, f"unfinished {rows} != {exp}")
    expect(all(r["status"] == "partial" for r in rows), f"{rows}")

    # Drill-down: the latest run's reads per file, from its events.
    latest = max(reps, key=lambda n: processes_of(reps[n])[0]["start_time_ns"])
    rows = ctx.sql(q["run_reads"], "JSONEachRow")
    exp = {}
    for p in processes_of(reps[latest]):
        for f in p["files"]:
            if f["read_syscalls"]:
                e = exp.setdefault(f["path"], [0, 0])
                e[0] += f["read_syscalls"]
                e[1] += f["kernel_read_bytes"]
    got = {r["path"]: [int(r["read_syscalls"]), int(r["kernel_read_bytes"])] for r in rows}
    expect(got == exp, f"{latest}'s reads per file {got} != {exp}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    for opt in ("server", "seektrace", "demo", "crasher", "source", "work"):
        ap.add_argument("--" + opt, required=True)
    a = ap.parse_args()
    a.work = os.path.abspath(a.work)
    fn = globals().get("case_" + a.case)
    if not fn:
        sys.exit(f"no case {a.case}")
    try:
        fn(Ctx(a))
    except Failure as e:
        print(f"FAIL {a.case}: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
