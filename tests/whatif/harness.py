"""What the whatif-label test drivers share: failing a case, and running one.

    harness.main(CASES, ["--seektrace", "--lib", ...], "st-whatif-")

runs the case named on the command line in a fresh temporary directory with
the given options (all required); exit 0 pass, 1 fail.
"""
import argparse
import tempfile


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def main(cases, options, prefix):
    p = argparse.ArgumentParser()
    for o in options:
        p.add_argument(o, required=True)
    p.add_argument("case", choices=sorted(cases))
    a = p.parse_args()
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        try:
            cases[a.case](a, tmp)
        except Failure as e:
            print(f"FAIL {a.case}: {e}")
            return 1
    print(f"ok {a.case}")
    return 0
