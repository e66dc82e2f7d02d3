"""Rewrites a PDB as MSVC's whole-program optimization (/GL, LTCG) writes
inline sites: with cross-module ids. No compiler here writes them (clang's
CodeView names every inlinee by its own id, which lld-link makes global).

In the importing module, every S_INLINESITE and DEBUG_S_INLINEELINES entry
that names an IPI id gets instead 0x80000000 | (import module << 20) |
import index; the module gains a DEBUG_S_CROSSSCOPEIMPORTS subsection
listing, under the exporting module's name (a new /names string), the
exporting module's local ids (with `decoy_first`, after an import from the
PDB's last module that no id names, so that the exporter's is import
module 1); the exporting module gains a
DEBUG_S_CROSSSCOPEEXPORTS subsection mapping each local id to the IPI id.
The code and every other record stay as they were, so the original pair's
llvm-symbolizer frames are the oracle for the rewritten PDB's, and
`llvm-pdbutil dump --xmi --xme` prints the tables the rewrite wrote.

    rewrite(pdb, out_pdb, importer, exporter, decoy_first=False, dangling=False)
        -> {cross-module id: IPI id}

With `dangling`, the first inline site's id names an import past the end of
the table instead (as a damaged PDB might): nothing resolves it.
"""
import struct

import omap_rewrite

S_INLINESITE, S_INLINESITE2 = 0x114D, 0x115D
DEBUG_S_INLINEELINES, DEBUG_S_CROSSSCOPEIMPORTS, DEBUG_S_CROSSSCOPEEXPORTS = 0xF6, 0xF7, 0xF8
DANGLING_ID = 0x800FFFFF
# The exporting module's local ids: the high bit marks an id (not a type),
# and they are not the IPI's, so that only the exports table leads there.
LOCAL_BASE = 0x80000000 | 0x7000


def _modules(dbi):
    """(offset of each module descriptor in the DBI stream, its name)."""
    mod_size = struct.unpack_from("<i", dbi, 24)[0]
    at, end, out = 64, 64 + mod_size, []
    while at < end:
        name_at = at + 64
        name_end = dbi.index(b"\0", name_at)
        obj_end = dbi.index(b"\0", name_end + 1)
        out.append((at, dbi[name_at:name_end].decode()))
        at = (obj_end + 1 + 3) & ~3
    return out


def _named_stream(info, wanted):
    """The stream index the PDB info stream's named stream map gives `wanted`."""
    at = 28  # version, signature, age, GUID
    size = struct.unpack_from("<I", info, at)[0]
    names = info[at + 4:at + 4 + size]
    at += 4 + size
    _count, capacity = struct.unpack_from("<II", info, at)
    at += 8
    words = struct.unpack_from("<I", info, at)[0]
    present = struct.unpack_from(f"<{words}I", info, at + 4)
    at += 4 + 4 * words
    deleted_words = struct.unpack_from("<I", info, at)[0]
    at += 4 + 4 * deleted_words
    for bucket in range(capacity):
        if present[bucket // 32] >> (bucket % 32) & 1:
            key, value = struct.unpack_from("<II", info, at)
            at += 8
            if names[key:names.index(b"\0", key)].decode() == wanted:
                return value
    raise SystemExit(f"no {wanted} stream")


def _add_string(table, text):
    """/names with `text` appended to its strings: (new stream, its offset)."""
    signature, version, size = struct.unpack_from("<III", table, 0)
    offset = size
    added = text.encode() + b"\0"
    out = struct.pack("<III", signature, version, size + len(added))
    return out + table[12:12 + size] + added + table[12 + size:], offset


def _subsection(kind, payload):
    payload += b"\0" * (-len(payload) % 4)
    return struct.pack("<II", kind, len(payload)) + payload


def rewrite(pdb, out_pdb, importer, exporter, decoy_first=False, dangling=False):
    """Makes module `importer` name its inlinees through module `exporter`
    (indexes of the DBI module list)."""
    block_size, magic, streams = omap_rewrite._read_msf(open(pdb, "rb").read())
    dbi = bytearray(streams[3])
    modules = _modules(dbi)
    names_index = _named_stream(streams[1], "/names")
    streams[names_index], other_offset = _add_string(streams[names_index], modules[-1][1])
    streams[names_index], name_offset = _add_string(streams[names_index], modules[exporter][1])

    def module_stream(index):
        at = modules[index][0]
        stream, sym, c11, c13 = struct.unpack_from("<HIII", dbi, at + 34)
        return at, stream, sym, c11, c13

    # The importer's inline sites and inlinee lines: IPI id -> cross-module id.
    at, stream, sym, c11, c13 = module_stream(importer)
    data = bytearray(streams[stream])
    globals_, mapping = [], {}

    def cross(global_id):
        if global_id not in mapping:
            globals_.append(global_id)
            mapping[global_id] = 0x80000000 | (int(decoy_first) << 20) | (len(globals_) - 1)
        return mapping[global_id]

    offset = 4
    while offset < sym:
        length, kind = struct.unpack_from("<HH", data, offset)
        if kind in (S_INLINESITE, S_INLINESITE2):
            inlinee = struct.unpack_from("<I", data, offset + 12)[0]
            struct.pack_into("<I", data, offset + 12, DANGLING_ID if dangling else cross(inlinee))
            dangling = False
        offset += 2 + length
    offset, end = sym + c11, sym + c11 + c13
    while offset < end:
        kind, length = struct.unpack_from("<II", data, offset)
        if kind == DEBUG_S_INLINEELINES:
            signature = struct.unpack_from("<I", data, offset + 8)[0]
            entry = offset + 12
            while entry < offset + 8 + length:
                inlinee = struct.unpack_from("<I", data, entry)[0]
                struct.pack_into("<I", data, entry, cross(inlinee))
                extra = struct.unpack_from("<I", data, entry + 12)[0] if signature == 1 else None
                entry += 12 if extra is None else 16 + 4 * extra
        offset += 8 + ((length + 3) & ~3)
    locals_ = [LOCAL_BASE + i for i in range(len(globals_))]
    decoy = struct.pack("<III", other_offset, 1, LOCAL_BASE | 0xFFF) if decoy_first else b""
    imports = _subsection(DEBUG_S_CROSSSCOPEIMPORTS,
                          decoy + struct.pack(f"<II{len(locals_)}I", name_offset, len(locals_), *locals_))
    streams[stream] = bytes(data[:end]) + imports + bytes(data[end:])
    struct.pack_into("<I", dbi, at + 44, c13 + len(imports))

    # The exporter's table: local id -> IPI id.
    at, stream, sym, c11, c13 = module_stream(exporter)
    data = streams[stream]
    end = sym + c11 + c13
    exports = _subsection(DEBUG_S_CROSSSCOPEEXPORTS,
                          b"".join(struct.pack("<II", l, g) for l, g in zip(locals_, globals_)))
    streams[stream] = data[:end] + exports + data[end:]
    struct.pack_into("<I", dbi, at + 44, c13 + len(exports))
    streams[3] = bytes(dbi)
    omap_rewrite._write_msf(out_pdb, block_size, magic, streams)
    return {cross_id: global_id for global_id, cross_id in mapping.items()}
