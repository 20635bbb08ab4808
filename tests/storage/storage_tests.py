#!/usr/bin/env python3
"""The storage tier (issue 25): device bytes, readahead policy, cold caches.

    storage_tests.py --lib LIB --seektrace BIN --reader BIN --demo BIN --dir DIR CASE

Each CASE runs real programs under libseektrace on files made fresh in a
directory under DIR, empties the page cache of a file the unprivileged way
(fsync, then posix_fadvise(POSIX_FADV_DONTNEED): a clean file's pages go) and
checks the report's device figures (getrusage's ru_inblock, docs/storage.md)
against what is known of the I/O: the file's size, the program's own
/proc/self/io read_bytes, a warm cache's zero. Where DIR has no block device
under it (tmpfs, overlay, a network file system) the cases skip (exit 77)
saying so. Exit 0 pass, 1 fail, 77 skipped.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

MIB = 1 << 20
SKIP = 77


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def block_device(path):
    """'MAJ:MIN' of the block device under path, or None."""
    st = os.stat(path)
    if os.major(st.st_dev) == 0:
        return None
    return f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"


def read_ahead_kb(dev):
    """The device's read_ahead_kb (a partition's from its parent), or None."""
    for q in (f"/sys/dev/block/{dev}/queue/read_ahead_kb",
              f"/sys/dev/block/{dev}/../queue/read_ahead_kb"):
        try:
            with open(q) as f:
                return int(f.read())
        except OSError:
            pass
    return None


def make_file(path, size):
    """A fresh file of random bytes, on the device (fsync'ed: clean)."""
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 4 * MIB)
            f.write(os.urandom(n))
            left -= n
        f.flush()
        os.fsync(f.fileno())


def evict(path):
    """Empties the page cache of a clean file; unprivileged."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


class Ctx:
    def __init__(self, a, tmp):
        self.a = a
        self.tmp = tmp

    def traced(self, argv, env=None):
        """Runs argv under the library; returns (its JSON report, its stdout as JSON)."""
        out = os.path.join(self.tmp, "report.json")
        e = dict(os.environ, LD_PRELOAD=self.a.lib, SEEKTRACE_FORMAT="json",
                 SEEKTRACE_OUTPUT=out)
        e.update(env or {})
        p = subprocess.run(argv, env=e, capture_output=True, timeout=300)
        if p.returncode != 0:
            raise Failure(f"{argv} exited {p.returncode}: {p.stderr.decode(errors='replace')}")
        with open(out) as f:
            report = json.load(f)
        os.unlink(out)
        own = p.stdout.decode().strip()
        return report, json.loads(own.splitlines()[-1]) if own.startswith("{") else None

    def reader(self, *args, env=None):
        return self.traced([self.a.reader, *map(str, args)], env)

    def st(self, *args, rc=0):
        p = subprocess.run([self.a.seektrace, *map(str, args)], capture_output=True, timeout=600)
        if p.returncode != rc:
            raise Failure(f"seektrace {' '.join(map(str, args))}: exit {p.returncode}, expected "
                          f"{rc}: {p.stderr.decode(errors='replace')[-2000:]}")
        return p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def file_row(report, path):
    rows = [r for r in report["files"] if r["path"] == os.path.realpath(path)]
    expect(len(rows) == 1, f"no row for {path}")
    return rows[0]


def rules(report):
    return [f["rule"] for f in report["findings"]]


def device(report):
    t = report["totals"]
    expect(t["device_read_bytes"] is not None,
           f"device figures unmeasured: {t.get('device_unmeasured')}")
    return t["device_read_bytes"]


# --- cases ------------------------------------------------------------------------

def case_cold_sequential(ctx):
    """A fresh 64 MiB file read from start to end: cold, the device read it
    all (within 5 %); warm, nothing (under 1 MiB)."""
    f = os.path.join(ctx.tmp, "seq.dat")
    make_file(f, 64 * MIB)
    evict(f)
    cold, own = ctx.reader("seq", f, 65536)
    expect(own["read"] == 64 * MIB, f"the program read {own['read']}")
    d = device(cold)
    print(f"cold: device {d} bytes, the program's /proc/self/io read_bytes {own['io_read_bytes']}")
    expect(abs(d - 64 * MIB) <= 64 * MIB * 5 // 100, f"cold device_read_bytes {d}, expected 64 MiB ± 5 %")
    # The same kernel counter, the program's own view a moment before exit:
    # it also counts what the loader read before the library's baseline
    # (pages of the libraries, when they are not cached), the report what
    # came after that view. A fresh clone's run saw the program's 4 KiB more.
    expect(abs(d - own["io_read_bytes"]) <= MIB,
           f"device_read_bytes {d} against /proc/self/io read_bytes {own['io_read_bytes']}")
    warm, _ = ctx.reader("seq", f, 65536)
    print(f"warm: device {device(warm)} bytes")
    expect(device(warm) < MIB, f"warm device_read_bytes {device(warm)}, expected < 1 MiB")
    expect("page-cache-copies" not in rules(warm), "page-cache-copies on a plain sequential read")


def runs_of(ctx, f, advice, cold=True):
    if cold:
        evict(f)
    env = {"SEEKTRACE_FADVISE": advice} if advice else {}
    return ctx.reader("runs", f, 400, 32768, 4096, env=env)


def case_fadvise_random(ctx):
    """400 short sequential runs (8 x 4 KiB) at random offsets of a cold
    64 MiB file: with SEEKTRACE_FADVISE=random the device reads at most half
    of what it reads with normal, where read_ahead_kb lets readahead run past
    a run's 32 KiB."""
    f = os.path.join(ctx.tmp, "runs.dat")
    make_file(f, 64 * MIB)
    ra = read_ahead_kb(block_device(ctx.tmp))
    normal, own = runs_of(ctx, f, "normal")
    random_, _ = runs_of(ctx, f, "random")
    dn, dr = device(normal), device(random_)
    print(f"read_ahead_kb {ra}; kernel {normal['totals']['kernel_read_bytes']} bytes; "
          f"device: normal {dn}, random {dr}")
    kernel = file_row(normal, f)["kernel_read_bytes"]
    expect(kernel == own["read"] == 400 * 32768, f"kernel {kernel}, the program {own['read']}")
    # The advice strace sees: one fadvise64 on the data file, none elsewhere
    # but on files the program opened (the reader opens /proc/self/io too).
    if shutil.which("strace"):
        log = os.path.join(ctx.tmp, "strace.log")
        subprocess.run(["strace", "-f", "-y", "-e", "trace=fadvise64", "-o", log, "env",
                        f"LD_PRELOAD={ctx.a.lib}", "SEEKTRACE_FADVISE=random",
                        "SEEKTRACE_OUTPUT=/dev/null", ctx.a.reader, "runs", f, "4", "32768", "4096"],
                       check=True, capture_output=True, timeout=120)
        with open(log) as fh:
            calls = [ln for ln in fh if "fadvise64(" in ln]
        on_data = [ln for ln in calls if f"<{os.path.realpath(f)}>, 0, 0, POSIX_FADV_RANDOM) = 0" in ln]
        expect(len(on_data) == 1, f"fadvise64 calls: {calls}")
    if ra is not None and ra <= 32:
        raise Skip(f"read_ahead_kb is {ra}: readahead cannot run past a 32 KiB run "
                   f"(normal {dn}, random {dr} device bytes)")
    expect(dr * 2 <= dn, f"random read {dr} device bytes, normal {dn}: expected at most half")


def case_readahead_overfetch(ctx):
    """The finding on the cold runs; not with POSIX_FADV_RANDOM, not warm."""
    f = os.path.join(ctx.tmp, "runs.dat")
    make_file(f, 64 * MIB)
    normal, _ = runs_of(ctx, f, None)
    print(f"normal: device {device(normal)}, findings {rules(normal)}")
    if device(normal) < 2 * normal["totals"]["kernel_read_bytes"]:
        raise Skip(f"readahead did not over-fetch here (device {device(normal)} bytes for "
                   f"{normal['totals']['kernel_read_bytes']} read): read_ahead_kb "
                   f"{read_ahead_kb(block_device(ctx.tmp))}")
    x = [g for g in normal["findings"] if g["rule"] == "readahead-overfetch"]
    expect(x and x[0]["path"] == os.path.realpath(f), f"no readahead-overfetch on {f}: {rules(normal)}")
    jumps = file_row(normal, f)["lseek_syscalls"]
    expect(jumps == 401, f"{jumps} lseeks: 400 runs and the program's SEEK_END")
    expect("POSIX_FADV_RANDOM" in x[0]["change"] and f"jumped {jumps} times" in x[0]["what"], x[0])
    random_, _ = runs_of(ctx, f, "random")
    print(f"random: device {device(random_)}, findings {rules(random_)}")
    expect("readahead-overfetch" not in rules(random_), f"fired with FADVISE=random: {random_['findings']}")
    warm, _ = runs_of(ctx, f, None, cold=False)
    expect("readahead-overfetch" not in rules(warm), "fired on a warm cache")


def case_page_cache_copies(ctx):
    """The 2006 demo (128 KiB buffer, 3,000 random fseeks on 4 MiB) on a warm
    cache: the finding, with the page cache's bytes. Its near-twin: a 4 KiB
    buffer on a cold cache, where the device did a third of the kernel's work."""
    f = os.path.join(ctx.tmp, "demo.dat")
    make_file(f, 4 * MIB)
    evict(f)
    twin, _ = ctx.traced([ctx.a.demo, f, "--buffer", "4096", "--seeks", "3000"])
    t = twin["totals"]
    print(f"cold 4 KiB: kernel {t['kernel_read_bytes']}, device {device(twin)}, {rules(twin)}")
    expect(device(twin) * 10 > t["kernel_read_bytes"], "the cold twin's device read little")
    expect("page-cache-copies" not in rules(twin), f"fired on the cold twin: {twin['findings']}")
    warm, _ = ctx.traced([ctx.a.demo, f, "--buffer", "131072", "--seeks", "3000"])
    t = warm["totals"]
    x = [g for g in warm["findings"] if g["rule"] == "page-cache-copies"]
    print(f"warm 128 KiB: kernel {t['kernel_read_bytes']}, device {device(warm)}, {rules(warm)}")
    expect(x, f"no page-cache-copies: {warm['findings']}")
    cached = t["kernel_read_bytes"] - device(warm)
    expect(x[0]["what"].startswith("readahead will not help: ") and
           "came from the page cache; the buffer size will" in x[0]["what"], x[0]["what"])
    expect(fmt_bytes(cached) in x[0]["what"], f"{fmt_bytes(cached)} not in {x[0]['what']}")


def fmt_bytes(n):
    """src/core/units.c's format."""
    if n < 1024:
        return f"{n} B"
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = float(n), 0
    while v >= 1024.0 and u < 5:
        v /= 1024.0
        u += 1
    return f"{v:.2f} {units[u]}" if v < 10 else f"{v:.1f} {units[u]}" if v < 100 else f"{v:.0f} {units[u]}"


def case_no_block_device(ctx):
    """A file on tmpfs: null device figures and the reason, never 0."""
    shm = "/dev/shm"
    if not os.path.isdir(shm) or block_device(shm) is not None:
        raise Skip("no tmpfs at /dev/shm")
    d = tempfile.mkdtemp(dir=shm, prefix="st-storage-")
    try:
        f = os.path.join(d, "t.dat")
        with open(f, "wb") as w:
            w.write(os.urandom(MIB))
        r, _ = ctx.reader("seq", f, 4096)
        t = r["totals"]
        expect(t["device_read_bytes"] is None and t["device_write_bytes"] is None, t)
        expect(t["device_unmeasured"] == f"{f} is on tmpfs, which has no block device", t)
        text = subprocess.run([ctx.a.reader, "seq", f, "4096"], capture_output=True, timeout=60,
                              env=dict(os.environ, LD_PRELOAD=ctx.a.lib)).stderr.decode()
        expect(f"device bytes unknown: {f} is on tmpfs" in text, text)
    finally:
        shutil.rmtree(d)


def case_trace_report(ctx):
    """Two processes' traces: seektrace report shows each one's device bytes
    (as at exit) and their sum."""
    f = os.path.join(ctx.tmp, "two.dat")
    make_file(f, 16 * MIB)
    traces = os.path.join(ctx.tmp, "traces")
    seen = []
    for _ in range(2):
        evict(f)
        r, _ = ctx.traced([ctx.a.reader, "seq", f, "65536"], {"SEEKTRACE_TRACE": traces})
        seen.append(r["totals"]["device_read_bytes"])
    ts = sorted(os.path.join(traces, n) for n in os.listdir(traces))
    expect(len(ts) == 2, f"traces {ts}")
    one = [json.loads(ctx.st("report", "--json", t)[0])["totals"]["device_read_bytes"] for t in ts]
    expect(sorted(one) == sorted(seen), f"from the traces {one}, at exit {seen}")
    merged = json.loads(ctx.st("report", "--json", traces)[0])
    expect(merged["merged"]["totals"]["device_read_bytes"] == sum(seen),
           f"merged {merged['merged']['totals']['device_read_bytes']}, sum {sum(seen)}")
    text = ctx.st("report", traces)[0]
    expect(f"{fmt_bytes(sum(seen))} read from the device" in text, text[:1500])
    # The device under the file, with its readahead as sysfs says now.
    dev = block_device(f)
    ra = read_ahead_kb(dev)
    name = os.path.basename(os.path.realpath(f"/sys/dev/block/{dev}"))
    want = f"    {name} ({dev}): " + (f"{ra} KiB readahead" if ra is not None else "readahead unknown")
    for out in (text, ctx.st("report", ts[0])[0]):
        expect("block devices of the files read (read_ahead_kb as it is now):" in out and
               want in out, f"{want!r} not in {out[-600:]}")


def case_sweep_cold_fadvise(ctx):
    """seektrace sweep --cold --fadvise normal,random: the Ts'o table of the
    short runs, each run from a cold cache: the device bytes as the library
    measures them one run at a time, and no file left cached."""
    f = os.path.join(ctx.tmp, "runs.dat")
    make_file(f, 64 * MIB)
    out, _ = ctx.st("sweep", "--cold", "--fadvise", "normal,random", "--sizes", "4k,64k",
                    "--reps", "1", "--json", "--", ctx.a.reader, "runs", f, 400, 32768, 4096)
    j = json.loads(out)
    rows = {(r["fadvise"], r["size"]): r for r in j["sizes"]}
    print({k: (r["kernel_read_bytes"], r["device_read_bytes"]) for k, r in rows.items()})
    expect(j["cold"] and j["cold_runs"] == 4 and j["not_evicted"] == [], j)
    expect(sorted(rows) == [("normal", 4096), ("normal", 65536), ("random", 4096), ("random", 65536)],
           sorted(rows))
    for r in rows.values():
        # Plain read(): the buffer size changes nothing the kernel copies.
        expect(400 * 32768 <= r["kernel_read_bytes"] <= 400 * 32768 + 4096, r)
    one, _ = runs_of(ctx, f, "random")
    for size in (4096, 65536):
        n, r = rows[("normal", size)]["device_read_bytes"], rows[("random", size)]["device_read_bytes"]
        # Cold runs read at least what they copy; random a run's pages and little more.
        expect(r >= 400 * 32768 * 8 // 10 and abs(r - device(one)) <= device(one) // 5,
               f"random {r}, the library alone {device(one)}")
        if read_ahead_kb(block_device(ctx.tmp)) not in (None,) and read_ahead_kb(block_device(ctx.tmp)) > 32:
            expect(r * 2 <= n, f"{size}: random {r}, normal {n}")
    text, _ = ctx.st("sweep", "--cold", "--fadvise", "random", "--sizes", "4k", "--reps", "1",
                     "--", ctx.a.reader, "runs", f, 400, 32768, 4096)
    expect("cold page cache" in text and "fadvise" in text and "device bytes" in text, text)
    row = [l for l in text.splitlines() if "4.00 KiB" in l]
    expect(len(row) == 1 and " random " in row[0], text)


def case_sweep_not_evicted(ctx):
    """--cold names a file it could not evict, and how much of it stayed:
    one this test keeps mapped, every page touched (the kernel drops no
    page a process maps), beside one it evicts."""
    import mmap
    held, free_ = os.path.join(ctx.tmp, "held.dat"), os.path.join(ctx.tmp, "free.dat")
    make_file(held, MIB)
    make_file(free_, MIB)
    with open(held, "rb") as h:
        m = mmap.mmap(h.fileno(), 0, prot=mmap.PROT_READ)
        try:
            expect(sum(m[i] for i in range(0, MIB, 4096)) >= 0, "touched")
            out, _ = ctx.st("sweep", "--cold", "--sizes", "4k", "--reps", "2", "--json", "--",
                            "cat", held, free_)
            text, _ = ctx.st("sweep", "--cold", "--sizes", "4k", "--reps", "1", "--",
                             "cat", held, free_)
        finally:
            m.close()
    j = json.loads(out)
    print(j["not_evicted"])
    expect(j["cold_runs"] == 2 and [k["path"] for k in j["not_evicted"]] == [held], j)
    expect(j["not_evicted"][0] == {"path": held, "runs": 2,
                                   "why": "256 of its 256 pages stayed cached (dirty, mapped or locked)"},
           j["not_evicted"])
    expect(f"not evicted before 1 of 1 runs: {held}: 256 of its 256 pages" in text, text)


def case_per_file(ctx):
    """SEEKTRACE_STORAGE=file: each file's device bytes, for read() (16 MiB)
    and for stdio's fread (8 MiB) read cold in one process; none without the
    setting; the same in the trace's footer."""
    f1, f2 = os.path.join(ctx.tmp, "one.dat"), os.path.join(ctx.tmp, "two.dat")
    make_file(f1, 16 * MIB)
    make_file(f2, 8 * MIB)
    plain, _ = ctx.reader("both", f1, f2, 65536)
    expect(all("device_read_bytes" not in r for r in plain["files"]), "per-file bytes unasked for")
    evict(f1)
    evict(f2)
    traces = os.path.join(ctx.tmp, "traces")
    r, own = ctx.reader("both", f1, f2, 65536,
                        env={"SEEKTRACE_STORAGE": "file", "SEEKTRACE_TRACE": traces})
    d1, d2 = file_row(r, f1)["device_read_bytes"], file_row(r, f2)["device_read_bytes"]
    print(f"read(): {d1}, fread(): {d2}, process {device(r)}")
    expect(abs(d1 - 16 * MIB) <= 16 * MIB * 5 // 100, f"{f1}: {d1}")
    expect(abs(d2 - 8 * MIB) <= 8 * MIB * 5 // 100, f"{f2}: {d2}")
    expect(d1 + d2 <= device(r), f"files {d1} + {d2} > process {device(r)}")
    (t,) = [os.path.join(traces, n) for n in os.listdir(traces)]
    j = json.loads(ctx.st("report", "--json", t)[0])
    expect((file_row(j, f1)["device_read_bytes"], file_row(j, f2)["device_read_bytes"]) == (d1, d2),
           "the trace's per-file device bytes differ from the report at exit")


def case_exec_baseline(ctx):
    """A process reads a cold 16 MiB file, then execs a program that reads
    a warm one: the kernel's counters run on over the exec, the library's
    baseline does not let the new image inherit the 16 MiB."""
    cold, warm = os.path.join(ctx.tmp, "cold.dat"), os.path.join(ctx.tmp, "warm.dat")
    make_file(cold, 16 * MIB)
    make_file(warm, MIB)
    evict(cold)
    with open(warm, "rb") as w:
        w.read()
    traces = os.path.join(ctx.tmp, "traces")
    script = ("import os, sys\n"
              "with open(sys.argv[1], 'rb') as f:\n"
              "    while f.read(1 << 20):\n"
              "        pass\n"
              "os.execv(sys.argv[2], [sys.argv[2], 'seq', sys.argv[3], '65536'])\n")
    e = dict(os.environ, LD_PRELOAD=ctx.a.lib, SEEKTRACE_TRACE=traces, SEEKTRACE_OUTPUT="/dev/null")
    p = subprocess.run([sys.executable, "-c", script, cold, ctx.a.reader, warm], env=e,
                       check=True, capture_output=True, timeout=120)
    own = json.loads(p.stdout.decode().strip().splitlines()[-1])
    # The kernel's figure carries the 16 MiB over the exec: what the baseline is for.
    expect(own["io_read_bytes"] >= 15 * MIB, f"/proc/self/io after the exec: {own}")
    got = {}
    for n in os.listdir(traces):
        j = json.loads(ctx.st("report", "--json", os.path.join(traces, n))[0])
        got[os.path.basename(j["argv"][0])] = j["totals"]["device_read_bytes"]
    print(got)
    before = [v for k, v in got.items() if k.startswith("python")]
    expect(len(before) == 1 and before[0] >= 15 * MIB, f"before the exec: {got}")
    expect(got.get("storage_reader") is not None and got["storage_reader"] < MIB,
           f"after the exec the new image was charged {got.get('storage_reader')} device bytes")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--seektrace", required=True)
    ap.add_argument("--reader", required=True)
    ap.add_argument("--demo", required=True)
    ap.add_argument("--dir", required=True, help="where the test files are made")
    ap.add_argument("case", nargs="?")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    os.makedirs(a.dir, exist_ok=True)
    if block_device(a.dir) is None:
        print(f"SKIP {a.case}: {a.dir} has no block device under it "
              f"(st_dev major 0: tmpfs, overlay or a network file system)")
        return SKIP
    tmp = tempfile.mkdtemp(dir=a.dir, prefix=f"st-storage-{a.case}-")
    try:
        CASES[a.case](Ctx(a, tmp))
    except Skip as e:
        print(f"SKIP {a.case}: {e}")
        return SKIP
    except Failure as e:
        print(f"FAIL {a.case}: {e}")
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"PASS {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
