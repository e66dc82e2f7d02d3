"""Gives a qemu-user guest core what a Linux kernel's core of the same
process holds and qemu leaves out: the NT_FILE note (the mapped files) and
the first page of every file mapped from offset 0 (its ELF header, program
headers and build-id note; the kernel dumps those pages by default,
coredump_filter bit 4). The registers and memory stay qemu's."""
import struct

PT_NOTE = 4
NT_FILE = 0x46494C45
PAGE = 4096


def parse_maps(text):
    """(start, end, offset, path) of every file mapping in /proc/PID/maps text."""
    out = []
    for line in text.splitlines():
        parts = line.split(None, 5)
        if len(parts) == 6 and parts[5].startswith("/"):
            start, end = (int(x, 16) for x in parts[0].split("-"))
            out.append((start, end, int(parts[2], 16), parts[5]))
    return out


def note(name, kind, desc):
    name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), kind) + pad(name) + pad(desc)


def kernel_style(core_bytes, maps_text):
    data = bytearray(core_bytes)
    is64 = data[4] == 2
    if is64:
        phoff, = struct.unpack_from("<Q", data, 32)
        phnum, = struct.unpack_from("<H", data, 56)
        layout, word = "<IIQQQQQQ", "Q"
    else:
        phoff, = struct.unpack_from("<I", data, 28)
        phnum, = struct.unpack_from("<H", data, 44)
        layout, word = "<IIIIIIII", "I"
    size = struct.calcsize(layout)
    raw = [list(struct.unpack_from(layout, data, phoff + i * size)) for i in range(phnum)]
    # As (p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align) either way.
    headers = raw if is64 else [[h[0], h[6], h[1], h[2], h[3], h[4], h[5], h[7]] for h in raw]
    files = parse_maps(maps_text)
    for start, end, offset, path in files:
        if offset != 0:
            continue
        with open(path, "rb") as fh:
            page = fh.read(PAGE)
        for h in headers:
            if h[0] == 1 and h[3] == start and h[5] == 0:
                data += b"\0" * (-len(data) % PAGE)
                h[2], h[5] = len(data), min(len(page), h[6])
                data += page[:h[5]]
    desc = struct.pack("<" + word * 2, len(files), PAGE)
    desc += b"".join(struct.pack("<" + word * 3, s, e, o // PAGE) for s, e, o, _ in files)
    desc += b"".join(p.encode() + b"\0" for *_, p in files)
    blob = note("CORE", NT_FILE, desc)
    data += b"\0" * (-len(data) % 8)
    headers.append([PT_NOTE, 0, len(data), 0, 0, len(blob), 0, 4])
    data += blob
    data += b"\0" * (-len(data) % 8)
    if is64:
        struct.pack_into("<Q", data, 32, len(data))
        struct.pack_into("<H", data, 56, len(headers))
        data += b"".join(struct.pack(layout, *h) for h in headers)
    else:
        struct.pack_into("<I", data, 28, len(data))
        struct.pack_into("<H", data, 44, len(headers))
        data += b"".join(struct.pack(layout, h[0], h[2], h[3], h[4], h[5], h[6], h[1], h[7]) for h in headers)
    return bytes(data)
