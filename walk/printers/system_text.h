// The system a dump was taken on, in Breakpad's words: the OS name
// ("Linux", "Windows NT"), its version line, the CPU name ("amd64") and
// the CPU description ("GenuineIntel family 6 model 85 stepping 7").
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <string>

namespace dumpsyms {

struct SystemText {
  std::string os, os_version, cpu, cpu_info;
  uint32_t cpu_count = 0;
};

SystemText systemText(const ProcessSnapshot& snapshot);

} // namespace dumpsyms
