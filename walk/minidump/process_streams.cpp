// SystemInfo, MiscInfo, BreakpadInfo, AssertionInfo and the Linux streams
// (cpuinfo, status, lsb-release, cmdline, environ, auxv, maps).
#include "common/limits/input_limits.h"
#include "walk/minidump/linux_maps.h"
#include "walk/minidump/stream_reader.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/Endian.h>
#include <vector>

namespace dumpsyms::minidump_streams {

void StreamReader::readSystemInfo() {
  const MinidumpStream* stream = directory_.first(kSystemInfo);
  if (!stream)
    return;
  if (stream->bytes.size() < sizeof(md::SystemInfo)) {
    warn("the SystemInfo stream is " + std::to_string(stream->bytes.size()) + " bytes, not " +
         std::to_string(sizeof(md::SystemInfo)) + "; left out");
    return;
  }
  md::SystemInfo info;
  std::memcpy(static_cast<void*>(&info), stream->bytes.data(), sizeof info);
  SnapshotSystem& system = out_.system;
  system.known = true;
  system.processor_architecture =
      static_cast<uint16_t>(static_cast<md::ProcessorArchitecture>(info.ProcessorArch));
  system.processor_level = info.ProcessorLevel;
  system.processor_revision = info.ProcessorRevision;
  system.cpu_count = info.NumberOfProcessors;
  system.major_version = info.MajorVersion;
  system.minor_version = info.MinorVersion;
  system.build_number = info.BuildNumber;
  system.platform_id = static_cast<uint32_t>(static_cast<md::OSPlatform>(info.PlatformId));
  system.os = osOfPlatform(system.platform_id);
  if (info.CSDVersionRVA != 0) {
    if (auto csd = bytes_.string(info.CSDVersionRVA)) {
      system.csd_version = *csd;
      system.csd_known = true;
    } else
      warn("SystemInfo's CSD version string cannot be read");
  }
  hint_ = cpuOfArchitecture(system.processor_architecture);
  if (hint_ == SnapshotCpu::X86 || hint_ == SnapshotCpu::Amd64) {
    system.cpu_vendor.assign(info.CPU.X86.VendorID, 12);
    system.cpu_vendor = system.cpu_vendor.substr(0, system.cpu_vendor.find('\0'));
    system.cpu_version = info.CPU.X86.VersionInfo;
    system.cpu_features = info.CPU.X86.FeatureInfo;
  } else if (hint_ == SnapshotCpu::Arm || hint_ == SnapshotCpu::Arm64) {
    system.arm_cpuid = info.CPU.Arm.CPUID;
    system.arm_hwcaps = info.CPU.Arm.ElfHWCaps;
  }
  out_.cpu = hint_;
}

void StreamReader::readMiscInfo() {
  const MinidumpStream* stream = directory_.first(kMiscInfo);
  if (!stream)
    return;
  // MINIDUMP_MISC_INFO: SizeOfInfo, Flags1, ProcessId, ProcessCreateTime,
  // ProcessUserTime, ProcessKernelTime (later versions add more).
  if (stream->bytes.size() < 24) {
    warn("the MiscInfo stream is too short; left out");
    return;
  }
  uint32_t flags = read32le(stream->bytes.data() + 4);
  if (flags & 1)
    out_.pid = read32le(stream->bytes.data() + 8);
  if (flags & 2)
    out_.process_create_time = read32le(stream->bytes.data() + 12);
}

void StreamReader::readBreakpadInfo() {
  const MinidumpStream* stream = directory_.first(kBreakpadInfo);
  if (!stream)
    return;
  if (stream->bytes.size() < 12) {
    warn("the BreakpadInfo stream is too short; left out");
    return;
  }
  uint32_t validity = read32le(stream->bytes.data());
  if (validity & 1)
    out_.dump_thread_id = read32le(stream->bytes.data() + 4);
  if (validity & 2)
    out_.requesting_thread_id = read32le(stream->bytes.data() + 8);
}

void StreamReader::readAssertion() {
  const MinidumpStream* stream = directory_.first(kAssertionInfo);
  if (!stream)
    return;
  // Three 128-character UTF-16 strings (expression, function, file), then
  // the line and the type.
  if (stream->bytes.size() < 3 * 256 + 8) {
    warn("the AssertionInfo stream is too short; left out");
    return;
  }
  auto text = [&](size_t at) {
    std::vector<llvm::UTF16> units;
    for (size_t i = 0; i < 128; ++i) {
      uint16_t unit = llvm::support::endian::read16le(stream->bytes.data() + at + 2 * i);
      if (unit == 0)
        break;
      units.push_back(unit);
    }
    std::string out;
    if (!llvm::convertUTF16ToUTF8String(llvm::ArrayRef<llvm::UTF16>(units), out))
      out.clear();
    return out;
  };
  SnapshotAssertion assertion;
  assertion.expression = text(0);
  assertion.function = text(256);
  assertion.file = text(512);
  assertion.line = read32le(stream->bytes.data() + 768);
  assertion.type = read32le(stream->bytes.data() + 772);
  out_.assertion = assertion;
}

void StreamReader::readLinuxStreams() {
  static const std::pair<uint32_t, const char*> kTextStreams[] = {
      {kLinuxCpuInfo, "cpuinfo"}, {kLinuxProcStatus, "status"}, {kLinuxLsbRelease, "lsb_release"},
      {kLinuxCmdLine, "cmdline"}, {kLinuxEnviron, "environ"},   {kLinuxAuxv, "auxv"},
      {kLinuxMaps, "maps"},       {kLinuxDsoDebug, "dso_debug"}};
  for (const auto& [type, name] : kTextStreams) {
    const MinidumpStream* stream = directory_.first(type);
    if (!stream)
      continue;
    if (stream->bytes.size() > limits::kMaxMinidumpTextStream) {
      warn(std::string("the Linux ") + name + " stream: " +
           limits::overLimit("its size", limits::kMaxMinidumpTextStream, "bytes") + "; left out");
      continue;
    }
    out_.linux_streams[name] = stream->bytes.str();
  }
  if (auto maps = out_.linux_streams.find("maps"); maps != out_.linux_streams.end())
    out_.mappings = parseLinuxMaps(maps->second);
  else if (const MinidumpStream* stream = directory_.first(kMemoryInfoList))
    out_.mappings = memoryInfoMappings(stream->bytes, out_.warnings);
}

} // namespace dumpsyms::minidump_streams
