// The symbol index: lookups from it against a plain reading of the parsed
// model (linear scans, no index), a damaged index found and rebuilt, a
// stale one rebuilt, a copied one kept, the streamed parse equal to the
// whole one.
#include "store/supply/symbol_supplier.h"
#include "symbol_file/index/index_cache.h"
#include "symbol_file/index/index_file.h"
#include "symbol_file/lookup/address_lookup.h"
#include "symbol_file/text/text_reader.h"
#include "symbol_file/text/text_stream.h"
#include "symbol_file/text/text_writer.h"

#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

// A .sym opened by a supplier of its own (so each call reads the index
// anew): where its index came from, and the lookup over it.
struct Opened {
  std::unique_ptr<SymbolSupplier> supplier;
  const AddressLookup& lookup;
  std::string index_source, note;
};

llvm::Expected<Opened> openSymbols(const std::string& path, const IndexCacheOptions& options) {
  auto supplier = std::make_unique<SymbolSupplier>(std::vector<std::string>{}, nullptr, options);
  llvm::Expected<const ModuleSymbols*> opened = supplier->open(path);
  if (!opened)
    return opened.takeError();
  const ModuleSymbols& symbols = **opened;
  return Opened{std::move(supplier), symbols.lookup, symbols.index_source, symbols.index_note};
}

// FUNCs with lines, nested and multi-range inlined calls, a function whose
// lines lie far outside it (kept in the wide tables), PUBLICs below,
// between and above the FUNCs (one at 0, which the processor discards),
// names given twice, CFI with changes, nested STACK WIN records.
const char kSymbols[] = R"(MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 app
INFO CODE_ID 0123456789ABCDEF
INFO PT_DYNAMIC_OFFSET 2dd8
FILE 0 a.c
FILE 1 b.h
FILE 3 c.h
INLINE_ORIGIN 0 inner
INLINE_ORIGIN 1 outer
INLINE_ORIGIN 2 other
FUNC 1000 40 8 main
INLINE 0 10 1 1 1004 10 1030 8
INLINE 1 20 3 0 1006 4 1032 2
INLINE 1 21 -1 2 100c 4
INLINE 0 30 0 2 1020 8
1000 4 5 0
1004 8 6 1
1010 10 7 0
1030 10 8 3
FUNC m 1100 20 0 twice
1100 10 9 0
FUNC 2000 100 0 far
2000 10 1 0
200000000 10 2 1
INLINE 0 3 0 0 2010 10 300000000 8
PUBLIC 0 0 at_zero
PUBLIC 900 4 below_all
PUBLIC 1080 0 between
PUBLIC 1100 0 twice
PUBLIC 3000 c above
STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI 1001 .cfa: $rsp 16 +
STACK CFI 1004 .cfa: $rbp 16 + $rbp: .cfa -16 + ^
STACK CFI INIT 2000 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK WIN 4 1000 40 4 0 8 0 10 0 1 $T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =
STACK WIN 4 1004 3c 0 0 8 4 10 0 1 $T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + = $ebp $T0 8 - ^ =
STACK WIN 0 1000 20 1 0 8 0 0 0 0 1
)";

// What the processor finds at `address`, read straight off the model.
AddressInfo plainLookup(const Module& m, uint64_t address) {
  AddressInfo info;
  const Function* holder = nullptr;
  uint64_t last_start_below = 0;
  bool any_start_below = false;
  for (const Function& f : m.functions)
    for (const AddressRange& r : f.ranges) {
      if (r.start <= address && (!any_start_below || r.start >= last_start_below)) {
        last_start_below = r.start;
        any_start_below = true;
      }
      if (r.contains(address))
        holder = &f;
    }
  auto name = [](const std::vector<std::string>& table, std::optional<uint32_t> id) {
    return id && *id < table.size() ? table[*id] : std::string();
  };
  if (holder) {
    info.function_start = holder->ranges.front().start;
    info.parameter_size = holder->parameter_size;
    std::string file;
    uint32_t line = 0;
    for (const SourceLine& l : holder->lines)
      if (l.address <= address && address < l.address + l.size) {
        file = name(m.files, l.file);
        line = l.line;
        info.line_start = l.address;
      }
    std::vector<std::pair<const InlineCall*, uint64_t>> chain;
    for (const InlineCall& call : holder->inlines) {
      if (call.depth != chain.size())
        continue;
      std::optional<uint64_t> start;
      for (const AddressRange& r : call.ranges)
        if (r.contains(address))
          start = r.start;
      if (start)
        chain.push_back({&call, *start});
    }
    for (size_t i = chain.size(); i-- > 0;) {
      info.frames.push_back(
          {name(m.inline_origins, chain[i].first->origin), file, line, true, chain[i].second});
      file = name(m.files, chain[i].first->call_file);
      line = chain[i].first->call_line;
    }
    info.frames.push_back({holder->name, file, line, false, holder->ranges.front().start});
    return info;
  }
  const PublicSymbol* best = nullptr;
  for (const PublicSymbol& p : m.publics)
    if (p.address != 0 && p.address <= address && (!best || p.address >= best->address))
      best = &p;
  if (!best || (any_start_below && last_start_below >= best->address))
    return info;
  info.public_name = best->name;
  info.public_offset = address - best->address;
  info.parameter_size = best->parameter_size;
  return info;
}

void expectSame(const AddressInfo& a, const AddressInfo& b, uint64_t address) {
  SCOPED_TRACE(testing::Message() << "address 0x" << std::hex << address);
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (size_t i = 0; i < a.frames.size(); ++i) {
    EXPECT_EQ(a.frames[i].function, b.frames[i].function);
    EXPECT_EQ(a.frames[i].file, b.frames[i].file);
    EXPECT_EQ(a.frames[i].line, b.frames[i].line);
    EXPECT_EQ(a.frames[i].inlined, b.frames[i].inlined);
    EXPECT_EQ(a.frames[i].start, b.frames[i].start);
  }
  EXPECT_EQ(a.public_name, b.public_name);
  EXPECT_EQ(a.public_offset, b.public_offset);
  EXPECT_EQ(a.function_start, b.function_start);
  EXPECT_EQ(a.line_start, b.line_start);
  EXPECT_EQ(a.parameter_size, b.parameter_size);
}

// Every record's edges, and one past them.
std::set<uint64_t> probes(const Module& m) {
  std::set<uint64_t> at = {0, 1, UINT64_MAX};
  auto edges = [&](uint64_t start, uint64_t end) {
    for (uint64_t a : {start - 1, start, start + 1, end - 1, end, end + 1})
      at.insert(a);
  };
  for (const Function& f : m.functions) {
    for (const AddressRange& r : f.ranges)
      edges(r.start, r.end);
    for (const SourceLine& l : f.lines)
      edges(l.address, l.address + l.size);
    for (const InlineCall& c : f.inlines)
      for (const AddressRange& r : c.ranges)
        edges(r.start, r.end);
  }
  for (const PublicSymbol& p : m.publics)
    edges(p.address, p.address + 1);
  for (const CfiFrame& f : m.cfi_frames) {
    edges(f.range.start, f.range.end);
    for (const CfiChange& c : f.changes)
      edges(c.address, c.address + 1);
  }
  for (const StackWinRecord& w : m.stack_win)
    edges(w.address, w.address + w.code_size);
  return at;
}

TEST(SymbolIndex, LookupsEqualAPlainReadingOfTheModel) {
  ParsedSymbolFile parsed = readSymbolFile(kSymbols);
  AddressLookup lookup = AddressLookup::fromText(kSymbols);
  const Module& m = parsed.module;
  for (uint64_t address : probes(m))
    expectSame(lookup.lookup(address), plainLookup(m, address), address);

  // The function far from its lines: a lookup still finds them.
  AddressInfo far = lookup.lookup(0x2001);
  ASSERT_EQ(far.frames.size(), 1u);
  EXPECT_EQ(far.frames[0].file, "a.c");

  // CFI: the frame holding the address, with its changes.
  for (uint64_t address : probes(m)) {
    std::optional<CfiFrame> found = lookup.cfiAt(address);
    const CfiFrame* expected = nullptr;
    for (const CfiFrame& f : m.cfi_frames)
      if (f.range.contains(address))
        expected = &f;
    ASSERT_EQ(found.has_value(), expected != nullptr) << std::hex << address;
    if (!expected)
      continue;
    EXPECT_EQ(found->range, expected->range);
    EXPECT_EQ(found->initial, expected->initial);
    ASSERT_EQ(found->changes.size(), expected->changes.size());
    for (size_t i = 0; i < found->changes.size(); ++i) {
      EXPECT_EQ(found->changes[i].address, expected->changes[i].address);
      EXPECT_EQ(found->changes[i].rules, expected->changes[i].rules);
    }
  }

  // STACK WIN: of a type, the last-starting record holding the address.
  for (uint32_t type : {0u, 4u})
    for (uint64_t address : probes(m)) {
      const StackWinRecord* expected = nullptr;
      for (const StackWinRecord& w : m.stack_win)
        if (w.type == type && w.address <= address && address - w.address < w.code_size &&
            (!expected || w.address >= expected->address))
          expected = &w;
      std::optional<StackWinRecord> found = lookup.stackWinAt(address, type);
      ASSERT_EQ(found.has_value(), expected != nullptr) << type << " " << std::hex << address;
      if (expected) {
        EXPECT_EQ(found->address, expected->address);
        EXPECT_EQ(found->program, expected->program);
        EXPECT_EQ(found->parameter_size, expected->parameter_size);
        EXPECT_EQ(found->allocates_base_pointer, expected->allocates_base_pointer);
      }
    }

  // Names: a PUBLIC before a FUNC of the same name; unknown names none.
  EXPECT_EQ(lookup.addressOf("main"), 0x1000u);
  EXPECT_EQ(lookup.addressOf("twice"), 0x1100u);
  EXPECT_EQ(lookup.addressOf("at_zero"), 0u);
  EXPECT_EQ(lookup.addressOf("above"), 0x3000u);
  EXPECT_FALSE(lookup.addressOf("nowhere"));

  const ModuleHeading& heading = lookup.heading();
  EXPECT_EQ(heading.name, "app");
  EXPECT_EQ(heading.code_id.str(), "0123456789ABCDEF");
  EXPECT_EQ(heading.extra_info, std::vector<std::string>{"PT_DYNAMIC_OFFSET 2dd8"});
  EXPECT_FALSE(heading.corrupt);
  EXPECT_TRUE(AddressLookup::fromText(std::string(kSymbols) + "junk line\n").heading().corrupt);
}

std::string temporaryDirectory() {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("symbol-index-test", path));
  return std::string(path);
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void setModificationTime(const std::string& path, time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

// The one index file in the cache directory.
std::string cachedIndex(const std::string& cache) {
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(cache, error), end; it != end && !error;
       it.increment(error))
    if (llvm::StringRef(it->path()).ends_with(".idx"))
      return it->path();
  return "";
}

TEST(SymbolIndex, BuiltOnceThenMappedFromTheCache) {
  std::string dir = temporaryDirectory();
  std::string sym = dir + "/app.sym";
  writeText(sym, kSymbols);
  IndexCacheOptions options{dir + "/cache"};
  auto first = openSymbols(sym, options);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(first->index_source, "built");
  auto second = openSymbols(sym, options);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->index_source, "cache");
  ParsedSymbolFile parsed = readSymbolFile(kSymbols);
  for (uint64_t address : probes(parsed.module))
    expectSame(second->lookup.lookup(address), plainLookup(parsed.module, address), address);

  // An index beside the file (symstore add --index) is read first.
  ASSERT_FALSE(writeIndexBeside(sym));
  auto beside = openSymbols(sym, options);
  ASSERT_TRUE(bool(beside));
  EXPECT_EQ(beside->index_source, "beside");
  llvm::sys::fs::remove_directories(dir);
}

TEST(SymbolIndex, AStaleIndexIsRebuiltACopiedFileKeepsIt) {
  std::string dir = temporaryDirectory();
  std::string sym = dir + "/app.sym";
  writeText(sym, kSymbols);
  setModificationTime(sym, 1000000000);
  IndexCacheOptions options{dir + "/cache"};
  ASSERT_TRUE(bool(openSymbols(sym, options)));

  // The same bytes at another time (a copied store): the index stands.
  setModificationTime(sym, 1100000000);
  auto copied = openSymbols(sym, options);
  ASSERT_TRUE(bool(copied));
  EXPECT_EQ(copied->index_source, "cache");

  // Other bytes of the same size: rebuilt, and the answer is the new file's.
  std::string changed = kSymbols;
  changed.replace(changed.find("FUNC 1000 40 8 main"), 19, "FUNC 1000 40 8 mane");
  writeText(sym, changed);
  setModificationTime(sym, 1200000000);
  auto rebuilt = openSymbols(sym, options);
  ASSERT_TRUE(bool(rebuilt));
  EXPECT_EQ(rebuilt->index_source, "built");
  EXPECT_NE(rebuilt->note.find("stale"), std::string::npos) << rebuilt->note;
  EXPECT_EQ(rebuilt->lookup.lookup(0x1010).frames.back().function, "mane");
  llvm::sys::fs::remove_directories(dir);
}

// Enough functions for an index of many blocks.
std::string manyFunctions(int count) {
  std::string text = "MODULE Linux x86_64 0123 many\nFILE 0 a.c\n";
  for (int i = 0; i < count; ++i) {
    uint64_t address = 0x10000 + uint64_t(i) * 0x40;
    char line[200];
    snprintf(line, sizeof line, "FUNC %llx 40 0 function_%d\n%llx 20 %d 0\n%llx 20 %d 0\n",
             (unsigned long long)address, i, (unsigned long long)address, i,
             (unsigned long long)address + 0x20, i + 1);
    text += line;
  }
  return text;
}

TEST(SymbolIndex, ADamagedBlockIsFoundWhenReadAndTheIndexRebuilt) {
  std::string dir = temporaryDirectory();
  std::string sym = dir + "/many.sym";
  std::string text = manyFunctions(20000);
  writeText(sym, text);
  IndexCacheOptions options{dir + "/cache"};
  ASSERT_TRUE(bool(openSymbols(sym, options)));
  std::string index_path = cachedIndex(options.directory);
  ASSERT_FALSE(index_path.empty());
  std::string bytes = readText(index_path);
  auto good = IndexFile::open(llvm::MemoryBuffer::getMemBufferCopy(bytes), index_path);
  ASSERT_TRUE(bool(good));
  const IndexFile::Section& lines = (*good)->section(symbol_index::SectionKind::Lines);
  ASSERT_GT(lines.size, 3 * symbol_index::kBlockSize);
  // A byte in the middle of the line table flipped: the header, the
  // checksum table and the directory still check out.
  uint64_t flipped = lines.offset + lines.size / 2;
  bytes[flipped] = static_cast<char>(bytes[flipped] ^ 0x40);
  writeText(index_path, bytes);

  auto damaged = openSymbols(sym, options);
  ASSERT_TRUE(bool(damaged)) << llvm::toString(damaged.takeError());
  EXPECT_EQ(damaged->index_source, "cache");
  // The function whose lines hold the flipped byte, looked up.
  uint64_t line_index = (flipped - lines.offset) / sizeof(symbol_index::LineRecord);
  uint64_t address = 0x10000 + (line_index / 2) * 0x40 + 0x20 * (line_index % 2);
  ParsedSymbolFile parsed = readSymbolFile(text);
  expectSame(damaged->lookup.lookup(address), plainLookup(parsed.module, address), address);
  EXPECT_FALSE(damaged->lookup.damaged());
  // The rebuilt index replaced the damaged one in the cache.
  auto again = openSymbols(sym, options);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->index_source, "cache");
  expectSame(again->lookup.lookup(address), plainLookup(parsed.module, address), address);
  EXPECT_EQ(readText(index_path).size(), bytes.size());
  EXPECT_TRUE(readText(index_path) != bytes);
  llvm::sys::fs::remove_directories(dir);
}

TEST(SymbolIndex, DamagedHeadersAreRefusedWithTheFileNamed) {
  std::string dir = temporaryDirectory();
  std::string sym = dir + "/app.sym";
  writeText(sym, kSymbols);
  IndexCacheOptions options{dir + "/cache"};
  ASSERT_TRUE(bool(openSymbols(sym, options)));
  std::string good = readText(cachedIndex(options.directory));
  auto refuse = [&](std::string bytes, const char* why) {
    auto index = IndexFile::open(llvm::MemoryBuffer::getMemBufferCopy(bytes), "x.idx");
    ASSERT_FALSE(bool(index)) << why;
    std::string message = llvm::toString(index.takeError());
    EXPECT_NE(message.find("x.idx: is not a usable index"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  };
  refuse(good.substr(0, 100), "shorter than its header");
  refuse(good.substr(0, good.size() - 1), "holds");
  std::string bytes = good;
  bytes[0] = 'X';
  refuse(bytes, "no index magic");
  bytes = good;
  bytes[8] = 9; // the version
  refuse(bytes, "version 9");
  bytes = good;
  bytes[40] ^= 1; // the .sym's hash, under the header's checksum
  refuse(bytes, "header fails its checksum");
  bytes = good;
  bytes[bytes.size() - 1] ^= 1; // the checksum table
  refuse(bytes, "checksum table fails");
  // And in the cache: rebuilt, with a note.
  std::string path = cachedIndex(options.directory);
  writeText(path, good.substr(0, 100));
  auto rebuilt = openSymbols(sym, options);
  ASSERT_TRUE(bool(rebuilt));
  EXPECT_EQ(rebuilt->index_source, "built");
  EXPECT_NE(rebuilt->note.find("shorter than its header"), std::string::npos) << rebuilt->note;
  llvm::sys::fs::remove_directories(dir);
}

TEST(SymbolIndex, NotASymbolFileIsAnErrorNamingIt) {
  std::string dir = temporaryDirectory();
  std::string sym = dir + "/notes.txt";
  writeText(sym, "hello\n");
  auto opened = openSymbols(sym, IndexCacheOptions{dir + "/cache"});
  ASSERT_FALSE(bool(opened));
  EXPECT_EQ(llvm::toString(opened.takeError()), sym + ": is not a symbol file (no MODULE record)");
  auto missing = openSymbols(dir + "/none.sym", IndexCacheOptions{""});
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("none.sym: cannot read it"),
            std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

// Text streamed in reads of kStreamChunk bytes parses as the whole text
// does: lines across reads, an overlong line across several, CRs.
TEST(SymbolText, StreamedEqualsWhole) {
  std::string text = "MODULE Linux x86_64 0123 app\r\nFILE 0 a.c\n";
  uint64_t address = 0x1000;
  while (text.size() < kStreamChunk + 1000) {
    text += "FUNC " + std::to_string(address) + " 10 0 f" + std::to_string(address) + "\n";
    text += std::to_string(address) + " 10 1 0\r\n";
    address += 0x100;
  }
  text += "FUNC ffff0 10 0 " + std::string(limits::kMaxSymbolFileLine + 10, 'x') + "\n";
  text += "FUNC fff00 10 0 " + std::string(limits::kMaxSymbolFileLine - 16, 'y') + "\r\r\r\n";
  text += "garbage\nPUBLIC 10 0 last";
  std::string dir = temporaryDirectory();
  std::string path = dir + "/big.sym";
  writeText(path, text);
  int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto streamed = readSymbolFileStream(fd, path);
  ::close(fd);
  ASSERT_TRUE(bool(streamed));
  ParsedSymbolFile whole = readSymbolFile(text);
  ASSERT_EQ(streamed->problems.size(), whole.problems.size());
  for (size_t i = 0; i < whole.problems.size(); ++i) {
    EXPECT_EQ(streamed->problems[i].line, whole.problems[i].line);
    EXPECT_EQ(streamed->problems[i].message, whole.problems[i].message);
    EXPECT_EQ(streamed->problems[i].skipped, whole.problems[i].skipped);
  }
  EXPECT_EQ(whole.problems.size(), 2u); // the overlong line and "garbage"
  std::ostringstream a, b;
  writeSymbolFile(streamed->module, WriteOptions{}, a);
  writeSymbolFile(whole.module, WriteOptions{}, b);
  EXPECT_TRUE(a.str() == b.str());
  EXPECT_EQ(whole.module.publics.size(), 1u);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
} // namespace dumpsyms
