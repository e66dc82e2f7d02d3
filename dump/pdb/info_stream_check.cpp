#include "dump/pdb/info_stream_check.h"

#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/DebugInfo/PDB/Native/RawConstants.h>
#include <llvm/DebugInfo/PDB/Native/RawTypes.h>
#include <llvm/Support/BinaryStreamReader.h>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// A bit vector as the hash table stores it: a word count, then the words.
// The indices of its set bits, or none when it runs past the stream.
std::optional<std::vector<uint32_t>> readBits(BinaryStreamReader& reader) {
  uint32_t words = 0;
  if (Error error = reader.readInteger(words)) {
    consumeError(std::move(error));
    return std::nullopt;
  }
  if (words > reader.bytesRemaining() / 4)
    return std::nullopt;
  std::vector<uint32_t> bits;
  for (uint32_t w = 0; w < words; ++w) {
    uint32_t word = 0;
    if (Error error = reader.readInteger(word)) {
      consumeError(std::move(error));
      return std::nullopt;
    }
    for (uint32_t bit = 0; bit < 32; ++bit)
      if (word & (uint32_t(1) << bit))
        bits.push_back(w * 32 + bit);
  }
  return bits;
}

} // namespace

std::string infoStreamProblem(pdb::PDBFile& file) {
  auto stream = file.safelyCreateIndexedStream(pdb::StreamPDB);
  if (!stream)
    return toString(stream.takeError());
  BinaryStreamReader reader(**stream);
  const pdb::InfoStreamHeader* header = nullptr;
  uint32_t names_size = 0;
  StringRef names;
  if (Error error = reader.readObject(header)) {
    consumeError(std::move(error));
    return "its header is cut short";
  }
  if (Error error = reader.readInteger(names_size)) {
    consumeError(std::move(error));
    return "the named stream map is cut short";
  }
  if (Error error = reader.readFixedString(names, names_size)) {
    consumeError(std::move(error));
    return "the names of the named streams (" + std::to_string(names_size) +
           " bytes) run past the stream";
  }
  uint32_t size = 0, capacity = 0;
  if (Error error = reader.readInteger(size)) {
    consumeError(std::move(error));
    return "the named stream map's hash table is cut short";
  }
  if (Error error = reader.readInteger(capacity)) {
    consumeError(std::move(error));
    return "the named stream map's hash table is cut short";
  }
  // LLVM allocates a bucket per unit of capacity: no more than the stream
  // has bytes (a real table holds 8 bytes for each of 2/3 of its buckets).
  if (capacity == 0 || capacity > reader.getLength())
    return "the named stream map's capacity is " + std::to_string(capacity);
  std::optional<std::vector<uint32_t>> present = readBits(reader);
  std::optional<std::vector<uint32_t>> deleted = present ? readBits(reader) : std::nullopt;
  if (!present || !deleted)
    return "the named stream map's bit vectors run past the stream";
  if (present->size() != size)
    return "the named stream map holds " + std::to_string(present->size()) + " names, not " +
           std::to_string(size);
  for (uint32_t bucket : *present) {
    if (bucket >= capacity)
      return "the named stream map uses bucket " + std::to_string(bucket) + " of " +
             std::to_string(capacity);
    uint32_t offset = 0, stream_index = 0;
    if (Error error = reader.readInteger(offset)) {
      consumeError(std::move(error));
      return "the named stream map's entries are cut short";
    }
    if (Error error = reader.readInteger(stream_index)) {
      consumeError(std::move(error));
      return "the named stream map's entries are cut short";
    }
    if (offset >= names.size() || names.find('\0', offset) == StringRef::npos)
      return "a named stream's name is at offset " + std::to_string(offset) + " of a " +
             std::to_string(names.size()) + "-byte names buffer";
  }
  return "";
}

} // namespace dumpsyms
