#!/usr/bin/env python3
"""symtool with symbol servers (--symbols-url, --symbols-cache): the crash
program of the stack-walk test, its store served by nginx on a free
loopback port behind a fault proxy (both started and stopped here).

- A minidump walked with servers only equals the walk from the local store
  and gdb's frames: the main program fetched by debug id after two 503s
  (retried), libwalk.so only through its code-id path (nginx answers it
  with a redirect to the debug-id path), libc not on the first server (404
  by both ids) but on the second; a dead server given first is reported
  once and the walk goes on.
- Nothing is fetched twice: each path is asked once (503 retries aside); a
  second walk with the server stopped reads the cache alone, fetches
  nothing and says nothing; misses are remembered (not asked again) unless
  --symbols-miss-ttl 0.
- A server that only ever answers 503 is tried --symbols-retries times more,
  reported once, and the walk goes on without symbols; a 200 that is not a
  symbol file is said and not cached.
- symtool lookup and symbolize read the same servers: their answers equal
  those from the local store."""
import json
import os
import shutil
import subprocess
import tempfile

import test_minidump as minidump
import test_stackwalk as walk
import upload_servers as servers
from common import Report, arguments


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def stackwalk(args, dump, *flags):
    p = sh(args.symtool, "stackwalk", "--json", *flags, dump)
    ours = json.loads(p.stdout) if p.returncode == 0 and p.stdout else None
    return p, ours


def frames_of(walked):
    return [[(f.get("module"), f.get("function"), f.get("line")) for f in t["frames"]]
            for t in walked["threads"]]


def warnings(stderr):
    return [line for line in stderr.splitlines() if "warning:" in line]


def gets(proxy):
    """(path, status) of every GET the proxy saw, in order."""
    return [(r["target"], r["status"]) for r in proxy.records if r["method"] == "GET"]


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--nginx", default="nginx")))
    report = Report("symtool with symbol servers")
    tmp = tempfile.mkdtemp()
    try:
        run(args, report, tmp)
    finally:
        shutil.rmtree(tmp)
    report.finish()


def run(args, report, tmp):
    directory = walk.build(tmp, "gcc", "-fno-omit-frame-pointer")
    store = os.path.join(directory, "store")
    p = sh(args.symstore, "add", store, directory, "-d", "-q")
    if p.returncode != 0:
        report.fail(f"symstore add: {p.stderr.strip()}")
        return
    gcore = os.path.join(directory, "gcore.lib")
    oracle = walk.gdb_oracle(directory, gcore, os.path.join(directory, "gdb.lib.json"), "lib")
    dump = os.path.join(directory, "lib.dmp")
    minidump.to_minidump(gcore, dump)

    # What the server holds: the store without libc (a 404), libwalk.so only
    # under its code id (reached by a redirect).
    served = os.path.join(tmp, "served")
    shutil.copytree(store, served, symlinks=False)
    shutil.rmtree(os.path.join(served, "libc.so.6"))
    _, local = stackwalk(args, dump, "--store", store)
    if not local:
        report.fail("the walk from the local store failed")
        return
    aliases = walk.Aliases()
    for path in walk.SYSTEM_LIBS:
        aliases.load(path)
    module = {m["name"]: m for m in local["modules"]}
    lib, main_program = module["libwalk.so"], module["walker"]
    lib_debug = f"/libwalk.so/{lib['debug_id']}/libwalk.so.sym"
    lib_code = f"/libwalk.so/{lib['code_id']}/libwalk.so.sym"
    main_debug = f"/walker/{main_program['debug_id']}/walker.sym"
    os.rename(os.path.join(served, lib_debug[1:]), os.path.join(tmp, "libwalk.sym"))
    os.rmdir(os.path.dirname(os.path.join(served, lib_debug[1:])))
    os.makedirs(os.path.join(tmp, "hidden", "libwalk.so", lib["debug_id"]))
    os.rename(os.path.join(tmp, "libwalk.sym"), os.path.join(tmp, "hidden", lib_debug[1:]))
    locations = ("        absolute_redirect off;\n"
                 f"        location = {lib_code} {{ return 302 /hidden{lib_debug}; }}\n"
                 f"        location /hidden/ {{ alias {tmp}/hidden/; }}\n")

    cache = os.path.join(tmp, "cache")
    with servers.Nginx(args.nginx, locations=locations) as nginx:
        shutil.rmtree(nginx.root)
        shutil.copytree(served, nginx.root)
        # The first two GETs of the main program's file answer 503.
        rule = lambda method, path, n: "503" if path == main_debug and n < 2 else None
        with servers.FaultProxy(nginx.url, rule=rule) as proxy, \
                servers.Nginx(args.nginx) as second, servers.FaultProxy(second.url) as second_proxy:
            shutil.rmtree(second.root)
            shutil.copytree(store, second.root)
            dead = f"http://{servers.LOOPBACK}:{servers.closed_port()}"
            p, fetched = stackwalk(args, dump, "--symbols-url", dead, "--symbols-url", proxy.url,
                                   "--symbols-url", second_proxy.url, "--symbols-cache", cache,
                                   "--symbols-retries", "2")
            if not fetched:
                report.fail(f"the walk with servers failed: {p.stderr.strip()}")
                return
            if frames_of(fetched) != frames_of(local):
                report.fail(f"servers: frames {frames_of(fetched)} != the local store's {frames_of(local)}")
            n, _ = walk.compare("symbol servers", fetched, oracle, aliases, report)
            told = warnings(p.stderr)
            if len(told) != 1 or dead not in told[0]:
                report.fail(f"the dead server is not reported exactly once: {told}")
            asked = gets(proxy)
            if asked.count((main_debug, 503)) != 2 or asked.count((main_debug, 200)) != 1:
                report.fail(f"503s are not retried: {asked}")
            if (lib_code, 302) not in asked or (f"/hidden{lib_debug}", 200) not in asked or \
                    lib_debug in [a for a, _ in asked if _ == 200]:
                report.fail(f"libwalk.so is not fetched by its code id: {asked}")
            libc = module["libc.so.6"]
            libc_path = f"/libc.so.6/{libc['debug_id']}/libc.so.6.sym"
            libc_code = f"/libc.so.6/{libc['code_id']}/libc.so.6.sym"
            if (libc_path, 404) not in asked or (libc_code, 404) not in asked or \
                    gets(second_proxy) != [(libc_path, 200)]:
                report.fail(f"libc is not asked of the first server, then of the second: {asked} "
                            f"then {gets(second_proxy)}")
            repeated = [a for a in {a for a, _ in asked} if a != main_debug and
                        [x for x, _ in asked].count(a) > 1]
            if repeated:
                report.fail(f"fetched twice: {repeated}")
            status = {m["name"]: m["symbols"] for m in fetched["modules"]}
            if status.get("walker") != "loaded" or status.get("libwalk.so") != "loaded" or \
                    status.get("libc.so.6") != "loaded":
                report.fail(f"module statuses: {status}")
            first_requests = len(asked)

            # lookup and symbolize by the same servers.
            base, end = (int(main_program[k], 16) for k in ("base", "end"))
            pc = next(f["pc"] for t in oracle for f in t["frames"] if base <= f["pc"] < end)
            address = f"{pc - 1 - base:x}"
            want = sh(args.symtool, "lookup", "--json", store, "--module", "walker", "--id",
                      main_program["debug_id"], address)
            got = sh(args.symtool, "lookup", "--json", "--symbols-url", proxy.url, "--symbols-cache",
                     os.path.join(tmp, "cache2"), "--module", "walker", "--id",
                     main_program["debug_id"], address)
            if got.returncode != 0 or got.stdout != want.stdout or not want.stdout:
                report.fail(f"lookup over HTTP: {got.stdout!r} {got.stderr!r} != {want.stdout!r}")
            crash = os.path.join(tmp, "crash.txt")
            with open(crash, "w") as fh:
                fh.write(f"walker + 0x{address}\n")
            want = sh(args.symtool, "symbolize", "--store", store, crash)
            got = sh(args.symtool, "symbolize", "--symbols-url", proxy.url, "--symbols-cache",
                     os.path.join(tmp, "cache3"), "--id", f"walker={main_program['debug_id']}", crash)
            if got.returncode != 0 or got.stdout != want.stdout or "??" in want.stdout:
                report.fail(f"symbolize over HTTP: {got.stdout!r} {got.stderr!r} != {want.stdout!r}")
        url = proxy.url

    # The servers are gone: the cache serves all, nothing is asked, nothing said.
    p, again = stackwalk(args, dump, "--symbols-url", url, "--symbols-cache", cache)
    if not again or frames_of(again) != frames_of(local) or warnings(p.stderr):
        report.fail(f"from the cache: {p.stderr.strip()} "
                    f"{frames_of(again) if again else None}")

    with servers.Nginx(args.nginx) as nginx:
        shutil.rmtree(nginx.root)
        shutil.copytree(served, nginx.root)
        # Misses remembered: a new cache for the hits, the misses kept.
        with servers.FaultProxy(nginx.url) as proxy:
            fresh = os.path.join(tmp, "cache4")
            p = sh(args.symtool, "stackwalk", "--format", "rust-minidump", "--symbols-url", proxy.url,
                   "--symbols-cache", fresh, dump)
            urls = {m["filename"]: m["symbol_url"] for m in json.loads(p.stdout)["modules"]}
            if urls.get("walker") != proxy.url + main_debug:
                report.fail(f"rust-minidump's symbol_url: {urls}")
            before = len(gets(proxy))
            stackwalk(args, dump, "--symbols-url", proxy.url, "--symbols-cache", fresh)
            if len(gets(proxy)) != before:
                report.fail(f"remembered misses asked again: {gets(proxy)[before:]}")
            stackwalk(args, dump, "--symbols-url", proxy.url, "--symbols-cache", fresh,
                      "--symbols-miss-ttl", "0")
            if len(gets(proxy)) == before:
                report.fail("--symbols-miss-ttl 0 does not ask again")
        # A server that only answers 503.
        with servers.FaultProxy(nginx.url, rule=lambda m, p, n: "503") as proxy:
            p, failed = stackwalk(args, dump, "--symbols-url", proxy.url, "--symbols-cache",
                                  os.path.join(tmp, "cache5"), "--symbols-retries", "1")
            told = warnings(p.stderr)
            if not failed or len(told) != 1 or "503" not in told[0] or len(gets(proxy)) != 2 or \
                    not failed["threads"][0]["frames"]:
                report.fail(f"a failing server: {told} {len(gets(proxy))} requests")
        # A 200 that is not a symbol file.
        page = servers.Nginx(args.nginx, locations=f"        location = {main_debug} "
                                                    "{ return 200 '<html>login</html>'; }\n")
        with page as nginx:
            bad_cache = os.path.join(tmp, "cache6")
            p, walked = stackwalk(args, dump, "--symbols-url", nginx.url, "--symbols-cache", bad_cache)
            if not walked or not any("not a symbol file" in w for w in warnings(p.stderr)) or \
                    os.path.exists(os.path.join(bad_cache, main_debug[1:])):
                report.fail(f"a page that is not a symbol file: {p.stderr.strip()}")
    report.note(f"a walk over HTTP equals the local store's and gdb's ({n} frames); "
                f"{first_requests} requests the first time, 0 from the cache")


if __name__ == "__main__":
    main()
