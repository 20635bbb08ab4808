#!/usr/bin/env python3
"""Transparency: a real program behaves identically with libseektrace
preloaded, and its report's kernel figures are strace's.

usage: test_transparency.py --make-inputs DIR
       test_transparency.py --lib LIB --ifstream PROG --inputs DIR NAME

The inputs are made once (a ctest fixture) and only read by the tests.
NAME is one of the programs in PROGRAMS. The program runs three times on the
same inputs:
  1. plainly: reference stdout, stderr, exit status, and the files it writes;
  2. with the preload (report to a JSON file, never to the program's stderr):
     stdout, stderr, exit status and every file written must be identical,
     and the inputs unchanged;
  3. with the preload, under strace -f -y -e trace=read,pread64,readv,preadv,
     preadv2,lseek: for every process and every file the program itself read
     (its inputs and its own outputs; not the loader's libraries, which are
     read before the library runs), read_syscalls, kernel_read_bytes and
     lseek_syscalls in the report must equal strace's count.
Exit: 0 pass, 1 fail, 77 a tool is missing (skipped).
"""
import argparse
import bz2
import gzip
import io
import lzma
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rl_common as rl  # noqa: E402

PY = "/usr/bin/python3"
PY_SCRIPT = r"""
import sys, hashlib
h = hashlib.sha256()
with open(sys.argv[1], 'rb') as f:
    for i in range(300):
        f.seek((i * 104729) % 280000)
        h.update(f.read(1 + i % 300))
    f.seek(0)
    h.update(f.read())
with open(sys.argv[2], encoding='utf-8') as f:
    n = sum(1 for _ in f)
with open(sys.argv[1], 'rb', buffering=0) as f:
    f.seek(-100, 2)
    h.update(f.read(50))
print(n, h.hexdigest())
"""
PERL_SCRIPT = r"""
open(my $b, '<:raw', $ARGV[0]) or die;
my ($sum, $buf) = (0, '');
for my $i (0..199) { seek($b, ($i * 7919) % 250000, 0); read($b, $buf, 64); $sum += unpack('%32C*', $buf); }
sysseek($b, 1000, 0); sysread($b, $buf, 4096); $sum += length $buf;
open(my $t, '<', $ARGV[1]) or die; my $n = 0; $n++ while <$t>;
print "$n $sum\n";
"""

# name: (argv, stdin) — {d} is the input directory; outputs go to the
# current directory (a fresh one per run), so argv is the same every run.
PROGRAMS = {
    "cat": (["cat", "{d}/in.txt", "{d}/in.bin"], None),
    "sort": (["sort", "-o", "sorted.txt", "{d}/in.txt"], None),
    "wc": (["wc", "{d}/in.txt", "{d}/in.bin"], None),
    "md5sum": (["md5sum", "{d}/in.txt", "{d}/in.bin"], None),
    "sha256sum_stdin": (["sha256sum"], "{d}/in.bin"),
    "head": (["head", "-c", "5000", "{d}/in.bin"], None),
    "tail": (["tail", "-n", "7", "{d}/in.txt"], None),
    "od": (["od", "-An", "-tx1", "-j", "70000", "-N", "64", "{d}/in.bin"], None),
    "grep": (["grep", "-n", "77", "{d}/in.txt"], None),
    "sed": (["sed", "-n", "s/line 1\\(.*\\)9$/LINE\\1/p", "{d}/in.txt"], None),
    "awk": (["awk", "{n += length($0)} END {print n, NR}", "{d}/in.txt"], None),
    "diff": (["diff", "{d}/in.txt", "{d}/in2.txt"], None),
    "cmp": (["cmp", "{d}/in.bin", "{d}/in2.bin"], None),
    "tar_create": (["tar", "-cf", "out.tar", "-C", "{d}", "in.txt", "in.bin"], None),
    "tar_extract": (["tar", "-xf", "{d}/in.tar"], None),
    "gzip": (["gzip", "-c", "{d}/in.bin"], None),
    "gunzip": (["gzip", "-dc", "{d}/in.gz"], None),
    "xz": (["xz", "-dc", "{d}/in.xz"], None),
    "bzip2": (["bzip2", "-dc", "{d}/in.bz2"], None),
    "base64": (["base64", "{d}/in.bin"], None),
    "python3": ([PY, "-c", PY_SCRIPT, "{d}/in.bin", "{d}/in.txt"], None),
    "perl": (["perl", "-e", PERL_SCRIPT, "{d}/in.bin", "{d}/in.txt"], None),
    "sqlite3": (["sqlite3", "-readonly", "{d}/db.sqlite",
                 "select count(*), sum(length(v)), max(k) from t;"], None),
    "git_log": (["git", "-C", "{d}/repo", "--no-pager", "log", "--stat", "--format=%H %an %s"], None),
    "git_cat_file": (["git", "-C", "{d}/repo", "cat-file", "-p", "HEAD:a.txt"], None),
    "git_config": (["git", "config", "--file", "{d}/repo/.git/config", "--list"], None),
    "readelf": (["readelf", "-a", "-W", "{d}/lib.so"], None),
    "nm": (["nm", "-D", "--defined-only", "{d}/lib.so"], None),
    "objdump": (["objdump", "-d", "{d}/prog.elf"], None),
    "file": (["file", "{d}/in.txt", "{d}/in.bin", "{d}/lib.so", "{d}/in.gz", "{d}/db.sqlite"], None),
    "jq": (["jq", "-c", "[.items[] | .n] | add", "{d}/data.json"], None),
    "cxx_ifstream": (["{ifstream}", "{d}/in.bin", "{d}/in.txt"], None),
}


STAMP = "inputs-complete"


def make_inputs(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rnd = random.Random(7)
    lines = [f"line {i} " + "x" * rnd.randrange(0, 120) + f" {rnd.randrange(10**6)}"
             for i in range(4000)]
    text = ("\n".join(lines) + "\n").encode()
    binary = rnd.randbytes(300_000)
    files = {
        "in.txt": text,
        "in2.txt": text.replace(b"line 2000 ", b"line 2000! ", 1),
        "in.bin": binary,
        "in2.bin": binary[:200_000] + b"\x00" + binary[200_001:],
        "in.gz": gzip.compress(text, mtime=0),
        "in.xz": lzma.compress(text),
        "in.bz2": bz2.compress(binary),
        "data.json": ('{"items": [' + ",".join(f'{{"n": {i}}}' for i in range(3000)) + "]}").encode(),
    }
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    tar_buf = io.BytesIO()
    with tarfile.open(fileobj=tar_buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name in ("in.txt", "in.gz"):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(files[name]), 0, 0o644
            t.addfile(info, io.BytesIO(files[name]))
    with open(os.path.join(d, "in.tar"), "wb") as f:
        f.write(tar_buf.getvalue())
    db = sqlite3.connect(os.path.join(d, "db.sqlite"))
    db.execute("create table t(k integer primary key, v text)")
    db.executemany("insert into t(v) values (?)", [(ln,) for ln in lines])
    db.commit()
    db.close()
    shutil.copyfile(os.path.realpath("/usr/lib/x86_64-linux-gnu/libz.so.1"), os.path.join(d, "lib.so"))
    shutil.copyfile("/usr/bin/true", os.path.join(d, "prog.elf"))
    if shutil.which("git"):
        repo = os.path.join(d, "repo")
        os.mkdir(repo)
        genv = rl.clean_env({"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@x",
                             "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@x",
                             "GIT_AUTHOR_DATE": "2020-01-01T00:00:00Z",
                             "GIT_COMMITTER_DATE": "2020-01-01T00:00:00Z"}, home=d)
        rl.sh(["git", "init", "-q", repo], env=genv)
        for i in range(3):
            with open(os.path.join(repo, "a.txt"), "ab") as f:
                f.write(text[i * 1000:(i + 1) * 1000])
            rl.sh(["git", "-C", repo, "add", "a.txt"], env=genv)
            rl.sh(["git", "-C", repo, "commit", "-q", "-m", f"commit {i}"], env=genv)
    open(os.path.join(d, STAMP), "w").close()


def expand(argv, d, ifstream):
    return [a.replace("{d}", d).replace("{ifstream}", ifstream) for a in argv]


def test(args):
    if not rl.have_strace():
        print("SKIP: no strace")
        return None
    argv_t, stdin_t = PROGRAMS[args.name]
    if not shutil.which(argv_t[0].replace("{ifstream}", args.ifstream)):
        print(f"SKIP: {argv_t[0]} not installed")
        return None
    d = os.path.realpath(args.inputs)
    if not os.path.exists(os.path.join(d, STAMP)):
        raise rl.Failure(f"no inputs in {d}: run --make-inputs first (the ctest fixture)")
    root = rl.tmpdir("seektrace-rl-tr-")
    try:
        inputs_before = rl.tree_digest(d)
        argv = expand(argv_t, d, args.ifstream)
        # stdin is the file itself, so that strace -y names it.
        stdin_path = stdin_t.replace("{d}", d) if stdin_t else None

        def workdir(name):
            w = os.path.join(root, name)
            os.mkdir(w)
            return w

        home = workdir("home")
        w_plain, w_pre, w_st = workdir("plain"), workdir("pre"), workdir("strace")
        rep_pre, rep_st = workdir("rep-pre"), workdir("rep-strace")
        plain = rl.run(argv, rl.clean_env(home=home), cwd=w_plain, stdin=stdin_path)
        pre = rl.run(argv, rl.preload_env(args.lib, rep_pre, home=home), cwd=w_pre, stdin=stdin_path)
        problems = rl.diff_behaviour(args.name, plain, pre)
        written_plain, written_pre = rl.tree_digest(w_plain), rl.tree_digest(w_pre)
        if written_plain != written_pre:
            problems.append(f"{args.name}: files written differ: plain {sorted(written_plain)} "
                            f"vs seektrace {sorted(written_pre)} (or their bytes)")
        if rl.tree_digest(d) != inputs_before:
            problems.append(f"{args.name}: the inputs were modified")
        if not rl.load_reports(rep_pre):
            problems.append(f"{args.name}: no report written")

        log = os.path.join(root, "strace.log")
        st = rl.strace_run(log, rl.preload_env(args.lib, rep_st, home=home), argv, cwd=w_st,
                           stdin=stdin_path)
        if st.returncode != plain.returncode or st.stdout != plain.stdout:
            problems.append(f"{args.name}: the strace run behaved differently "
                            f"({rl.status_text(st.returncode)}): {st.stderr[:300]!r}")
        counts = rl.parse_strace(log)
        reports = rl.load_reports(rep_st)
        mine = (d + "/", w_st + "/")
        more, rows = rl.compare_kernel(args.name, reports, counts, lambda p: p.startswith(mine))
        problems += more
        print("command:", " ".join(argv))
        print("\n".join(rows))
        if not rows:
            problems.append(f"{args.name}: no input file was read under strace: nothing compared")
        return problems
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print("kept", root)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--make-inputs", metavar="DIR")
    p.add_argument("--inputs", metavar="DIR")
    p.add_argument("--lib")
    p.add_argument("--ifstream")
    p.add_argument("--keep", action="store_true")
    p.add_argument("name", nargs="?", choices=sorted(PROGRAMS))
    args = p.parse_args()
    if args.make_inputs:
        make_inputs(os.path.realpath(args.make_inputs))
        return 0
    if not (args.lib and args.ifstream and args.inputs and args.name):
        p.error("--lib, --ifstream, --inputs and NAME are needed")
    args.lib = os.path.realpath(args.lib)
    return rl.main_wrapper(lambda: test(args))


if __name__ == "__main__":
    sys.exit(main())
