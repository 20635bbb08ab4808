"""Random seek + read(16) through Python's default buffered file object.

usage: py_seek.py FILE ITERATIONS [SEED]

The interpreter's io module makes its own lseek/read calls through libc's
PLT (seektrace's POSIX wrappers see them); the script itself is the workload
a user would run. Prints {"bytes": N, "calls": N}.
"""
import json
import os
import random
import sys

RECORD = 16


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: py_seek.py FILE ITERATIONS [SEED]")
    path, iterations = sys.argv[1], int(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 2006
    last = os.stat(path).st_size - RECORD
    rng = random.Random(seed)
    got = 0
    with open(path, "rb") as f:
        for _ in range(iterations):
            f.seek(rng.randint(0, last))
            got += len(f.read(RECORD))
    print(json.dumps({"bytes": got, "calls": iterations}))


if __name__ == "__main__":
    main()
