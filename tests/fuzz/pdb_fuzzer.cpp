// A PDB from memory: opened with LLVM's native reader, then the whole dump
// dump_syms makes of a PDB given alone (identity, procedures, lines, inline
// sites with -d, publics, FrameData/FPO as STACK WIN), and the writer;
// inputs of odd size are named as Breakpad's Windows dumper names them
// (--names breakpad: undname spelling, DIA's names from the type stream).
#include "dump/flows/dump_module.h"
#include "dump/flows/windows_flow.h"
#include "dump/pdb/pdb_file.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/whole_dump_options.h"

#include <sstream>

namespace dumpsyms::fuzz {

void dumpPdbAndWrite(PdbFile& pdb, const PeImage* pe, const std::string& binary, NameStyle names) {
  Options options = test_support::wholeDumpOptions(binary);
  options.names = names;
  Diagnostics diagnostics;
  auto module = dumpPdbModule(pdb, pe, options, diagnostics);
  if (!module) {
    llvm::consumeError(module.takeError());
    return;
  }
  std::ostringstream text;
  writeSymbolFile(*module, writeOptions(options), text);
}

int pdb(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  auto file = PdbFile::open(llvm::MemoryBuffer::getMemBufferCopy(bytes, "fuzz.pdb"), "fuzz.pdb");
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  dumpPdbAndWrite(**file, nullptr, "fuzz.pdb", size % 2 ? NameStyle::Breakpad : NameStyle::Llvm);
  return 0;
}

} // namespace dumpsyms::fuzz
