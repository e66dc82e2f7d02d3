// Runs code written against llvm::object's ELFT parameter for the class and
// byte order an ELF file declares in its identification bytes.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELF.h>
#include <llvm/Object/ELFTypes.h>
#include <utility>

namespace dumpsyms {

// `f` is called with a value of llvm::object::ELF32LE, ELF32BE, ELF64LE or
// ELF64BE. `elf` must hold at least the EI_NIDENT identification bytes.
template <typename F> auto withElfType(llvm::StringRef elf, F&& f) {
  using namespace llvm::object;
  bool is64 = elf[llvm::ELF::EI_CLASS] == llvm::ELF::ELFCLASS64;
  bool little = elf[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2MSB;
  if (is64)
    return little ? f(ELF64LE()) : f(ELF64BE());
  return little ? f(ELF32LE()) : f(ELF32BE());
}

// LLVM's view of an ELF file in memory and its section headers, checked.
template <class ELFT> struct ElfSections {
  llvm::object::ELFFile<ELFT> file;
  typename ELFT::ShdrRange headers;
};
template <class ELFT> llvm::Expected<ElfSections<ELFT>> readElfSections(llvm::StringRef bytes) {
  auto file = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!file)
    return file.takeError();
  auto headers = file->sections();
  if (!headers)
    return headers.takeError();
  return ElfSections<ELFT>{std::move(*file), *headers};
}

} // namespace dumpsyms
