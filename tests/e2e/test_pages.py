#!/usr/bin/env python3
"""The store's web pages (docs/PAGES.md) as a browser shows them: Debian's
chromium, headless, reads each GET page (--dump-dom) and puppeteer-core
(from npm, pointed at that chromium; nothing downloaded) fills the forms.
Every value a page marks for tools is judged against symtool on the same
files:

- the search finds a module by a name prefix, a partial debug id (lower
  case), a code id (a PE's) and a build id (an ELF's), each result saying
  how it matched and linking to the module's page; results come in pages
  (rel=next/prev); a query that cannot match says why; the summary counts
  the store's modules, files and bytes;
- a module page's MODULE and INFO lines are the file's, its record counts
  and its code, FUNC, line and CFI byte counts equal `symtool stats`, its
  downloads give the store's bytes;
- the address form (typed in the browser, and as ?address=) shows what
  `symtool lookup --json` finds: the inlined frames innermost first, or the
  PUBLIC;
- the check page lists the problems `symtool validate` finds in a damaged
  .sym at the same lines, and for a good file with a second one, the
  functions `symtool diff` names;
- the walk page's threads and frames equal `symtool stackwalk --json` of
  the same minidump (a clang-19 crash, gdb's core of it converted), and
  its modules say which symbols were loaded or missing;
- names built to be markup (a FUNC, a FILE, a PUBLIC, an INFO line) are
  shown as text: the page's only script is its own, no element carries an
  event handler, and the text reads as written;
- every page has a <title> and a <main> and answers with a
  Content-Security-Policy; with --tokens, the check and walk forms ask for a
  token and a POST without one is refused (401).

A screenshot of each page (and a phone-sized one of the module page) is
kept in --artifacts."""
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse

import common
import page_dom
import test_minidump as minidump
import test_stackwalk as walk
from serve_process import ServeProcess

TOKEN = "pages-T0ken-4d2f"
OWN_SCRIPT = "/ui/static/pages.js"

# A module whose names are markup. A PE's (a code id that is not a build id).
EVIL_FILE = "evil.pdb"
EVIL_ID = "0123456789ABCDEF0123456789ABCDEF1"
EVIL_CODE_ID = "5F3C2A1B7000"
EVIL_FUNC = "evil<script>alert(1)</script>"
EVIL_SOURCE = 'c:\\src\\<img src=x onerror="alert(2)">.c'
EVIL_PUBLIC = "<b onmouseover=alert(3)>pub</b>"
EVIL_INFO = "GENERATOR \"><iframe src=javascript:alert(4)></iframe>"
EVIL_SYM = f"""MODULE windows x86_64 {EVIL_ID} {EVIL_FILE}
INFO CODE_ID {EVIL_CODE_ID} evil.dll
INFO {EVIL_INFO}
FILE 0 {EVIL_SOURCE}
FUNC 1000 40 0 {EVIL_FUNC}
FUNC 1040 20 0 plain_function
1040 20 12 0
PUBLIC 2000 0 {EVIL_PUBLIC}
STACK CFI INIT 1040 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^
"""
EVIL_FUNC_ADDRESS = 0x1010
EVIL_PUBLIC_ADDRESS = 0x2008

# Enough modules of one name to need a second page of results (50 a page).
PAGED_COUNT = 53

# A .sym with problems the check page must list where `symtool validate` does.
DAMAGED_SYM = """MODULE Linux x86_64 AABBCCDDEEFF00112233445566778899A damaged.so
FILE 0 damaged.c
1000 10 3 0
FUNC zz 10 0 bad_address
FUNC 2000 20 0 good_function
2000 20 5 0
STACK CFI INIT 2000 nope .cfa: $rsp 8 +
FUNC 3000
"""


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(map(str, argv)), capture_output=True, text=True, **kw)


# --- the browser ------------------------------------------------------------

class Browser:
    """Debian's chromium, headless: DOMs of GET pages, screenshots, and
    puppeteer-core (pages_browser.js) for the forms."""

    def __init__(self, args, tmp):
        self.chromium, self.node, self.npm = args.chromium, args.node, args.npm_tools
        self.tmp = tmp
        self.count = 0
        self.seconds = 0.0

    def _profile(self):
        self.count += 1
        return tempfile.mkdtemp(prefix=f"profile{self.count}-", dir=self.tmp)

    def _chromium(self, *flags, url):
        started = time.monotonic()
        p = sh(self.chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={self._profile()}", *flags, url, timeout=90)
        self.seconds += time.monotonic() - started
        return p

    def dom_html(self, url):
        p = self._chromium("--dump-dom", url=url)
        if p.returncode != 0 or "<html" not in p.stdout:
            raise SystemExit(f"chromium --dump-dom {url}: exit {p.returncode}: {p.stderr[-600:]}")
        return p.stdout

    def doms(self, urls):
        """{url: parsed DOM}, three browsers at a time."""
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            texts = dict(zip(urls, pool.map(self.dom_html, urls)))
        return {url: page_dom.parse(text) for url, text in texts.items()}

    def screenshot(self, url, path, width=1280, height=1800):
        p = self._chromium(f"--screenshot={path}", f"--window-size={width},{height}", url=url)
        if p.returncode != 0 or not os.path.exists(path) or os.path.getsize(path) == 0:
            raise SystemExit(f"chromium --screenshot {url}: exit {p.returncode}: {p.stderr[-600:]}")

    def forms(self, jobs):
        """Runs pages_browser.js over `jobs`; each result gains the DOM of the
        answer ("dom") when the job wrote one."""
        spec = os.path.join(self.tmp, f"jobs{self.count}.json")
        with open(spec, "w") as fh:
            json.dump({"chromium": shutil.which(self.chromium) or self.chromium,
                       "profile": self._profile(), "jobs": jobs}, fh)
        started = time.monotonic()
        p = sh(self.node, os.path.join(common.HERE, "pages_browser.js"), self.npm, spec, timeout=300)
        self.seconds += time.monotonic() - started
        if p.returncode != 0:
            raise SystemExit(f"pages_browser.js: exit {p.returncode}: {p.stderr[-1500:]}")
        results = json.loads(p.stdout)
        for job, result in zip(jobs, results):
            if "error" not in result and os.path.exists(job["html"]):
                with open(job["html"], encoding="utf-8") as fh:
                    result["dom"] = page_dom.parse(fh.read())
        return results


# --- what the store holds ---------------------------------------------------

def build_store(args, tmp):
    """The store: the stack-walk crash program and its library (clang-19,
    -O2 -g, with frame pointers) added by symstore add with their binaries,
    the hostile module, and the paged modules. Returns (program directory,
    store)."""
    directory = walk.build(tmp, "clang-19", "-fno-omit-frame-pointer")
    release = os.path.join(tmp, "release")
    os.makedirs(release)
    for name in ("walker", "libwalk.so"):
        shutil.copy(os.path.join(directory, name), release)
    store = os.path.join(tmp, "store")
    p = sh(args.symstore, "add", store, release, "--keep-binaries", "--inlines", "--no-debuginfod",
           "-q")
    if p.returncode != 0:
        raise SystemExit(f"symstore add: {p.stderr.strip()}")
    put_sym(store, EVIL_FILE, EVIL_ID, EVIL_SYM)
    for i in range(PAGED_COUNT):
        ident = f"{i:08X}" + "0" * 24 + "0"
        put_sym(store, f"paged{i:02d}.so", ident,
                f"MODULE Linux x86_64 {ident} paged{i:02d}.so\nFUNC 1000 10 0 paged_{i}\n")
    return directory, store


def put_sym(store, debug_file, debug_id, text):
    stem = debug_file[:-4] if debug_file.lower().endswith(".pdb") else debug_file
    folder = os.path.join(store, debug_file, debug_id)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, stem + ".sym"), "w") as fh:
        fh.write(text)


def store_modules(store):
    """{debug_file: [(debug_id, .sym path, [kept file paths])]} from the directory."""
    modules = {}
    for name in sorted(os.listdir(store)):
        top = os.path.join(store, name)
        if name.startswith(".") or not os.path.isdir(top):
            continue
        for ident in sorted(os.listdir(top)):
            folder = os.path.join(top, ident)
            if not os.path.isdir(folder):
                continue
            files = sorted(os.listdir(folder))
            syms = [f for f in files if f.endswith(".sym")]
            if not syms:
                continue
            kept = [os.path.join(folder, f) for f in files
                    if not f.endswith(".sym") and not f.endswith(".idx") and not f.startswith(".")]
            modules.setdefault(name, []).append((ident, os.path.join(folder, syms[0]), kept))
    return modules


def module_of(modules, debug_file):
    entries = modules.get(debug_file)
    if not entries:
        raise SystemExit(f"the store has no {debug_file}: {sorted(modules)}")
    return entries[0]


def build_id(path):
    out = sh("readelf", "-n", path).stdout
    match = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not match:
        raise SystemExit(f"{path} has no build id")
    return match.group(1)


def header_lines(sym_path):
    with open(sym_path, encoding="utf-8", errors="replace") as fh:
        lines = []
        for line in fh:
            line = line.rstrip("\n")
            if not (line.startswith("MODULE ") or line.startswith("INFO ")):
                break
            lines.append(line)
        return lines


# --- symtool, the oracle ----------------------------------------------------

def stats(symtool, sym_path):
    """`symtool stats --json` of a file: {"records": {kind: n}, "bytes": {code,
    function, line, cfi}}."""
    p = sh(symtool, "stats", "--json", sym_path)
    if p.returncode != 0:
        raise SystemExit(f"symtool stats --json {sym_path}: {p.stderr.strip()}")
    data = json.loads(p.stdout)
    return {"records": {kind: int(n) for kind, n in data["records"].items()},
            "bytes": {k: int(data["bytes"][k]) for k in ("code", "function", "line", "cfi")}}


def lookup(symtool, target, address, module=None):
    """`symtool lookup --json` of one address, with each frame's inlined flag
    from the text form (the JSON has none)."""
    extra = ["--module", module] if module else []
    p = sh(symtool, "lookup", target, hex(address), *extra, "--json")
    if p.returncode != 0:
        raise SystemExit(f"symtool lookup {target} {hex(address)}: {p.stderr.strip()}")
    answer = json.loads(p.stdout.splitlines()[0])
    text = sh(symtool, "lookup", target, hex(address), *extra).stdout.splitlines()[1:]
    inlined = [line.endswith(" (inlined)") for line in text if " at " in line]
    for frame, flag in zip(answer.get("frames", []), inlined):
        frame["inlined"] = flag
    return answer


def validate(symtool, sym_path):
    """[(line, message)] as `symtool validate` prints them."""
    p = sh(symtool, "validate", sym_path)
    problems = []
    prefix = sym_path + ":"
    for line in p.stdout.splitlines():
        if not line.startswith(prefix):
            continue
        rest = line[len(prefix):]
        match = re.match(r"(\d+): (.*)", rest)
        problems.append((int(match.group(1)), match.group(2)) if match else (0, rest.strip()))
    return problems


def inline_address(sym_path):
    """The start of the first INLINE record's first range: an address with
    inlined frames."""
    with open(sym_path) as fh:
        for line in fh:
            if line.startswith("INLINE "):
                parts = line.split()
                return int(parts[5], 16)
    return None


def function_address(sym_path, name):
    with open(sym_path) as fh:
        for line in fh:
            parts = line.split(" ", 4)
            if parts[0] == "FUNC":
                fields = line.rstrip("\n").split(" ")
                if fields[1] == "m":
                    fields = fields[1:]
                if " ".join(fields[4:]) == name:
                    return int(fields[1], 16)
    return None


# --- judging a page -----------------------------------------------------------

def number(text):
    digits = re.sub(r"[^0-9]", "", text)
    return int(digits) if digits else None


def flag(value):
    """A data- attribute read as a boolean: "true"/"false" (or 1/0)."""
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    return value  # anything else is compared as is, and so differs


def check_basics(report, label, dom, status=None, headers=None):
    if dom.find("title") is None or not dom.find("title").text():
        report.fail(f"{label}: no <title> (or an empty one)")
    if dom.find("main") is None:
        report.fail(f"{label}: no <main>")
    if status is not None and status != 200:
        report.fail(f"{label}: status {status}, not 200")
    if headers is not None and "content-security-policy" not in headers:
        report.fail(f"{label}: no Content-Security-Policy header (headers: {sorted(headers)})")


def check_no_markup_injected(report, label, dom):
    """The page's only script is its own; no element has an event handler;
    nothing a name could have made (iframe, img with src=x) is there."""
    for script in dom.find_all("script"):
        if script.attrs.get("src") != OWN_SCRIPT:
            report.fail(f"{label}: a <script> that is not the page's own: {script.attrs} "
                        f"{script.text()[:80]!r}")
    for element in dom.elements():
        handlers = [name for name in element.attrs if name.startswith("on")]
        if handlers:
            report.fail(f"{label}: <{element.tag}> carries {handlers}: a name became markup")
        if element.tag == "iframe" or (element.tag == "img" and element.attrs.get("src") == "x"):
            report.fail(f"{label}: a <{element.tag}> from a name: {element.attrs}")


# --- the home page and the search -------------------------------------------

def check_summary(report, dom, modules):
    summary = dom.by_id("store-summary")
    if summary is None or summary.tag != "dl":
        report.fail(f"/: no <dl id=store-summary> ({summary})")
        return
    values = {dd.attrs["data-stat"]: dd for dd in summary.find_all("dd", attr="data-stat")}
    kept = [k for entries in modules.values() for _, _, files in entries for k in files]
    syms = [s for entries in modules.values() for _, s, _ in entries]
    expect = {"modules": len(modules), "symbol-files": len(syms), "kept-files": len(kept)}
    for key, want in expect.items():
        if key not in values:
            report.fail(f"/: no <dd data-stat={key}> in the summary ({sorted(values)})")
        elif number(values[key].text()) != want:
            report.fail(f"/: data-stat={key} shows {values[key].text()!r}, the store has {want}")
    total = sum(os.path.getsize(p) for p in syms + kept)
    if "bytes" not in values:
        report.fail("/: no <dd data-stat=bytes> in the summary")
    elif values["bytes"].attrs.get("data-value") != str(total):
        report.fail(f"/: data-stat=bytes data-value={values['bytes'].attrs.get('data-value')!r}, "
                    f"the store's files hold {total} bytes")
    form = dom.by_id("search")
    if form is None or form.tag != "form" or form.attrs.get("method", "").lower() != "get" \
            or form.attrs.get("action") != "/" or form.find("input", name="q") is None:
        report.fail(f"/: no <form id=search method=get action=/> with <input name=q>: {form}")
    newest = dom.by_id("newest")
    if newest is None or newest.tag != "table":
        report.fail("/: no <table id=newest>")
    report.note(f"summary: {', '.join(f'{k} {v.text()}' for k, v in values.items())}")


def check_module_list(report, base, store, first, read):
    """/ui/modules against the store directory itself: each first letter
    with its number of modules, and under each letter every module with its
    number of .sym files, linked to its newest build's page."""
    want = {}
    for name in os.listdir(store):
        # (a code-id link to a .sym is no build of its own)
        builds = [p for p in glob.glob(os.path.join(store, glob.escape(name), "*", "*.sym"))
                  if not os.path.islink(p)] if not name.startswith(".") else []
        if builds:
            want[name] = len(builds)
    letter_of = lambda n: n[0].upper() if n[0].isascii() and n[0].isalpha() else "#"  # noqa: E731
    letters = {}
    for name in want:
        letters[letter_of(name)] = letters.get(letter_of(name), 0) + 1
    bar = first.by_id("letters")
    shown = {e.attrs.get("data-letter"): int(e.attrs.get("data-count", "0"))
             for e in (bar.elements() if bar is not None else []) if e.attrs.get("data-letter")}
    if shown != letters:
        report.fail(f"modules A-Z: letters {shown}, the store's {letters}")
        return
    seen = {}
    for letter in sorted(letters):
        dom = read(f"{base}/ui/modules?letter={urllib.parse.quote(letter)}")
        table = dom.by_id("modules")
        for row in table.find_all("tr", cls="module") if table is not None else []:
            seen[row.attrs.get("data-debug-file")] = int(row.attrs.get("data-builds", "0"))
            link = row.find("a")
            if link is None or not link.attrs.get("href", "").startswith("/ui/module/"):
                report.fail(f"modules A-Z: {row.attrs.get('data-debug-file')} links to no module page")
    if seen != want:
        report.fail(f"modules A-Z: {len(seen)} modules listed, the store has {len(want)}: "
                    f"{sorted(set(seen.items()) ^ set(want.items()))[:5]}")
    else:
        report.note(f"modules A-Z: {len(want)} modules under {len(letters)} letters, each with its "
                    f"number of builds, as the store directory holds them")


def result_rows(dom):
    table = dom.by_id("results")
    return table.find_all("tr", cls="result") if table is not None else []


def check_search(report, label, dom, debug_file, debug_id, how):
    rows = result_rows(dom)
    mine = [r for r in rows if r.attrs.get("data-debug-id", "").upper() == debug_id.upper()]
    if not mine:
        report.fail(f"search {label}: no result with data-debug-id={debug_id} among "
                    f"{[(r.attrs.get('data-debug-file'), r.attrs.get('data-debug-id')) for r in rows][:6]}"
                    f"{'' if dom.by_id('results') is not None else ' (no <table id=results>)'}")
        return
    row = mine[0]
    if row.attrs.get("data-debug-file") != debug_file:
        report.fail(f"search {label}: data-debug-file={row.attrs.get('data-debug-file')!r}, not {debug_file!r}")
    if row.attrs.get("data-match") != how:
        report.fail(f"search {label}: data-match={row.attrs.get('data-match')!r}, not {how!r}")
    if "data-code-id" not in row.attrs:
        report.fail(f"search {label}: the result has no data-code-id")
    link = row.find("a")
    want = f"/ui/module/{debug_file}/{debug_id}"
    href = urllib.parse.unquote(urllib.parse.urlsplit(link.attrs.get("href", "")).path) if link else None
    if href is None or href.upper() != want.upper():
        report.fail(f"search {label}: the first link goes to {href!r}, not {want!r}")


def check_paging(report, base, dom, next_dom_of):
    rows = result_rows(dom)
    if len(rows) != 50:
        report.fail(f"search paged: page 1 has {len(rows)} results, not 50 of {PAGED_COUNT}")
    nav = dom.find("nav", cls="pages")
    nxt = nav.find("a", rel="next") if nav else None
    if nxt is None:
        report.fail(f"search paged: no <nav class=pages> with a rel=next link ({nav})")
        return
    second = next_dom_of(urllib.parse.urljoin(base + "/", nxt.attrs.get("href", "")))
    rows2 = result_rows(second)
    if len(rows2) != PAGED_COUNT - 50:
        report.fail(f"search paged: page 2 has {len(rows2)} results, not {PAGED_COUNT - 50}")
    seen = {r.attrs.get("data-debug-file") for r in rows + rows2}
    if seen != {f"paged{i:02d}.so" for i in range(PAGED_COUNT)}:
        report.fail(f"search paged: the two pages list {len(seen)} modules, not the {PAGED_COUNT}")
    nav2 = second.find("nav", cls="pages")
    if nav2 is None or nav2.find("a", rel="prev") is None:
        report.fail("search paged: page 2 has no rel=prev link")


# --- a module page ------------------------------------------------------------

def check_module_page(report, label, dom, sym_path, expect, server=None, store=None, kept=(),
                      stored=True):
    """A module page's sections against the file and `symtool stats`; a
    stored module's page (not the check page's answer) also has the lookup
    form and the downloads, checked against the store through `server`."""
    lines = header_lines(sym_path)
    module_line = dom.by_id("module-line")
    if module_line is None or module_line.tag != "code":
        report.fail(f"{label}: no <code id=module-line>")
    elif module_line.text() != " ".join(lines[0].split()):
        report.fail(f"{label}: module-line {module_line.text()!r}, the file's {lines[0]!r}")
    infos = [e.text() for e in dom.find_all("code", cls="info-line")]
    want = [" ".join(l.split()) for l in lines[1:]]
    if [i if i.startswith("INFO ") else "INFO " + i for i in infos] != want:
        report.fail(f"{label}: info-lines {infos}, the file's {want}")

    counts = dom.by_id("counts")
    shown = {dd.attrs["data-count"]: number(dd.text())
             for dd in (counts.find_all("dd", attr="data-count") if counts else [])}
    for kind, n in expect["records"].items():
        if shown.get(kind) != n:
            report.fail(f"{label}: data-count={kind!r} shows {shown.get(kind)}, symtool stats {n}")
    numbers = dom.by_id("coverage-numbers")
    values = {dd.attrs["data-bytes"]: dd.attrs.get("data-value")
              for dd in (numbers.find_all("dd", attr="data-bytes") if numbers else [])}
    for key, n in expect["bytes"].items():
        value = values.get(key)
        if value is None or not value.isdigit():
            report.fail(f"{label}: data-bytes={key} data-value={value!r}")
        elif int(value) != n:
            report.fail(f"{label}: data-bytes={key} is {value}, symtool stats {n}")
    parts = [values.get(k) for k in ("with-lines", "without-lines", "public-only", "nothing")]
    if not all(p is not None and p.isdigit() for p in parts):
        report.fail(f"{label}: the coverage kinds' data-value are {parts}")
    elif "function" in values and values["function"].isdigit() and \
            int(parts[0]) + int(parts[1]) != int(values["function"]):
        report.fail(f"{label}: with-lines + without-lines = {int(parts[0]) + int(parts[1])}, "
                    f"but function bytes are {values['function']}")
    sections = [("coverage-bar", "svg"), ("cfi-bar", "svg"), ("largest-without-cfi", "table"),
                ("largest-without-lines", "table")]
    if stored:
        sections += [("lookup", "form"), ("downloads", "ul")]
    for ident, tag in sections:
        element = dom.by_id(ident)
        if element is None:
            report.fail(f"{label}: no <{tag} id={ident}>")
        elif element.tag != tag and not (ident.startswith("largest-") and element.text() == "None."):
            # (an empty list of the largest functions is a "None." paragraph by that id)
            report.fail(f"{label}: #{ident} is a <{element.tag}>, not a <{tag}>")
    form = dom.by_id("lookup")
    if form is not None and form.find("input", name="address") is None:
        report.fail(f"{label}: form#lookup has no <input name=address>")
    if server is None:
        return
    # The downloads: the .sym and each kept file, by the download API, the store's bytes.
    downloads = dom.by_id("downloads")
    hrefs = [a.attrs.get("href", "") for a in (downloads.find_all("a") if downloads else [])]
    paths = {urllib.parse.unquote(urllib.parse.urlsplit(h).path) for h in hrefs}
    for path in [sym_path, *kept]:
        relative = "/" + os.path.relpath(path, store)
        if relative not in paths:
            report.fail(f"{label}: ul#downloads has no link to {relative} ({sorted(paths)})")
            continue
        status, _, body = server.request("GET", urllib.parse.quote(relative))
        with open(path, "rb") as fh:
            if status != 200 or body != fh.read():
                report.fail(f"{label}: the download {relative} gave {status}, "
                            f"{len(body)} bytes that are not the store's")


def check_lookup(report, label, dom, address, answer):
    result = dom.by_id("lookup-result")
    if result is None:
        report.fail(f"{label}: no <section id=lookup-result>")
        return
    shown = result.attrs.get("data-address", "")
    try:
        if int(shown, 16) != address:
            report.fail(f"{label}: data-address={shown!r}, asked {hex(address)}")
    except ValueError:
        report.fail(f"{label}: data-address={shown!r} is not hex")
    rows = result.find_all("tr", cls="lookup-frame")
    public = result.find("p", cls="lookup-public")
    if "public" in answer:
        if public is None or public.attrs.get("data-name") != answer["public"]:
            report.fail(f"{label}: lookup-public {public}, symtool lookup {answer['public']!r}")
        if rows:
            report.fail(f"{label}: a PUBLIC's address shows {len(rows)} lookup-frame rows")
        return
    got = [(r.attrs.get("data-function"), r.attrs.get("data-file"), number(r.attrs.get("data-line", "")) or 0,
            flag(r.attrs.get("data-inlined"))) for r in rows]
    want = [(f["function"], f["file"], f["line"], f.get("inlined", False)) for f in answer["frames"]]
    if got != want:
        report.fail(f"{label}: lookup frames {got}, symtool lookup {want}")
    if public is not None:
        report.fail(f"{label}: a FUNC's address shows lookup-public {public.attrs}")


# --- check and walk -----------------------------------------------------------

def check_problems(report, label, dom, problems):
    listed = dom.by_id("problems")
    items = listed.find_all("li", cls="problem") if listed is not None else []
    if problems and listed is None:
        report.fail(f"{label}: no <ol id=problems>")
        return
    got = [(number(li.attrs.get("data-line", "")) or 0, li.text()) for li in items]
    if len(got) != len(problems):
        report.fail(f"{label}: {len(got)} problems listed {got}, symtool validate finds "
                    f"{len(problems)}: {problems}")
        return
    for (line, text), (want_line, message) in zip(got, problems):
        if line != want_line or message not in text:
            report.fail(f"{label}: problem at line {line} {text!r}, symtool validate: "
                        f"line {want_line} {message!r}")


def check_walk(report, label, dom, ours, explain):
    if dom.by_id("crash") is None:
        report.fail(f"{label}: no <section id=crash>")
    sections = dom.find_all("section", cls="thread")
    if len(sections) != len(ours["threads"]):
        report.fail(f"{label}: {len(sections)} thread sections, symtool stackwalk has "
                    f"{len(ours['threads'])}")
    order = [s.attrs.get("data-index") for s in sections]
    if order != [str(i) for i in range(len(sections))]:
        report.fail(f"{label}: the thread sections' data-index in page order are {order}, "
                    f"not the JSON's order")
    as_text = lambda v: "" if v is None else str(v)
    frames = 0
    for section in sections:
        index = number(section.attrs.get("data-index", ""))
        if index is None or index >= len(ours["threads"]):
            continue
        thread = ours["threads"][index]
        for key in ("crashed", "requesting"):
            if flag(section.attrs.get(f"data-{key}")) != thread[key]:
                report.fail(f"{label}: thread {index} data-{key}={section.attrs.get(f'data-{key}')!r}, "
                            f"symtool {thread[key]}")
        if section.attrs.get("data-tid") != str(thread["tid"]):
            report.fail(f"{label}: thread {index} data-tid={section.attrs.get('data-tid')!r}, "
                        f"symtool {thread['tid']}")
        keys = ("module", "function", "file", "line", "trust", "offset")
        got = [tuple(r.attrs.get(f"data-{k}") for k in keys) for r in section.find_all("tr", cls="frame")]
        want = [tuple(as_text(f.get(k)) for k in keys) for f in thread["frames"]]
        frames += len(got)
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            report.fail(f"{label}: thread {index}: {len(got)} frames, symtool {len(want)}; first "
                        f"difference at {first}: {got[first] if first < len(got) else None} != "
                        f"{want[first] if first < len(want) else None}")
    section = dom.by_id("modules")
    rows = section.find_all("tr", cls="module") if section is not None else []
    got = {r.attrs.get("data-name"): r.attrs.get("data-symbols") for r in rows}
    want = {m["name"]: m["symbols"] for m in ours["modules"]}
    if got != want:
        report.fail(f"{label}: modules {got}, symtool stackwalk {want}")
    # A module without symbols shows what was looked for: what each of
    # --explain's lines about it says ("symtool: module NAME (FILE ID): WHAT").
    text = section.text() if section is not None else ""
    missing = [m["name"] for m in ours["modules"] if m["symbols"] in ("missing", "corrupt")]
    for name in missing:
        about = [l.split("): ", 1)[1] for l in explain
                 if l.startswith(f"symtool: module {name} (") and "): " in l]
        absent = [what for what in about if " ".join(what.split()) not in text]
        if not about or absent:
            report.fail(f"{label}: the modules section does not show what was looked for {name}: "
                        f"{absent[:2] or 'symtool stackwalk --explain says nothing of it'}")
    named = sum(1 for t in ours["threads"] for f in t["frames"] if f.get("function"))
    report.note(f"{label}: {len(sections)} threads, {frames} frames ({named} named), "
                f"{len(rows)} modules ({len(missing)} without symbols)")


# --- the run ----------------------------------------------------------------

class Case:
    """What the checks share: the store, its modules and the files the forms send."""

    def __init__(self, args, report, tmp):
        started = time.monotonic()
        self.tmp = tmp
        self.directory, self.store = build_store(args, tmp)
        self.modules = store_modules(self.store)
        gcore = os.path.join(self.directory, "gcore.lib")
        walk.gdb_oracle(self.directory, gcore, os.path.join(self.directory, "gdb.lib.json"), "lib")
        self.dump = os.path.join(tmp, "crash.dmp")
        minidump.to_minidump(gcore, self.dump)
        self.damaged = os.path.join(tmp, "damaged.sym")
        with open(self.damaged, "w") as fh:
            fh.write(DAMAGED_SYM)
        self.lib_id, self.lib_sym, self.lib_kept = module_of(self.modules, "libwalk.so")
        self.main_id, self.main_sym, self.main_kept = module_of(self.modules, "walker")
        self.evil_id, self.evil_sym, _ = module_of(self.modules, EVIL_FILE)
        # The library's .sym with one function renamed: what the check page diffs.
        self.renamed = os.path.join(tmp, "libwalk-renamed.sym")
        with open(self.lib_sym) as fh, open(self.renamed, "w") as out:
            out.write(re.sub(r"(?m)^(FUNC (?:m )?\S+ \S+ \S+ )walk_sort$", r"\1walk_sort_renamed",
                             fh.read()))
        self.diff = sh(args.symtool, "diff", self.lib_sym, self.renamed).stdout.splitlines()
        self.inlined_at = inline_address(self.lib_sym)
        if self.inlined_at is None:
            report.fail("libwalk.so's .sym has no INLINE record (clang -O2 inlines walk_step)")
            self.inlined_at = function_address(self.lib_sym, "walk_descend")
        self.lib_stats = stats(args.symtool, self.lib_sym)
        self.lib_lookup = lookup(args.symtool, self.store, self.inlined_at, "libwalk.so")
        if len(self.lib_lookup.get("frames", [])) < 2:
            report.fail(f"symtool lookup {hex(self.inlined_at)} in libwalk.so gives no inlined "
                        f"frame: {self.lib_lookup}")
        self.lib_page = f"/ui/module/libwalk.so/{self.lib_id}"
        self.evil_page = f"/ui/module/{urllib.parse.quote(EVIL_FILE)}/{self.evil_id}"
        # label: (query, debug file, debug id, data-match)
        self.searches = {
            "name prefix": ("/?q=libwal", "libwalk.so", self.lib_id, "name"),
            "debug id": (f"/?q={self.lib_id[:10].lower()}", "libwalk.so", self.lib_id, "debug id"),
            "code id": (f"/?q={EVIL_CODE_ID.lower()}", EVIL_FILE, self.evil_id, "code id"),
            "build id": (f"/?q={build_id(os.path.join(self.directory, 'walker'))[:16]}", "walker",
                         self.main_id, "build id"),
        }
        report.note(f"store, crash and oracles made in {time.monotonic() - started:.1f} s")


def check_get_pages(args, report, case, server, browser):
    """The pages a link opens, read by chromium --dump-dom."""
    gets = {
        "home": "/",
        **{f"search {k}": v[0] for k, v in case.searches.items()},
        "search paged": "/?q=paged",
        "search short id": "/?q=c0ffee",
        "module libwalk.so": case.lib_page,
        "module walker": f"/ui/module/walker/{case.main_id}",
        "module evil": case.evil_page,
        "lookup inlined": f"{case.lib_page}?address={hex(case.inlined_at)}",
        "lookup evil": f"{case.evil_page}?address={hex(EVIL_FUNC_ADDRESS)}",
        "lookup public": f"{case.evil_page}?address={hex(EVIL_PUBLIC_ADDRESS)}",
        "check form": "/ui/check",
        "walk form": "/ui/walk",
        "modules A-Z": "/ui/modules",
    }
    base = server.url
    fetched = time.monotonic()
    doms = browser.doms([base + path for path in gets.values()])
    dom = {label: doms[base + path] for label, path in gets.items()}
    report.note(f"{len(gets)} pages read by chromium in {time.monotonic() - fetched:.1f} s")
    where = os.path.dirname(os.path.realpath(case.store)).encode()
    for label, path in gets.items():
        status, headers, body = server.request("GET", path)
        check_basics(report, label, dom[label], status, headers)
        check_no_markup_injected(report, label, dom[label])
        # Where the server keeps its files is nobody's business: the header
        # names the store by its directory's name alone.
        if where in body:
            report.fail(f"{label}: the page shows the server's path {where.decode()}")
        if f'<span class="store">{os.path.basename(case.store)}</span>'.encode() not in body:
            report.fail(f"{label}: the header does not name the store {os.path.basename(case.store)!r}")

    check_summary(report, dom["home"], case.modules)
    check_module_list(report, base, case.store, dom["modules A-Z"], lambda url: browser.doms([url])[url])
    for label, (_, debug_file, debug_id, how) in case.searches.items():
        check_search(report, label, dom[f"search {label}"], debug_file, debug_id, how)
    check_paging(report, base, dom["search paged"], lambda url: browser.doms([url])[url])
    short = dom["search short id"]
    if result_rows(short) or short.by_id("search-note") is None:
        report.fail(f"search short id: {len(result_rows(short))} results and "
                    f"search-note {short.by_id('search-note')}; 6 hex digits match no id")

    check_module_page(report, "module libwalk.so", dom["module libwalk.so"], case.lib_sym,
                      case.lib_stats, server, case.store, case.lib_kept)
    check_module_page(report, "module walker", dom["module walker"], case.main_sym,
                      stats(args.symtool, case.main_sym), server, case.store, case.main_kept)
    check_module_page(report, "module evil", dom["module evil"], case.evil_sym,
                      stats(args.symtool, case.evil_sym))
    check_lookup(report, "lookup inlined", dom["lookup inlined"], case.inlined_at, case.lib_lookup)
    check_lookup(report, "lookup evil", dom["lookup evil"], EVIL_FUNC_ADDRESS,
                 lookup(args.symtool, case.evil_sym, EVIL_FUNC_ADDRESS))
    check_lookup(report, "lookup public", dom["lookup public"], EVIL_PUBLIC_ADDRESS,
                 lookup(args.symtool, case.evil_sym, EVIL_PUBLIC_ADDRESS))
    check_hostile_text(report, dom)
    for label in ("check form", "walk form"):
        form_id = label.split()[0]
        form = dom[label].by_id(form_id)
        if form is None or form.attrs.get("method", "").lower() != "post" or \
                form.attrs.get("enctype") != "multipart/form-data":
            report.fail(f"{label}: no <form id={form_id} method=post enctype=multipart/form-data>")
        elif form.find("input", name="token") is not None:
            report.fail(f"{label}: asks for a token on a server without tokens")


def check_hostile_text(report, dom):
    """Names that are markup read as text, where each is shown."""
    evil_text = dom["module evil"].text()
    for name in (EVIL_FUNC, EVIL_INFO):
        if name not in evil_text:
            report.fail(f"module evil: the page's text lacks {name!r}")
    for ident in ("largest-without-cfi", "largest-without-lines"):
        table = dom["module evil"].by_id(ident)
        rows = [r.text() for r in table.find_all("tr")] if table is not None else []
        if not any(EVIL_FUNC in r for r in rows) or any("plain_function" in r for r in rows):
            report.fail(f"module evil: #{ident} lists {rows}: {EVIL_FUNC!r} only (it has "
                        f"neither CFI nor lines, plain_function both)")
    if EVIL_FUNC not in dom["lookup evil"].text():
        report.fail(f"lookup evil: the page's text lacks {EVIL_FUNC!r}")
    if EVIL_PUBLIC not in dom["lookup public"].text():
        report.fail(f"lookup public: the page's text lacks {EVIL_PUBLIC!r}")


def check_forms(args, report, case, server, browser):
    """The forms, filled in the browser by puppeteer-core."""
    base, tmp, artifacts = server.url, case.tmp, args.artifacts
    jobs = [
        {"url": base + case.lib_page, "form": "lookup", "fields": {"address": hex(case.inlined_at)},
         "html": os.path.join(tmp, "lookup-form.html")},
        {"url": base + "/ui/check", "form": "check", "files": {"sym": case.damaged},
         "html": os.path.join(tmp, "check-damaged.html"),
         "screenshot": os.path.join(artifacts, "check-damaged.png")},
        {"url": base + "/ui/check", "form": "check", "files": {"sym": case.lib_sym, "other": case.renamed},
         "fields": {"address": hex(case.inlined_at)}, "html": os.path.join(tmp, "check-diff.html"),
         "screenshot": os.path.join(artifacts, "check-diff.png")},
        {"url": base + "/ui/walk", "form": "walk", "files": {"dump": case.dump},
         "html": os.path.join(tmp, "walk.html"), "screenshot": os.path.join(artifacts, "walk.png")},
    ]
    results = browser.forms(jobs)
    for job, result in zip(jobs, results):
        label = f"{job['form']} form ({os.path.basename(job['html'])})"
        if "error" in result:
            report.fail(f"{label}: {result['error'][:600]}")
            continue
        check_basics(report, label, result["dom"], result["status"], result["headers"])
        check_no_markup_injected(report, label, result["dom"])
    lookup_form, check_damaged, check_diff, walked = results
    if "dom" in lookup_form:
        if "address=" not in lookup_form["url"]:
            report.fail(f"lookup form: the answer's address {lookup_form['url']} holds no address=")
        check_lookup(report, "lookup form", lookup_form["dom"], case.inlined_at, case.lib_lookup)
    if "dom" in check_damaged:
        problems = validate(args.symtool, case.damaged)
        if not problems:
            report.fail("symtool validate finds nothing in the damaged .sym")
        check_problems(report, "check damaged", check_damaged["dom"], problems)
        module_line = check_damaged["dom"].by_id("module-line")
        if module_line is None or module_line.text() != DAMAGED_SYM.splitlines()[0]:
            report.fail(f"check damaged: module-line {module_line.text() if module_line else None!r}")
        report.note(f"check damaged: {len(problems)} problems, as symtool validate")
    if "dom" in check_diff:
        check_problems(report, "check diff", check_diff["dom"], validate(args.symtool, case.lib_sym))
        check_module_page(report, "check diff", check_diff["dom"], case.lib_sym, case.lib_stats,
                          stored=False)
        check_lookup(report, "check diff", check_diff["dom"], case.inlined_at,
                     lookup(args.symtool, case.lib_sym, case.inlined_at))
        section = check_diff["dom"].by_id("diff")
        names = [line[2:] for line in case.diff if line[:2] in ("+ ", "- ")]
        if section is None:
            report.fail("check diff: no <section id=diff>")
        elif not names or not all(n in section.text() for n in names):
            report.fail(f"check diff: the diff section {section.text()[:200]!r} lacks symtool "
                        f"diff's {names}")
    if "dom" in walked:
        ours = json.loads(sh(args.symtool, "stackwalk", case.dump, "--store", case.store, "--json").stdout)
        # (the page names the served store's directory "store", and the symbols installed with
        # the tools, the walker's last store, "bundled")
        explain = sh(args.symtool, "stackwalk", case.dump, "--store", case.store, "--explain").stderr
        explain = explain.replace(case.store + "/", "store/")
        explain = re.sub(r"/\S*/share/dump_syms/symbols/", "bundled/", explain).splitlines()
        check_walk(report, "walk", walked["dom"], ours, explain)


def take_screenshots(args, case, server, browser):
    """Each page at 1280x1800, and the module page on a phone (412x915)."""
    shots = {"home": "/", "search": case.searches["name prefix"][0], "module": case.lib_page,
             "lookup": f"{case.lib_page}?address={hex(case.inlined_at)}", "hostile": case.evil_page,
             "check-form": "/ui/check", "walk-form": "/ui/walk"}
    for name, path in shots.items():
        browser.screenshot(server.url + path, os.path.join(args.artifacts, f"{name}.png"))
    browser.screenshot(server.url + case.lib_page, os.path.join(args.artifacts, "module-phone.png"),
                       412, 915)


def run(args, report, tmp):
    case = Case(args, report, tmp)
    browser = Browser(args, tmp)
    with ServeProcess(args.symstore, case.store, "--cache-dir", os.path.join(tmp, "cache")) as server:
        check_get_pages(args, report, case, server, browser)
        check_forms(args, report, case, server, browser)
        take_screenshots(args, case, server, browser)
    check_tokens(args, report, tmp, case.store, browser, case.damaged, case.dump)
    report.note(f"browser time {browser.seconds:.1f} s; screenshots in {args.artifacts}: "
                f"{', '.join(sorted(os.listdir(args.artifacts)))}")


def check_tokens(args, report, tmp, store, browser, damaged, dump):
    """With --tokens: the forms ask for one; a POST without is 401, with the
    token in the form's field it is answered."""
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as fh:
        fh.write(f"{TOKEN} upload download\n")
    with ServeProcess(args.symstore, store, "--tokens", tokens,
                      "--cache-dir", os.path.join(tmp, "cache-tokens")) as server:
        base = server.url
        doms = browser.doms([base + "/ui/check", base + "/ui/walk"])
        for form_id, url in (("check", base + "/ui/check"), ("walk", base + "/ui/walk")):
            form = doms[url].by_id(form_id)
            if form is None or form.find("input", name="token") is None:
                report.fail(f"tokens: /ui/{form_id}'s form has no token input")
        jobs = []
        for form_id, files in (("check", {"sym": damaged}), ("walk", {"dump": dump})):
            jobs.append({"url": f"{base}/ui/{form_id}", "form": form_id, "files": files,
                         "html": os.path.join(tmp, f"{form_id}-no-token.html")})
            jobs.append({"url": f"{base}/ui/{form_id}", "form": form_id, "files": files,
                         "fields": {"token": TOKEN}, "html": os.path.join(tmp, f"{form_id}-token.html")})
        results = browser.forms(jobs)
        for job, result in zip(jobs, results):
            with_token = "token" in job.get("fields", {})
            label = f"tokens: {job['form']} {'with' if with_token else 'without'} a token"
            if "error" in result:
                report.fail(f"{label}: {result['error'][:600]}")
                continue
            want = 200 if with_token else 401
            if result["status"] != want:
                report.fail(f"{label}: status {result['status']}, not {want}")
            if with_token:
                marker = "problems" if job["form"] == "check" else "modules"
                if result["dom"].by_id(marker) is None:
                    report.fail(f"{label}: the answer has no #{marker}")
        # The same without a browser: a well-formed form with no token field.
        with open(damaged, "rb") as fh:
            body = (b"--b0undary\r\nContent-Disposition: form-data; name=\"sym\"; filename=\"d.sym\"\r\n"
                    b"Content-Type: application/octet-stream\r\n\r\n" + fh.read() + b"\r\n--b0undary--\r\n")
        status, headers, _ = server.request("POST", "/ui/check", body=body, headers={
            "Content-Type": "multipart/form-data; boundary=b0undary"})
        if status != 401:
            report.fail(f"tokens: a POST /ui/check without a token is {status}, not 401")


def main():
    def extra(parser):
        parser.add_argument("--symstore", required=True)
        parser.add_argument("--symtool", required=True)
        parser.add_argument("--chromium", default="chromium")
        parser.add_argument("--node", default="node")
        parser.add_argument("--npm-tools", required=True, help="where puppeteer-core is installed")
        parser.add_argument("--artifacts", required=True, help="where the screenshots are kept")
        parser.add_argument("--keep", action="store_true", help="keep the work directory (printed)")

    args = common.arguments(extra)
    report = common.Report("pages")
    for tool, what in ((args.chromium, "Debian's chromium"), (args.node, "node")):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} ({what}) is not installed: ./dev.sh installs it")
    if not os.path.isdir(os.path.join(args.npm_tools, "node_modules", "puppeteer-core")):
        raise SystemExit(f"no puppeteer-core in {args.npm_tools}: ./dev.sh test installs it")
    args.artifacts = os.path.abspath(args.artifacts)
    shutil.rmtree(args.artifacts, ignore_errors=True)
    os.makedirs(args.artifacts)
    started = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="pages-")
    try:
        run(args, report, tmp)
    finally:
        if args.keep:
            print(f"work directory kept: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    report.note(f"{time.monotonic() - started:.1f} s in all")
    print(f"screenshots: {args.artifacts}")
    report.finish()


if __name__ == "__main__":
    main()
