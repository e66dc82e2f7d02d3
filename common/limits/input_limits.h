// Every limit that holds against hostile input, in one place: maximum
// sizes, nesting depths, counts and times. Each is far above what a real
// input needs (docs/LIMITS.md gives the measure for each) and each, when
// hit, is one clear line naming the file and the limit (overLimit below
// words it), never a crash, a hang or an unbounded allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dumpsyms::limits {

// --- ELF and compressed sections (dump/object/, dump/dwarf/) ---

// A compressed section may claim to inflate to at most this many times its
// compressed size (plus kInflateSlack): zlib reaches about 1000:1 and zstd
// a few 10000:1 on runs of zeros; a larger claim is corruption, and is
// refused before anything is allocated for it.
constexpr uint64_t kMaxInflateRatio = 65536;
constexpr uint64_t kInflateSlack = uint64_t(1) << 20;
// .gnu_debugdata (MiniDebugInfo): the xz decoder's memory and its output.
constexpr uint64_t kMaxMiniDebugInfoMemory = uint64_t(1) << 30;
constexpr uint64_t kMaxMiniDebugInfoOutput = uint64_t(1) << 30;

// --- DWARF (dump/dwarf/) ---

// Inlined calls nested deeper than this are left out (DWARF and PDB alike).
// The deepest real nesting seen is 18 levels (the shared corpus's gcc 12
// -O2 C++), 13 in Debian's python3.11, 6 in its libc.
constexpr uint32_t kMaxInlineDepth = 256;
// Enclosing namespaces, classes and functions a name is qualified with, and
// how deep naming may follow a local class's method into the function
// around it. Real scopes nest a few dozen levels at most; a DIE tree nested
// deeper (only corrupt input does) gets a name cut at that depth.
constexpr uint32_t kMaxScopeDepth = 256;
// DW_AT_specification / DW_AT_abstract_origin links followed from one DIE:
// real chains have two or three; the bound stops cycles.
constexpr uint32_t kMaxDeclarationChain = 16;
// Breakpad-style names: how deep the namer recurses through scopes and
// declarations (it recurses, so this also bounds its stack).
constexpr int kMaxBreakpadNameDepth = 128;
// Nesting of an MSVC-mangled name's types printed in undname's spelling
// (--names breakpad), and of PDB type records DIA-style names follow
// (a corrupt type stream can make a cycle): past these the name is kept
// as the PDB spells it.
constexpr int kMaxUndnameDepth = 64;
constexpr int kMaxDiaTypeDepth = 32;
// OMAP tables of a PDB (dump/pdb/omap): one entry per block the rewriter
// moved; Windows' own DLLs have a few hundred thousand.
constexpr uint64_t kMaxOmapEntries = uint64_t(1) << 24;

// --- CFI and postfix (dump/cfi/, symbol_file/rules/) ---

// DW_CFA_remember_state entries on one FDE's stack.
constexpr size_t kMaxRememberedStates = 1024;
// Values on a DWARF expression's stack while it is translated, and on a
// postfix expression's stack while it is evaluated. Real CFI expressions
// (glibc's PLT and signal frames) use 3 or 4.
constexpr size_t kMaxExpressionStack = 64;
// A postfix expression a DWARF expression translates to. Each operation can
// double the text (DW_OP_dup; DW_OP_plus), so the bound is checked at every
// step; real ones are below 100 characters.
constexpr size_t kMaxPostfixLength = 4096;
// UNWIND_INFO chains (UNW_FLAG_CHAININFO, or RUNTIME_FUNCTION chains):
// compilers chain once or twice.
constexpr int kMaxUnwindChain = 32;
// ARM64 .xdata: epilogue scopes of one function (the header allows 65535;
// compilers write one per return, a few dozen in the largest functions),
// and the rows all its epilogues add (each instruction of each epilogue):
// further epilogues keep the body's rules, as x64's always do.
constexpr size_t kMaxArm64EpilogueScopes = 1024;
constexpr size_t kMaxArm64EpilogueRows = 512;

// --- Symbol files (symbol_file/text/text_reader) ---

// One line (record) of a .sym file. The longest real ones are FUNC records
// of heavily templated C++ (a few hundred KiB of name).
constexpr size_t kMaxSymbolFileLine = size_t(16) << 20;
// FILE and INLINE_ORIGIN ids: the table grows to the largest one.
constexpr uint64_t kMaxSymbolFileId = 100000000;
// What is read of a file for its MODULE and INFO lines alone (store
// listings, the catalog, the code-id redirect): they fit many times over;
// a file without a MODULE line there is no symbol file.
constexpr uint64_t kSymbolHeaderBytes = 4096;
// INFO lines kept besides CODE_ID, and the longest kept; longer ones are
// dropped, not cut (a cut value would be a wrong one).
constexpr size_t kMaxHeaderInfoLines = 16;
constexpr size_t kMaxHeaderInfoLine = 1024;

// --- Symbol indexes (symbol_file/index/) ---

// Entries of one index table that 32-bit fields count or number: strings
// (u32 ids, one value kept for "none"), and a function's lines and inlined
// calls. A .sym past them holds more than 4 billion records (over 32 GiB of
// text); its index is refused, and lookups in it fail with this message.
constexpr uint64_t kMaxIndexTableEntries = 0xfffffffeu;

// --- Crash text and reports (walk/symbolize/, tools/symtool/) ---

// A frame line (glibc, Solaris, module + offset): no real one is longer,
// and std::regex recurses per character.
constexpr size_t kMaxFrameLine = 4096;
// One line of crash text read by `symtool symbolize` (a JSON crash report
// is one line): lines longer are skipped with an error.
constexpr size_t kMaxCrashTextLine = size_t(1) << 20;
// Nesting of arrays and objects in any JSON read (crash reports, server
// answers, symstore's child reports): LLVM's parser recurses per level.
// Real documents nest 2 or 3 levels.
constexpr size_t kMaxJsonDepth = 64;

// --- Core files and the stack walk (walk/core/, walk/stackwalk/) ---

// Program headers of a module's ELF header in a core's memory.
constexpr uint64_t kMaxCoreModuleProgramHeaders = 256;
// A module's PT_NOTE segment read from a core's memory (for its build-id).
constexpr uint64_t kMaxCoreModuleNoteBytes = 64 * 1024;
// Frames walked per thread.
constexpr size_t kMaxWalkedFrames = 1024;

// --- Minidumps (walk/minidump/) ---

// Each count is also bounded by the bytes its stream holds; these bound
// what a well-formed but absurd file may ask for. Real dumps: a few dozen
// streams, a few hundred threads (Chrome's browser process on Windows: about
// 100), a few hundred modules, and for a full-memory dump some 10,000
// memory ranges.
constexpr uint64_t kMaxMinidumpStreams = 4096;
constexpr uint64_t kMaxMinidumpThreads = 65536;
constexpr uint64_t kMaxMinidumpModules = 65536;
constexpr uint64_t kMaxMinidumpMemoryRanges = 1 << 20;
// A MINIDUMP_STRING (module and thread names: Windows paths are at most
// 32,767 UTF-16 units) and a module's CodeView record.
constexpr uint64_t kMaxMinidumpStringBytes = 65536;
constexpr uint64_t kMaxCodeViewRecordBytes = 65536;
// A PE's export table (dump/pe/pe_exports): the largest DLLs export a few
// tens of thousands of names (ntdll ~2,400; libcef ~8,000), each a C name
// or a mangled C++ name of at most a few KiB.
constexpr uint32_t kMaxPeExports = 1 << 20;
constexpr size_t kMaxPeExportName = 64 * 1024;
// The Linux text streams kept (maps, cpuinfo, status, environ, ...): a
// process with a million mappings has a maps stream of about 100 MiB.
constexpr uint64_t kMaxMinidumpTextStream = uint64_t(256) << 20;

// A log a microdump is looked for in (symtool stackwalk reads it whole),
// and the stack a microdump holds (the writer dumps the crashing thread's
// whole stack: 8 MiB by default on Linux, 1 MiB on Android).
constexpr uint64_t kMaxMicrodumpLog = uint64_t(1) << 30;
constexpr uint64_t kMaxMicrodumpStack = uint64_t(64) << 20;

// --- Symbol servers' answers (common/http/, store/) ---

// The body of one HTTP answer; the transfer stops there. An S3 listing
// page (1000 keys of at most 1 KiB) stays below 1.5 MiB.
constexpr size_t kMaxAnswerBody = size_t(4) << 20;
// A symbol file fetched from a symbol server (symtool --symbols-url): the
// largest real ones (a browser's) are a few GiB.
constexpr uint64_t kMaxFetchedSymbolFile = uint64_t(16) << 30;
// Characters of an error answer quoted in a message.
constexpr size_t kMaxQuotedAnswer = 300;
// Pages of an S3 listing (1000 keys each).
constexpr int kMaxListingPages = 100000;
// Seconds a server may take to answer once the request is sent (headers
// and body; --timeout bounds only a stall). Every answer is at most
// kMaxAnswerBody: this is 14 KiB/s for the largest.
constexpr unsigned kMaxAnswerSeconds = 300;

// --- Uploads received (server/ingest/: symstore serve) ---

// One request's body (a PUT's .sym, a Tecken zip, a Breakpad form): the
// largest real .sym files (a browser's) are 1-3 GiB. The server refuses a
// larger Content-Length with 413 before reading, and a chunked body at
// this many bytes. `symstore serve --max-upload` lowers or raises it.
constexpr uint64_t kMaxUploadBody = uint64_t(4) << 30;
// A crash report posted to the inbox, compressed and inflated alike
// (--max-crash): Socorro's collector's 25 MiB.
constexpr uint64_t kMaxCrashSubmission = uint64_t(25) << 20;
// The pages' uploads, which are parsed in memory rather than stored: a
// .sym checked on /ui/check (its model takes about five times its size;
// Debian's largest, ceph-osd's, is 171 MB) and a dump walked on /ui/walk
// (a core of a large process). Neither is ever larger than --max-upload.
constexpr uint64_t kMaxCheckedSymbolFile = uint64_t(512) << 20;
constexpr uint64_t kMaxWalkedDump = uint64_t(2) << 30;
// A Tecken zip's entries: a whole release (Firefox's, with its system
// libraries) is a few thousand files.
constexpr uint64_t kMaxUploadZipEntries = 65536;
// One entry, or a gzip PUT body, inflated: as kMaxUploadBody. Counted
// while inflating, never taken from the zip's own header.
constexpr uint64_t kMaxUploadEntryBytes = uint64_t(4) << 30;
// All entries of one zip inflated.
constexpr uint64_t kMaxUploadInflatedBytes = uint64_t(16) << 30;
// What a zip or gzip body may inflate to, as a multiple of its compressed
// size (plus kUploadInflateSlack): real .sym files deflate 4-7:1 (libc's
// 4.1, a 14 MiB C++ tool's 6.9); runs of zeros, a zip bomb's, about 1000:1.
constexpr uint64_t kMaxUploadInflateRatio = 100;
constexpr uint64_t kUploadInflateSlack = uint64_t(1) << 20;
// A multipart form's plain fields (Breakpad v1 sends 5 or 6, each a name or
// an id) and the bytes of each.
constexpr size_t kMaxUploadFormFields = 64;
constexpr size_t kMaxUploadFormFieldBytes = 64 * 1024;
// A sym-upload-v2 completion request ({"symbol_id": {...}}: a few hundred bytes).
constexpr uint64_t kMaxUploadCompletionBody = 64 * 1024;

// "<what> is over the limit of <limit> <unit>": the words every message
// about a limit uses.
inline std::string overLimit(std::string_view what, uint64_t limit, std::string_view unit) {
  return std::string(what) + " is over the limit of " + std::to_string(limit) + " " +
         std::string(unit);
}

// The crash inbox (server/crashes/). A form's preamble, one part's headers
// and its boundary are held while the body streams past: clients send a
// few dozen bytes of each (RFC 2046 allows a boundary of 70).
constexpr size_t kMaxMultipartPreamble = 64 * 1024;
constexpr size_t kMaxPartHeaders = 16 * 1024;
constexpr size_t kMaxMultipartBoundary = 200;
// A crash's text fields together, their count, and its file parts:
// Crashpad's clients keep a few dozen annotations of a few hundred bytes
// and attach a log or two.
constexpr size_t kMaxCrashAnnotationBytes = 1024 * 1024;
constexpr size_t kMaxCrashAnnotations = 1000;
constexpr size_t kMaxCrashAttachments = 16;
// A JSON crash report (a few lines of backtrace and a dozen fields), held
// to be parsed; a logged backtrace read for symbolizing.
constexpr uint64_t kMaxCrashReport = 1024 * 1024;
constexpr uint64_t kMaxCrashText = 4 * 1024 * 1024;
// A frame name a signature rule is matched against (std::regex recurses
// per character); a rule file.
constexpr size_t kMaxMatchedFrameName = 1024;
constexpr uint64_t kMaxSignatureRuleFile = 1024 * 1024;

} // namespace dumpsyms::limits
