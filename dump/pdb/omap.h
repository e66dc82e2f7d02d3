// OMAP: the address maps of a PDB whose image was rewritten after linking
// (Microsoft's BBT, used on Windows' own DLLs; Chrome's Syzygy). The PDB's
// symbols, lines and FrameData describe the image as the linker made it;
// OMAP_FROM_SRC maps each of its blocks to where the rewriter put it in
// the shipped image (or to 0: dropped), OMAP_TO_SRC the other way, and the
// original section headers (SectionHdrOrig, else, as DIA takes them, the
// section headers stream) place the original sections.
// A function whose blocks were scattered becomes several ranges; what maps
// to 0 is dropped.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

struct OmapEntry {
  uint32_t rva = 0;    // the block's start in the image it maps from
  uint32_t rva_to = 0; // where it starts in the other image; 0: nowhere
};

class Omap {
public:
  // Both tables sorted by `rva` (as the PDB stores them).
  Omap(std::vector<OmapEntry> from_source, std::vector<OmapEntry> to_source);

  // The shipped ranges of the original [start, end), ascending, touching
  // ones merged; empty when all of it was dropped.
  std::vector<AddressRange> mapRange(uint64_t start, uint64_t end) const;
  std::optional<uint64_t> mapAddress(uint64_t rva) const;

  size_t size() const { return from_source_.size(); }

private:
  // The end of the shipped block that starts at or before `rva_to`.
  uint64_t shippedBlockEnd(uint64_t rva_to) const;

  std::vector<OmapEntry> from_source_, to_source_;
};

struct OmapStreams {
  std::optional<Omap> omap;                    // none: the image was not rewritten
  std::vector<uint32_t> original_section_rvas; // from SectionHdrOrig (else SectionHdr)
  std::vector<bool> original_code_sections;    // (as PdbFile keeps them)
  std::vector<std::string> problems;
};

// The OMAP streams and original section headers the DBI stream names.
OmapStreams readOmapStreams(llvm::pdb::PDBFile& file);

// Every address of `module` (FUNC ranges, lines, inline ranges, PUBLIC,
// STACK WIN) from the original image to the shipped one. STACK CFI comes
// from the shipped PE and is left as it is.
void applyOmap(Module& module, const Omap& omap);

} // namespace dumpsyms
