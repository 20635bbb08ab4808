#!/usr/bin/env python3
"""Every test is labelled with its family and has a timeout.

    check_labels.py CTEST BUILD_DIR

`ctest -L unit` (or any family) must select every test of that family: a
test's label list must hold the first component of its name (unit.test_sort
-> unit), and a test without TIMEOUT would hang CI for ctest's default hour.
Reads ctest's own listing of the build tree. Exit 0 pass, 1 fail.
"""
import json
import subprocess
import sys


def main():
    ctest, build = sys.argv[1:3]
    listing = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, check=True,
                             capture_output=True, text=True).stdout
    tests = json.loads(listing)["tests"]
    bad = []
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        family = t["name"].split(".")[0]
        if family not in (props.get("LABELS") or []):
            bad.append(f"{t['name']}: labels {props.get('LABELS')} lack '{family}'")
        if "TIMEOUT" not in props:
            bad.append(f"{t['name']}: no TIMEOUT")
    for line in bad:
        print("FAIL", line)
    if len(tests) < 50 or bad:
        print(f"FAIL {len(bad)} of {len(tests)} tests")
        return 1
    print(f"ok: {len(tests)} tests, each labelled with its family and given a timeout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
