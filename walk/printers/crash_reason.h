// The crash in Breakpad's words: the reason ("SIGSEGV /SEGV_MAPERR",
// "EXCEPTION_ACCESS_VIOLATION_WRITE", "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS")
// and the address it happened at, as Breakpad's processor derives them from
// the exception code, flags and parameters for the dump's platform.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <cstdint>
#include <string>

namespace dumpsyms {

std::string crashReason(const ProcessSnapshot& snapshot);

// The name of an NTSTATUS an in-page error carries ("STATUS_IO_DEVICE_ERROR"),
// for the few Breakpad names; nullptr for others.
const char* ntStatusName(uint32_t status);
// A Windows exception code's name as Breakpad and rust-minidump both write
// it (EXCEPTION_ACCESS_VIOLATION, "Unhandled C++ Exception"); each form
// names a few codes its own way before asking this.
const char* windowsExceptionName(uint32_t code);

// A __fastfail code's name without its "FAST_FAIL_" ("FATAL_APP_EXIT"), as
// Breakpad names them; nullptr for codes it does not name.
const char* fastFailName(uint64_t code);

// "SIGSEGV" for 11 (the host's names; Linux's numbers); "" for 0.
std::string signalName(int signal);

// The fault address: the exception address, or for a Windows access
// violation the address accessed; 32 bits for 32-bit CPUs.
uint64_t crashAddress(const ProcessSnapshot& snapshot);

// The assertion's text ("Pure virtual function called in function f, in
// file a.cc at line 12"); "" when the dump has none.
std::string assertionText(const ProcessSnapshot& snapshot);

} // namespace dumpsyms
