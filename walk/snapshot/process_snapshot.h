// What a crash left of a process, whichever file it came from (an ELF core
// or a minidump): its threads with their registers, the memory the file
// holds, the modules it had loaded with their identities, the crash, and
// facts about the system. The stack walker and the printers read only
// this; walk/core/ and walk/minidump/ produce it. Plain values: nothing
// here parses.
#pragma once

#include "common/ids/build_id.h"
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "symbol_file/rules/postfix_evaluator.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

enum class SnapshotCpu {
  Unknown,
  X86,
  Amd64,
  Arm,
  Arm64,
  Mips,
  Mips64,
  Riscv,
  Riscv64,
  Ppc,
  Ppc64
};

// The file name of a path written on Linux or on Windows (after the last
// '/' or '\\'), as Breakpad's processor takes a module's name.
std::string pathFileName(const std::string& path);

// Breakpad's name for the CPU ("x86", "amd64", "arm64", ...).
const char* cpuName(SnapshotCpu cpu);
// Bytes in a pointer.
unsigned wordSize(SnapshotCpu cpu);
// The ELF e_machine whose register names (symbol_file/rules/register_names) the CPU's
// STACK CFI rules use; 0 when there is none.
uint16_t elfMachine(SnapshotCpu cpu);

struct SnapshotThread {
  uint32_t id = 0;
  std::string name;         // "" when the file names no thread
  RegisterValues registers; // Breakpad's names ("$rip", "pc", "x29"); only those the file holds
  // The stack memory the file holds for the thread (minidumps); 0 when unknown.
  uint64_t stack_start = 0, stack_size = 0;
  int signal = 0; // the signal that stopped it (cores), 0 if none
};

// A range of the process's memory and the bytes the file holds of it.
struct MemoryRegion {
  uint64_t address = 0;
  uint64_t size = 0;             // in the process
  uint64_t bytes_held = 0;       // from `address` on
  const uint8_t* data = nullptr; // bytes_held bytes, owned by the snapshot
};

// A mapping of the process's address space, from what the file says of
// its layout (NT_FILE, PT_LOAD flags, LinuxMaps, MemoryInfoList).
struct MemoryMapping {
  uint64_t start = 0, end = 0; // [start, end)
  bool executable = false;
  uint64_t file_offset = 0;
  std::string path; // "" for anonymous memory
};

class SnapshotMemory {
public:
  // Regions may come in any order; finish() sorts them and drops those that
  // overlap one already taken (the first in the file wins), saying so.
  void add(MemoryRegion region) { regions_.push_back(region); }
  void finish(std::vector<std::string>& warnings);

  const std::vector<MemoryRegion>& regions() const { return regions_; }
  const MemoryRegion* regionAt(uint64_t address) const;
  // `size` bytes at `address` when the file holds all of them.
  std::optional<std::vector<uint8_t>> read(uint64_t address, uint64_t size) const;
  // A little-endian word of 4 or 8 bytes.
  std::optional<uint64_t> readWord(uint64_t address, unsigned size) const;

private:
  std::vector<MemoryRegion> regions_; // by address, not overlapping
};

// Which CodeView record a minidump's module entry carries. The Breakpad
// forms need only the ids read from it; rust-minidump's form keys its code
// id on the kind (a Mach-O's RSDS record gives its UUID, an entry without a
// record a Windows-style id only on Windows). NotMinidump: not read from a
// minidump's module list (cores, microdumps, unloaded modules).
enum class CodeViewKind { NotMinidump, Absent, Pdb70, Pdb20, Elf, Other };

struct SnapshotModule {
  uint64_t base = 0, size = 0; // [base, base + size)
  std::string code_file;       // the path the process loaded it from; "" when unknown
  CodeId code_id;              // PE: TimeDateStamp and SizeOfImage; ELF: the build-id in hex
  std::string debug_file;      // the name its symbols are filed under (a PDB's, or the ELF's)
  DebugId debug_id;            // 33 hex digits; "" when the file does not give it
  std::string version;         // "a.b.c.d" from VS_FIXEDFILEINFO; "" when none
  BuildId build_id;            // ELF: the GNU build-id, lower-case hex; "" when unknown
  CodeViewKind codeview = CodeViewKind::NotMinidump;

  // How far its file is mapped from base (LinuxMaps): more than `size`
  // where the writer gave only the first segment's size (lldb). 0: as size.
  uint64_t mapped_size = 0;

  uint64_t end() const { return base + size; }
  uint64_t mappedEnd() const { return base + std::max(size, mapped_size); }
};

enum class SnapshotOs { Unknown, Linux, Android, Windows, MacOs, Ios, Solaris, Fuchsia, Other };

struct SnapshotSystem {
  SnapshotOs os = SnapshotOs::Unknown;
  uint32_t platform_id = 0; // as the file gives it (MINIDUMP_SYSTEM_INFO's PlatformId)
  uint32_t major_version = 0, minor_version = 0, build_number = 0;
  std::string csd_version; // the service pack, or on Linux the kernel's uname
  bool csd_known = false;  // the file has a readable CSD version string (maybe empty)
  uint16_t processor_architecture = 0;
  uint16_t processor_level = 0, processor_revision = 0;
  uint32_t cpu_count = 0;
  std::string cpu_vendor;    // x86: the CPUID vendor string
  uint32_t cpu_version = 0;  // x86: CPUID leaf 1 eax (family, model, stepping)
  uint32_t cpu_features = 0; // x86: CPUID leaf 1 edx
  uint32_t arm_cpuid = 0;    // arm: MIDR
  uint32_t arm_hwcaps = 0;   // arm: the ELF hwcaps (Linux)
  bool known = false;        // the file has a SystemInfo stream (or the equivalent)
  // What the file states in words instead of numbers (a microdump's O
  // record): printed as they are when set.
  std::optional<std::string> os_version_text, cpu_info_text;
  // The GPU (a microdump's G record): GL version, vendor, renderer.
  std::string gl_version, gl_vendor, gl_renderer;
};

struct SnapshotCrash {
  uint32_t thread_id = 0;
  uint32_t code = 0;  // exception code, or the Linux signal number
  uint32_t flags = 0; // Windows exception flags, or the Linux si_code
  uint64_t address = 0;
  std::vector<uint64_t> parameters;
  // The reason as the file words it (a microdump's R record: "SIGSEGV";
  // "" when it has none), printed instead of one derived from the code.
  std::optional<std::string> stated_reason;
};

// Breakpad's AssertionInfo stream: an invalid parameter or pure virtual
// call caught by a Windows client's handlers.
struct SnapshotAssertion {
  std::string expression, function, file;
  uint32_t line = 0;
  uint32_t type = 0; // 1: invalid parameter, 2: pure virtual call
};

struct ProcessSnapshot {
  std::string path;   // the file read
  std::string format; // "core" or "minidump"
  SnapshotCpu cpu = SnapshotCpu::Unknown;
  std::vector<SnapshotThread> threads; // in the file's order
  SnapshotMemory memory;
  std::vector<MemoryMapping> mappings; // by start; may be empty
  std::vector<SnapshotModule> modules; // by base
  // The main executable's base: the first module of a minidump's list, the
  // lowest-mapped module of a core.
  std::optional<uint64_t> main_module_base;
  std::vector<SnapshotModule> unloaded_modules;
  std::optional<SnapshotCrash> crash;
  // Breakpad's client: the thread that asked for the dump (the crashing
  // one for a crash) and the one that wrote it, which is not walked.
  std::optional<uint32_t> requesting_thread_id, dump_thread_id;
  SnapshotSystem system;
  std::optional<uint32_t> pid;
  std::optional<uint64_t> process_create_time; // seconds since the epoch
  std::optional<uint64_t> dump_time;           // seconds since the epoch
  std::optional<SnapshotAssertion> assertion;
  std::map<std::string, std::string> linux_streams; // "cpuinfo", "status", "lsb_release", ...
  // What the crash reporter attached, in the file's order: a microdump's
  // product and process type, Crashpad's annotations.
  std::vector<std::pair<std::string, std::string>> annotations;
  std::vector<std::string> warnings; // what was odd or left out while reading
  std::shared_ptr<const void> owner; // keeps the bytes `memory` points into

  // The module covering `address`, or nullptr. `mapped`: as far as its file
  // is mapped (mapped_size), not only as far as the dump's size says.
  const SnapshotModule* moduleAt(uint64_t address, bool mapped = true) const;
  // The unloaded module that covered `address`, or nullptr.
  const SnapshotModule* unloadedModuleAt(uint64_t address) const;
  // Whether the file says `address` is in executable memory; nullopt when
  // it does not know.
  std::optional<bool> executableAt(uint64_t address) const;
};

} // namespace dumpsyms
