#!/usr/bin/env python3
"""The tools as users install them, run with the source and build trees
hidden (a mount namespace lays empty directories over both), so that
nothing they need may come from there:

--mode prefix: `cmake --install BUILD --prefix P`: every tool, man page,
  bash completion and the linux-gate templates where they belong; each
  tool's --help and --version; a real dump and a lookup; every man page
  renders with its exit statuses and examples, and names every option
  --help does; every completion offers every option --help names; a
  minidump of a thread in linux-gate.so walked with no store given finds
  the installed templates; symstore-serve.service passes systemd-analyze
  verify and its command, with the installed defaults, serves /healthz and
  stops with status 0 on SIGTERM.
--mode deb: `cpack` twice (SOURCE_DATE_EPOCH of the commit): byte-identical
  packages; Depends derived by dpkg-shlibdeps (the libraries the programs
  link, with versions); no path of the build or source tree inside; no
  lintian error; /etc/default/symstore-serve a conffile and the service
  checked as above; installed into a throwaway root, each tool's --help and a
  real dump run from there, and `man dump_syms` shows its page; then the CI
  recipe of the README (packaging/ci/release-symbols.sh) installs the
  package, stores a release and uploads it to nginx on loopback."""
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import urllib.request

import core_to_minidump
from common import Report, arguments
from upload_servers import Nginx

TOOLS = ["dump_syms", "symstore", "symtool", "minidump_stackwalk", "microdump_stackwalk"]
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))


# Whether this machine lets the test make a mount namespace (root, or an
# unprivileged user namespace); without one the tools run with the trees in
# place, and the installed files are searched for their paths instead.
CAN_HIDE = subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


def hidden(trees, argv, env=None, cwd=None):
    """Runs argv with each of `trees` replaced by an empty directory."""
    if not CAN_HIDE:
        return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd or "/", timeout=600)
    # (deeper trees first: one inside another is hidden once the outer one is)
    mounts = " && ".join(f"mount -t tmpfs none '{t}'" for t in sorted(set(trees), key=len, reverse=True))
    script = f'{mounts} && exec "$@"'
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *argv], capture_output=True,
                          text=True, env=env, cwd=cwd or "/", timeout=600)


def check_no_tree_paths(report, root, trees):
    """No installed file names a path of the trees it was built from."""
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as fh:
                data = fh.read()
            for tree in trees:
                if tree.encode() in data:
                    report.fail(f"{os.path.relpath(path, root)} holds the path {tree}")


def long_options(help_text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text))


class Installed:
    """Checks of an installed tree at `root` (bin/, share/), with `trees` hidden."""

    def __init__(self, report, root, trees, tmp):
        self.report, self.root, self.trees, self.tmp = report, root, trees, tmp

    def run(self, tool, *argv, env=None):
        return hidden(self.trees, [os.path.join(self.root, "bin", tool), *argv], env=env)

    def check_layout(self):
        wanted = [f"bin/{t}" for t in TOOLS] + [f"share/man/man1/{t}.1.gz" for t in TOOLS] + \
                 [f"share/bash-completion/completions/{t}" for t in TOOLS]
        for path in wanted:
            if not os.path.exists(os.path.join(self.root, path)):
                self.report.fail(f"not installed: {path}")
        gate = os.path.join(self.root, "share", "dump_syms", "symbols", "linux-gate.so")
        if not os.path.isdir(gate) or len(os.listdir(gate)) != 2:
            self.report.fail(f"the linux-gate templates are not in {gate}")

    def check_tools(self, binary):
        for tool in TOOLS:
            p = self.run(tool, "--help") if tool not in ("minidump_stackwalk", "microdump_stackwalk") \
                else self.run(tool, "-h")
            if p.returncode != 0 or "Usage" not in p.stdout + p.stderr:
                self.report.fail(f"{tool} --help from the install: exit {p.returncode}: {p.stderr[-300:]}")
        for tool in ("dump_syms", "symstore", "symtool"):
            p = self.run(tool, "--version")
            if not re.match(rf"^{tool} \d+\.\d+\.\d+ \(git [^,]+, LLVM 19\.\d+\.\d+, \w+", p.stdout):
                self.report.fail(f"{tool} --version: {p.stdout.strip()!r}")
        p = self.run("dump_syms", "-d", binary)
        if p.returncode != 0 or not p.stdout.startswith("MODULE Linux x86_64 "):
            self.report.fail(f"dump_syms from the install: exit {p.returncode}: {p.stderr[-300:]}")
            return
        sym = os.path.join(self.tmp, "dumped.sym")
        with open(sym, "w") as fh:
            fh.write(p.stdout)
        function = next(l.split() for l in p.stdout.splitlines() if l.startswith("FUNC "))
        p = self.run("symtool", "lookup", "--index-cache", "none", sym, function[1] if function[1] != "m" else function[2])
        if p.returncode != 0 or "??" in p.stdout:
            self.report.fail(f"symtool lookup from the install: {p.stdout} {p.stderr}")

    def check_manuals(self):
        env = dict(os.environ, MANWIDTH="100")
        for tool in TOOLS:
            page = os.path.join(self.root, "share", "man", "man1", f"{tool}.1.gz")
            p = hidden(self.trees, ["man", "-l", page], env=env)
            text = p.stdout
            if p.returncode != 0 or "EXIT STATUS" not in text or "EXAMPLES" not in text:
                self.report.fail(f"man -l {tool}.1.gz: exit {p.returncode}: {p.stderr[-300:]}")
                continue
            if tool in ("minidump_stackwalk", "microdump_stackwalk"):
                usage = self.run(tool, "-h").stdout
                flags = set(re.findall(r"^  (-\w)", usage, re.M))
            else:
                usage = self.run(tool, "--help").stdout
                flags = long_options(usage)
                # every subcommand's options too
                for sub in re.findall(r"^  (\w[\w-]*)\s{2,}", usage.split("Subcommands:")[-1], re.M) \
                        if "Subcommands:" in usage else []:
                    flags |= long_options(self.run(tool, sub, "--help").stdout)
            plain = text.replace("\u2010", "-").replace("\u2212", "-")
            missing = sorted(f for f in flags if f not in plain)
            if missing:
                self.report.fail(f"{tool}'s man page lacks {missing}")
            completion = open(os.path.join(self.root, "share", "bash-completion", "completions", tool)).read()
            missing = sorted(f for f in flags if f not in completion)
            if missing:
                self.report.fail(f"{tool}'s completion lacks {missing}")
        # The completion at work: symstore add's options after `symstore add --`.
        script = (f"source '{self.root}/share/bash-completion/completions/symstore'; "
                  "COMP_WORDS=(symstore add --man); COMP_CWORD=2; _symstore; echo \"${COMPREPLY[@]}\"; "
                  "COMP_WORDS=(symstore u); COMP_CWORD=1; _symstore; echo \"${COMPREPLY[@]}\"")
        p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
        if p.stdout.split("\n")[:2] != ["--manifest", "upload"]:
            self.report.fail(f"symstore's completion: {p.stdout!r} {p.stderr!r}")

    def check_service(self, base):
        """symstore-serve.service and /etc/default/symstore-serve under `base`
        (the prefix, or the package's root): systemd-analyze verifies the unit,
        and its command with the package's defaults serves a store and stops
        on SIGTERM with status 0."""
        unit = os.path.join(base, "lib", "systemd", "system", "symstore-serve.service")
        defaults = os.path.join(base, "etc", "default", "symstore-serve")
        if not os.path.exists(unit) or not os.path.exists(defaults):
            self.report.fail(f"symstore-serve.service or its defaults not installed under {base}")
            return
        text = open(unit).read()
        symstore = os.path.join(self.root, "bin", "symstore")
        for needed in ("DynamicUser=yes", "EnvironmentFile=-/etc/default/symstore-serve",
                       "ExecStart=/usr/bin/symstore serve ${STORE} --listen ${LISTEN} $OPTIONS"):
            if needed not in text:
                self.report.fail(f"symstore-serve.service lacks {needed!r}")
        local = os.path.join(self.tmp, "symstore-serve.service")
        with open(local, "w") as fh:
            fh.write(text.replace("/usr/bin/symstore", symstore)
                     .replace("/etc/default/symstore-serve", defaults))
        p = subprocess.run(["systemd-analyze", "verify", "--man=no", local], capture_output=True, text=True)
        if p.returncode != 0 or p.stderr.strip():
            self.report.fail(f"systemd-analyze verify symstore-serve.service: {p.returncode} {p.stderr[-500:]}")
        settings = {}
        for line in open(defaults):
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                settings[key] = value.strip('"')
        if settings.get("STORE") != "/var/lib/symstore" or settings.get("LISTEN") != "127.0.0.1:8080":
            self.report.fail(f"/etc/default/symstore-serve: {settings}")
        store = os.path.join(self.tmp, "service-store")
        os.makedirs(store, exist_ok=True)
        # The unit's command line, with the defaults but a store and port of the test's.
        argv = [symstore, "serve", store, "--listen", "127.0.0.1:0", *settings.get("OPTIONS", "").split()]
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
            first = proc.stdout.readline().strip()
            match = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)", first)
            answer = ""
            if match:
                with urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/healthz", timeout=10) as r:
                    answer = r.read().decode()
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = None
        if not match or answer != "ok\n" or code != 0:
            self.report.fail(f"the service's command: first line {first!r}, /healthz {answer!r}, exit {code}")

    def check_bundled_templates(self):
        """An x86 thread in linux-gate.so, walked with no store: the
        installed templates name its function."""
        base, pc = 0xffffe000, 0xffffe400 + 2
        thread = core_to_minidump.ThreadState({"eip": pc, "esp": 0xbf000000, "ebp": 0xbf000100},
                                              0xbf000000, bytes(4096))
        guid = bytes.fromhex("8BA5BD4F1D5AA3F579E3CF19A235EA09")  # Breakpad's Intel template
        record = b"RSDS" + struct.pack("<IHH", 0x4FBDA58B, 0x5A1D, 0xF5A3) + guid[8:] + \
            struct.pack("<I", 0) + b"linux-gate.so\0"
        dump = os.path.join(self.tmp, "linux-gate.dmp")
        with open(dump, "wb") as fh:
            fh.write(core_to_minidump.convert(thread, modules=[(base, 0x1000, "linux-gate.so", record)]))
        p = self.run("minidump_stackwalk", dump)
        if "__kernel_vsyscall" not in p.stdout:
            self.report.fail(f"linux-gate.so not named from the installed templates: {p.stdout[-800:]} {p.stderr[-300:]}")


def fixture_binary(args, tmp):
    """A small ELF fixture, copied out of the trees about to be hidden."""
    candidates = [os.path.join(args.shared, "corpus", "bin", "cprog.gcc12.g-O2")]
    for path in candidates:
        if os.path.exists(path):
            copy = os.path.join(tmp, "prog")
            shutil.copy(path, copy)
            return copy
    raise SystemExit("no fixture binary to dump")


def check_prefix(args, report, tmp, build):
    prefix = os.path.join(tmp, "prefix")
    p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"cmake --install: {p.stderr[-500:]}")
        return
    installed = Installed(report, prefix, [SOURCE, build], tmp)
    if not CAN_HIDE and not args.sanitized:
        check_no_tree_paths(report, prefix, [SOURCE, build])
    installed.check_layout()
    installed.check_tools(fixture_binary(args, tmp))
    installed.check_service(prefix)
    installed.check_manuals()
    installed.check_bundled_templates()
    report.note(f"installed into a prefix: {len(TOOLS)} tools, their man pages and completions, "
                "run with the source and build trees hidden")


def build_package(build, out):
    commit_time = subprocess.run(["git", "-C", SOURCE, "log", "-1", "--format=%ct"], capture_output=True,
                                 text=True).stdout.strip() or "0"
    env = dict(os.environ, SOURCE_DATE_EPOCH=commit_time)
    p = subprocess.run(["cpack", "-G", "DEB", "-B", out], cwd=build, capture_output=True, text=True, env=env,
                       timeout=900)
    if p.returncode != 0:
        raise SystemExit(f"cpack: {p.stdout[-800:]} {p.stderr[-800:]}")
    debs = [os.path.join(out, n) for n in os.listdir(out) if n.endswith(".deb")]
    if len(debs) != 1:
        raise SystemExit(f"cpack made {debs}")
    return debs[0]


def check_deb(args, report, tmp, build):
    first = build_package(build, os.path.join(tmp, "first"))
    second = build_package(build, os.path.join(tmp, "second"))
    if open(first, "rb").read() != open(second, "rb").read():
        report.fail("two packages of one build differ")
    control = subprocess.run(["dpkg-deb", "-f", first, "Depends", "Package", "Version"], capture_output=True,
                             text=True).stdout
    depends = re.search(r"^Depends: (.*)$", control, re.M)
    wanted = ["libc6", "libstdc++6", "libcurl4", "libzip4", "libisal2", "libmspack0", "libzstd1", "liblzma5",
              "libmicrohttpd12"]
    if not depends or any(not re.search(rf"(^|, ){re.escape(w)} \(>= [^)]+\)", depends.group(1)) for w in wanted):
        report.fail(f"Depends: {depends.group(1) if depends else control!r}, want versioned {wanted}")
    root = os.path.join(tmp, "root")
    subprocess.run(["dpkg-deb", "-x", first, root], check=True)
    if args.sanitized:
        report.note("a sanitized build: its files are not searched for the trees' paths")
    else:
        check_no_tree_paths(report, root, [SOURCE, build])
    lintian = subprocess.run(["lintian", "--tag-display-limit", "0", first], capture_output=True, text=True)
    errors = [l for l in (lintian.stdout + lintian.stderr).splitlines() if l.startswith("E:")]
    if errors:
        report.fail(f"lintian: {errors[:10]}")
    installed = Installed(report, os.path.join(root, "usr"), [SOURCE, build], tmp)
    installed.check_layout()
    installed.check_service(root)
    conffiles = subprocess.run(["dpkg-deb", "-I", first, "conffiles"], capture_output=True, text=True).stdout
    if conffiles.split() != ["/etc/default/symstore-serve"]:
        report.fail(f"conffiles: {conffiles!r}, want /etc/default/symstore-serve")
    installed.check_tools(fixture_binary(args, tmp))
    p = hidden([SOURCE, build], ["man", "dump_syms"],
               env=dict(os.environ, MANPATH=os.path.join(root, "usr", "share", "man"), MANWIDTH="100"))
    if p.returncode != 0 or "dump_syms" not in p.stdout or "EXAMPLES" not in p.stdout:
        report.fail(f"man dump_syms from the package: exit {p.returncode}: {p.stderr[-300:]}")
    report.note(f"{os.path.basename(first)}: reproducible, Depends {depends.group(1) if depends else '?'}; "
                f"lintian: {len(errors)} errors")
    check_ci_recipe(args, report, tmp, first, build)


def check_ci_recipe(args, report, tmp, deb, build):
    """README's CI job: packaging/ci/release-symbols.sh, the package
    installed into a root of its own, a release stored and uploaded."""
    release = os.path.join(tmp, "release")
    os.makedirs(os.path.join(release, "bin"))
    shutil.copy(fixture_binary(args, tmp), os.path.join(release, "bin", "prog"))
    with Nginx() as nginx:
        env = dict(os.environ, DEB=deb, RELEASE=release, STORE=os.path.join(tmp, "ci-store"),
                   UPLOAD_URL=nginx.url + "/symbols", INSTALL_ROOT=os.path.join(tmp, "ci-root"))
        script = os.path.join(SOURCE, "packaging", "ci", "release-symbols.sh")
        with open(script) as fh:
            text = fh.read()
        p = hidden([build], ["sh", "-c", text], env=env)
        if p.returncode != 0:
            report.fail(f"the CI recipe: exit {p.returncode}: {p.stdout[-500:]} {p.stderr[-500:]}")
            return
        uploaded = [os.path.relpath(os.path.join(d, n), nginx.root) for d, _, names in os.walk(nginx.root)
                    for n in names]
        if len(uploaded) != 1 or not uploaded[0].endswith("/prog.sym"):
            report.fail(f"the CI recipe uploaded {uploaded}")
        else:
            report.note(f"the CI recipe stored and uploaded {uploaded[0]}")


def main():
    args = arguments(lambda p: (p.add_argument("--build", required=True),
                                p.add_argument("--mode", choices=("prefix", "deb"), required=True),
                                p.add_argument("--sanitized", action="store_true",
                                               help="the build is instrumented (its files name sources)")))
    report = Report(f"install ({args.mode})")
    if not CAN_HIDE:
        report.note("no mount namespace here (unshare -m): the tools run with the trees in place; "
                    "the installed files are searched for the trees' paths")
    tmp = tempfile.mkdtemp(prefix="install-test-")
    try:
        build = os.path.abspath(args.build)
        if args.mode == "prefix":
            check_prefix(args, report, tmp, build)
        else:
            check_deb(args, report, tmp, build)
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
