// A symbol file's binary index as hostile bytes: opened, its heading read,
// and looked up at every address its function, PUBLIC, CFI and STACK WIN
// tables name, by name too. Input that starts with the index magic is first
// resealed (its header, block checksums and checksum table recomputed over
// what the fuzzer made), so that mutations reach the tables behind the
// checksums; the rest is tried as it is. Seeds: the indexes `symtool lookup`
// caches for the sym_parser seeds.
#include "symbol_file/index/index_file.h"
#include "symbol_file/lookup/address_lookup.h"
#include "tests/fuzz/fuzz_targets.h"

#include <cstring>
#include <llvm/Support/xxhash.h>

namespace dumpsyms::fuzz {

namespace {

using namespace symbol_index;

// Recomputes what the checksums cover, keeping the fuzzer's checksums_offset.
void reseal(std::string& bytes) {
  if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return;
  Header header;
  std::memcpy(&header, bytes.data(), sizeof header);
  uint64_t checked = header.checksums_offset;
  if (checked < kHeaderSize || checked > bytes.size())
    checked = bytes.size();
  bytes.resize(checked);
  std::string table;
  for (uint64_t at = kHeaderSize; at < checked; at += kBlockSize) {
    u64 hash(llvm::xxh3_64bits(llvm::StringRef(bytes).substr(at, kBlockSize)));
    table.append(reinterpret_cast<const char*>(&hash), sizeof hash);
  }
  header.checksums_offset = checked;
  header.checksums_hash = llvm::xxh3_64bits(table);
  bytes += table;
  header.file_size = bytes.size();
  header.block_shift = kBlockShift;
  header.header_hash = llvm::xxh3_64bits(
      llvm::StringRef(reinterpret_cast<const char*>(&header), offsetof(Header, header_hash)));
  std::memcpy(bytes.data(), &header, sizeof header);
}

void lookUpEverything(const std::string& bytes) {
  auto index = IndexFile::open(llvm::MemoryBuffer::getMemBuffer(bytes, "index", false), "index");
  if (!index) {
    llvm::consumeError(index.takeError());
    return;
  }
  // The addresses to ask for, read as the lookups read them.
  std::vector<uint64_t> addresses = {0, 1, 0x1000, UINT64_MAX};
  auto collect = [&](SectionKind kind, auto record) {
    uint64_t count = std::min<uint64_t>((*index)->section(kind).count, 64);
    for (uint64_t i = 0; i < count; ++i) {
      decltype(record) one{};
      if ((*index)->record(kind, i, one)) {
        addresses.push_back(one.start);
        addresses.push_back(one.start + 1);
      }
    }
  };
  collect(SectionKind::FunctionRanges, RangeRecord{});
  collect(SectionKind::CfiFrames, CfiFrameRecord{});
  auto lookup = AddressLookup::open(std::move(*index));
  if (!lookup) {
    llvm::consumeError(lookup.takeError());
    return;
  }
  for (uint64_t address : addresses) {
    (void)lookup->lookup(address);
    (void)lookup->cfiAt(address);
    (void)lookup->stackWinAt(address, 0);
    (void)lookup->stackWinAt(address, 4);
  }
  for (const char* name : {"main", "", "f"})
    (void)lookup->addressOf(name);
  (void)lookup->heading();
}

} // namespace

int symbolIndex(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  lookUpEverything(bytes);
  reseal(bytes);
  lookUpEverything(bytes);
  return 0;
}

} // namespace dumpsyms::fuzz
