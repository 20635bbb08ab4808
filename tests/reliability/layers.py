#!/usr/bin/env python3
"""layers.py — src/preload's folders include downward only.

usage: layers.py PRELOAD_DIR FOLDER...   (FOLDER: bottom layer first; the
       order is declared once, SEEKTRACE_PRELOAD_FOLDERS in
       src/preload/CMakeLists.txt, which passes it here)

Fails, naming each file and line, on:
  - an #include "..." of a header that lives in a folder later in the order
    (an upward include: with a total order, that is also the only way two
    folders can include each other, so no upward include means no cycle);
  - a module cycle inside a folder (x.c or x.h includes y.h, and y's files
    include x.h, directly or round a longer loop);
  - a header name found in two folders (an include by name would be
    ambiguous), a C file, header or .def outside the declared folders, or a
    declared folder that does not exist.
Includes of headers outside src/preload (the core, the public headers,
system headers) are not its business.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, order = sys.argv[1], sys.argv[2:]
    rank = {f: i for i, f in enumerate(order)}
    problems = []

    where = {}  # file name -> folder
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if os.path.isdir(path):
            if entry not in rank:
                problems.append(f"{entry}/: a folder not in the declared order {order}")
                continue
            for name in sorted(os.listdir(path)):
                if not name.endswith((".c", ".h", ".def")):
                    continue  # each folder's README.md
                if name in where:
                    problems.append(f"{entry}/{name}: also in {where[name]}/ (includes by name "
                                    "would be ambiguous)")
                where[name] = entry
        elif entry.endswith((".c", ".h", ".def")):
            problems.append(f"{entry}: outside every folder")
    for f in order:
        if not os.path.isdir(os.path.join(root, f)):
            problems.append(f"{f}/: declared but missing")

    def module(name):
        return os.path.splitext(name)[0]

    edges = {}  # (folder, module) -> {(folder, module): "file:line"}
    for name, folder in sorted(where.items()):
        with open(os.path.join(root, folder, name), encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = os.path.basename(m.group(1))
                to = where.get(target)
                if to is None:
                    continue
                at = f"{folder}/{name}:{lineno}"
                if rank[to] > rank[folder]:
                    problems.append(f"{at}: includes {to}/{target}, a layer above {folder}/ "
                                    f"(order: {' < '.join(order)})")
                if to == folder and module(target) != module(name):
                    edges.setdefault(module(name), {}).setdefault(module(target), at)

    # Module cycles within a folder: depth-first search for a back edge.
    state, stack = {}, []

    def visit(u):
        state[u] = 1
        stack.append(u)
        for v, at in sorted(edges.get(u, {}).items()):
            if state.get(v) == 1:
                loop = stack[stack.index(v):] + [v]
                problems.append(f"{at}: closes the include cycle {' -> '.join(loop)}")
            elif v not in state:
                visit(v)
        stack.pop()
        state[u] = 2

    for u in sorted(edges):
        if u not in state:
            visit(u)

    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} layering problem(s) in {root}")
        return 1
    print(f"PASS: {len(where)} files in {len(order)} folders include downward only, "
          "no cycles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
