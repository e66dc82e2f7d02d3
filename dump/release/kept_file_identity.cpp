#include "dump/release/kept_file_identity.h"

#include "common/errors/file_error.h"
#include "common/files/file_start.h"
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "dump/macho/macho_image.h"
#include "dump/object/elf_image.h"
#include "dump/object/identifiers.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pe/pe_image.h"

#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {
namespace {

// The reader's error, naming `label` where it named the (spooled) path.
llvm::Error relabel(llvm::Error error, const std::string& path, const std::string& label) {
  std::string text = renamedFile(llvm::toString(std::move(error)), path, label);
  if (text.rfind(label, 0) != 0)
    text = label + ": " + text;
  return llvm::createStringError(text);
}

} // namespace

llvm::Expected<KeptFileIdentity> keptFileIdentity(const std::string& path,
                                                  const std::string& label) {
  KeptFileIdentity out;
  std::string start = fileStart(path);
  if (llvm::StringRef(start).starts_with("\x7f"
                                         "ELF")) {
    out.kind = "ELF";
    auto image = ElfImage::open(path);
    if (!image)
      return relabel(image.takeError(), path, label);
    // Without a build id the module's id is a hash of .text, which a
    // debug file does not hold: such a file cannot be checked.
    std::vector<uint8_t> build_id = gnuBuildId(**image);
    if (build_id.empty())
      out.unchecked = true;
    else
      out.ids.push_back(DebugId::fromIdentifier(build_id).str());
    return out;
  }
  if (looksLikePdb(start)) {
    out.kind = "PDB";
    auto pdb = PdbFile::open(path);
    if (!pdb)
      return relabel(pdb.takeError(), path, label);
    out.ids.push_back(DebugId::fromGuid((*pdb)->identity().guid, (*pdb)->identity().age).str());
    return out;
  }
  if (looksLikePe(start)) {
    out.kind = "PE";
    auto pe = PeImage::open(path);
    if (!pe)
      return relabel(pe.takeError(), path, label);
    out.ids.push_back(CodeId::fromPeImage((*pe)->timeDateStamp(), (*pe)->sizeOfImage()).str());
    if (const auto& record = (*pe)->codeView())
      out.ids.push_back(DebugId::fromGuid(record->guid, record->age).str());
    return out;
  }
  if (MachOImage::isMachO(path)) {
    out.kind = "Mach-O";
    auto slices = MachOImage::slices(path);
    if (!slices)
      return relabel(slices.takeError(), path, label);
    for (const MachOSlice& slice : *slices) {
      auto image = MachOImage::open(path, slices->size() > 1 ? slice.arch : "");
      if (!image)
        return relabel(image.takeError(), path, label);
      if (auto uuid = (*image)->uuid())
        out.ids.push_back(DebugId::fromUuid(*uuid).str());
    }
    if (out.ids.empty())
      out.unchecked = true;
    return out;
  }
  return llvm::createStringError(label + ": not an ELF, PE, PDB or Mach-O file");
}

} // namespace dumpsyms
