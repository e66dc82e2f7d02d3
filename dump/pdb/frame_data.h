// x86 unwind data of a PDB as STACK WIN records: type 4 from the FrameData
// ("new FPO") stream, with its program strings, and type 0 from the old FPO
// stream, as Breakpad's Windows dumper writes them (one record per entry,
// consecutive repeats of the same type, address, size and prologue once).
#pragma once

#include "dump/pdb/pdb_file.h"
#include "symbol_file/model/module.h"

#include <llvm/DebugInfo/CodeView/CodeView.h>
#include <llvm/Object/COFF.h>
#include <string>
#include <vector>

namespace dumpsyms {

StackWinRecord stackWinFromFrameData(const llvm::codeview::FrameData& entry,
                                     const std::string& program);
StackWinRecord stackWinFromFpo(const llvm::object::FpoData& entry);

struct StackWinResult {
  std::vector<StackWinRecord> records;
  std::vector<std::string> warnings;
};

// `raw_programs`: program strings as the PDB holds them, trailing space and
// all, as Breakpad's Windows dump_syms copies them (--names breakpad).
StackWinResult readStackWin(PdbFile& pdb, bool raw_programs = false);

} // namespace dumpsyms
