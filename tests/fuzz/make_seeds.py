#!/usr/bin/env python3
"""Seed inputs for the binary fuzz targets, made from the fixtures' sources:
dump_elf gets small ELF files (gcc and clang, DWARF 4 and 5, -O2 -g),
dwarf_sections the same files' DWARF sections in dwarf_sections' layout
(eight 16-bit lengths, then the sections), core_file small cores (x86_64
and arm64: registers, a mapped file with its ELF header page and build-id,
a stack with a frame-pointer chain); pdb the PDBs clang-19 and lld-link-19
make of the PDB fixtures (x86_64 C++ with inlined calls, x86 with
FrameData), their 4 KiB MSF pages repacked into 512-byte ones so that each
fits libFuzzer's 64 KiB -max_len; pe the PE files of the same builds, one
with its PDB appended (the pe target pairs them), and MinGW-w64 DLLs with
DWARF (x86_64: .pdata and .debug_frame; i686: .eh_frame) and an
`objcopy --only-keep-debug` companion; http_answers what the
symbol servers of the upload tests answer; minidump the minidumps
tests/e2e/core_to_minidump.py writes of the same small cores (x86_64,
arm64: every stream a client writes, the memory in a MemoryList or a
Memory64List, lldb's 720-byte contexts) and of an x86 thread in a PE
module (STACK WIN's path); microdump the microdumps
tests/e2e/core_to_microdump.py writes of the x86_64 and arm64 cores, as
bare lines and as logcat's brief (with other programs' lines) and
threadtime forms; upload_zip Tecken zips (good ones, and a zip-slip, a
symlink entry, a small bomb, a misfiled entry), upload_checks a request
path or completion line followed by a .sym's text; download_requests every
download route's requests (Breakpad, code id, debuginfod, SSQP, ranges,
validators) with a .build-id entry, MODULE line or tokens file after them.

make_seeds.py OUT_DIR [TARGET...]  writes OUT_DIR/<target>/... (every
target when none is named)."""
import io
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "fixtures", "core", "walk_lib.c")
PDB_SOURCES = os.path.join(HERE, "..", "..", "fixtures", "pdb")
MSF_MAGIC = b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0"
SECTIONS = (".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_str_offsets",
            ".debug_rnglists", ".debug_addr", ".eh_frame")
BUILDS = {"gcc-dwarf5": ["gcc", "-gdwarf-5"], "gcc-dwarf4": ["gcc", "-gdwarf-4"],
          "clang-dwarf5": ["clang-19", "-gdwarf-5"]}


def section_bytes(path, name):
    with tempfile.TemporaryDirectory() as tmp:
        dumped = os.path.join(tmp, "section")
        p = subprocess.run(["objcopy", f"--dump-section={name}={dumped}", path, os.path.join(tmp, "copy")],
                           capture_output=True)
        return open(dumped, "rb").read() if p.returncode == 0 and os.path.exists(dumped) else b""


def note(name, kind, desc):
    name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), kind) + pad(name) + pad(desc)


def core(machine, header_page, path):
    """An ELF core: one thread whose pc is in the mapped file and whose
    frame pointer heads a chain of three frames on a 512-byte stack."""
    base, stack = 0x7f0000000000, 0x7ffd00000000
    pc = base + 0x1135
    chain = b""
    for i in range(3):  # (saved fp, return address) pairs
        chain += struct.pack("<QQ", stack + 16 * (i + 1), base + 0x1190 + i)
    stack_bytes = chain + bytes(512 - len(chain))
    regs = bytearray(112)
    regs[12:14] = struct.pack("<H", 11)       # pr_cursig: SIGSEGV
    regs[32:36] = struct.pack("<I", 4242)     # pr_pid
    if machine == 62:  # x86_64 user_regs_struct
        values = [0] * 27
        values[4], values[16], values[19] = stack, pc, stack  # rbp, rip, rsp
    else:  # arm64: x0..x30, sp, pc, pstate
        values = [0] * 34
        values[29], values[31], values[32] = stack, stack, pc
    prstatus = bytes(regs) + struct.pack(f"<{len(values)}Q", *values) + bytes(8)
    files = struct.pack("<QQQQQ", 1, 4096, base, base + 0x4000, 0) + path.encode() + b"\0"
    notes = note("CORE", 1, prstatus) + note("CORE", 0x46494C45, files)
    loads = [(base, header_page, 5), (stack, stack_bytes, 6)]
    phnum = 1 + len(loads)
    offset = 64 + 56 * phnum
    headers = [struct.pack("<IIQQQQQQ", 4, 0, offset, 0, 0, len(notes), 0, 4)]
    body = notes
    for address, content, flags in loads:
        headers.append(struct.pack("<IIQQQQQQ", 1, flags, offset + len(body), address, 0, len(content),
                                   max(len(content), 0x4000 if address == base else len(content)), 4096))
        body += content
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 4, machine, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
    return header + b"".join(headers) + body


def repack_msf(data, block=512):
    """The same PDB (every stream, byte for byte) in an MSF file of
    `block`-byte pages: superblock, two free page map pages, the streams,
    the stream directory, the page that lists the directory's pages."""
    size, _, _, directory_bytes, _, map_page = struct.unpack_from("<6I", data, 32)
    pages = lambda n, per: (n + per - 1) // per
    directory_pages = struct.unpack_from(f"<{pages(directory_bytes, size)}I", data, map_page * size)
    directory = b"".join(data[p * size:(p + 1) * size] for p in directory_pages)[:directory_bytes]
    count = struct.unpack_from("<I", directory)[0]
    sizes = struct.unpack_from(f"<{count}I", directory, 4)
    at, streams = 4 + 4 * count, []
    for length in sizes:
        real = 0 if length == 0xFFFFFFFF else length
        stream_pages = struct.unpack_from(f"<{pages(real, size)}I", directory, at)
        at += 4 * len(stream_pages)
        content = b"".join(data[p * size:(p + 1) * size] for p in stream_pages)[:real]
        streams.append(None if length == 0xFFFFFFFF else content)
    out = [b"", b"", b""]  # superblock and free page maps, written last
    lists = b""
    for content in streams:
        numbers = []
        for offset in range(0, len(content or b""), block):
            numbers.append(len(out))
            out.append(content[offset:offset + block])
        lists += struct.pack(f"<{len(numbers)}I", *numbers)
    new_directory = struct.pack("<I", count) + b"".join(
        struct.pack("<I", 0xFFFFFFFF if c is None else len(c)) for c in streams) + lists
    listed = []
    for offset in range(0, len(new_directory), block):
        listed.append(len(out))
        out.append(new_directory[offset:offset + block])
    out.append(struct.pack(f"<{len(listed)}I", *listed))
    total = len(out)
    assert total <= block, "one free page map page maps it all"
    out[0] = MSF_MAGIC + struct.pack("<6I", block, 1, total, len(new_directory), 0, total - 1)
    used = bytearray(b"\xff" * block)  # a set bit is a free page
    for page in range(total):
        used[page // 8] &= ~(1 << (page % 8)) & 0xFF
    out[1], out[2] = bytes(used), b"\xff" * block
    return b"".join(page.ljust(block, b"\0") for page in out)


def windows_builds(tmp):
    """{name: (image bytes, pdb bytes)} of a few PDB fixtures' builds."""
    clang, lld_link = "/usr/lib/llvm-19/bin/clang", "/usr/lib/llvm-19/bin/lld-link"
    builds = {"shapes.x86_64.O2": ("x86_64", "shapes.cpp", ["-O2", "-fno-exceptions", "-fno-rtti"]),
              "app.x86.O2.nofp": ("i686", "app.c", ["-O2", "-fomit-frame-pointer"]),
              "shapes.arm64.O2": ("aarch64", "shapes.cpp", ["-O2", "-fno-exceptions", "-fno-rtti"])}
    out = {}
    for name, (cpu, source, flags) in builds.items():
        obj, image, pdb = (os.path.join(tmp, name + ext) for ext in (".obj", ".exe", ".pdb"))
        subprocess.run([clang, f"--target={cpu}-pc-windows-msvc", "-g", "-gcodeview", "-funwind-tables",
                        *flags, "-c", os.path.join(PDB_SOURCES, source), "-o", obj], check=True)
        subprocess.run([lld_link, "/debug", "/nodefaultlib", "/entry:entry", "/subsystem:console",
                        "/pdbaltpath:%_PDB%", obj, f"/out:{image}", f"/pdb:{pdb}"], check=True)
        with open(image, "rb") as fh_image, open(pdb, "rb") as fh_pdb:
            out[name] = (fh_image.read(), repack_msf(fh_pdb.read()))
    return out


# What the upload tests' servers answer (tests/e2e/upload_servers.py), and
# the S3 answers s3rver gives.
HTTP_ANSWERS = {
    "v2_found": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"status\": \"FOUND\"}",
    "v2_missing": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"status\": \"MISSING\"}",
    "v2_create": "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
                 "{\"uploadUrl\": \"http://127.0.0.1:8080/storage/k1?signature=ab\", \"uploadKey\": \"k1\"}",
    "v2_complete": "HTTP/1.1 200 OK\r\n\r\n{\"result\": \"DUPLICATE_DATA\"}",
    "throttled": "HTTP/1.1 429 Too Many Requests\r\nRetry-After: Sun, 06 Nov 1994 08:49:47 GMT\r\n\r\n"
                 "slow down\n",
    "unavailable": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 503 Service Unavailable\r\nRetry-After: 7\r\n"
                   "Content-Type: text/html\r\n\r\n<html><body>injected fault: 503</body></html>\n",
    "s3_listing": "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n\r\n"
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name>"
                  "<IsTruncated>true</IsTruncated><NextContinuationToken>t2</NextContinuationToken>"
                  "<Contents><Key>app/libx.so/0123456789ABCDEF0123456789ABCDEF0/libx.so.sym</Key>"
                  "<Size>286</Size></Contents></ListBucketResult>",
    "s3_error": "HTTP/1.1 403 Forbidden\r\n\r\n<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code>"
                "<Message>Access Denied</Message></Error>",
}


UPLOAD_SYM = ("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libfoo.so\n"
              "INFO CODE_ID 67452301EFCDAB8967452301EFCDAB89\n"
              "FILE 0 /src/foo.c\n"
              "FUNC 1000 10 0 foo\n"
              "1000 10 7 0\n"
              "PUBLIC 2000 0 bar\n"
              "STACK CFI INIT 1000 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n")
UPLOAD_PATH = "libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym"
WINDOWS_SYM = ("MODULE windows x86_64 FEDCBA98765432100123456789ABCDEF1 foo.pdb\n"
               "INFO CODE_ID 5F3A1B2C1000 foo.dll\n"
               "PUBLIC 1000 0 main\n")
WINDOWS_PATH = "foo.pdb/FEDCBA98765432100123456789ABCDEF1/foo.sym"


def upload_zip(entries):
    """entries: (name, text, symlink)"""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text, symlink in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if symlink:
                info.create_system = 3
                info.external_attr = 0o120777 << 16
            z.writestr(info, text)
    return out.getvalue()


UPLOAD_ZIPS = {
    "two-modules": [(UPLOAD_PATH, UPLOAD_SYM, False), (WINDOWS_PATH, WINDOWS_SYM, False)],
    "directory-entries": [("libfoo.so/", "", False), (UPLOAD_PATH, UPLOAD_SYM, False)],
    "zip-slip": [("../../" + UPLOAD_PATH, UPLOAD_SYM, False)],
    "symlink": [(UPLOAD_PATH, "/etc/passwd", True)],
    "bomb": [(UPLOAD_PATH, UPLOAD_SYM + "\n" * (2 << 20), False)],
    "misfiled": [("libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so.sym", UPLOAD_SYM, False)],
}

UPLOAD_CHECKS = {
    "put-path": UPLOAD_PATH + "\n" + UPLOAD_SYM,
    "windows-path": WINDOWS_PATH + "\n" + WINDOWS_SYM,
    "null-id": "app.exe/5F3A1B2C4000/app.exe.sym\nMODULE windows x86_64 " + "0" * 33 +
               " app.exe\nINFO CODE_ID 5F3A1B2C4000 app.exe\nPUBLIC 1000 0 main\n",
    "traversal": "libfoo.so/../../x.sym\n" + UPLOAD_SYM,
    "completion": '{ symbol_id: {debug_file: "libfoo.so", debug_id: "0123456789ABCDEF0123456789ABCDEF0" }, '
                  'symbol_upload_type: "BREAKPAD" }\n' + UPLOAD_SYM,
    "v2-paths": "v1/symbols/libfoo.so/0123456789ABCDEF0123456789ABCDEF0:checkStatus\n" + UPLOAD_SYM,
}


def upload_seeds(out):
    for name, entries in UPLOAD_ZIPS.items():
        with open(os.path.join(out, "upload_zip", name + ".zip"), "wb") as fh:
            fh.write(upload_zip(entries))
        if name != "bomb":
            # The same entries for the target to zip: NUL-separated name, text, ...
            # ('@' a link, '=' stored).
            text = "\0".join(("@" if link else "") + entry + "\0" + body
                              for entry, body, link in entries)
            with open(os.path.join(out, "upload_zip", name + ".entries"), "w") as fh:
                fh.write(text)
    for name, text in UPLOAD_CHECKS.items():
        with open(os.path.join(out, "upload_checks", name), "w") as fh:
            fh.write(text)


# download_requests: a path, then Range, Accept-Encoding, If-None-Match,
# If-Modified-Since, If-Range and a token, one a line, then a text (a
# .build-id entry, a MODULE line, a tokens file), over the target's store.
DOWNLOAD_ID = "0123456789ABCDEF0123456789ABCDEF1"
DOWNLOAD_BUILD_ID = "d4c3b2a1f6e51807293a4b5c6d7e8f90aabbccdd"
DOWNLOAD_ELF_ID = "A1B2C3D4E5F60718293A4B5C6D7E8F900"
DOWNLOAD_DATE = "Sun, 06 Nov 1994 08:49:37 GMT"
DOWNLOAD_REQUESTS = {
    "breakpad": [f"/app.pdb/{DOWNLOAD_ID}/app.sym", "", "gzip, deflate", "", "", "", ""],
    "breakpad-lower-case-head": [f"HEAD /app.pdb/{DOWNLOAD_ID.lower()}/app.sym", "", "", "", "", "", ""],
    "range": [f"/app.pdb/{DOWNLOAD_ID}/app.sym", "bytes=10-99", "identity", "", "", '"x"', ""],
    "suffix-range": [f"/app.pdb/{DOWNLOAD_ID}/app.sym", "bytes=-100", "", "", "", DOWNLOAD_DATE, ""],
    "unsatisfiable": [f"/app.pdb/{DOWNLOAD_ID}/app.sym", "bytes=999999-", "", "", "", "", ""],
    "conditional": [f"/app.pdb/{DOWNLOAD_ID}/app.sym", "", "x-gzip;q=0.5, *;q=0", 'W/"a", "b"',
                    DOWNLOAD_DATE, "", ""],
    "code-id": ["/app.exe/5F3A1B2C4000/app.sym", "", "*", "", "", "", ""],
    "code-id-index": ["/app.exe/5f3a1b2c4000/APP.EXE.sym", "", "", "", "", "", ""],
    "debuginfod": [f"/buildid/{DOWNLOAD_BUILD_ID}/debuginfo", "", "gzip", "", "", "", "secret"],
    "executable": [f"/buildid/{DOWNLOAD_BUILD_ID.upper()}/executable", "bytes=0-15", "", "", "", "", ""],
    "section": [f"/buildid/{DOWNLOAD_BUILD_ID}/section/.text", "bytes=2-5", "gzip", "", "", "", ""],
    "ssqp": [f"/libx.so/elf-buildid-{DOWNLOAD_BUILD_ID}/libx.so", "", "", "*", "", "", ""],
    "ssqp-debug": [f"/_.debug/ELF-BUILDID-SYM-{DOWNLOAD_BUILD_ID}/_.debug", "", "", "", "", "", ""],
    "traversal": ["/app.pdb/../../etc/passwd", "", "", "", "", "", ""],
    "dot-directory": [f"/.build-id/d4/{DOWNLOAD_BUILD_ID[2:]}", "", "", "", "", "", ""],
}
DOWNLOAD_TEXTS = {
    "breakpad": f"MODULE windows x86_64 {DOWNLOAD_ID} app.pdb\nINFO CODE_ID 5F3A1B2C4000 app.exe\n",
    "debuginfod": f"executable libx.so/{DOWNLOAD_ELF_ID}/libx.so\ndebuginfo libx.so/{DOWNLOAD_ELF_ID}/libx.so.debug\n",
    "traversal": "executable ../../etc/passwd\n",
    "conditional": "# tokens\nsecret upload download\nreader download # a comment\n",
    "ssqp": "executable libx.so/x/libx.so\n",
}


def small_elf(sections):
    """An ELF64 little-endian file holding `sections` ((name, type, bytes)),
    a .shstrtab after them and the section table at its end: the text of a
    download_requests seed asking for a section (the target hands its text
    to the ELF section finder)."""
    names = b"\0"
    offsets = []
    for name, _, _ in sections + [(".shstrtab", 3, b"")]:
        offsets.append(len(names))
        names += name.encode() + b"\0"
    body = b""
    headers = [b"\0" * 64]
    for (name, kind, data), name_offset in zip(sections + [(".shstrtab", 3, names)], offsets):
        offset = 64 + len(body)
        headers.append(struct.pack("<IIQQQQIIQQ", name_offset, kind, 0, 0, offset,
                                   len(data), 0, 0, 1, 0))
        body += data
    table = 64 + len(body)
    header = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
              struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, table, 0, 64, 0, 0, 64,
                          len(headers), len(headers) - 1))
    return header + body + b"".join(headers)


def download_seeds(out):
    for name, fields in DOWNLOAD_REQUESTS.items():
        with open(os.path.join(out, "download_requests", name), "w") as fh:
            fh.write("\n".join(fields) + "\n" + DOWNLOAD_TEXTS.get(name, ""))
    elf = small_elf([(".text", 1, b"\x90" * 32), (".debug_info", 1, bytes(range(48))),
                     (".bss", 8, b"")])
    for section in (".debug_info", ".bss"):
        with open(os.path.join(out, "download_requests", "elf-section" + section), "wb") as fh:
            fh.write(f"/buildid/{DOWNLOAD_BUILD_ID}/section/{section}\n\n\n\n\n\n\n".encode() + elf)


def minidump_seeds(out, library):
    sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
    import core_to_minidump as writer
    base = 0x7f0000000000
    module = [(base, 0x5000, "/opt/app/libwalk.so", b"LEpB" + bytes(range(20)))]
    for machine, label in ((62, "x86_64"), (183, "arm64")):
        parsed = writer.Core(core(machine, library[:4096], "/opt/app/libwalk.so"))
        variants = {"": {}, "-memory64": {"memory64": True}, "-names": {"names": {4242: "main"}},
                    "-crashpad": {"crashpad": {"simple": {"prod": "Walker"},
                                               "modules": {0: {"list": ["a"], "simple": {"k": "v"},
                                                               "objects": {"o": "x"}}}},
                                  "linux_text": {"LinuxLsbRelease": "DISTRIB_ID=Debian\n",
                                                 "LinuxCmdLine": "./walker\0lib\0"}}}
        if machine == 62:
            variants["-lldb-720"] = {"context_size": 720}
        for suffix, options in variants.items():
            with open(os.path.join(out, label + suffix), "wb") as fh:
                fh.write(writer.convert(parsed, modules=module, **options))
    # An x86 thread stopped in a PE module, as Windows clients write it.
    stack = struct.pack("<8I", 0x11, 0x22, 0x400000 + 0x2010, 0x33, 0x44, 0x0012ff70, 0x400000 + 0x3010, 0)
    state = writer.ThreadState({"eip": 0x401050, "esp": 0x12ff00, "ebp": 0x12ff40}, 0x12ff00, stack + bytes(64))
    rsds = b"RSDS" + bytes(16) + struct.pack("<I", 1) + b"app.pdb\0"
    with open(os.path.join(out, "x86-windows"), "wb") as fh:
        fh.write(writer.convert(state, modules=[(0x400000, 0x4000, "C:\\app\\app.exe", rsds)], platform=2,
                                exception_code=0xc0000005, memory_info=[(0x401000, 0x1000, 0x20)]))


def microdump_seeds(out, library):
    sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
    import core_to_microdump as writer
    import core_to_minidump
    for machine, label in ((62, "x86_64"), (183, "arm64")):
        parsed = core_to_minidump.Core(core(machine, library[:4096], "/opt/app/libwalk.so"))
        lines = writer.records(parsed, os_id="A" if machine == 183 else "L", stack_limit=4096)
        # The module the core maps, as the M record of a file that is not here.
        lines.insert(-1, f"M {0x7f0000000000:016X} {0:016X} {0x5000:016X} "
                         f"{writer.guid_id(bytes(range(20)))} libwalk.so")
        for style in ("bare", "brief", "threadtime"):
            with open(os.path.join(out, f"{label}-{style}"), "w") as fh:
                fh.write(writer.logged(lines, style=style, interleave=style == "brief"))


MINGW_SOURCE = os.path.join(HERE, "..", "..", "fixtures", "mingw", "lib.c")


def mingw_builds(tmp):
    """name -> bytes of small MinGW-w64 DLLs with DWARF in the PE (no CRT),
    and the companion objcopy --only-keep-debug makes of the x86_64 one."""
    out = {}
    for prefix, label in (("x86_64-w64-mingw32-", "mingw.x86_64"), ("i686-w64-mingw32-", "mingw.i686")):
        dll = os.path.join(tmp, label + ".dll")
        subprocess.run([prefix + "gcc", "-g", "-O2", "-fasynchronous-unwind-tables", "-nostdlib", "-shared",
                        "-Wl,-e,0", MINGW_SOURCE, "-o", dll], check=True)
        with open(dll, "rb") as fh:
            out[label] = fh.read()
        if label == "mingw.x86_64":
            debug = dll + ".debug"
            subprocess.run([prefix + "objcopy", "--only-keep-debug", dll, debug], check=True)
            with open(debug, "rb") as fh:
                out[label + ".companion"] = fh.read()
    return out


def main():
    out = sys.argv[1]
    targets = sys.argv[2:] or ["dump_elf", "dwarf_sections", "core_file", "pdb", "pe", "http_answers",
                               "minidump", "microdump", "upload_zip", "upload_checks", "download_requests"]
    for target in targets:
        os.makedirs(os.path.join(out, target), exist_ok=True)
    if "upload_zip" in targets and "upload_checks" in targets:
        upload_seeds(out)
    if "download_requests" in targets:
        download_seeds(out)
    if "http_answers" in targets:
        for name, text in HTTP_ANSWERS.items():
            with open(os.path.join(out, "http_answers", name), "w") as fh:
                fh.write(text)
    with tempfile.TemporaryDirectory() as tmp:
        if "pdb" in targets or "pe" in targets:
            for name, (image, pdb) in windows_builds(tmp).items():
                if "pdb" in targets:
                    with open(os.path.join(out, "pdb", name), "wb") as fh:
                        fh.write(pdb)
                if "pe" in targets:
                    with open(os.path.join(out, "pe", name), "wb") as fh:
                        fh.write(image)
                    if name.startswith("shapes"):
                        with open(os.path.join(out, "pe", name + "+pdb"), "wb") as fh:
                            fh.write(image + pdb)
            if "pe" in targets:
                for name, data in mingw_builds(tmp).items():
                    with open(os.path.join(out, "pe", name), "wb") as fh:
                        fh.write(data)
        if not {"dump_elf", "dwarf_sections", "core_file", "minidump", "microdump"} & set(targets):
            return
        for name, (cc, dwarf) in BUILDS.items():
            binary = os.path.join(tmp, name + ".so")
            subprocess.run([cc, "-O2", "-g", dwarf, "-shared", "-fPIC", "-Wl,--build-id", "-o", binary, SOURCE],
                           check=True)
            with open(binary, "rb") as fh:
                data = fh.read()
            if "dump_elf" in targets:
                with open(os.path.join(out, "dump_elf", name), "wb") as fh:
                    fh.write(data)
            parts = [section_bytes(binary, s)[:0xffff] for s in SECTIONS]
            if "dwarf_sections" in targets:
                with open(os.path.join(out, "dwarf_sections", name), "wb") as fh:
                    fh.write(struct.pack("<8H", *(len(p) for p in parts)) + b"".join(parts))
            if name == "gcc-dwarf5" and "core_file" in targets:
                for machine, label in ((62, "x86_64"), (183, "arm64")):
                    with open(os.path.join(out, "core_file", label), "wb") as fh:
                        fh.write(core(machine, data[:4096], "/opt/app/libwalk.so"))
            if name == "gcc-dwarf5" and "minidump" in targets:
                minidump_seeds(os.path.join(out, "minidump"), data)
            if name == "gcc-dwarf5" and "microdump" in targets:
                microdump_seeds(os.path.join(out, "microdump"), data)


if __name__ == "__main__":
    main()
