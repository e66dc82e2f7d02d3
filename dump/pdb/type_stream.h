// One type stream of a PDB (TPI, the types, or IPI, the ids) for lookups by
// type index, read without LLVM's TpiStream. TpiStream hands
// LazyRandomTypeCollection the index offsets of the stream's hash stream
// unchecked, and one whose type index is below 0x1000 makes it write before
// its records (LLVM 19; docs/FUZZING.md); it also sizes its records by the
// header's count before anything checks that count. Here the header is
// checked against the stream and the records are found by walking them.
#pragma once

#include <cstdint>
#include <llvm/DebugInfo/CodeView/CVRecord.h>
#include <llvm/DebugInfo/CodeView/LazyRandomTypeCollection.h>
#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <memory>
#include <string>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

class TypeStream {
public:
  // The stream `index` (llvm::pdb::StreamTPI or StreamIPI); null, with
  // `problem` set, when it is missing or its header does not fit it.
  static std::unique_ptr<TypeStream> open(llvm::pdb::PDBFile& file, uint32_t index,
                                          std::string& problem);

  llvm::codeview::LazyRandomTypeCollection& types() { return *types_; }
  // How many records the header says the stream holds (0: a PDB without
  // type information).
  uint32_t recordCount() const { return record_count_; }

private:
  TypeStream() = default;

  std::unique_ptr<llvm::msf::MappedBlockStream> stream_;
  llvm::codeview::CVTypeArray records_;
  std::unique_ptr<llvm::codeview::LazyRandomTypeCollection> types_;
  uint32_t record_count_ = 0;
};

} // namespace dumpsyms
