#include "dump/pdb/type_stream.h"

#include <llvm/DebugInfo/CodeView/TypeIndex.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/DebugInfo/PDB/Native/RawTypes.h>
#include <llvm/Support/BinaryStreamReader.h>

namespace dumpsyms {

using namespace llvm;

std::unique_ptr<TypeStream> TypeStream::open(pdb::PDBFile& file, uint32_t index,
                                             std::string& problem) {
  auto stream = file.safelyCreateIndexedStream(index);
  if (!stream) {
    problem = toString(stream.takeError());
    return nullptr;
  }
  std::unique_ptr<TypeStream> out(new TypeStream);
  out->stream_ = std::move(*stream);
  BinaryStreamReader reader(*out->stream_);
  const pdb::TpiStreamHeader* header = nullptr;
  if (Error error = reader.readObject(header)) {
    problem = "its header is cut short: " + toString(std::move(error));
    return nullptr;
  }
  uint32_t begin = header->TypeIndexBegin, end = header->TypeIndexEnd;
  uint32_t bytes = header->TypeRecordBytes;
  if (header->HeaderSize != sizeof(pdb::TpiStreamHeader)) {
    problem = "its header size is " + std::to_string(header->HeaderSize);
    return nullptr;
  }
  if (begin != codeview::TypeIndex::FirstNonSimpleIndex || end < begin) {
    problem = "its type indices run from " + std::to_string(begin) + " to " + std::to_string(end);
    return nullptr;
  }
  // A record is at least its length and its kind: 4 bytes.
  if (bytes > reader.bytesRemaining() || end - begin > bytes / 4) {
    problem = std::to_string(end - begin) + " records in " + std::to_string(bytes) +
              " bytes, of which the stream holds " + std::to_string(reader.bytesRemaining());
    return nullptr;
  }
  BinaryStreamRef records;
  if (Error error = reader.readStreamRef(records, bytes)) {
    problem = toString(std::move(error));
    return nullptr;
  }
  BinaryStreamReader record_reader(records);
  if (Error error = record_reader.readArray(out->records_, records.getLength())) {
    problem = toString(std::move(error));
    return nullptr;
  }
  out->record_count_ = end - begin;
  // No index offsets: lookups walk the records from the start, once.
  out->types_ = std::make_unique<codeview::LazyRandomTypeCollection>(out->records_, end - begin);
  return out;
}

} // namespace dumpsyms
