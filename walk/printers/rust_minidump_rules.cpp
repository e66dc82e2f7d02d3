#include "walk/printers/rust_minidump_rules.h"

#include "walk/printers/crash_reason.h"

#include <cstdio>
#include <llvm/ADT/StringExtras.h>
#include <map>

namespace dumpsyms {

namespace {

// rust-minidump prints numbers it has no name for as "0x" and 8 digits.
std::string hex8(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%08llx", static_cast<unsigned long long>(value));
  return text;
}

const char* lookup(const std::map<uint32_t, const char*>& table, uint32_t key) {
  auto found = table.find(key);
  return found == table.end() ? nullptr : found->second;
}

std::string unknown(const SnapshotCrash& crash) {
  return "unknown " + hex8(crash.code) + " / " + hex8(crash.flags);
}

// Linux and Android: the signal, then its si_code by the signal's own codes
// (SEGV_MAPERR ...) where the signal has them, else by the generic ones
// (SI_KERNEL, SI_TKILL ...), except SI_USER (0), which is left out: a
// signal sent without a code reads "SIGSEGV". Numbers it has no name for
// are printed; a signal it does not know is "unknown".
std::string linuxType(const SnapshotCrash& crash) {
  static const std::map<uint32_t, const char*> kSignals = {
      {1, "SIGHUP"},   {2, "SIGINT"},     {3, "SIGQUIT"},  {4, "SIGILL"},
      {5, "SIGTRAP"},  {6, "SIGABRT"},    {7, "SIGBUS"},   {8, "SIGFPE"},
      {9, "SIGKILL"},  {10, "SIGUSR1"},   {11, "SIGSEGV"}, {12, "SIGUSR2"},
      {13, "SIGPIPE"}, {14, "SIGALRM"},   {15, "SIGTERM"}, {16, "SIGSTKFLT"},
      {17, "SIGCHLD"}, {18, "SIGCONT"},   {19, "SIGSTOP"}, {20, "SIGTSTP"},
      {21, "SIGTTIN"}, {22, "SIGTTOU"},   {23, "SIGURG"},  {24, "SIGXCPU"},
      {25, "SIGXFSZ"}, {26, "SIGVTALRM"}, {27, "SIGPROF"}, {28, "SIGWINCH"},
      {29, "SIGIO"},   {30, "SIGPWR"},    {31, "SIGSYS"},  {0xffffffff, "DUMP_REQUESTED"}};
  // Each signal's own codes, from 1 (asm-generic/siginfo.h).
  static const std::map<uint32_t, std::vector<const char*>> kCodes = {
      {4,
       {"ILL_ILLOPC", "ILL_ILLOPN", "ILL_ILLADR", "ILL_ILLTRP", "ILL_PRVOPC", "ILL_PRVREG",
        "ILL_COPROC", "ILL_BADSTK", "ILL_BADIADDR"}},
      {5, {"TRAP_BRKPT", "TRAP_TRACE", "TRAP_BRANCH", "TRAP_HWBKPT", "TRAP_UNK", "TRAP_PERF"}},
      {7, {"BUS_ADRALN", "BUS_ADRERR", "BUS_OBJERR", "BUS_MCEERR_AR", "BUS_MCEERR_AO"}},
      {8,
       {"FPE_INTDIV", "FPE_INTOVF", "FPE_FLTDIV", "FPE_FLTOVF", "FPE_FLTUND", "FPE_FLTRES",
        "FPE_FLTINV", "FPE_FLTSUB"}},
      {11, {"SEGV_MAPERR", "SEGV_ACCERR", "SEGV_BNDERR", "SEGV_PKUERR"}},
      {31, {"SYS_SECCOMP", "SYS_USER_DISPATCH"}}};
  // The codes any signal may carry (negative: sent from user space).
  static const std::map<uint32_t, const char*> kGeneric = {
      {0x80, "SI_KERNEL"},        {uint32_t(-1), "SI_QUEUE"},    {uint32_t(-2), "SI_TIMER"},
      {uint32_t(-3), "SI_MESGQ"}, {uint32_t(-4), "SI_ASYNCIO"},  {uint32_t(-5), "SI_SIGIO"},
      {uint32_t(-6), "SI_TKILL"}, {uint32_t(-7), "SI_DETHREAD"}, {uint32_t(-60), "SI_ASYNCNL"}};
  const char* signal = lookup(kSignals, crash.code);
  if (!signal)
    return unknown(crash);
  std::string out = signal;
  if (auto codes = kCodes.find(crash.code);
      codes != kCodes.end() && crash.flags >= 1 && crash.flags <= codes->second.size())
    return out + " / " + codes->second[crash.flags - 1];
  if (crash.flags == 0)
    return out;
  const char* generic = lookup(kGeneric, crash.flags);
  return out + " / " + (generic ? generic : hex8(crash.flags));
}

// Windows: the exception's name; an access violation or in-page error with
// the kind of access (and the in-page error's NTSTATUS), a stack buffer
// overrun with its __fastfail code.
std::string windowsType(const SnapshotCrash& crash) {
  // rust-minidump's names beyond the exceptions both forms name alike:
  // codes it names as NTSTATUS values, not as exceptions.
  static const std::map<uint32_t, const char*> kExceptions = {
      {0xe0434352, "MANAGED_EXCEPTION_CODE_V4"},
      {0x40010005, "DBG_CONTROL_C"},
      {0xc00000ff, "STATUS_BAD_FUNCTION_TABLE"},
      {0xc0000374, "STATUS_HEAP_CORRUPTION"},
      {0xc0000409, "STATUS_STACK_BUFFER_OVERRUN"}};
  const std::vector<uint64_t>& p = crash.parameters;
  auto access = [&]() -> const char* {
    switch (p[0]) {
    case 0:
      return "_READ";
    case 1:
      return "_WRITE";
    case 8:
      return "_EXEC";
    }
    return nullptr;
  };
  if (crash.code == 0xc0000005 && !p.empty() && access())
    return std::string("EXCEPTION_ACCESS_VIOLATION") + access();
  if (crash.code == 0xc0000006 && p.size() >= 3 && access()) {
    const char* status = ntStatusName(uint32_t(p[2]));
    return std::string("EXCEPTION_IN_PAGE_ERROR") + access() + " / " +
           (status ? status : hex8(p[2] & 0xffffffff));
  }
  if (crash.code == 0xc0000409 && !p.empty()) {
    uint64_t code = p[0] & 0xffffffff;
    const char* name = code == 0 ? "LEGACY_GS_VIOLATION" : fastFailName(code);
    return std::string("EXCEPTION_STACK_BUFFER_OVERRUN / ") +
           (name ? "FAST_FAIL_" + std::string(name) : hex8(code));
  }
  const char* name = lookup(kExceptions, crash.code);
  if (!name)
    name = windowsExceptionName(crash.code);
  // (rust-minidump also names NTSTATUS and winerror codes; we know few.)
  return name ? name : "unknown " + hex8(crash.code);
}

// macOS and iOS: the Mach exception, then its code by the tables of the
// exception and the CPU; the code as a number where none names it.
std::string appleType(const SnapshotCrash& crash, SnapshotCpu cpu) {
  static const std::map<uint32_t, const char*> kExceptions = {
      {1, "EXC_BAD_ACCESS"}, {2, "EXC_BAD_INSTRUCTION"}, {3, "EXC_ARITHMETIC"},
      {4, "EXC_EMULATION"},  {5, "EXC_SOFTWARE"},        {6, "EXC_BREAKPOINT"},
      {7, "EXC_SYSCALL"},    {8, "EXC_MACH_SYSCALL"},    {9, "EXC_RPC_ALERT"},
      {11, "EXC_RESOURCE"},  {12, "EXC_GUARD"}};
  static const std::map<uint32_t, const char*> kKern = {
      {1, "KERN_INVALID_ADDRESS"}, {2, "KERN_PROTECTION_FAILURE"}, {5, "KERN_FAILURE"},
      {8, "KERN_NO_ACCESS"},       {9, "KERN_MEMORY_FAILURE"},     {10, "KERN_MEMORY_ERROR"},
      {50, "KERN_CODESIGN_ERROR"}};
  // Per exception, per CPU family: the codes' names.
  using Table = std::map<uint32_t, const char*>;
  static const Table kAccessArm = {{0x101, "EXC_ARM_DA_ALIGN"},
                                   {0x102, "EXC_ARM_DA_DEBUG"},
                                   {0x103, "EXC_ARM_SP_ALIGN"},
                                   {0x104, "EXC_ARM_SWP"},
                                   {0x105, "EXC_ARM_PAC_FAIL"}};
  static const Table kAccessPpc = {
      {0x101, "EXC_PPC_VM_PROT_READ"}, {0x102, "EXC_PPC_BADSPACE"}, {0x103, "EXC_PPC_UNALIGNED"}};
  static const Table kAccessX86 = {{13, "EXC_I386_GPFLT"}};
  static const Table kInstructionArm = {{1, "EXC_ARM_UNDEFINED"}};
  static const Table kInstructionPpc = {{1, "EXC_PPC_INVALID_SYSCALL"}, {2, "EXC_PPC_UNIPL_INST"},
                                        {3, "EXC_PPC_PRIVINST"},        {4, "EXC_PPC_PRIVREG"},
                                        {5, "EXC_PPC_TRACE"},           {6, "EXC_PPC_PERFMON"}};
  static const Table kInstructionX86 = {{1, "EXC_I386_INVOP"},     {10, "EXC_I386_INVTSSFLT"},
                                        {11, "EXC_I386_SEGNPFLT"}, {12, "EXC_I386_STKFLT"},
                                        {13, "EXC_I386_GPFLT"},    {17, "EXC_I386_ALIGNFLT"}};
  static const Table kArithmeticArm = {{1, "EXC_ARM_FP_IO"}, {2, "EXC_ARM_FP_DZ"},
                                       {3, "EXC_ARM_FP_OF"}, {4, "EXC_ARM_FP_UF"},
                                       {5, "EXC_ARM_FP_IX"}, {6, "EXC_ARM_FP_ID"}};
  static const Table kArithmeticPpc = {
      {1, "EXC_PPC_OVERFLOW"},         {2, "EXC_PPC_ZERO_DIVIDE"},   {3, "EXC_FLT_INEXACT"},
      {4, "EXC_PPC_FLT_ZERO_DIVIDE"},  {5, "EXC_PPC_FLT_UNDERFLOW"}, {6, "EXC_PPC_FLT_OVERFLOW"},
      {7, "EXC_PPC_FLT_NOT_A_NUMBER"}, {8, "EXC_PPC_NOEMULATION"},   {9, "EXC_PPC_ALTIVECASSIST"}};
  static const Table kArithmeticX86 = {{1, "EXC_I386_DIV"},    {2, "EXC_I386_INTO"},
                                       {3, "EXC_I386_NOEXT"},  {4, "EXC_I386_EXTOVR"},
                                       {5, "EXC_I386_EXTERR"}, {6, "EXC_I386_EMERR"},
                                       {7, "EXC_I386_BOUND"},  {8, "EXC_I386_SSEEXTERR"}};
  static const Table kSoftware = {{0x10002, "SIGABRT"},
                                  {0xdeadc0de, "UNCAUGHT_NS_EXCEPTION"},
                                  {1, "EXC_PPC_TRAP"},
                                  {0x10100, "EXC_PPC_MIGRATE"}};
  static const Table kBreakpointArm = {{1, "EXC_ARM_BREAKPOINT"}};
  static const Table kBreakpointPpc = {{1, "EXC_PPC_BREAKPOINT"}};
  static const Table kBreakpointX86 = {{1, "EXC_I386_SGL"}, {2, "EXC_I386_BPT"}};
  if (crash.code == 0x43507378)
    return "Simulated Exception";
  const char* exception = lookup(kExceptions, crash.code);
  if (!exception)
    return unknown(crash);
  // (Only arm64 among the arm CPUs has tables, as in rust-minidump.)
  bool arm = cpu == SnapshotCpu::Arm64, ppc = cpu == SnapshotCpu::Ppc,
       x86 = cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Amd64;
  auto byCpu = [&](const Table& on_arm, const Table& on_ppc, const Table& on_x86) {
    return arm   ? lookup(on_arm, crash.flags)
           : ppc ? lookup(on_ppc, crash.flags)
           : x86 ? lookup(on_x86, crash.flags)
                 : nullptr;
  };
  const char* name = nullptr;
  switch (crash.code) {
  case 1:
    name = lookup(kKern, crash.flags);
    if (!name)
      name = byCpu(kAccessArm, kAccessPpc, kAccessX86);
    break;
  case 2:
    name = byCpu(kInstructionArm, kInstructionPpc, kInstructionX86);
    break;
  case 3:
    name = byCpu(kArithmeticArm, kArithmeticPpc, kArithmeticX86);
    break;
  case 5:
    name = lookup(kSoftware, crash.flags);
    break;
  case 6:
    name = byCpu(kBreakpointArm, kBreakpointPpc, kBreakpointX86);
    break;
  }
  return std::string(exception) + " / " + (name ? name : hex8(crash.flags));
}

bool allZero(llvm::StringRef hex) {
  return hex.find_first_not_of('0') == llvm::StringRef::npos;
}

} // namespace

std::string rustCodeId(const SnapshotModule& module, SnapshotOs os) {
  bool apple = os == SnapshotOs::MacOs || os == SnapshotOs::Ios;
  switch (module.codeview) {
  case CodeViewKind::Pdb70:
    // The GUID is a debug id's first 32 digits (the age follows).
    if (apple)
      return module.debug_id.str().size() >= 32
                 ? llvm::StringRef(module.debug_id.str()).take_front(32).lower()
                 : "";
    return module.code_id.lower();
  case CodeViewKind::Pdb20:
    return module.code_id.lower();
  case CodeViewKind::Elf:
    return allZero(module.build_id.hex()) ? "" : module.build_id.hex();
  case CodeViewKind::Absent:
    return os == SnapshotOs::Windows ? module.code_id.lower() : "";
  case CodeViewKind::Other:
    return "";
  case CodeViewKind::NotMinidump:
    break;
  }
  // Not from a minidump's module list: the id we have, in its spelling.
  if (!module.build_id.empty())
    return allZero(module.build_id.hex()) ? "" : module.build_id.hex();
  return module.code_id.lower();
}

std::string rustUnloadedCodeId(const SnapshotModule& module) {
  return module.code_id.lower();
}

std::string rustCrashType(const ProcessSnapshot& snapshot) {
  if (!snapshot.crash)
    return "";
  const SnapshotCrash& crash = *snapshot.crash;
  if (crash.stated_reason) // a microdump says it in words
    return *crash.stated_reason;
  switch (snapshot.system.os) {
  case SnapshotOs::Linux:
  case SnapshotOs::Android:
    return linuxType(crash);
  case SnapshotOs::Windows:
    return windowsType(crash);
  case SnapshotOs::MacOs:
  case SnapshotOs::Ios:
    return appleType(crash, snapshot.cpu);
  default:
    return unknown(crash);
  }
}

} // namespace dumpsyms
