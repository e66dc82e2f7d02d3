// One PE file (.exe/.dll) opened for reading: the header facts a Windows
// symbol file needs (machine, TimeDateStamp, SizeOfImage, ImageBase), the
// CodeView debug directory entry that names its PDB, its section table
// (long names, as MinGW's .debug_* sections have, resolved), and byte
// access by RVA for the exception and export directories.
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
#include <vector>

namespace dumpsyms {

// What the PE's RSDS CodeView record says about its PDB.
struct CodeViewRecord {
  std::array<uint8_t, 16> guid{}; // as stored: Data1..3 little-endian
  uint32_t age = 0;
  std::string pdb_path; // as the linker recorded it (may be a Windows path)
};

struct PeSection {
  std::string name; // "/4" style long names resolved through the string table
  uint32_t rva = 0;
  uint32_t virtual_size = 0;
  uint32_t raw_offset = 0; // PointerToRawData
  uint32_t raw_size = 0;   // SizeOfRawData
  uint32_t characteristics = 0;

  // The bytes the file holds of it: the raw data, but no more than the
  // section's size in memory (the rest is the file alignment's padding).
  uint32_t fileBytes() const;
  bool holdsCode() const; // IMAGE_SCN_CNT_CODE or IMAGE_SCN_MEM_EXECUTE
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
  uint64_t imageBase() const { return coff_->getImageBase(); }
  uint64_t fileSize() const { return buffer_->getBufferSize(); }
  const llvm::object::COFFObjectFile& coff() const { return *coff_; }
  // Sections in table order; each one's file bytes lie within the file.
  const std::vector<PeSection>& sections() const { return sections_; }
  const PeSection* findSection(llvm::StringRef name) const;
  // Whether the code of the image is not in the file: a companion that
  // `objcopy --only-keep-debug` made, which keeps the headers and the debug
  // sections only.
  bool isDebugCompanion() const;
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
  void readSections();

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::unique_ptr<llvm::object::COFFObjectFile> coff_;
  uint32_t size_of_image_ = 0;
  std::optional<CodeViewRecord> code_view_;
  std::vector<PeSection> sections_;
};

// True when the file starts like a PE image ("MZ").
bool looksLikePe(llvm::StringRef bytes);

} // namespace dumpsyms
