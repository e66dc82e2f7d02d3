// A PDB from memory: opened with LLVM's native reader, then the whole dump
// dump_syms makes of a PDB given alone (identity, procedures, lines, inline
// sites with -d, publics, FrameData/FPO as STACK WIN), and the writer.
#include "dump_syms/dump_module.h"
#include "dump_syms/dump_windows.h"
#include "pdb/pdb_file.h"
#include "tests/fuzz/fuzz_targets.h"

#include <sstream>

namespace dumpsyms::fuzz {

int pdb(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  auto file = PdbFile::open(llvm::MemoryBuffer::getMemBufferCopy(bytes, "fuzz.pdb"), "fuzz.pdb");
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  Options options;
  options.binary = "fuzz.pdb";
  options.inlines = true;
  options.jobs = 1;
  options.quiet = true;
  Diagnostics diagnostics;
  auto module = dumpPdbModule(**file, nullptr, options, diagnostics);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  std::ostringstream text;
  writeSymbolFile(*module, writeOptions(options), text);
  return 0;
}

} // namespace dumpsyms::fuzz
