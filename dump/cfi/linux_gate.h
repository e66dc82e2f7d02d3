// Breakpad's hand-written symbol files for the 32-bit x86 vsyscall page of
// old (2.6-era) kernels, one per CPU vendor's __kernel_vsyscall (spec
// section 10). Their STACK WIN record tells the x86 walker that the function
// keeps the caller's EBP, which makes threads blocked in a system call
// unwind. A running kernel's vDSO is better dumped with --vdso.
#pragma once

#include "symbol_file/model/module.h"

#include <string>

namespace dumpsyms {

enum class LinuxGateVendor { Intel, Amd };

Module linuxGateTemplate(LinuxGateVendor vendor);

} // namespace dumpsyms
