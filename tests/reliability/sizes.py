#!/usr/bin/env python3
"""The house limits on size: every C file at most 800 lines, every function
at most 150 (README, "House rules"), for every C source and header under
the directories given (CMake passes src/ and tools/).

Function extents are read from the source itself, with no ctags: comments,
string and character literals and preprocessor lines (with their
continuations, so a macro's body is not a function) are blanked out, then
braces are counted. A brace opened at file depth 0 right after a ')' (the
parameter list, or an __attribute__ after it) opens a function body; one
after '=' or a name (an initializer, a struct, an enum) does not. The
function's first line is its declaration's: the first line after the
previous top-level ';', '}' or preprocessor line that holds code. A file
whose braces do not balance, or go below depth 0, is reported as an error
rather than measured wrong.

Exceptions only through the allow-list (sizes_allow.txt beside this file):
one line per exception, `path function` or `path *` (the file's length),
each with a comment saying why. An entry that no longer matches an
oversized file or function is reported too, so the list cannot go stale.

Usage: sizes.py SOURCE_DIR DIR... (DIR relative to SOURCE_DIR)."""
import os
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 150
SUFFIXES = (".c", ".h", ".cpp", ".def")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NOT_NAMES = {"__attribute__", "if", "while", "for", "switch", "return", "sizeof"}


def blank(text):
    """text with comments, literals and preprocessor lines replaced by
    spaces, newlines kept, so offsets and line numbers stay the same."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True

    def blank_comment(start):
        """Blanks the /* comment */ at start, newlines kept; returns its end."""
        end = text.find("*/", start + 2)
        end = n if end < 0 else end + 2
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "
        return end

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":
            # A directive, up to an unescaped end of line; comments inside
            # it are blanked with it.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                if text.startswith("/*", i):
                    i = blank_comment(i)
                    continue
                out[i] = " "
                i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if text.startswith("/*", i):
            i = blank_comment(i)
            continue
        if c in "\"'":
            quote = c
            out[i] = " "
            i += 1
            while i < n and text[i] != quote and text[i] != "\n":
                step = 2 if text[i] == "\\" else 1
                for k in range(i, min(i + step, n)):
                    out[k] = " "
                i += step
            if i < n and text[i] == quote:
                out[i] = " "
                i += 1
            continue
        i += 1
    return "".join(out)


def function_name(header):
    """The name a function definition's text before its '{' declares: the
    identifier before the first '(' that is not an attribute. A definition
    made by a macro (ST_EXPORT(ret, name, params)) is named by the macro's
    second argument when it has one."""
    for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", header):
        name = m.group(1)
        if name in NOT_NAMES:
            continue
        if name.isupper() or name.startswith("ST_"):
            args = header[m.end():].split(",")
            if len(args) > 1 and IDENT.fullmatch(args[1].strip()):
                return args[1].strip()
        return name
    return "?"


def functions(path, text):
    """(name, first line, last line) of every function defined in text."""
    code = blank(text)
    found = []
    depth = 0
    start = 0           # offset where the current top-level declaration began
    body = None         # (name, first line) of the function being read
    line = 1
    last_sig = None     # last significant character at depth 0
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
            continue
        if c.isspace():
            continue
        if c == "{":
            if depth == 0:
                if last_sig == ")":
                    header = code[start:i]
                    lead = len(header) - len(header.lstrip())
                    first = line - header.count("\n", lead)
                    body = (function_name(header), first)
                else:
                    body = None
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{path}:{line}: '}}' closes more than was opened")
            if depth == 0:
                if body:
                    found.append((body[0], body[1], line))
                    body = None
                start = i + 1
                last_sig = "}"
                continue
        elif depth == 0 and c == ";":
            start = i + 1
        if depth == 0:
            last_sig = c
    if depth != 0:
        raise ValueError(f"{path}: braces do not balance (depth {depth} at the end)")
    return found


def load_allow(path):
    allow = {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            fields = text.split()
            if len(fields) != 2:
                raise ValueError(f"{path}:{number}: want 'path function' or 'path *'")
            if "#" not in raw:
                raise ValueError(f"{path}:{number}: an exception needs a comment saying why")
            allow[(fields[0], fields[1])] = number
    return allow


def sources(root, dirs):
    for d in dirs:
        for base, subdirs, names in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.join(base, name)


SELF_TEST = """\
#define MACRO(x) { if (x) { \\
        return; } }
struct s { int a; };            /* not a function: { after a name */
static const int t[] = {1, 2};  /* nor after '=' */
static int
first(int a)
{
    const char *q = "}{ \\" }";   // braces in strings and comments: none
    char c = '{';
    return a + (c == '}');
}
__attribute__((noinline)) static void second(void) __attribute__((cold))
{
#include "x.h" /* { */
    /* } */
}
ST_EXPORT(int, third, (int a))
{
    return a;
}
"""


def self_test():
    """The parser against a text whose answer is known: a checker that read
    extents wrong would pass oversized functions unseen."""
    got = functions("self-test", SELF_TEST)
    want = [("first", 5, 11), ("second", 12, 16), ("third", 17, 20)]
    if got != want:
        sys.exit(f"sizes.py self-test: found {got}, expected {want}")
    for bad in ("int f(void) { {", "int f(void) { } }"):
        try:
            functions("self-test", bad)
        except ValueError:
            continue
        sys.exit(f"sizes.py self-test: unbalanced {bad!r} not reported")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    self_test()
    root, dirs = sys.argv[1], sys.argv[2:]
    allow = load_allow(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sizes_allow.txt"))
    used = set()
    problems = []
    checked_files = checked_functions = 0
    for path in sources(root, dirs):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        checked_files += 1
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > MAX_FILE_LINES:
            if (rel, "*") in allow:
                used.add((rel, "*"))
            else:
                problems.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES})")
        try:
            found = functions(rel, text)
        except ValueError as e:
            problems.append(str(e))
            continue
        for name, first, last in found:
            checked_functions += 1
            length = last - first + 1
            if length <= MAX_FUNCTION_LINES:
                continue
            if (rel, name) in allow:
                used.add((rel, name))
            else:
                problems.append(f"{rel}:{first}: {name} is {length} lines "
                                f"(at most {MAX_FUNCTION_LINES})")
    for key, number in sorted(allow.items(), key=lambda kv: kv[1]):
        if key not in used:
            problems.append(f"sizes_allow.txt:{number}: {key[0]} {key[1]} is within the "
                            "limits now (or gone): remove the entry")
    print(f"{checked_files} files, {checked_functions} functions checked; "
          f"{len(used)} allowed exceptions")
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
