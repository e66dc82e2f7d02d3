#include "walk/minidump/stream_directory.h"

#include "common/errors/file_error.h"
#include "common/limits/input_limits.h"

#include <llvm/BinaryFormat/Minidump.h>

namespace dumpsyms {

namespace md = llvm::minidump;

std::vector<const MinidumpStream*> MinidumpDirectory::all(uint32_t type) const {
  std::vector<const MinidumpStream*> out;
  for (const MinidumpStream& stream : streams)
    if (stream.type == type)
      out.push_back(&stream);
  return out;
}

const MinidumpStream* MinidumpDirectory::first(uint32_t type) const {
  for (const MinidumpStream& stream : streams)
    if (stream.type == type)
      return &stream;
  return nullptr;
}

bool looksLikeMinidump(llvm::StringRef bytes) {
  return bytes.starts_with("MDMP");
}

llvm::Expected<MinidumpDirectory> readStreamDirectory(const MinidumpBytes& bytes,
                                                      const std::string& path,
                                                      std::vector<std::string>& warnings) {
  auto header = bytes.object<md::Header>(0);
  if (!header)
    return fileError(path, "is truncated: a minidump header is 32 bytes, the file holds " +
                               std::to_string(bytes.size()));
  if (header->Signature != md::Header::MagicSignature)
    return fileError(path, "is not a minidump (no MDMP signature)");
  if ((header->Version & 0xffff) != md::Header::MagicVersion)
    warnings.push_back("the header's version is " + std::to_string(header->Version & 0xffff) +
                       ", not " + std::to_string(md::Header::MagicVersion) + "; read anyway");
  uint64_t count = header->NumberOfStreams;
  if (count > limits::kMaxMinidumpStreams)
    return fileError(path, limits::overLimit("the stream count (" + std::to_string(count) + ")",
                                             limits::kMaxMinidumpStreams, "streams"));
  uint64_t directory = header->StreamDirectoryRVA;
  if (!bytes.at(directory, count * sizeof(md::Directory)))
    return fileError(path, "is truncated: its stream directory (" + std::to_string(count) +
                               " entries at byte " + std::to_string(directory) +
                               ") ends past the file's " + std::to_string(bytes.size()) + " bytes");
  MinidumpDirectory out;
  out.time_date_stamp = header->TimeDateStamp;
  size_t cut = 0;
  for (uint64_t i = 0; i < count; ++i) {
    md::Directory entry = *bytes.object<md::Directory>(directory + i * sizeof(md::Directory));
    uint32_t type = static_cast<uint32_t>(static_cast<md::StreamType>(entry.Type));
    if (type == 0) // StreamType::Unused: padding some writers leave
      continue;
    MinidumpStream stream;
    stream.type = type;
    stream.rva = entry.Location.RVA;
    uint64_t size = entry.Location.DataSize;
    if (auto held = bytes.at(stream.rva, size)) {
      stream.bytes = *held;
    } else {
      stream.truncated = true;
      ++cut;
      if (stream.rva < bytes.size())
        stream.bytes = *bytes.at(stream.rva, bytes.size() - stream.rva);
    }
    out.streams.push_back(stream);
  }
  if (cut)
    warnings.push_back(std::to_string(cut) + " stream" + (cut == 1 ? " runs" : "s run") +
                       " past the end of the file (truncated dump): read as far as it goes");
  return out;
}

} // namespace dumpsyms
