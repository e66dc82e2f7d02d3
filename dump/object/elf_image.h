// One ELF file opened for reading: its bytes, LLVM's parsed view of them, and
// the header facts the later stages need (machine, sections, segments).
#pragma once

#include "common/errors/file_error.h"
#include "symbol_file/model/module.h"

#include <cstdint>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dumpsyms {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t address = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t entry_size = 0;
  uint32_t link = 0;

  bool hasBytes() const; // false for SHT_NOBITS and SHT_NULL
};

struct ElfSegment {
  uint32_t type = 0;
  uint64_t offset = 0;
  uint64_t address = 0;
  uint64_t file_size = 0;
  uint64_t memory_size = 0;
  uint64_t alignment = 0;
};

class ElfImage {
public:
  // Reads `path`. Errors name the file and the problem.
  static llvm::Expected<std::unique_ptr<ElfImage>> open(const std::string& path);
  // Wraps bytes already in memory (a vDSO, an inflated MiniDebugInfo file);
  // `name` stands for the file in messages.
  static llvm::Expected<std::unique_ptr<ElfImage>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, std::string name);

  const std::string& path() const { return path_; }
  const llvm::object::ELFObjectFileBase& object() const { return *object_; }
  llvm::StringRef bytes() const { return buffer_->getBuffer(); }

  uint16_t machine() const { return machine_; }
  uint16_t fileType() const { return file_type_; }
  bool is64Bit() const { return is_64_bit_; }
  bool isLittleEndian() const { return is_little_endian_; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* findSection(std::string_view name) const;
  const std::vector<ElfSegment>& segments() const { return segments_; }

  // Bytes of a section, inflated when compressed (SHF_COMPRESSED with zlib or
  // zstd); std::nullopt when the section is absent or has no bytes here
  // (SHT_NOBITS, as in separate debug files).
  llvm::Expected<std::optional<llvm::StringRef>> sectionBytes(std::string_view name) const;
  llvm::Expected<std::optional<llvm::StringRef>> sectionBytes(const ElfSection& section) const;
  // The same bytes as a copy the caller owns: for large sections read once,
  // which then do not stay in memory.
  llvm::Expected<std::optional<std::string>> sectionCopy(const ElfSection& section) const;

  // Bytes this process will not read for a while: when the file is mapped,
  // their pages leave the resident set (the kernel reads them again from
  // the file if they are touched). Nothing happens to bytes in memory we
  // own, whose contents would be lost.
  void dropPages(uint64_t offset, uint64_t size) const;

  // The p_vaddr of the first PT_LOAD segment (0 without one): addresses in a
  // symbol file are relative to it.
  uint64_t loadAddress() const;
  // [p_vaddr, p_vaddr + p_memsz) of every PT_LOAD segment.
  std::vector<AddressRange> loadedRanges() const;

  // DT_SONAME from .dynamic, or "" when there is none.
  std::string soname() const;

  // True when the image holds any DWARF section with bytes.
  bool hasDebugInfo() const;

  // What is wrong with the first compressed section whose header claims
  // more bytes than its data could inflate to (implausibleInflation), or ""
  // when there is none. LLVM would try to allocate that much.
  std::string implausibleCompressedSection() const;

  // Problems met while opening that did not stop it (a legacy compressed
  // section that would not inflate, ...).
  const std::vector<std::string>& openWarnings() const { return open_warnings_; }

private:
  ElfImage() = default;
  llvm::Error parse();

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::unique_ptr<llvm::object::ELFObjectFileBase> object_;
  uint16_t machine_ = 0;
  uint16_t file_type_ = 0;
  bool is_64_bit_ = false;
  bool is_little_endian_ = true;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  std::vector<std::string> open_warnings_;
  // Sections inflated by sectionBytes(), which a dump calls from the DWARF
  // walk and from the unwind-table reader at once.
  mutable std::mutex inflated_mutex_;
  mutable std::map<std::string, std::unique_ptr<std::string>> inflated_;
};

// Whether a compressed section may really inflate to `inflated` bytes:
// beyond limits::kMaxInflateRatio it is corruption, not compression.
bool plausibleInflatedSize(uint64_t inflated, uint64_t compressed);
// "section 'NAME' claims to inflate to N bytes: ... over the limit ...".
std::string implausibleInflation(const std::string& section, uint64_t inflated,
                                 uint64_t compressed);

} // namespace dumpsyms
