// Reading a minidump's streams into a process snapshot, one stream (or a
// few related ones) a file: thread_streams (threads, names, the exception),
// module_streams (modules, unloaded modules, their mapped extents),
// memory_streams (MemoryList, Memory64List), process_streams (system and
// misc info, BreakpadInfo, assertion, the Linux streams). Internal to
// walk/minidump/: minidump_snapshot.h is the interface.
#pragma once

#include "walk/minidump/cpu_context.h"
#include "walk/minidump/minidump_bytes.h"
#include "walk/minidump/stream_directory.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstdint>
#include <llvm/BinaryFormat/Minidump.h>
#include <llvm/Support/Error.h>
#include <map>
#include <optional>
#include <string>

namespace dumpsyms::minidump_streams {

namespace md = llvm::minidump;

// Stream types (MINIDUMP_STREAM_TYPE and Breakpad's 0x4767xxxx ones).
enum : uint32_t {
  kThreadList = 3,
  kModuleList = 4,
  kMemoryList = 5,
  kException = 6,
  kSystemInfo = 7,
  kMemory64List = 9,
  kUnloadedModuleList = 14,
  kMiscInfo = 15,
  kMemoryInfoList = 16,
  kThreadNameList = 24,
  kBreakpadInfo = 0x47670001,
  kAssertionInfo = 0x47670002,
  kLinuxCpuInfo = 0x47670003,
  kLinuxProcStatus = 0x47670004,
  kLinuxLsbRelease = 0x47670005,
  kLinuxCmdLine = 0x47670006,
  kLinuxEnviron = 0x47670007,
  kLinuxAuxv = 0x47670008,
  kLinuxMaps = 0x47670009,
  kLinuxDsoDebug = 0x4767000A,
};

// The CPU a SystemInfo ProcessorArchitecture names (Microsoft's values and
// Breakpad's 0x8000 ones), and the OS a PlatformId names.
SnapshotCpu cpuOfArchitecture(uint16_t architecture);
SnapshotOs osOfPlatform(uint32_t platform);
// "1 module", "2 modules".
std::string plural(uint64_t n, const char* one, const char* many);

class StreamReader {
public:
  StreamReader(const MinidumpBytes& bytes, const MinidumpDirectory& directory, ProcessSnapshot& out)
      : bytes_(bytes), directory_(directory), out_(out) {}

  void readSystemInfo();
  llvm::Error readThreads();
  void readThreadNames();
  void readException();
  void readModules();
  void readUnloadedModules();
  void readMemory();
  void readMiscInfo();
  void readBreakpadInfo();
  void readAssertion();
  void readLinuxStreams();
  void readCrashpadInfo(); // after readModules: annotations name their module
  void fixModuleExtents();

private:
  void warn(std::string message) { out_.warnings.push_back(std::move(message)); }
  // The entries of a list stream: a 32-bit count, then `entry`-byte
  // entries (after 4 bytes of padding some writers add to align them).
  // Returns the count the stream really holds, warning when it claims more.
  uint64_t listEntries(const MinidumpStream& stream, size_t entry, uint64_t limit, const char* what,
                       uint64_t& first);
  std::optional<DecodedContext> context(const md::LocationDescriptor& location,
                                        const std::string& whose);

  const MinidumpBytes& bytes_;
  const MinidumpDirectory& directory_;
  ProcessSnapshot& out_;
  SnapshotCpu hint_ = SnapshotCpu::Unknown;
  std::map<SnapshotCpu, size_t> context_cpus_;
};

} // namespace dumpsyms::minidump_streams
