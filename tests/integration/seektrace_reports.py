"""Read the JSON reports (one per process) that seektrace wrote for a run."""
import collections
import glob
import json
import os
import re

SCHEMA = "seektrace.report/2"
# The per-file figures the tests compare; all are summed when several
# processes report the same file.
FIGURES = ("read_syscalls", "kernel_read_bytes", "lseek_syscalls", "write_syscalls",
           "kernel_write_bytes", "requested_bytes", "delivered_bytes")


# Every string in seektrace's JSON is bytes (docs/report-json.md, "Strings"):
# a byte outside well-formed UTF-8 is U+FFFD and its two hex digits (80-FF),
# and U+FFFD itself is written twice.
_BYTE_ESCAPE = re.compile(rb"\xef\xbf\xbd(\xef\xbf\xbd|[89A-F][0-9A-F])")


def name_bytes(s):
    """The exact bytes a string of seektrace's JSON stands for."""
    return _BYTE_ESCAPE.sub(lambda m: m[1] if len(m[1]) == 3 else bytes.fromhex(m[1].decode()),
                            s.encode("utf-8"))


class ReportError(Exception):
    pass


def load(report_dir, capture="exact"):
    """Every report in report_dir, each checked for schema and capture mode."""
    reports = []
    for path in sorted(glob.glob(os.path.join(report_dir, "report.*.json"))):
        with open(path, encoding="utf-8") as f:
            try:
                report = json.load(f)
            except json.JSONDecodeError as e:
                raise ReportError(f"{path}: not one JSON object: {e}") from None
        if report.get("schema") != SCHEMA:
            raise ReportError(f"{path}: schema {report.get('schema')!r}, expected {SCHEMA!r}")
        # An unexpected "inferred" means the jump-table hook failed.
        if report.get("capture") != capture:
            raise ReportError(f"{path}: capture {report.get('capture')!r} "
                              f"({report.get('capture_reason', 'no reason given')}), "
                              f"expected {capture!r}")
        reports.append(report)
    if not reports:
        raise ReportError(f"no report.*.json in {report_dir}: the library wrote no report")
    return reports


def of_process(reports, pid):
    """The report of process pid."""
    for report in reports:
        if report["pid"] == pid:
            return report
    raise ReportError(f"no report from pid {pid}, the traced command "
                      f"(reports came from pids {[r['pid'] for r in reports]})")


def per_path(reports):
    """{path: {figure: sum over the reports}}."""
    sums = collections.defaultdict(lambda: dict.fromkeys(FIGURES, 0))
    for report in reports:
        for entry in report["files"]:
            try:
                for figure in FIGURES:
                    sums[entry["path"]][figure] += entry[figure]
            except KeyError as e:
                raise ReportError(f"pid {report['pid']}: a file entry lacks {e}: {entry}") from None
    return dict(sums)


def reads_by(report, name, paths):
    """How many read syscalls the report charges to calls named name on these paths."""
    return sum(f["by_call"].get(name, {}).get("read_syscalls", 0)
               for f in report["files"] if f["path"] in paths)


def calls(report, name, paths):
    """How many calls named name the report counts on these paths."""
    return sum(f["calls"].get(name, 0) for f in report["files"] if f["path"] in paths)
