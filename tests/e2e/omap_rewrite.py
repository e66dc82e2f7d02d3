"""Rewrites a PE and its PDB as a post-link optimizer (BBT, Syzygy) does, for
the OMAP tests: no compiler here writes OMAP.

The PE's .text is cut into blocks (each procedure in two halves, and the
gaps between procedures), the blocks are laid out again (the even ones in
reverse order, then the odd ones: a procedure's halves land apart) with one
gap block left out (its bytes gone: OMAP maps it to 0), and the
PDB gains what such a rewriter adds: OMAP_FROM_SRC (original -> shipped)
and OMAP_TO_SRC (shipped -> original), named by the DBI stream's optional
debug header; with `original_headers`, also the original section headers
(SectionHdrOrig), which real reordered PDBs often lack (Microsoft's DIA
then reads the section headers stream as the original image's). The
PDB's own records stay in the original image's addresses, as a rewritten
image's PDB keeps them. The MSF file is written anew around its streams.

    rewrite(exe, pdb, out_exe, out_pdb, original_headers=False) -> Permutation
"""
import bisect
import re
import struct
import subprocess

LLVM = "/usr/lib/llvm-19/bin"
DBG_OMAP_TO_SRC, DBG_OMAP_FROM_SRC, DBG_SECTION_HDR, DBG_SECTION_HDR_ORIG = 3, 4, 5, 10


class Permutation:
    """The block map the rewrite made: original <-> shipped RVAs."""

    def __init__(self, blocks, text_start, text_end):
        self.blocks = blocks  # (orig_start, orig_end, shipped_start or None)
        self.text_start, self.text_end = text_start, text_end
        self.from_src = sorted((o, s if s is not None else 0) for o, _, s in blocks)
        self.to_src = sorted((s, o) for o, _, s in blocks if s is not None)

    def to_original(self, rva):
        """The original RVA of a shipped one (None: no code of the original there)."""
        if not (self.text_start <= rva < self.text_end):
            return rva
        for o, e, s in self.blocks:
            if s is not None and s <= rva < s + (e - o):
                return o + (rva - s)
        return None

    def to_shipped(self, rva):
        if not (self.text_start <= rva < self.text_end):
            return rva
        for o, e, s in self.blocks:
            if o <= rva < e:
                return None if s is None else s + (rva - o)
        return None

    def shipped_code(self):
        """[start, end) of the shipped .text that holds moved code."""
        return [(s, s + (e - o)) for o, e, s in self.blocks if s is not None]


def _procedures(pdb, section_rvas):
    out = subprocess.run([f"{LLVM}/llvm-pdbutil", "dump", "--symbols", pdb], capture_output=True,
                         text=True, check=True).stdout
    procs = []
    for m in re.finditer(r"S_[GL]PROC32(?:_ID)? \[size = \d+\] `.*`\n.*addr = (\d+):(\d+), code size = (\d+)", out):
        seg, off, size = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if size:
            procs.append((section_rvas[seg - 1] + off, section_rvas[seg - 1] + off + size))
    return sorted(set(procs))


def _pe_sections(data):
    pe = struct.unpack_from("<I", data, 0x3C)[0]
    count = struct.unpack_from("<H", data, pe + 6)[0]
    optional_size = struct.unpack_from("<H", data, pe + 20)[0]
    table = pe + 24 + optional_size
    sections = []
    for i in range(count):
        at = table + 40 * i
        name = data[at:at + 8].rstrip(b"\0").decode()
        vsize, va, raw_size, raw_ptr = struct.unpack_from("<IIII", data, at + 8)
        sections.append({"name": name, "va": va, "vsize": vsize, "raw_size": raw_size, "raw_ptr": raw_ptr})
    return sections


# ---- MSF

def _read_msf(data):
    block_size, _fpm, num_blocks, dir_bytes, _unknown, block_map = struct.unpack_from("<IIIIII", data, 32)
    dir_block_count = (dir_bytes + block_size - 1) // block_size
    dir_blocks = struct.unpack_from(f"<{dir_block_count}I", data, block_map * block_size)
    directory = b"".join(data[b * block_size:(b + 1) * block_size] for b in dir_blocks)[:dir_bytes]
    count = struct.unpack_from("<I", directory, 0)[0]
    sizes = struct.unpack_from(f"<{count}I", directory, 4)
    at = 4 + 4 * count
    streams = []
    for size in sizes:
        if size == 0xFFFFFFFF:
            streams.append(None)
            continue
        n = (size + block_size - 1) // block_size
        blocks = struct.unpack_from(f"<{n}I", directory, at)
        at += 4 * n
        streams.append(b"".join(data[b * block_size:(b + 1) * block_size] for b in blocks)[:size])
    return block_size, data[:32], streams


def _write_msf(path, block_size, magic, streams):
    blocks = [b""] * 3  # superblock, the two free block maps

    def allocate(payload):
        indices = []
        for i in range(0, max(len(payload), 1) if payload else 0, block_size):
            while len(blocks) % block_size in (1, 2):  # free block map intervals
                blocks.append(b"")
            indices.append(len(blocks))
            blocks.append(payload[i:i + block_size])
        return indices

    stream_blocks = [allocate(s) if s else [] for s in streams]
    directory = struct.pack("<I", len(streams))
    directory += b"".join(struct.pack("<I", 0xFFFFFFFF if s is None else len(s)) for s in streams)
    for indices in stream_blocks:
        directory += b"".join(struct.pack("<I", i) for i in indices)
    dir_indices = allocate(directory)
    block_map = allocate(b"".join(struct.pack("<I", i) for i in dir_indices))
    superblock = magic + struct.pack("<IIIIII", block_size, 1, len(blocks), len(directory), 0, block_map[0])
    blocks[0] = superblock
    with open(path, "wb") as fh:
        for b in blocks:
            fh.write(b.ljust(block_size, b"\0"))


def _dbi_debug_header_offset(dbi):
    mod, sc, sm, src, tsm, _mfc, opt, ec = struct.unpack_from("<iiiiiIii", dbi, 24)
    return 64 + mod + sc + sm + src + tsm + ec, opt


def rewrite(exe, pdb, out_exe, out_pdb, original_headers=False):
    data = bytearray(open(exe, "rb").read())
    sections = _pe_sections(data)
    text = next(s for s in sections if s["name"] == ".text")
    text_start, text_end = text["va"], text["va"] + min(text["vsize"], text["raw_size"])
    procs = [(s, e) for s, e in _procedures(pdb, [s["va"] for s in sections]) if text_start <= s < text_end]

    # Blocks: each procedure in two halves, and the gaps between them.
    cuts = {text_start, text_end}
    for s, e in procs:
        cuts.update((s, e))
        if e - s >= 8:
            cuts.add(s + (e - s) // 2)
    cuts = sorted(c for c in cuts if text_start <= c <= text_end)
    spans = list(zip(cuts, cuts[1:]))
    inside = lambda a: any(s <= a < e for s, e in procs)
    gaps = [i for i, (s, e) in enumerate(spans) if not inside(s)]
    dropped = gaps[len(gaps) // 2] if gaps else None

    # Laid out again: the even blocks in reverse order, then the odd ones, so
    # that a procedure's halves land apart; the dropped gap left out.
    blocks, cursor = [], text_start
    placed = {}
    order = [i for i in reversed(range(len(spans))) if i % 2 == 0] + \
            [i for i in reversed(range(len(spans))) if i % 2 == 1]
    for i in order:
        if i == dropped:
            continue
        placed[i] = cursor
        cursor += spans[i][1] - spans[i][0]
    for i, (s, e) in enumerate(spans):
        blocks.append((s, e, placed.get(i)))
    permutation = Permutation(blocks, text_start, text_end)

    original = bytes(data[text["raw_ptr"]:text["raw_ptr"] + (text_end - text_start)])
    shipped = bytearray(b"\xcc" * len(original))
    for s, e, to in blocks:
        if to is not None:
            shipped[to - text_start:to - text_start + (e - s)] = original[s - text_start:e - text_start]
    data[text["raw_ptr"]:text["raw_ptr"] + len(shipped)] = shipped
    with open(out_exe, "wb") as fh:
        fh.write(data)

    # The PDB: the OMAP tables (an identity entry for what follows .text)
    # and, if asked for, the original section headers.
    block_size, magic, streams = _read_msf(open(pdb, "rb").read())
    from_src = permutation.from_src + [(text_end, text_end)]
    to_src = permutation.to_src + [(text_end, text_end)]
    pack = lambda table: b"".join(struct.pack("<II", a, b) for a, b in table)
    dbi = bytearray(streams[3])
    at, size = _dbi_debug_header_offset(dbi)
    count = size // 2
    if count <= DBG_SECTION_HDR_ORIG:
        raise SystemExit(f"{pdb}: the DBI stream's debug header has {count} entries")
    indices = list(struct.unpack_from(f"<{count}H", dbi, at))
    section_headers = streams[indices[DBG_SECTION_HDR]]
    added = [(DBG_OMAP_TO_SRC, pack(to_src)), (DBG_OMAP_FROM_SRC, pack(from_src))]
    if original_headers:
        added.append((DBG_SECTION_HDR_ORIG, section_headers))
    for kind, payload in added:
        indices[kind] = len(streams)
        streams.append(payload)
    struct.pack_into(f"<{count}H", dbi, at, *indices)
    streams[3] = bytes(dbi)
    _write_msf(out_pdb, block_size, magic, streams)
    return permutation
