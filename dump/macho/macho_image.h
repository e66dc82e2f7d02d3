// One Mach-O image opened for reading: a thin file, or one slice of a
// universal (fat) file, with LLVM's parsed view of it and the facts a dump
// needs: cpu, UUID, segments and sections, the install name. dSYM bundles'
// DWARF files are Mach-O images too (MH_DSYM).
#pragma once

#include "symbol_file/model/module.h"

#include <array>
#include <cstdint>
#include <llvm/Object/MachO.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct MachOSegment {
  std::string name;
  uint64_t address = 0, size = 0;
  uint64_t file_offset = 0, file_size = 0; // within the slice
  uint32_t max_protection = 0;
};

struct MachOSection {
  std::string segment, name;
  uint64_t address = 0, size = 0;
  uint32_t offset = 0; // within the slice; 0: no bytes (zero-fill, or stripped into a dSYM)
  uint32_t flags = 0;
  uint32_t index = 0; // 1-based, as nlist's n_sect counts

  bool holdsCode() const; // S_ATTR_PURE_INSTRUCTIONS or S_ATTR_SOME_INSTRUCTIONS
  bool hasBytes() const;
};

// One architecture of a file: its name as --arch takes it ("x86_64",
// "arm64", "arm64e", "i386", ...) and where its slice is.
struct MachOSlice {
  std::string arch;
  uint32_t cpu_type = 0, cpu_subtype = 0;
  uint64_t offset = 0, size = 0;
};

class MachOImage {
public:
  // Whether `path` starts like a Mach-O file, thin or universal.
  static bool isMachO(const std::string& path);
  // The architectures `path` holds (one for a thin file).
  static llvm::Expected<std::vector<MachOSlice>> slices(const std::string& path);
  // Reads `path`; of a universal file the slice `arch` (Breakpad's "x86"
  // is i386), which a universal file of several slices must be given. A
  // thin file not of `arch` is an error too.
  static llvm::Expected<std::unique_ptr<MachOImage>> open(const std::string& path,
                                                          const std::string& arch = "");

  const std::string& path() const { return path_; }
  const llvm::object::MachOObjectFile& object() const { return *object_; }
  // The slice's bytes, and where they start in the file.
  llvm::StringRef bytes() const { return slice_; }
  uint64_t sliceOffset() const { return slice_offset_; }

  uint32_t cpuType() const { return cpu_type_; }
  uint32_t cpuSubtype() const { return cpu_subtype_; }
  const std::string& arch() const { return arch_; }
  uint32_t fileType() const { return file_type_; }
  bool is64Bit() const { return object_->is64Bit(); }
  std::optional<std::array<uint8_t, 16>> uuid() const { return uuid_; }
  // LC_ID_DYLIB's name (a dylib's install name), or "".
  const std::string& installName() const { return install_name_; }

  const std::vector<MachOSegment>& segments() const { return segments_; }
  const std::vector<MachOSection>& sections() const { return sections_; }
  const MachOSection* findSection(llvm::StringRef segment, llvm::StringRef name) const;
  // The section's bytes, nullopt when it has none here.
  std::optional<llvm::StringRef> sectionBytes(const MachOSection& section) const;

  // The __TEXT segment's address: what a symbol file's addresses count
  // from (0 when there is none).
  uint64_t textAddress() const;
  // The address ranges of every segment a process maps (not __PAGEZERO).
  std::vector<AddressRange> loadedRanges() const;
  // Where each function starts (LC_FUNCTION_STARTS), ascending; empty
  // when the image has no such table.
  std::vector<uint64_t> functionStarts() const;
  // Whether any __DWARF,__debug_* section has bytes here.
  bool hasDwarf() const;

private:
  MachOImage() = default;
  llvm::Error parse();

  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  llvm::StringRef slice_;
  uint64_t slice_offset_ = 0;
  std::unique_ptr<llvm::object::MachOObjectFile> object_;
  uint32_t cpu_type_ = 0, cpu_subtype_ = 0, file_type_ = 0;
  std::string arch_;
  std::optional<std::array<uint8_t, 16>> uuid_;
  std::string install_name_;
  std::vector<MachOSegment> segments_;
  std::vector<MachOSection> sections_;
};

// The name --arch and error messages use for a cpu type and subtype
// ("x86_64", "arm64e", "i386"), from LLVM's table; "cputype N" when it has none.
std::string machOArchName(uint32_t cpu_type, uint32_t cpu_subtype);

// Breakpad's name for the cpu ("x86_64", "x86_64h", "arm64", "arm64e",
// "x86", "arm", "ppc"), or nullopt for one it has none for.
std::optional<std::string> machOCpuName(uint32_t cpu_type, uint32_t cpu_subtype);

} // namespace dumpsyms
