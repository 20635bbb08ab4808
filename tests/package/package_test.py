#!/usr/bin/env python3
"""The installed package, as another project and a Debian machine see it.

    package_test.py cmake-consumer     --build B --prefix P --cmake CMAKE --ctest CTEST
    package_test.py pkgconfig-consumer --build B --prefix P --cc CC
    package_test.py deb                --build B --cpack CPACK --version V
    (and --bindir, --libdir, ... : the tree's relative CMAKE_INSTALL_*DIR)

cmake-consumer and pkgconfig-consumer install the build tree B (configured
with prefix P) into a scratch DESTDIR, then build downstream/reader.c
against that install: with find_package(seektrace) (downstream/, whose own
ctest runs it under the preload library through seektrace_add_test) or with
pkg-config's flags. deb builds the Debian package of B with cpack, checks
its metadata (dpkg-deb -I) and contents, unpacks it into a scratch root
(dpkg -x) and runs the demo with the seektrace command from there.

Every figure is checked against what the program counted on its own side:
its read() calls are its read syscalls, their bytes the kernel bytes; the
demo's fseek count its lseeks (each fseek of a user-buffered stream lseeks
once), its delivered bytes the report's. Exit 0 pass, 1 fail.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_SIZE = 1 << 20
FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def run(cmd, env=None, cwd=None, ok=(0,)):
    """Runs cmd; its output, and an error when its status is not in ok."""
    p = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"FAIL {' '.join(cmd)}: exit {p.returncode}")
    return p


def clean_env():
    """The environment without anything that would point at another seektrace."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("SEEKTRACE_") or k in ("LD_PRELOAD", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH"):
            del env[k]
    return env


def make_data(path, size=DATA_SIZE):
    with open(path, "wb") as f:
        f.write(bytes((i * 131 + (i >> 12)) & 0xFF for i in range(size)))
    return os.path.realpath(path)


def install(a, work):
    """cmake --install of the build tree into WORK/root (DESTDIR)."""
    root = os.path.join(work, "root")
    env = clean_env()
    env["DESTDIR"] = root
    run([a.cmake, "--install", a.build], env=env)
    return root


def program_line(text):
    """The program's own JSON line among other output."""
    m = re.search(r'^.*(\{"active".*\}|\{"requested".*\})\s*$', text, re.M)
    if not m:
        raise SystemExit(f"FAIL no JSON line from the program in:\n{text}")
    return json.loads(m.group(1))


def file_entry(report, path):
    for f in report.get("files", []):
        if f.get("path") == path:
            return f
    raise SystemExit(f"FAIL {path} not in the report's files: "
                     f"{[f.get('path') for f in report.get('files', [])]}")


def check_read_loop(report, data, prog, label):
    """A read() loop's figures in a report against the program's own counts."""
    f = file_entry(report, data)
    check(f["read_syscalls"] == prog["read_calls"],
          f"{label}: read syscalls {f['read_syscalls']} = the program's read() calls {prog['read_calls']}")
    check(f["kernel_read_bytes"] == prog["bytes"] == DATA_SIZE,
          f"{label}: kernel bytes {f['kernel_read_bytes']} = bytes the program read {prog['bytes']} "
          f"= the file's {DATA_SIZE}")
    check(f["delivered_bytes"] == DATA_SIZE,
          f"{label}: delivered {f['delivered_bytes']} = {DATA_SIZE}")
    check(f["lseek_syscalls"] == 0, f"{label}: no lseek ({f['lseek_syscalls']})")


def cmake_consumer(a, work):
    root = install(a, work)
    prefix = root + a.prefix
    data = make_data(os.path.join(work, "data.bin"))
    ds = os.path.join(work, "downstream")
    env = clean_env()
    run([a.cmake, "-S", os.path.join(HERE, "downstream"), "-B", ds,
         f"-DCMAKE_PREFIX_PATH={prefix}", f"-DDATA={data}", "-DREAD_BLOCK=4096"], env=env)
    cache = open(os.path.join(ds, "CMakeCache.txt")).read()
    found = re.search(r"^seektrace_DIR:PATH=(.*)$", cache, re.M)
    check(found is not None and os.path.realpath(found.group(1)) ==
          os.path.realpath(os.path.join(prefix, a.libdir, "cmake", "seektrace")),
          f"find_package(seektrace) found the scratch install ({found and found.group(1)})")
    run([a.cmake, "--build", ds], env=env)

    # The project's own tests: the measured one, the passing gate, the
    # preloaded existing test.
    p = run([a.ctest, "-V", "--timeout", "60"], env=env, cwd=ds, ok=(0, 8))
    check(p.returncode == 0, "the downstream project's ctest passes (reader.measured, "
          "reader.gate_pass, reader.plain)")
    measured = [l for l in p.stdout.splitlines() if re.match(r"^\d+: \{\"active\"", l)]
    check(len(measured) == 3, f"the three tests printed the program's line ({len(measured)})")

    reports = glob.glob(os.path.join(ds, "report.*.json"))
    if check(len(reports) == 1, f"reader.measured wrote one JSON report ({reports})"):
        report = json.load(open(reports[0]))
        pid = int(re.search(r"report\.(\d+)\.json$", reports[0]).group(1))
        prog = run_prog_line(p.stdout, "reader.measured")
        check(prog["active"] == 1, "seektrace_active() is 1 under the preload")
        check(prog["read_calls"] == DATA_SIZE // 4096 + 1,
              f"the program read in {prog['read_calls']} calls of 4 KiB (+1 at end of file)")
        check_read_loop(report, data, prog, "seektrace_add_test")
        # seektrace_mark() through seektrace::api, in the trace, read back by
        # the installed command.
        ex = run([os.path.join(prefix, a.bindir, "seektrace"), "export", "--format", "jsonl",
                  os.path.join(ds, "trace")], env=env)
        marks = [json.loads(l) for l in ex.stdout.splitlines() if '"mark"' in l]
        check([(m.get("pid"), m.get("label")) for m in marks] == [(pid, "reader: start")],
              f"the trace holds the program's one mark ({marks})")

    plain = glob.glob(os.path.join(ds, "plain.*.json"))
    if check(len(plain) == 1, f"seektrace_preload_tests: one report ({plain})"):
        prog = run_prog_line(p.stdout, "reader.plain")
        check(prog["read_calls"] == DATA_SIZE // 65536 + 1,
              f"reader.plain read in {prog['read_calls']} calls of 64 KiB")
        check_read_loop(json.load(open(plain[0])), data, prog, "seektrace_preload_tests")

    # The failing gate, as seektrace_add_test wrote its command.
    listing = json.loads(run([a.ctest, "--show-only=json-v1"], env=env, cwd=ds).stdout)
    cmd = next(t["command"] for t in listing["tests"] if t["name"] == "reader.gate_fail")
    check(cmd[:2] == [os.path.join(prefix, a.bindir, "seektrace"), "run"],
          f"CHECK runs the test under the installed seektrace run ({cmd[:2]})")
    g = run(cmd, env=env, ok=(0, 1, 2))
    check(g.returncode == 1, f"the fseek loop fails --max-amplification 8: exit {g.returncode}, "
          "1 expected")
    prog = program_line(g.stdout)
    check(prog["delivered"] == prog["requested"] == 2000 * 16,
          f"the gated program ran to its end ({prog})")


def run_prog_line(ctest_out, test):
    """The program's line in ctest -V output of one test (whose lines ctest
    prefixes with the number it announced in "Start N: TEST")."""
    m = re.search(r"^\s*Start\s+(\d+): " + re.escape(test) + r"\s*$", ctest_out, re.M)
    if not m:
        raise SystemExit(f"FAIL {test} not in ctest's output")
    for line in ctest_out.splitlines():
        if line.startswith(f"{m.group(1)}: {{\"active\""):
            return json.loads(line[len(m.group(1)) + 2:])
    raise SystemExit(f"FAIL no program line for {test}")


def pkgconfig_consumer(a, work):
    root = install(a, work)
    prefix = root + a.prefix
    data = make_data(os.path.join(work, "data.bin"))
    env = clean_env()
    env["PKG_CONFIG_PATH"] = os.path.join(prefix, a.libdir, "pkgconfig")

    def pc(*args):
        return run(["pkg-config", *args, "seektrace"], env=env).stdout.strip()

    cflags, libs, preload = pc("--cflags"), pc("--libs"), pc("--variable=preload")
    check(os.path.realpath(preload) == os.path.realpath(os.path.join(prefix, a.libdir, "libseektrace.so")),
          f"pkg-config --variable=preload is the scratch install's library ({preload})")
    incs = [f[2:] for f in cflags.split() if f.startswith("-I")]
    check(any(os.path.realpath(i) == os.path.realpath(os.path.join(prefix, a.includedir)) for i in incs),
          f"--cflags point into the scratch install ({cflags})")
    exe = os.path.join(work, "reader")
    run([a.cc, *cflags.split(), os.path.join(HERE, "downstream", "reader.c"), *libs.split(),
         "-o", exe], env=env)

    plain = run([exe, data, "read", "10000"], env=env)
    check(program_line(plain.stdout)["active"] == 0, "seektrace_active() is 0 without the preload")
    out = os.path.join(work, "report.json")
    penv = dict(env, LD_PRELOAD=preload, SEEKTRACE_FORMAT="json", SEEKTRACE_OUTPUT=out)
    traced = run([exe, data, "read", "10000"], env=penv)
    prog = program_line(traced.stdout)
    check(prog["active"] == 1, "seektrace_active() is 1 under pkg-config's preload library")
    check(prog["read_calls"] == -(-DATA_SIZE // 10000) + 1,
          f"the program read in {prog['read_calls']} calls of 10,000 bytes")
    check_read_loop(json.load(open(out)), data, prog, "pkg-config consumer")
    version = run([pc("--variable=seektrace"), "--version"], env=env).stdout
    check(version.startswith(f"seektrace {pc('--modversion')}"),
          f"--variable=seektrace is the command, of --modversion ({version.strip()})")


def deb(a, work):
    # cpack -G DEB, without the 'preinstall' step that first makes every
    # target of the tree (the ctest tree is built already; that step alone
    # takes longer than this whole test): the same configuration and
    # install rules, run through CPACK_INSTALL_SCRIPTS.
    cfg = os.path.join(work, "CPackConfig.cmake")
    script = os.path.join(work, "install.cmake")
    with open(script, "w") as f:
        f.write('set(CMAKE_INSTALL_PREFIX "${CPACK_PACKAGING_INSTALL_PREFIX}")\n'
                f'include("{a.build}/cmake_install.cmake")\n')
    with open(cfg, "w") as f:
        f.write(f'include("{a.build}/CPackConfig.cmake")\n'
                'set(CPACK_INSTALL_CMAKE_PROJECTS "")\n'
                f'set(CPACK_INSTALL_SCRIPTS "{script}")\n')
    out = os.path.join(work, "out")
    run([a.cpack, "-G", "DEB", "--config", cfg, "-B", out], env=clean_env())
    debs = glob.glob(os.path.join(out, "*.deb"))
    if not check(len(debs) == 1, f"cpack made one .deb ({debs})"):
        return
    info = run(["dpkg-deb", "-f", debs[0]]).stdout
    fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", info, re.M))
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    check(fields.get("Package") == "seektrace", f"Package: {fields.get('Package')}")
    check(fields.get("Version") == a.version, f"Version: {fields.get('Version')} = {a.version}")
    check(fields.get("Architecture") == arch, f"Architecture: {fields.get('Architecture')} = {arch}")
    depends = [d.strip() for d in fields.get("Depends", "").split(",")]
    names = {re.match(r"[a-z0-9.+-]+", d).group(0) for d in depends if d}
    check({"libc6", "libdw1"} <= names, f"Depends names libc6 and libdw1 ({fields.get('Depends')})")
    if shutil.which("dpkg-shlibdeps"):
        check(any(re.fullmatch(r"libc6 \(>= 2\.\d+\)", d) for d in depends),
              "Depends has libc6's version from dpkg-shlibdeps")
    check("Maintainer" in fields and "Description" in fields, "Maintainer and Description present")
    info = run(["dpkg-deb", "-I", debs[0]]).stdout
    check("Installed-Size" in info, "dpkg-deb -I reads the control file")

    listing = run(["dpkg-deb", "-c", debs[0]]).stdout
    paths = {l.split()[-1].lstrip(".") for l in listing.splitlines()}
    lib, share = f"/usr/{a.libdir}", f"/usr/{a.datadir}"
    want = [f"/usr/{a.bindir}/seektrace", f"{lib}/libseektrace.so",
            f"/usr/{a.includedir}/seektrace/seektrace.h",
            f"/usr/{a.includedir}/seektrace/trace_format.h", f"{lib}/pkgconfig/seektrace.pc",
            f"{lib}/cmake/seektrace/seektraceConfig.cmake",
            f"{lib}/cmake/seektrace/seektraceConfigVersion.cmake",
            f"{share}/bash-completion/completions/seektrace",
            f"{share}/zsh/vendor-completions/_seektrace",
            f"/usr/{a.mandir}/man1/seektrace.1", f"/usr/{a.mandir}/man7/libseektrace.7",
            f"/usr/{a.libexecdir}/seektrace/fseek2006"]
    missing = [w for w in want if w not in paths]
    check(not missing, f"the package holds the library, command, headers, pkg-config and "
          f"CMake files, completions, man pages and demo (missing: {missing})")

    root = os.path.join(work, "root")
    run(["dpkg", "-x", debs[0], root])
    env = clean_env()
    demo = os.path.join(root, "usr", a.libexecdir, "seektrace", "fseek2006")
    dat = os.path.join(work, "demo.dat")
    args = [dat, "--buffer", "131072", "--seeks", "2000"]
    untraced = run([demo, *args], env=env)  # also creates the 4 MiB file
    report = os.path.join(work, "run.json")
    # The unpacked command finds the unpacked library (../lib), nothing else.
    traced = run([os.path.join(root, "usr", a.bindir, "seektrace"), "run", "--json", "-o", report,
                  "--", demo, *args], env=env)
    check(traced.stdout == untraced.stdout,
          f"the demo's output under seektrace run is its own ({traced.stdout.strip()})")
    prog = json.loads(untraced.stdout)
    r = json.load(open(report))
    f = file_entry(r, os.path.realpath(dat))
    check(f["lseek_syscalls"] == prog["calls"] == 2000,
          f"demo: lseek syscalls {f['lseek_syscalls']} = its fseek calls {prog['calls']}")
    check(f["delivered_bytes"] == prog["delivered"] == 32000,
          f"demo: delivered {f['delivered_bytes']} = its own count {prog['delivered']}")
    check(f["requested_bytes"] == prog["requested"],
          f"demo: requested {f['requested_bytes']} = {prog['requested']}")
    # Its pkg-config file, unpacked elsewhere, still points at its own files.
    penv = dict(env, PKG_CONFIG_PATH=os.path.join(root, "usr", a.libdir, "pkgconfig"))
    preload = run(["pkg-config", "--variable=preload", "seektrace"], env=penv).stdout.strip()
    check(os.path.realpath(preload) == os.path.realpath(os.path.join(root, "usr", a.libdir,
                                                                     "libseektrace.so")),
          f"the unpacked seektrace.pc names the unpacked library ({preload})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["cmake-consumer", "pkgconfig-consumer", "deb"])
    ap.add_argument("--build", required=True)
    ap.add_argument("--prefix", default="/usr/local")
    for d, default in (("bindir", "bin"), ("libdir", "lib"), ("includedir", "include"),
                       ("libexecdir", "libexec"), ("datadir", "share"), ("mandir", "share/man")):
        ap.add_argument(f"--{d}", default=default, help=f"CMAKE_INSTALL_{d.upper()} (relative)")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--ctest", default="ctest")
    ap.add_argument("--cpack", default="cpack")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--version", default="")
    ap.add_argument("--keep", action="store_true", help="leave the scratch directory")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    work = tempfile.mkdtemp(prefix=f"seektrace-package-{a.what}-")
    try:
        {"cmake-consumer": cmake_consumer, "pkgconfig-consumer": pkgconfig_consumer,
         "deb": deb}[a.what](a, work)
    finally:
        if a.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if FAILURES:
        print(f"FAIL {len(FAILURES)} check(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
