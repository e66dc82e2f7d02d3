// One PE file (.exe/.dll) opened for reading: the header facts a Windows
// symbol file needs (machine, TimeDateStamp, SizeOfImage), the CodeView
// debug directory entry that names its PDB, and byte access by RVA for the
// x64 exception directory.
#pragma once

#include <array>
#include <cstdint>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Object/COFF.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>

namespace dumpsyms {

// What the PE's RSDS CodeView record says about its PDB.
struct CodeViewRecord {
  std::array<uint8_t, 16> guid{}; // as stored: Data1..3 little-endian
  uint32_t age = 0;
  std::string pdb_path; // as the linker recorded it (may be a Windows path)
};

class PeImage {
public:
  // Opens and checks `path`; errors name the file and say what is wrong.
  static llvm::Expected<std::unique_ptr<PeImage>> open(const std::string& path);
  // The same from bytes already in memory; `path` names them in errors.
  static llvm::Expected<std::unique_ptr<PeImage>> open(std::unique_ptr<llvm::MemoryBuffer> bytes,
                                                       const std::string& path);

  const std::string& path() const { return path_; }
  uint16_t machine() const { return coff_->getMachine(); }
  uint32_t timeDateStamp() const { return coff_->getTimeDateStamp(); }
  uint32_t sizeOfImage() const { return size_of_image_; }
  bool is64() const { return coff_->is64(); }
  const std::optional<CodeViewRecord>& codeView() const { return code_view_; }

  // `size` bytes at `rva`, or an empty array when they are not all inside
  // one section's file data.
  llvm::ArrayRef<uint8_t> bytesAt(uint32_t rva, uint32_t size) const;
  // The bytes from `rva` to the end of its section's file data (empty
  // outside every section): for strings of unknown length.
  llvm::ArrayRef<uint8_t> bytesFrom(uint32_t rva) const;
  // The exception directory (.pdata), empty when there is none.
  llvm::ArrayRef<uint8_t> exceptionDirectory() const;
  // The export directory's RVA and size ({0, 0} when there is none).
  std::pair<uint32_t, uint32_t> exportDirectory() const;

private:
  PeImage() = default;
  std::optional<CodeViewRecord> readCodeView() const;

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::unique_ptr<llvm::object::COFFObjectFile> coff_;
  uint32_t size_of_image_ = 0;
  std::optional<CodeViewRecord> code_view_;
};

// True when the file starts like a PE image ("MZ").
bool looksLikePe(llvm::StringRef bytes);

} // namespace dumpsyms
