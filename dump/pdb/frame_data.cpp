#include "dump/pdb/frame_data.h"

#include <llvm/DebugInfo/CodeView/DebugFrameDataSubsection.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBStringTable.h>

namespace dumpsyms {

using namespace llvm;

StackWinRecord stackWinFromFrameData(const codeview::FrameData& entry, const std::string& program) {
  StackWinRecord record;
  record.type = 4; // FRAME_DATA
  record.address = entry.RvaStart;
  record.code_size = entry.CodeSize;
  record.prologue_size = entry.PrologSize;
  record.epilogue_size = 0; // FrameData has no epilogue size
  record.parameter_size = entry.ParamsSize;
  record.saved_registers_size = entry.SavedRegsSize;
  record.locals_size = entry.LocalSize;
  record.max_stack_size = entry.MaxStackSize;
  // Linkers end the program with a space; a trailing space would be part of
  // the record's last field, so it is dropped (the program means the same).
  record.program = StringRef(program).rtrim(" \t\r\n").str();
  return record;
}

StackWinRecord stackWinFromFpo(const object::FpoData& entry) {
  // FPO_DATA's bit fields as winnt.h declares them: cbProlog:8, cbRegs:3,
  // fHasSEH:1, fUseBP:1, reserved:1, cbFrame:2. (LLVM 19's FpoData
  // accessors read cbProlog as 4 bits and fUseBP from bit 10, which
  // overlaps cbRegs, so they are not used.)
  uint16_t attributes = entry.Attributes;
  StackWinRecord record;
  record.type = 0; // FPO
  record.address = entry.Offset;
  record.code_size = entry.Size;
  record.prologue_size = attributes & 0xff;
  record.epilogue_size = 0;
  // FPO_DATA counts parameters and locals in 4-byte words, and registers.
  record.parameter_size = uint64_t(entry.NumParams) * 4;
  record.saved_registers_size = uint64_t((attributes >> 8) & 0x7) * 4;
  record.locals_size = uint64_t(entry.NumLocals) * 4;
  record.max_stack_size = 0;
  record.allocates_base_pointer = (attributes >> 12) & 1;
  return record;
}

namespace {

// Breakpad's dumper writes a run of entries with the same type, address,
// code size and prologue size once (DIA repeats them).
void append(std::vector<StackWinRecord>& records, StackWinRecord record) {
  if (!records.empty()) {
    const StackWinRecord& last = records.back();
    if (last.type == record.type && last.address == record.address &&
        last.code_size == record.code_size && last.prologue_size == record.prologue_size)
      return;
  }
  records.push_back(std::move(record));
}

} // namespace

StackWinResult readStackWin(PdbFile& pdb, bool raw_programs) {
  StackWinResult result;
  auto dbi = pdb.raw().getPDBDbiStream();
  if (!dbi) {
    consumeError(dbi.takeError());
    return result;
  }
  if (dbi->hasNewFpoRecords()) {
    auto strings = pdb.raw().getStringTable();
    if (!strings) {
      result.warnings.push_back("FrameData without a /names string table: " +
                                toString(strings.takeError()));
    } else {
      size_t unnamed = 0;
      for (const codeview::FrameData& entry : dbi->getNewFpoRecords()) {
        auto program = strings->getStringForID(entry.FrameFunc);
        if (!program) {
          consumeError(program.takeError());
          ++unnamed;
        }
        StackWinRecord record = stackWinFromFrameData(entry, program ? program->str() : "");
        if (raw_programs && program)
          record.program = program->str();
        append(result.records, std::move(record));
      }
      if (unnamed)
        result.warnings.push_back(std::to_string(unnamed) +
                                  " FrameData entries name no program string");
    }
  }
  if (dbi->hasOldFpoRecords())
    for (const object::FpoData& entry : dbi->getOldFpoRecords())
      append(result.records, stackWinFromFpo(entry));
  return result;
}

} // namespace dumpsyms
