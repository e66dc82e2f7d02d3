#include "dump/release/windows_files.h"

#include "dump/flows/windows_flow.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pe/pe_image.h"

#include <fstream>

namespace dumpsyms {

std::optional<llvm::Expected<WindowsFile>> examineWindowsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char bytes[32] = {};
  in.read(bytes, sizeof bytes);
  llvm::StringRef start(bytes, size_t(in.gcount()));
  if (!looksLikePdb(start) && !looksLikePe(start))
    return std::nullopt;
  WindowsFile file;
  file.is_pdb = looksLikePdb(start);
  if (file.is_pdb) {
    auto pdb = PdbFile::open(path);
    if (!pdb)
      return llvm::Expected<WindowsFile>(pdb.takeError());
    auto identity = windowsIdentity(**pdb, nullptr);
    if (!identity)
      return llvm::Expected<WindowsFile>(identity.takeError());
    file.identity = std::move(*identity);
    return llvm::Expected<WindowsFile>(std::move(file));
  }
  auto pe = PeImage::open(path);
  if (!pe) {
    // Not every MZ file is a PE image (DOS programs, other formats).
    llvm::consumeError(pe.takeError());
    return std::nullopt;
  }
  // (a companion `objcopy --only-keep-debug` made serves the PE that links
  // to it, whose dump finds it; it is no module of its own)
  if ((*pe)->isDebugCompanion())
    return std::nullopt;
  auto identity = peIdentity(**pe);
  if (!identity)
    return llvm::Expected<WindowsFile>(identity.takeError());
  file.identity = std::move(*identity);
  return llvm::Expected<WindowsFile>(std::move(file));
}

} // namespace dumpsyms
