// A symbol file's binary index (index_format.h), mapped and read lazily:
// open() checks the header, the checksum table and the section directory;
// every later read checks the blocks it touches against their checksums
// the first time, and every record against the tables it points into. A
// mismatch marks the index damaged (its reads then fail), so that the
// owner rebuilds it from the .sym rather than trusting it.
#pragma once

#include "symbol_file/index/index_format.h"

#include <atomic>
#include <cstring>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

class IndexFile {
public:
  struct Section {
    uint64_t offset = 0, size = 0, count = 0;
  };

  // `trusted`: the bytes were built by this process (no checksum to check).
  // `name` names the index in errors.
  static llvm::Expected<std::unique_ptr<IndexFile>>
  open(std::unique_ptr<llvm::MemoryBuffer> bytes, const std::string& name, bool trusted = false);

  const symbol_index::Header& header() const { return header_; }
  const Section& section(symbol_index::SectionKind kind) const;
  const std::string& name() const { return name_; }

  // Record `index` of a fixed-size section, or false (and the index marked
  // damaged) when it is outside the section or its bytes fail their check.
  template <class T> bool record(symbol_index::SectionKind kind, uint64_t index, T& out) const {
    const Section& s = section(kind);
    if (index >= s.count || s.size / sizeof(T) < s.count)
      return fail("a record past its table");
    const char* bytes = checked(s.offset + index * sizeof(T), sizeof(T));
    if (!bytes)
      return false;
    std::memcpy(&out, bytes, sizeof(T));
    return true;
  }

  // The T at `offset` bytes into section `kind` (a variable-size one).
  template <class T> bool at(symbol_index::SectionKind kind, uint64_t offset, T& out) const {
    const Section& s = section(kind);
    if (offset > s.size || s.size - offset < sizeof(T))
      return fail("a record past its table");
    const char* bytes = checked(s.offset + offset, sizeof(T));
    if (!bytes)
      return false;
    std::memcpy(&out, bytes, sizeof(T));
    return true;
  }

  // String `id`; nullopt (and damaged) when there is no such string.
  std::optional<llvm::StringRef> string(uint32_t id) const;

  bool damaged() const { return damaged_.load(std::memory_order_relaxed); }
  // What was wrong, once damaged().
  std::string damage() const;

  // Marks the index damaged for `why` (a record that points nowhere);
  // returns false for the caller to pass on.
  bool fail(const char* why) const;

private:
  IndexFile() = default;
  // The bytes [offset, offset + size), their blocks checked; nullptr when
  // out of the file or a block fails its checksum.
  const char* checked(uint64_t offset, uint64_t size) const;

  std::unique_ptr<llvm::MemoryBuffer> bytes_;
  std::string name_;
  symbol_index::Header header_{};
  Section sections_[symbol_index::kLastSectionKind + 1];
  bool trusted_ = false;
  uint64_t block_count_ = 0;
  // 0: not checked yet, 1: good, 2: bad.
  std::unique_ptr<std::atomic<uint8_t>[]> block_state_;
  mutable std::atomic<bool> damaged_{false};
  mutable std::atomic<const char*> damage_{nullptr};
};

} // namespace dumpsyms
