// The shared parts of the stream readers: list entries, contexts, names.
#include "walk/minidump/stream_reader.h"

#include "common/limits/input_limits.h"

#include <llvm/ADT/StringExtras.h>

namespace dumpsyms::minidump_streams {

SnapshotCpu cpuOfArchitecture(uint16_t architecture) {
  switch (architecture) {
  case 0:
    return SnapshotCpu::X86;
  case 1:
    return SnapshotCpu::Mips;
  case 3:
    return SnapshotCpu::Ppc;
  case 5:
    return SnapshotCpu::Arm;
  case 9:
    return SnapshotCpu::Amd64;
  case 0xc:
  case 0x8003:
    return SnapshotCpu::Arm64;
  case 0x8002:
    return SnapshotCpu::Ppc64;
  case 0x8004:
    return SnapshotCpu::Mips64;
  case 0x8005:
    return SnapshotCpu::Riscv;
  case 0x8006:
    return SnapshotCpu::Riscv64;
  default:
    return SnapshotCpu::Unknown;
  }
}

SnapshotOs osOfPlatform(uint32_t platform) {
  switch (platform) {
  case 0:
  case 1:
  case 2:
  case 3:
    return SnapshotOs::Windows;
  case 0x8101:
    return SnapshotOs::MacOs;
  case 0x8102:
    return SnapshotOs::Ios;
  case 0x8201:
    return SnapshotOs::Linux;
  case 0x8202:
    return SnapshotOs::Solaris;
  case 0x8203:
    return SnapshotOs::Android;
  case 0x8206:
    return SnapshotOs::Fuchsia;
  default:
    return SnapshotOs::Other;
  }
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

uint64_t StreamReader::listEntries(const MinidumpStream& stream, size_t entry, uint64_t limit,
                                   const char* what, uint64_t& first) {
  if (stream.bytes.size() < 4) {
    warn(std::string("the ") + what + " stream is too short for its count; left out");
    return 0;
  }
  uint64_t count = read32le(stream.bytes.data());
  first = 4;
  if (stream.bytes.size() == 8 + count * entry)
    first = 8;
  if (count > limit) {
    warn(limits::overLimit(std::string("the ") + what + " count (" + std::to_string(count) + ")",
                           limit, "entries") +
         "; the first " + std::to_string(limit) + " read");
    count = limit;
  }
  uint64_t held = (stream.bytes.size() - first) / entry;
  if (count > held) {
    warn(std::string("the ") + what + " stream claims " + std::to_string(count) +
         " entries but holds " + std::to_string(held) + "; those read");
    count = held;
  }
  return count;
}

std::optional<DecodedContext> StreamReader::context(const md::LocationDescriptor& location,
                                                    const std::string& whose) {
  auto bytes = bytes_.at(location.RVA, location.DataSize);
  if (!bytes) {
    warn(whose + ": its context (" + std::to_string(location.DataSize) + " bytes at " +
         std::to_string(location.RVA) + ") runs past the end of the file");
    return std::nullopt;
  }
  std::string problem;
  std::optional<DecodedContext> decoded = decodeContext(*bytes, hint_, problem);
  if (!decoded) {
    warn(whose + ": " + problem);
    return std::nullopt;
  }
  if (!decoded->note.empty())
    warn(whose + ": " + decoded->note);
  return decoded;
}

} // namespace dumpsyms::minidump_streams
