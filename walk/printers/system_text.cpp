#include "walk/printers/system_text.h"

#include <cstdio>
#include <map>

namespace dumpsyms {

namespace {

std::string osName(uint32_t platform) {
  static const std::map<uint32_t, const char*> kNames = {
      {2, "Windows NT"}, {1, "Windows"},      {0x8101, "Mac OS X"}, {0x8102, "iOS"},
      {0x8201, "Linux"}, {0x8202, "Solaris"}, {0x8203, "Android"},  {0x8204, "PS3"},
      {0x8205, "NaCl"},  {0x8206, "Fuchsia"}};
  auto found = kNames.find(platform);
  if (found != kNames.end())
    return found->second;
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", platform);
  return text;
}

std::string cpuText(uint16_t architecture) {
  static const std::map<uint16_t, const char*> kNames = {
      {0, "x86"},        {9, "amd64"},       {3, "ppc"},        {0x8002, "ppc64"},
      {0x8001, "sparc"}, {5, "arm"},         {12, "arm64"},     {0x8003, "arm64"},
      {1, "mips"},       {0x8004, "mips64"}, {0x8005, "riscv"}, {0x8006, "riscv64"}};
  auto found = kNames.find(architecture);
  if (found != kNames.end())
    return found->second;
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", architecture);
  return text;
}

std::string armInfo(const SnapshotSystem& system, uint32_t hwcaps) {
  std::string text = "ARMv" + std::to_string(system.processor_level);
  uint32_t cpuid = system.arm_cpuid;
  if (cpuid != 0) {
    static const std::map<uint32_t, const char*> kVendors = {
        {0x41, "ARM"}, {0x51, "Qualcomm"}, {0x56, "Marvell"}, {0x69, "Intel/Marvell"}};
    static const std::map<uint32_t, const char*> kParts = {
        {0x4100c050, "Cortex-A5"},    {0x4100c080, "Cortex-A8"}, {0x4100c090, "Cortex-A9"},
        {0x4100c0f0, "Cortex-A15"},   {0x4100c140, "Cortex-R4"}, {0x4100c150, "Cortex-R5"},
        {0x4100b360, "ARM1136"},      {0x4100b560, "ARM1156"},   {0x4100b760, "ARM1176"},
        {0x4100b020, "ARM11-MPCore"}, {0x41009260, "ARM926"},    {0x41009460, "ARM946"},
        {0x41009660, "ARM966"},       {0x510006f0, "Krait"},     {0x510000f0, "Scorpion"}};
    char buffer[32];
    auto vendor = kVendors.find((cpuid >> 24) & 0xff);
    if (vendor != kVendors.end()) {
      text += std::string(" ") + vendor->second;
    } else {
      std::snprintf(buffer, sizeof buffer, " vendor(0x%x)", (cpuid >> 24) & 0xff);
      text += buffer;
    }
    auto part = kParts.find(cpuid & 0xff00fff0);
    if (part != kParts.end()) {
      text += std::string(" ") + part->second;
    } else {
      std::snprintf(buffer, sizeof buffer, " part(0x%x)", cpuid & 0xff00fff0);
      text += buffer;
    }
  }
  if (hwcaps != 0) {
    static const char* const kFeatures[] = {"swp",    "half",    "thumb", "26bit", "fastmult",
                                            "fpa",    "vfpv2",   "edsp",  "java",  "iwmmxt",
                                            "crunch", "thumbee", "neon",  "vfpv3", "vfpv3d16",
                                            "tls",    "vfpv4",   "idiva", "idivt"};
    text += " features: ";
    bool first = true;
    for (size_t bit = 0; bit < std::size(kFeatures); ++bit)
      if (hwcaps & (1u << bit)) {
        text += std::string(first ? "" : ",") + kFeatures[bit];
        first = false;
      }
  }
  return text;
}

} // namespace

SystemText systemText(const ProcessSnapshot& snapshot) {
  SystemText out;
  const SnapshotSystem& system = snapshot.system;
  if (!system.known) {
    // A core file says only what it is: Linux, and its CPU.
    if (snapshot.format == "core") {
      out.os = "Linux";
      out.cpu = cpuName(snapshot.cpu);
    }
    return out;
  }
  out.os = osName(system.platform_id);
  out.os_version = std::to_string(system.major_version) + "." +
                   std::to_string(system.minor_version) + "." + std::to_string(system.build_number);
  if (system.csd_known)
    out.os_version += " " + system.csd_version;
  out.cpu = cpuText(system.processor_architecture);
  char info[96];
  switch (system.processor_architecture) {
  case 0:
  case 9:
    std::snprintf(info, sizeof info, "family %u model %u stepping %u",
                  unsigned(system.processor_level), unsigned(system.processor_revision >> 8),
                  unsigned(system.processor_revision & 0xff));
    out.cpu_info = info;
    if (system.processor_architecture == 0 && !system.cpu_vendor.empty())
      out.cpu_info = system.cpu_vendor + " " + out.cpu_info;
    break;
  case 5:
    out.cpu_info = armInfo(system, system.arm_hwcaps);
    break;
  default:
    break;
  }
  if (system.os_version_text)
    out.os_version = *system.os_version_text;
  if (system.cpu_info_text)
    out.cpu_info = *system.cpu_info_text;
  out.cpu_count = system.cpu_count;
  return out;
}

} // namespace dumpsyms
