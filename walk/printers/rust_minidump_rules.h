// The values rust-minidump's JSON derives by its own rules rather than
// Breakpad's: a module's code id (keyed on the kind of its CodeView record
// and the dump's OS) and the crash's type (its crash-reason names). Kept
// apart from the printer so that the rules can be tested on their own.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <string>

namespace dumpsyms {

// A loaded module's code id as rust-minidump spells it: lower-case hex, no
// separators. A PE's TimeDateStamp and SizeOfImage (also for an entry
// without a record on Windows); on macOS and iOS an RSDS record's GUID (a
// Mach-O's UUID); a BpEL record's build-id ("" when it is all zeros); ""
// for records of other signatures and for no record off Windows.
std::string rustCodeId(const SnapshotModule& module, SnapshotOs os);

// An unloaded module's: always the TimeDateStamp and SizeOfImage, lower case.
std::string rustUnloadedCodeId(const SnapshotModule& module);

// crash_info.type: "SIGSEGV / SEGV_MAPERR", "SIGSEGV" (no code: SI_USER),
// "SIGABRT / SI_TKILL", "EXCEPTION_ACCESS_VIOLATION_WRITE",
// "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS", "unknown 0x0000002a / 0x00000000";
// "" when the dump holds no crash.
std::string rustCrashType(const ProcessSnapshot& snapshot);

} // namespace dumpsyms
