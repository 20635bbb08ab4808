"""Python file objects doing seek + read(16), for seektrace's POSIX wrappers.

  raw       open(..., buffering=0): every f.read(16) is one read(fd, 16)
  buffered  the default BufferedReader: the interpreter asks the kernel for
            its buffer size, and only those requests are visible to seektrace

usage: py_seek.py raw|buffered FILE ITERATIONS SEED
Prints the same JSON line as the C workloads.
"""
import json
import os
import random
import sys

RECORD = 16


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("raw", "buffered"):
        sys.exit("usage: py_seek.py raw|buffered FILE ITERATIONS SEED")
    mode, path, iterations, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    last = os.stat(path).st_size - RECORD
    rng = random.Random(seed)
    requested = delivered = calls = 0
    with open(path, "rb", buffering=0 if mode == "raw" else -1) as f:
        for _ in range(iterations):
            f.seek(rng.randint(0, last))
            delivered += len(f.read(RECORD))
            requested += RECORD
            calls += 1
    print(json.dumps({"requested": requested, "delivered": delivered, "calls": calls}))


if __name__ == "__main__":
    main()
