#include "dump/cfi/linux_gate.h"

namespace dumpsyms {

Module linuxGateTemplate(LinuxGateVendor vendor) {
  bool intel = vendor == LinuxGateVendor::Intel;
  Module module;
  module.cpu = "x86";
  module.name = "linux-gate.so";
  // The ids Breakpad computed from those kernels' page images.
  module.debug_id =
      DebugId(intel ? "4FBDA58B5A1DF5A379E3CF19A235EA090" : "B8CFDE93002D54DA1900A40AA1BD67690");
  module.publics.push_back({0x400, "__kernel_vsyscall", false});
  StackWinRecord record;
  record.type = 4; // FRAME_DATA
  record.address = 0x400;
  // The SYSENTER stub (Intel) pushes ecx, edx and ebp; the SYSCALL stub
  // (AMD) only ebp: one-byte pushes and pops each.
  record.code_size = intel ? 0x200 : 0x100;
  record.prologue_size = intel ? 3 : 1;
  record.epilogue_size = intel ? 3 : 1;
  record.allocates_base_pointer = true;
  module.stack_win.push_back(record);
  return module;
}

} // namespace dumpsyms
