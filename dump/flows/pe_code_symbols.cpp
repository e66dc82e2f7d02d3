#include "dump/flows/pe_code_symbols.h"

#include "dump/pdb/breakpad_pdb_names.h"
#include "dump/pdb/windows_names.h"
#include "dump/pe/coff_symbols.h"
#include "dump/pe/pe_exports.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

using namespace llvm;

namespace {

// Itanium C++ (and Rust's legacy scheme), Rust v0, D.
bool gnuMangled(StringRef name) {
  return name.starts_with("_Z") || name.starts_with("_R") ||
         (name.size() > 2 && name.starts_with("_D") && isDigit(name[2]));
}

} // namespace

CodeSymbol namedPeSymbol(uint64_t address, uint64_t size, StringRef raw, bool x86,
                         NameStyle style) {
  // (x86's C prefix precedes a mangled name too: "__Z3fooi")
  if (x86 && raw.starts_with("_") && gnuMangled(raw.drop_front()))
    return {address, size, demangleSymbol(raw.drop_front(), style)};
  if (gnuMangled(raw))
    return {address, size, demangleSymbol(raw, style)};
  if (style == NameStyle::Breakpad) {
    BreakpadPdbName named = breakpadNameOfDecorated(std::string_view(raw.data(), raw.size()));
    return {address, size, std::move(named.name), named.stack_parameter_size};
  }
  UndecoratedName named = undecorateName(raw, x86);
  return {address, size, std::move(named.name), named.stack_parameter_size};
}

std::vector<CodeSymbol> peExportSymbols(const PeImage& pe, uint64_t bias, NameStyle style,
                                        Diagnostics& diagnostics) {
  bool x86 = pe.machine() == COFF::IMAGE_FILE_MACHINE_I386;
  PeExports exports = readPeExports(pe);
  for (std::string& problem : exports.problems)
    diagnostics.warn(pe.path() + ": " + problem);
  std::vector<CodeSymbol> out;
  out.reserve(exports.exports.size());
  for (const PeExport& symbol : exports.exports) {
    StringRef name = symbol.name;
    out.push_back(namedPeSymbol(bias + symbol.rva, 0, name, x86, style));
  }
  return out;
}

std::vector<CodeSymbol> peCoffSymbols(const PeImage& pe, NameStyle style,
                                      Diagnostics& diagnostics) {
  bool x86 = pe.machine() == COFF::IMAGE_FILE_MACHINE_I386;
  CoffSymbols table = readCoffCodeSymbols(pe);
  if (table.unreadable)
    diagnostics.warn(pe.path() + ": " + std::to_string(table.unreadable) +
                     " COFF symbols with names outside the string table were left out");
  std::vector<CodeSymbol> out;
  out.reserve(table.symbols.size());
  for (const CoffSymbol& symbol : table.symbols)
    out.push_back(namedPeSymbol(symbol.address, symbol.size, symbol.name, x86, style));
  return out;
}

std::unordered_map<std::string, X86CName> x86DecoratedNames(const PeImage& pe) {
  std::unordered_map<std::string, X86CName> names;
  if (pe.machine() != COFF::IMAGE_FILE_MACHINE_I386)
    return names;
  for (const CoffSymbol& symbol : readCoffCodeSymbols(pe).symbols) {
    StringRef raw = symbol.name;
    if (isMsvcMangled(raw) || gnuMangled(raw.drop_front()) || raw.rfind('@') == StringRef::npos ||
        raw.rfind('@') == 0)
      continue;
    UndecoratedName plain = undecorateName(raw, true);
    if (!plain.stack_parameter_size && !raw.ends_with("@0"))
      continue; // no @N: not decorated
    X86CName named{plain.name, plain.stack_parameter_size};
    names.emplace(raw.str(), named);
    if (raw.starts_with("_"))
      names.emplace(raw.drop_front().str(), named);
  }
  return names;
}

} // namespace dumpsyms
