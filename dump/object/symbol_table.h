// Code symbols of an ELF symbol table, for PUBLIC records and for naming
// code that has line rows but no DWARF function.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/object/demangle.h"
#include "dump/object/elf_image.h"
#include "symbol_file/model/module_builder.h"

#include <vector>

namespace dumpsyms {

// STT_FUNC and STT_GNU_IFUNC symbols defined in a section, from .symtab, or
// from .dynsym when there is no .symtab; in table order, names demangled in
// `style` (demangleSymbol). ARM Thumb addresses lose their low bit. In LLVM's
// spelling a size-0 label at the address of a sized symbol (Go's
// `runtime.text` before the first function) comes after all the others,
// so that the function's own symbol names it; Breakpad takes the first.
std::vector<CodeSymbol> readCodeSymbols(const ElfImage& image, NameStyle style,
                                        Diagnostics& diagnostics);

} // namespace dumpsyms

namespace dumpsyms {

// Looks up the symbol-table name of code by its entry address. Read-only
// after construction, so workers may share it.
class SymbolIndex {
public:
  explicit SymbolIndex(const std::vector<CodeSymbol>& symbols);
  // The name of the first symbol (in table order) at exactly `address`,
  // a sized one before any size-0 label.
  const std::string* nameAt(uint64_t address) const;

private:
  std::vector<std::pair<uint64_t, const std::string*>> by_address_;
};

} // namespace dumpsyms
