#include "dump/pdb/publics.h"

#include <llvm/DebugInfo/CodeView/SymbolDeserializer.h>
#include <llvm/DebugInfo/CodeView/SymbolRecord.h>
#include <llvm/DebugInfo/PDB/Native/SymbolStream.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::codeview;

std::vector<PdbPublic> readCodePublics(PdbFile& pdb, size_t& skipped, bool in_code_sections) {
  std::vector<PdbPublic> publics;
  auto records = pdb.raw().getPDBSymbolStream();
  if (!records) {
    consumeError(records.takeError());
    return publics;
  }
  // Every S_PUB32 lives in the symbol record stream; walking it whole needs
  // no trust in the publics stream's hash and address tables.
  bool had_error = false;
  for (const CVSymbol& symbol : records->getSymbols(&had_error)) {
    if (symbol.kind() != S_PUB32)
      continue;
    PublicSym32 record(SymbolRecordKind::PublicSym32);
    if (Error error = SymbolDeserializer::deserializeAs<PublicSym32>(symbol, record)) {
      consumeError(std::move(error));
      ++skipped;
      continue;
    }
    bool flagged =
        (record.Flags & (PublicSymFlags::Code | PublicSymFlags::Function)) != PublicSymFlags::None;
    if (!flagged && !(in_code_sections && pdb.isCodeSegment(record.Segment)))
      continue;
    if (auto rva = pdb.rva(record.Segment, record.Offset))
      publics.push_back({*rva, record.Name.str()});
    else
      ++skipped;
  }
  if (had_error)
    ++skipped;
  return publics;
}

} // namespace dumpsyms
