#include "symbol_file/index/index_file.h"

#include "common/errors/file_error.h"

#include <llvm/Support/xxhash.h>

namespace dumpsyms {

using namespace symbol_index;

namespace {

// The bytes one record of each fixed-size section takes (0: any).
uint64_t recordSize(SectionKind kind) {
  switch (kind) {
  case SectionKind::StringOffsets:
  case SectionKind::StackWinLongest:
    return sizeof(u64);
  case SectionKind::StringBlob:
    return 1;
  case SectionKind::ModuleInfo:
    return 0;
  case SectionKind::Files:
  case SectionKind::InlineOrigins:
    return sizeof(u32);
  case SectionKind::Functions:
    return sizeof(FunctionRecord);
  case SectionKind::FunctionRanges:
    return sizeof(RangeRecord);
  case SectionKind::Lines:
    return sizeof(LineRecord);
  case SectionKind::Inlines:
    return sizeof(InlineRecord);
  case SectionKind::InlineRanges:
    return sizeof(InlineRangeRecord);
  case SectionKind::WideLines:
    return sizeof(WideLineRecord);
  case SectionKind::WideInlineRanges:
    return sizeof(WideRangeRecord);
  case SectionKind::Publics:
    return sizeof(PublicRecord);
  case SectionKind::CfiFrames:
    return sizeof(CfiFrameRecord);
  case SectionKind::CfiChanges:
    return sizeof(CfiChangeRecord);
  case SectionKind::StackWin:
    return sizeof(StackWinRecordOnDisk);
  case SectionKind::Names:
    return sizeof(NameRecord);
  }
  return 0;
}

constexpr uint32_t kLastKind = kLastSectionKind;

} // namespace

llvm::Expected<std::unique_ptr<IndexFile>>
IndexFile::open(std::unique_ptr<llvm::MemoryBuffer> bytes, const std::string& name, bool trusted) {
  std::unique_ptr<IndexFile> file(new IndexFile());
  file->name_ = name;
  file->trusted_ = trusted;
  llvm::StringRef data = bytes->getBuffer();
  auto bad = [&](const std::string& what) {
    return fileError(name, "is not a usable index: " + what);
  };
  if (data.size() < kHeaderSize)
    return bad("shorter than its header");
  Header& h = file->header_;
  std::memcpy(&h, data.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    return bad("no index magic");
  if (h.version != kVersion)
    return bad("version " + std::to_string(uint32_t(h.version)) + ", not " +
               std::to_string(kVersion));
  if (h.header_hash != llvm::xxh3_64bits(data.substr(0, offsetof(Header, header_hash))))
    return bad("its header fails its checksum");
  if (h.file_size != data.size())
    return bad("it holds " + std::to_string(data.size()) + " bytes, its header says " +
               std::to_string(uint64_t(h.file_size)));
  if (h.block_shift != kBlockShift)
    return bad("an unknown block size");
  uint64_t checked_end = h.checksums_offset;
  if (checked_end < kHeaderSize || checked_end > data.size())
    return bad("its checksum table is outside the file");
  file->block_count_ = (checked_end - kHeaderSize + kBlockSize - 1) >> kBlockShift;
  if (data.size() - checked_end != file->block_count_ * sizeof(u64))
    return bad("its checksum table does not cover the file");
  if (h.checksums_hash != llvm::xxh3_64bits(data.substr(checked_end)))
    return bad("its checksum table fails its checksum");
  file->bytes_ = std::move(bytes);
  file->block_state_ = std::make_unique<std::atomic<uint8_t>[]>(file->block_count_);

  uint64_t directory = h.directory_offset, count = h.section_count;
  if (directory < kHeaderSize || directory > checked_end ||
      count > (checked_end - directory) / sizeof(SectionEntry))
    return bad("its section directory is outside the file");
  bool seen[kLastKind + 1] = {};
  for (uint64_t i = 0; i < count; ++i) {
    const char* raw = file->checked(directory + i * sizeof(SectionEntry), sizeof(SectionEntry));
    if (!raw)
      return bad(file->damage());
    SectionEntry entry;
    std::memcpy(&entry, raw, sizeof entry);
    uint32_t kind = entry.kind;
    if (kind == 0 || kind > kLastKind)
      continue; // a later version's section: not read
    if (seen[kind])
      return bad("section " + std::to_string(kind) + " twice");
    seen[kind] = true;
    uint64_t offset = entry.offset, size = entry.size, records = entry.count;
    if (offset < kHeaderSize || offset > checked_end || size > checked_end - offset)
      return bad("section " + std::to_string(kind) + " is outside the file");
    uint64_t each = recordSize(static_cast<SectionKind>(kind));
    if (each != 0 && (records > size / each || records * each != size))
      return bad("section " + std::to_string(kind) + " holds " + std::to_string(size) +
                 " bytes for " + std::to_string(records) + " records");
    file->sections_[kind] = {offset, size, records};
  }
  for (uint32_t kind = 1; kind <= kLastKind; ++kind)
    if (!seen[kind])
      return bad("no section " + std::to_string(kind));
  if (file->section(SectionKind::StringOffsets).count == 0 ||
      file->section(SectionKind::ModuleInfo).size < sizeof(ModuleInfoRecord) ||
      file->section(SectionKind::StackWinLongest).count != 5)
    return bad("a table of the wrong size");
  return file;
}

const IndexFile::Section& IndexFile::section(SectionKind kind) const {
  return sections_[static_cast<uint32_t>(kind)];
}

bool IndexFile::fail(const char* why) const {
  const char* none = nullptr;
  damage_.compare_exchange_strong(none, why);
  damaged_.store(true, std::memory_order_relaxed);
  return false;
}

std::string IndexFile::damage() const {
  const char* why = damage_.load();
  return why ? why : "";
}

const char* IndexFile::checked(uint64_t offset, uint64_t size) const {
  if (damaged())
    return nullptr;
  llvm::StringRef data = bytes_->getBuffer();
  uint64_t end = header_.checksums_offset;
  if (offset < kHeaderSize || offset > end || size > end - offset) {
    fail("a reference outside the file");
    return nullptr;
  }
  if (!trusted_ && size > 0) {
    uint64_t first = (offset - kHeaderSize) >> kBlockShift;
    uint64_t last = (offset + size - 1 - kHeaderSize) >> kBlockShift;
    for (uint64_t block = first; block <= last; ++block) {
      uint8_t state = block_state_[block].load(std::memory_order_acquire);
      if (state == 0) {
        uint64_t start = kHeaderSize + (block << kBlockShift);
        u64 expected{};
        std::memcpy(&expected, data.data() + end + block * sizeof(u64), sizeof expected);
        bool good = llvm::xxh3_64bits(data.substr(start, std::min(kBlockSize, end - start))) ==
                    uint64_t(expected);
        state = good ? 1 : 2;
        block_state_[block].store(state, std::memory_order_release);
      }
      if (state != 1) {
        fail("a block of the index fails its checksum");
        return nullptr;
      }
    }
  }
  return data.data() + offset;
}

std::optional<llvm::StringRef> IndexFile::string(uint32_t id) const {
  u64 begin{}, end{};
  if (!record(SectionKind::StringOffsets, id, begin) ||
      !record(SectionKind::StringOffsets, uint64_t(id) + 1, end))
    return std::nullopt;
  const Section& blob = section(SectionKind::StringBlob);
  if (begin > end || end > blob.size) {
    fail("a string outside the string table");
    return std::nullopt;
  }
  const char* text = checked(blob.offset + begin, end - begin);
  if (!text)
    return std::nullopt;
  return llvm::StringRef(text, end - begin);
}

} // namespace dumpsyms
