// A minidump's bytes, read only through bounds checks: every RVA and size
// the file gives is checked against its length before anything is read.
#pragma once

#include <cstdint>
#include <cstring>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Endian.h>
#include <optional>
#include <string>

namespace dumpsyms {

// The little-endian reads of every stream reader (the caller has checked
// that the bytes are there).
using llvm::support::endian::read16le;
using llvm::support::endian::read32le;
using llvm::support::endian::read64le;

class MinidumpBytes {
public:
  explicit MinidumpBytes(llvm::StringRef file) : file_(file) {}

  uint64_t size() const { return file_.size(); }
  // `size` bytes at `rva`, when the file holds all of them.
  std::optional<llvm::StringRef> at(uint64_t rva, uint64_t size) const {
    if (rva > file_.size() || size > file_.size() - rva)
      return std::nullopt;
    return file_.substr(rva, size);
  }
  // A plain structure at `rva` (LLVM's minidump types are packed and
  // little-endian, so a copy of the bytes is the value).
  template <class T> std::optional<T> object(uint64_t rva) const {
    auto bytes = at(rva, sizeof(T));
    if (!bytes)
      return std::nullopt;
    T value;
    std::memcpy(static_cast<void*>(&value), bytes->data(), sizeof(T));
    return value;
  }
  // A MINIDUMP_STRING (a 32-bit byte count, then UTF-16LE) as UTF-8;
  // nullopt when it runs past the file, is longer than the limit or is not
  // UTF-16.
  std::optional<std::string> string(uint64_t rva) const;

private:
  llvm::StringRef file_;
};

} // namespace dumpsyms
