"""Run a command under strace and sum its read, lseek and write syscalls per file.

strace is the reference: whatever seektrace reports about the kernel must equal
what this module counts from strace's log of the very same run.
"""
import collections
import dataclasses
import re
import subprocess

READS = ("read", "pread64", "readv", "preadv", "preadv2")
WRITES = ("write", "pwrite64", "writev", "pwritev", "pwritev2")
SEEKS = ("lseek",)
# Calls whose byte count is a plain argument: name -> its index from the end.
COUNT_ARG = {"read": -1, "pread64": -2}
WRITE_COUNT_ARG = {"write": -1, "pwrite64": -2}
# The others give it as iovecs, printed whole only with full_arrays.
_IOV_LEN = re.compile(r"iov_len=(\d+)")


def command(log_path, env_for_tracee, argv, full_arrays=False):
    """The strace command line that traces argv into log_path.

    -f follows popen's shell and cat; -y names each fd's file the way
    /proc/self/fd does; -s 0 drops buffer contents, which keeps the log small
    and free of bytes that could look like syntax; -qq and -e signal=none leave
    only syscall lines; -E sets the environment of the tracee alone, so strace
    itself never runs with the preload. full_arrays: every iovec of a writev
    (-e abbrev=none), whose lengths sum to the bytes it was handed.
    """
    env_args = [arg for name, value in env_for_tracee.items() for arg in ("-E", f"{name}={value}")]
    trace = ",".join(READS + WRITES + SEEKS)
    abbrev = ["-e", "abbrev=none"] if full_arrays else []
    return ["strace", "-f", "-y", "-qq", "-s", "0", "-e", "signal=none", *abbrev,
            "-e", f"trace={trace}", "-o", log_path, *env_args, "--", *argv]


@dataclasses.dataclass
class FileSyscalls:
    read_syscalls: int = 0
    kernel_read_bytes: int = 0
    read_count_args: int = 0  # bytes asked for by read/pread64 (their count argument)
    lseek_syscalls: int = 0
    write_syscalls: int = 0
    kernel_write_bytes: int = 0
    write_count_args: int = 0  # bytes handed to the writes that did not fail (full_arrays)
    # Per syscall name: [calls, bytes written].
    writes_by_name: dict = dataclasses.field(default_factory=lambda: collections.defaultdict(
        lambda: [0, 0]))


class LogError(Exception):
    pass


_LINE = re.compile(r"(?P<pid>\d+)\s+(?P<rest>.*)")
_RESUMED = re.compile(r"<\.\.\. (?P<name>\w+) resumed>(?P<rest>.*)")
_UNFINISHED = " <unfinished ...>"
# name(fd<path>, args) = ret [ERRNO (text) | (flags)]. The path is optional
# (an invalid fd has none) and ends "(deleted)" once unlinked (a memfd's
# always); args run to the last ") =" on the line.
_CALL = re.compile(r"(?P<name>\w+)\((?P<fd>-?\d+)(?:<(?P<path>.*?)>(?:\(deleted\))?)?(?=[,)])"
                   r"(?P<args>.*)\)\s+=\s+(?P<ret>-?\d+|\?)(?P<tail>.*)")


def parse(log_path):
    """(pid of the traced command, {path: FileSyscalls} for every file touched).

    The first line of the log is the command's own: its dynamic loader reads
    libraries before the program can start any other process."""
    first_pid = None
    per_path = collections.defaultdict(FileSyscalls)
    pending = {}  # pid -> the first half of a call another process interrupted
    with open(log_path, encoding="utf-8", errors="surrogateescape") as log:
        for number, raw in enumerate(log, 1):
            line = _LINE.fullmatch(raw.rstrip("\n"))
            if not line:
                raise LogError(f"{log_path}:{number}: no pid prefix: {raw!r}")
            pid, rest = line["pid"], line["rest"]
            first_pid = first_pid or int(pid)
            if rest.endswith(_UNFINISHED):
                pending[pid] = rest[: -len(_UNFINISHED)]
                continue
            resumed = _RESUMED.fullmatch(rest)
            if resumed:
                if pid not in pending:
                    raise LogError(f"{log_path}:{number}: resumed call never started: {raw!r}")
                rest = pending.pop(pid) + resumed["rest"]
            _count(rest, per_path, f"{log_path}:{number}")
    # A call still pending here never returned (its process was killed in it):
    # it was made, but transferred nothing we could know of.
    for rest in pending.values():
        _count(rest + ") = ?", per_path, f"{log_path}: unfinished")
    if first_pid is None:
        raise LogError(f"{log_path}: empty")
    return first_pid, dict(per_path)


def _count(call_text, per_path, where):
    call = _CALL.fullmatch(call_text)
    if not call:
        raise LogError(f"{where}: cannot parse: {call_text!r}")
    name, ret = call["name"], call["ret"]
    if ret == "?" and "ERESTART" in call["tail"]:
        return  # interrupted and restarted by the kernel: the restart is logged as its own call
    counts = per_path[call["path"]]
    transferred = max(int(ret), 0) if ret != "?" else 0  # -1 is an error, not bytes
    if name in READS:
        counts.read_syscalls += 1
        counts.kernel_read_bytes += transferred
        if name in COUNT_ARG and ret != "?":  # a call that never returned shows no count
            counts.read_count_args += int(call["args"].split(",")[COUNT_ARG[name]])
    elif name in WRITES:
        counts.write_syscalls += 1
        counts.kernel_write_bytes += transferred
        counts.writes_by_name[name][0] += 1
        counts.writes_by_name[name][1] += transferred
        if ret not in ("?", "-1"):
            if name in WRITE_COUNT_ARG:
                counts.write_count_args += int(call["args"].split(",")[WRITE_COUNT_ARG[name]])
            else:
                counts.write_count_args += sum(map(int, _IOV_LEN.findall(call["args"])))
    elif name in SEEKS:
        counts.lseek_syscalls += 1
    else:
        raise LogError(f"{where}: unexpected syscall {name}")


def run(log_path, env, env_for_tracee, argv, stdin_bytes, timeout, full_arrays=False):
    """Run argv under strace; its CompletedProcess (stdout, stderr are the tracee's)."""
    return subprocess.run(command(log_path, env_for_tracee, argv, full_arrays), env=env,
                          input=stdin_bytes, capture_output=True, timeout=timeout)
