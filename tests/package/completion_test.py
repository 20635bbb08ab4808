#!/usr/bin/env python3
"""The shell completion of seektrace against the command's own help texts.

    completion_test.py bash SEEKTRACE COMPLETION_FILE
    completion_test.py zsh  SEEKTRACE COMPLETION_FILE

Reads `seektrace --help` and `seektrace SUB --help` (its subcommands, and
every --option each names outside a quoted example of another command, the
-s aliases in its option lines, and "a|b|c" value lists), then asks the completion
itself: bash by calling its function with COMP_WORDS set as readline sets
them; zsh by loading it through compinit and calling it with _arguments and
_describe replaced by functions that print what they were given. Each
subcommand must offer exactly its options, each value list its values, and
the top level every subcommand; bash also completes commands after run's
'--' and file names for report. Exit 0 pass, 1 fail.
"""
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def helptext(seektrace, *sub):
    return subprocess.run([seektrace, *sub, "--help"], check=True, capture_output=True,
                          text=True).stdout


def parse(seektrace):
    """{sub: (options, {option: [choices]})} and the subcommands in order."""
    subs = re.findall(r"^  ([a-z][a-z0-9-]*) ", helptext(seektrace), re.M)
    table = {}
    for sub in subs:
        text = re.sub(r"'seektrace[^']*'", "''", helptext(seektrace, sub))
        opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))
        for line in text.splitlines():  # short aliases, in an option line's synopsis
            m = re.match(r"^  (-\S*(?: \S+)*)  +", line)
            if m and "--" in m.group(1):
                opts |= set(re.findall(r"(?:^|[ ,])(-[a-zA-Z])(?=,| |$)", m.group(1)))
        choices = {}
        for opt, vals in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)[ =]([a-z0-9]+(?:\|[a-z0-9]+)+)", text):
            choices[opt] = vals.split("|")
        table[sub] = (opts, choices)
    return subs, table


def shell_words(words):
    return " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)


def batched(shell, setup, one, cases):
    """Runs ONE(words) for every case in a single shell after SETUP; each
    case's output lines, in order."""
    prog = setup + "".join(f"print_case_marker {i}\n" + one(w) for i, w in enumerate(cases))
    p = subprocess.run(shell, input=prog, capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        FAILURES.append(f"{shell[0]}: {p.stderr.strip()}")
    out = [[] for _ in cases]
    preamble = []
    i = None
    for line in p.stdout.splitlines():
        m = re.fullmatch(r"@@case (\d+)", line)
        if m:
            i = int(m.group(1))
        elif line:
            (out[i] if i is not None else preamble).append(line)
    return preamble, out


def bash_complete(script, cases):
    """COMPREPLY of the bash completion for each command line (the last word
    being completed), split as readline splits '--opt=value'."""
    def one(words):
        split = []
        for w in words:
            if re.match(r"^--[a-z-]+=", w):
                o, v = w.split("=", 1)
                split += [o, "=", v]
            else:
                split.append(w)
        return (f"COMP_WORDS=({shell_words(split)}); COMP_CWORD={len(split) - 1}; COMPREPLY=()\n"
                "_seektrace; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    setup = f"source '{script}'\nprint_case_marker() {{ echo \"@@case $1\"; }}\n"
    return batched(["bash", "--norc", "--noprofile", "-s"], setup, one, cases)[1]


def test_bash(script, subs, table):
    tmp = tempfile.mkdtemp()
    trace = os.path.join(tmp, "app.1.sktrace")
    open(trace, "w").close()
    cases, expect = [], []

    def case(words, want, what):
        cases.append(words)
        expect.append((want, what))

    case(["seektrace", ""], lambda got: got == subs, f"'seektrace <TAB>' offers the subcommands {subs}")
    case(["seektrace", "r"], lambda got: got == [s for s in subs if s.startswith("r")],
         "'seektrace r<TAB>' offers the subcommands starting with r")
    case(["seektrace", "-"], lambda got: "--help" in got, "'seektrace -<TAB>' offers --help")
    for sub in subs:
        opts, choices = table[sub]
        case(["seektrace", sub, "-"], lambda got, opts=opts: set(got) == opts,
             f"{sub} offers every option its --help names and no other: {sorted(opts)}")
        for opt, vals in choices.items():
            case(["seektrace", sub, opt, ""], lambda got, vals=vals: got == vals,
                 f"{sub} {opt} <TAB> offers {vals}")
            first = vals[-1][:1]
            case(["seektrace", sub, f"{opt}={first}"],
                 lambda got, vals=vals, first=first: got == [v for v in vals if v.startswith(first)],
                 f"{sub} {opt}={first}<TAB> offers its values from that letter")
    # What follows the options: a command line (run), files (report).
    case(["seektrace", "run", "--", "ech"], lambda got: "echo" in got,
         "'seektrace run -- ech<TAB>' offers the echo command")
    case(["seektrace", "report", os.path.join(tmp, "app")], lambda got: got == [trace],
         "'seektrace report DIR/app<TAB>' completes the trace file")
    case(["seektrace", "run", "--trace", os.path.join(tmp, "")], lambda got: got == [],
         "'seektrace run --trace DIR/<TAB>' offers directories only (none there)")
    for (want, what), got in zip(expect, bash_complete(script, cases)):
        check(want(got), f"bash: {what} (got {got})")
    os.unlink(trace)
    os.rmdir(tmp)


ZSH_STUBS = r"""
_arguments() { local a; for a in "$@"; do print -r -- "ARG $a"; done }
_describe() { local n; for n in ${(P)${@[-1]}}; do print -r -- "SUB ${n%%:*}"; done }
"""


def zsh_complete(script, cases):
    """What the zsh completion hands to _arguments/_describe for each
    command line, after compinit has bound it."""
    d = os.path.dirname(script)
    setup = (f"fpath=('{d}' $fpath)\nautoload -Uz compinit\ncompinit -u -D\n"
             "print -r -- \"COMPDEF ${_comps[seektrace]}\"\n" + ZSH_STUBS +
             "print_case_marker() { print -r -- \"@@case $1\" }\nautoload -Uz _seektrace\n")

    def one(words):
        return (f"words=({shell_words(words)}); CURRENT={len(words)}; PREFIX={shell_words(words[-1:])}\n"
                "curcontext=:complete:seektrace:; _seektrace\n")
    return batched(["zsh", "-f", "-s"], setup, one, cases)


def test_zsh(script, subs, table):
    pre, outs = zsh_complete(script, [["seektrace", ""]] + [["seektrace", sub, "-"] for sub in subs])
    check("COMPDEF _seektrace" in pre, f"zsh: compinit binds seektrace to _seektrace (#compdef): {pre}")
    got_subs = [l[4:] for l in outs[0] if l.startswith("SUB ")]
    check(got_subs == subs, f"zsh: 'seektrace <TAB>' offers the subcommands {subs} (got {got_subs})")
    for sub, out in zip(subs, outs[1:]):
        opts, choices = table[sub]
        args = [l[4:] for l in out if l.startswith("ARG ")]
        specs = args[args.index(":") + 1:] if ":" in args else args  # after _arguments' own flags
        got = {}
        for spec in specs:
            m = re.match(r"^(?:\([^)]*\))?\*?(-{1,2}[a-zA-Z][a-z0-9-]*)(?:\[[^]]*\])?(.*)$", spec)
            if m:
                got[m.group(1)] = m.group(2)
        check(set(got) == opts, f"zsh: {sub} offers every option its --help names and no other "
              f"(missing {sorted(opts - set(got))}, extra {sorted(set(got) - opts)})")
        for opt, vals in choices.items():
            check(got.get(opt, "").endswith(":(" + " ".join(vals) + ")"),
                  f"zsh: {sub} {opt} takes one of {vals} ({got.get(opt)})")
        if sub == "run":
            check(any("_normal" in s for s in specs), "zsh: run completes a command line after its options")


def main():
    shell, seektrace, script = sys.argv[1:4]
    subs, table = parse(seektrace)
    check(len(subs) >= 7 and "run" in subs and "report" in subs,
          f"the help lists the subcommands ({subs})")
    check(all(table[s][0] for s in subs), "every subcommand's help names its options")
    if shell == "bash":
        test_bash(script, subs, table)
    else:
        test_zsh(script, subs, table)
    if FAILURES:
        for f in FAILURES:
            print("FAIL", f)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
