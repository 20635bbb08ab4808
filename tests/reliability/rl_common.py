"""Shared pieces of the reliability tests: running a command plainly, with the
preload, and with the preload under strace; reading strace's log per process
and per file; reading the JSON reports; comparing them.

Every comparison here is exact. A figure that differs is a failure, with the
command, the pid, the file and both numbers printed.
"""
import collections
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

SKIP = 77
READS = ("read", "pread64", "readv", "preadv", "preadv2")
SEEKS = ("lseek",)
# Traced only to learn which pids are threads of which process: strace -f
# prints thread ids, the reports process ids.
CLONES = ("clone", "clone3")
# The figures compared with strace, per process and file.
KERNEL_FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls")


class Failure(Exception):
    pass


def lib_preload(lib):
    """LD_PRELOAD for the library; in a sanitized build the ASan runtime must
    come first (SEEKTRACE_TEST_PRELOAD_PREFIX, set by CMake)."""
    prefix = os.environ.get("SEEKTRACE_TEST_PRELOAD_PREFIX", "")
    return (prefix + " " + lib).strip()


def clean_env(extra=None, home=None):
    """A fixed environment: nothing from the caller that could instrument the
    plain run or change a program's behaviour between runs."""
    env = {
        "PATH": "/usr/bin:/bin",
        "LC_ALL": "C.UTF-8",
        "HOME": home or tempfile.gettempdir(),
        "TZ": "UTC",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
    }
    # A sanitized library must not make the traced program fail on its own
    # leaks; the sanitizer still aborts on any error in our code.
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(extra or {})
    return env


def preload_env(lib, report_dir, extra=None, home=None, fmt="json"):
    e = {"LD_PRELOAD": lib_preload(lib), "SEEKTRACE_FORMAT": fmt,
         "SEEKTRACE_OUTPUT": os.path.join(report_dir, "report.%p.json")}
    e.update(extra or {})
    return clean_env(e, home)


def _stdin_args(stdin):
    """stdin: None (empty), bytes (a pipe), or a path (the file itself)."""
    if isinstance(stdin, str):
        return {"stdin": open(stdin, "rb")}
    if stdin is None:
        return {"stdin": subprocess.DEVNULL}
    return {"input": stdin}


def run(argv, env, cwd=None, stdin=None, timeout=30, pass_fds=()):
    kw = _stdin_args(stdin)
    try:
        return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, timeout=timeout,
                              pass_fds=pass_fds, **kw)
    finally:
        if "stdin" in kw and kw["stdin"] is not subprocess.DEVNULL:
            kw["stdin"].close()


def status_text(rc):
    return f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}"


# --- strace ------------------------------------------------------------------

_LINE = re.compile(r"(?P<pid>\d+)\s+(?P<rest>.*)")
_RESUMED = re.compile(r"<\.\.\. (?P<name>\w+) resumed>(?P<rest>.*)")
_UNFINISHED = " <unfinished ...>"
_CALL = re.compile(r"(?P<name>\w+)\((?P<fd>-?\d+)(?:<(?P<path>.*?)>)?(?=[,)])"
                   r"(?P<args>.*)\)\s+=\s+(?P<ret>-?\d+|\?)(?P<tail>.*)")


def strace_argv(log, env_for_tracee, argv):
    """strace of argv (-f: every process; -y: each fd's file, as /proc/self/fd
    names it). -E gives the environment to the tracee alone: strace itself
    never runs with the preload."""
    env_args = []
    for k, v in env_for_tracee.items():
        env_args += ["-E", f"{k}={v}"]
    return ["strace", "-f", "-y", "-qq", "-s", "0", "-e", "signal=none",
            "-e", "trace=" + ",".join(READS + SEEKS + CLONES), "-o", log, *env_args, "--", *argv]


def strace_run(log, tracee_env, argv, cwd=None, stdin=None, timeout=60):
    """Runs argv under strace, the tracee with exactly tracee_env."""
    return run(strace_argv(log, tracee_env, argv), clean_env(), cwd=cwd, stdin=stdin,
               timeout=timeout)


_CLONE = re.compile(r"(?P<name>clone3?)\((?P<args>.*)\)\s+=\s+(?P<ret>-?\d+|\?)(?P<tail>.*)")


def parse_strace(log):
    """{(pid, path): {figure: n}} from a strace log, threads' syscalls under
    their process's id (the report's pid)."""
    tids = []  # (tid, pid, its calls)
    thread_of = {}
    out = collections.defaultdict(lambda: dict.fromkeys(KERNEL_FIGURES, 0))
    pending = {}
    with open(log, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            m = _LINE.fullmatch(raw.rstrip("\n"))
            if not m:
                raise Failure(f"{log}: unparsable line {raw!r}")
            pid, rest = int(m["pid"]), m["rest"]
            if rest.endswith(_UNFINISHED):
                pending[pid] = rest[: -len(_UNFINISHED)]
                continue
            r = _RESUMED.fullmatch(rest)
            if r:
                rest = pending.pop(pid, "") + r["rest"]
            c = _CLONE.fullmatch(rest)
            if c:
                if "CLONE_THREAD" in c["args"] and c["ret"] not in ("?",) and int(c["ret"]) > 0:
                    thread_of[int(c["ret"])] = pid
                continue
            tids.append((pid, rest))
    for pid, rest in pending.items():
        if not _CLONE.match(rest + ") = ?"):
            tids.append((pid, rest + ") = ?"))

    def process(tid):
        while tid in thread_of:
            tid = thread_of[tid]
        return tid

    for tid, rest in tids:
        _count(process(tid), rest, out)
    return dict(out)


def _count(pid, text, out):
    c = _CALL.fullmatch(text)
    if not c:
        if text.startswith(("+++", "---")):
            return
        raise Failure(f"strace: cannot parse {text!r}")
    if c["ret"] == "?" and "ERESTART" in c["tail"]:
        return
    fig = out[(pid, c["path"])]
    if c["name"] in READS:
        fig["read_syscalls"] += 1
        if c["ret"] != "?":
            fig["kernel_read_bytes"] += max(int(c["ret"]), 0)
    elif c["name"] in SEEKS:
        fig["lseek_syscalls"] += 1


# --- reports -----------------------------------------------------------------

def load_reports(report_dir):
    """Every JSON report in report_dir (several per pid when it exec'd)."""
    reports = []
    for path in sorted(glob.glob(os.path.join(report_dir, "report.*"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            rep = json.loads(text)
        except json.JSONDecodeError as e:
            raise Failure(f"{path}: not one JSON object ({e}): {text[:200]!r}") from None
        if rep.get("schema") != "seektrace.report/2":
            raise Failure(f"{path}: schema {rep.get('schema')!r}")
        if rep.get("capture") != "exact":
            raise Failure(f"{path}: capture {rep.get('capture')!r}: {rep.get('capture_reason')}")
        rep["_file"] = path
        reports.append(rep)
    return reports


def report_figures(reports, figures=KERNEL_FIGURES):
    """{(pid, path): {figure: sum}} over the reports."""
    out = collections.defaultdict(lambda: dict.fromkeys(figures, 0))
    for rep in reports:
        for f in rep["files"]:
            for k in figures:
                out[(rep["pid"], f["path"])][k] += f[k]
    return dict(out)


def compare_kernel(label, reports, strace_counts, wanted_path, require_pids=None):
    """Mismatches between the reports and strace on every (pid, path) for
    which wanted_path(path) is true. Also fails when a process that read such
    a file under strace left no report."""
    mine = report_figures(reports)
    keys = {k for k in set(mine) | set(strace_counts) if k[1] and wanted_path(k[1])}
    problems, rows = [], []
    zero = dict.fromkeys(KERNEL_FIGURES, 0)
    report_pids = {r["pid"] for r in reports}
    for key in sorted(keys):
        a, b = mine.get(key, zero), strace_counts.get(key, zero)
        if not any(b.values()) and not any(a.values()):
            continue
        if key[0] not in report_pids and any(b.values()):
            problems.append(f"{label}: pid {key[0]} read {key[1]} ({b}) but wrote no report")
            continue
        for fig in KERNEL_FIGURES:
            ok = a[fig] == b[fig]
            rows.append(f"{'ok' if ok else 'MISMATCH':8} pid {key[0]} {key[1]} {fig}: "
                        f"seektrace={a[fig]} strace={b[fig]}")
            if not ok:
                problems.append(f"{label}: pid {key[0]} {key[1]} {fig}: "
                                f"seektrace={a[fig]} strace={b[fig]}")
    for pid in require_pids or ():
        if pid not in report_pids:
            problems.append(f"{label}: no report from pid {pid}")
    return problems, rows


def tree_digest(root, exclude=()):
    """{relative path: bytes} of every regular file under root."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in exclude]
        for n in filenames:
            p = os.path.join(dirpath, n)
            if p in exclude or os.path.islink(p):
                continue
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


def diff_behaviour(label, plain, pre):
    problems = []
    if plain.returncode != pre.returncode:
        problems.append(f"{label}: status {status_text(plain.returncode)} plain, "
                        f"{status_text(pre.returncode)} with seektrace")
    for what in ("stdout", "stderr"):
        a, b = getattr(plain, what), getattr(pre, what)
        if a != b:
            problems.append(f"{label}: {what} differs with seektrace:\n  plain: {a[:300]!r}\n"
                            f"  seektrace: {b[:300]!r}")
    return problems


def have_strace():
    return shutil.which("strace") is not None


def main_wrapper(fn):
    """Runs fn(); prints the problems it returns; exit status for ctest."""
    try:
        problems = fn()
    except Failure as e:
        problems = [str(e)]
    except subprocess.TimeoutExpired as e:
        problems = [f"timed out (deadlock?): {e.cmd}"]
    if problems is None:
        return SKIP
    for p in problems:
        print("FAIL:", p)
    if not problems:
        print("PASS")
    return 1 if problems else 0


def tmpdir(prefix):
    return os.path.realpath(tempfile.mkdtemp(prefix=prefix))


def sh(cmd, **kw):
    subprocess.run(cmd, check=True, capture_output=True, **kw)


if __name__ == "__main__":
    sys.exit("a module, not a script")
