// One PDB opened with LLVM's native reader, and the facts every later step
// needs: identity (GUID, age, machine) and the section table that turns
// CodeView's segment:offset addresses into RVAs.
//
// LLVM's reader reports problems as llvm::Error; every one is consumed here
// or turned into an error naming the file. Nothing else outside dump/pdb/
// sees LLVM's PDB types.
#pragma once

#include "dump/pdb/omap.h"

#include <array>
#include <cstdint>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct PdbIdentity {
  std::array<uint8_t, 16> guid{}; // as stored: Data1..3 little-endian
  uint32_t age = 0;               // the DBI stream's, which the PE's RSDS record repeats
  uint16_t machine = 0;           // IMAGE_FILE_MACHINE_*
};

class PdbFile {
public:
  static llvm::Expected<std::unique_ptr<PdbFile>> open(const std::string& path);
  // The same from bytes already in memory; `path` names them in errors.
  static llvm::Expected<std::unique_ptr<PdbFile>> open(std::unique_ptr<llvm::MemoryBuffer> bytes,
                                                       const std::string& path);
  ~PdbFile();

  const std::string& path() const { return path_; }
  const PdbIdentity& identity() const { return identity_; }
  llvm::pdb::PDBFile& raw() { return *file_; }

  // The RVA of `segment`:`offset`; none for a segment the image lacks.
  std::optional<uint32_t> rva(uint16_t segment, uint32_t offset) const;
  // Whether `segment` holds code (IMAGE_SCN_CNT_CODE or executable).
  bool isCodeSegment(uint16_t segment) const;

  // The OMAP of an image rewritten after linking (dump/pdb/omap.h): then rva()
  // gives addresses in the original image, which the dump maps with it.
  const std::optional<Omap>& omap() const { return omap_; }

  // Modules (compilands) that both the DBI stream's file info counts and its
  // module list describes: LLVM 19 takes the count from the first and reads
  // past the end of the second when they disagree.
  uint32_t moduleCount() const { return module_count_; }
  // Problems met while opening that did not stop it (those counts differ).
  const std::vector<std::string>& openWarnings() const { return open_warnings_; }

private:
  PdbFile() = default;

  std::string path_;
  llvm::BumpPtrAllocator allocator_;
  std::unique_ptr<llvm::pdb::PDBFile> file_;
  PdbIdentity identity_;
  std::vector<uint32_t> section_rvas_; // index = segment - 1
  std::vector<bool> code_sections_;    // index = segment - 1
  std::optional<Omap> omap_;
  uint32_t module_count_ = 0;
  std::vector<std::string> open_warnings_;
};

// True when the bytes start with the MSF 7.00 signature of a PDB.
bool looksLikePdb(llvm::StringRef bytes);

// Breakpad's debug id: GUID fields as 8-4-4 upper-case hex digits, the 8
// trailing bytes as 2 digits each, then the age in hex without leading
// zeros ("E5431EE791B6B9B84C4C44205044422E1").

} // namespace dumpsyms
