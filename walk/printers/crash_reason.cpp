#include "walk/printers/crash_reason.h"

#include "walk/printers/walk_printers.h"

#include <cstdio>
#include <cstring>
#include <map>

namespace dumpsyms {

namespace {

std::string hex8(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

const char* lookup(const std::map<uint32_t, const char*>& table, uint32_t key) {
  auto found = table.find(key);
  return found == table.end() ? nullptr : found->second;
}

std::string linuxReason(const SnapshotCrash& crash) {
  static const std::map<uint32_t, const char*> kBare = {
      {1, "SIGHUP"},   {2, "SIGINT"},     {3, "SIGQUIT"},  {5, "SIGTRAP"},   {6, "SIGABRT"},
      {9, "SIGKILL"},  {10, "SIGUSR1"},   {12, "SIGUSR2"}, {13, "SIGPIPE"},  {14, "SIGALRM"},
      {15, "SIGTERM"}, {16, "SIGSTKFLT"}, {17, "SIGCHLD"}, {18, "SIGCONT"},  {19, "SIGSTOP"},
      {20, "SIGTSTP"}, {21, "SIGTTIN"},   {22, "SIGTTOU"}, {23, "SIGURG"},   {24, "SIGXCPU"},
      {25, "SIGXFSZ"}, {26, "SIGVTALRM"}, {27, "SIGPROF"}, {28, "SIGWINCH"}, {29, "SIGIO"},
      {30, "SIGPWR"},  {31, "SIGSYS"}};
  static const std::map<uint32_t, const char*> kIll = {
      {1, "ILL_ILLOPC"}, {2, "ILL_ILLOPN"}, {3, "ILL_ILLADR"}, {4, "ILL_ILLTRP"},
      {5, "ILL_PRVOPC"}, {6, "ILL_PRVREG"}, {7, "ILL_COPROC"}, {8, "ILL_BADSTK"}};
  static const std::map<uint32_t, const char*> kBus = {{1, "BUS_ADRALN"},
                                                       {2, "BUS_ADRERR"},
                                                       {3, "BUS_OBJERR"},
                                                       {4, "BUS_MCEERR_AR"},
                                                       {5, "BUS_MCEERR_AO"}};
  static const std::map<uint32_t, const char*> kFpe = {
      {1, "FPE_INTDIV"}, {2, "FPE_INTOVF"}, {3, "FPE_FLTDIV"}, {4, "FPE_FLTOVF"},
      {5, "FPE_FLTUND"}, {6, "FPE_FLTRES"}, {7, "FPE_FLTINV"}, {8, "FPE_FLTSUB"}};
  static const std::map<uint32_t, const char*> kSegv = {
      {1, "SEGV_MAPERR"},  {2, "SEGV_ACCERR"},  {3, "SEGV_BNDERR"},
      {4, "SEGV_PKUERR"},  {5, "SEGV_ACCADI"},  {6, "SEGV_ADIDERR"},
      {7, "SEGV_ADIPERR"}, {8, "SEGV_MTEAERR"}, {9, "SEGV_MTESERR"}};
  auto withCode = [&](const char* prefix, const std::map<uint32_t, const char*>& table) {
    const char* name = lookup(table, crash.flags);
    return std::string(prefix) + (name ? name : hex8(crash.flags));
  };
  if (const char* name = lookup(kBare, crash.code))
    return name;
  switch (crash.code) {
  case 4:
    return withCode("SIGILL / ", kIll);
  case 7:
    return withCode("SIGBUS / ", kBus);
  case 8:
    return withCode("SIGFPE / ", kFpe);
  case 11:
    return withCode("SIGSEGV /", kSegv); // (sic: Breakpad writes no space here)
  case 0xffffffff:
    return "DUMP_REQUESTED";
  }
  return "";
}

} // namespace

// A few NTSTATUS values an in-page error carries (the I/O error that
// kept the page from being read); others are printed as numbers.
const char* windowsExceptionName(uint32_t code) {
  static const std::map<uint32_t, const char*> kExceptions = {
      {0x80000001, "EXCEPTION_GUARD_PAGE"},
      {0x80000002, "EXCEPTION_DATATYPE_MISALIGNMENT"},
      {0x80000003, "EXCEPTION_BREAKPOINT"},
      {0x80000004, "EXCEPTION_SINGLE_STEP"},
      {0xc0000005, "EXCEPTION_ACCESS_VIOLATION"},
      {0xc0000006, "EXCEPTION_IN_PAGE_ERROR"},
      {0xc0000008, "EXCEPTION_INVALID_HANDLE"},
      {0xc000001d, "EXCEPTION_ILLEGAL_INSTRUCTION"},
      {0xc0000025, "EXCEPTION_NONCONTINUABLE_EXCEPTION"},
      {0xc0000026, "EXCEPTION_INVALID_DISPOSITION"},
      {0xc000008c, "EXCEPTION_BOUNDS_EXCEEDED"},
      {0xc000008d, "EXCEPTION_FLT_DENORMAL_OPERAND"},
      {0xc000008e, "EXCEPTION_FLT_DIVIDE_BY_ZERO"},
      {0xc000008f, "EXCEPTION_FLT_INEXACT_RESULT"},
      {0xc0000090, "EXCEPTION_FLT_INVALID_OPERATION"},
      {0xc0000091, "EXCEPTION_FLT_OVERFLOW"},
      {0xc0000092, "EXCEPTION_FLT_STACK_CHECK"},
      {0xc0000093, "EXCEPTION_FLT_UNDERFLOW"},
      {0xc0000094, "EXCEPTION_INT_DIVIDE_BY_ZERO"},
      {0xc0000095, "EXCEPTION_INT_OVERFLOW"},
      {0xc0000096, "EXCEPTION_PRIV_INSTRUCTION"},
      {0xc00000fd, "EXCEPTION_STACK_OVERFLOW"},
      {0xc0000194, "EXCEPTION_POSSIBLE_DEADLOCK"},
      {0xe0000008, "Out of Memory"},
      {0xe06d7363, "Unhandled C++ Exception"},
      {0x0517a7ed, "Simulated Exception"}};
  return lookup(kExceptions, code);
}

const char* ntStatusName(uint32_t status) {
  static const std::map<uint32_t, const char*> kNames = {
      {0xc0000006, "STATUS_IN_PAGE_ERROR"},
      {0xc000000e, "STATUS_NO_SUCH_DEVICE"},
      {0xc000000f, "STATUS_NO_SUCH_FILE"},
      {0xc0000010, "STATUS_INVALID_DEVICE_REQUEST"},
      {0xc0000011, "STATUS_END_OF_FILE"},
      {0xc0000013, "STATUS_NO_MEDIA_IN_DEVICE"},
      {0xc000003a, "STATUS_OBJECT_PATH_NOT_FOUND"},
      {0xc0000043, "STATUS_SHARING_VIOLATION"},
      {0xc000009a, "STATUS_INSUFFICIENT_RESOURCES"},
      {0xc000009c, "STATUS_DEVICE_DATA_ERROR"},
      {0xc000009d, "STATUS_DEVICE_NOT_CONNECTED"},
      {0xc00000b5, "STATUS_IO_TIMEOUT"},
      {0xc00000c3, "STATUS_INVALID_NETWORK_RESPONSE"},
      {0xc00000e9, "STATUS_UNEXPECTED_IO_ERROR"},
      {0xc000012d, "STATUS_COMMITMENT_LIMIT"},
      {0xc0000185, "STATUS_IO_DEVICE_ERROR"},
      {0xc000020c, "STATUS_CONNECTION_DISCONNECTED"},
      {0xc0000241, "STATUS_CONNECTION_ABORTED"},
      {0xc000026e, "STATUS_VOLUME_DISMOUNTED"},
      {0xc0000427, "STATUS_FILE_SYSTEM_LIMITATION"},
  };
  return lookup(kNames, status);
}

const char* fastFailName(uint64_t code) {
  // __fastfail codes (FAST_FAIL_*), by number.
  static const char* const kFastFail[] = {nullptr,
                                          "VTGUARD_CHECK_FAILURE",
                                          "STACK_COOKIE_CHECK_FAILURE",
                                          "CORRUPT_LIST_ENTRY",
                                          "INCORRECT_STACK",
                                          "INVALID_ARG",
                                          "GS_COOKIE_INIT",
                                          "FATAL_APP_EXIT",
                                          "RANGE_CHECK_FAILURE",
                                          "UNSAFE_REGISTRY_ACCESS",
                                          "GUARD_ICALL_CHECK_FAILURE",
                                          "GUARD_WRITE_CHECK_FAILURE",
                                          "INVALID_FIBER_SWITCH",
                                          "INVALID_SET_OF_CONTEXT",
                                          "INVALID_REFERENCE_COUNT",
                                          nullptr,
                                          nullptr,
                                          nullptr,
                                          "INVALID_JUMP_BUFFER",
                                          "MRDATA_MODIFIED",
                                          "CERTIFICATION_FAILURE",
                                          "INVALID_EXCEPTION_CHAIN",
                                          "CRYPTO_LIBRARY",
                                          "INVALID_CALL_IN_DLL_CALLOUT",
                                          "INVALID_IMAGE_BASE",
                                          "DLOAD_PROTECTION_FAILURE",
                                          "UNSAFE_EXTENSION_CALL",
                                          "DEPRECATED_SERVICE_INVOKED",
                                          "INVALID_BUFFER_ACCESS",
                                          "INVALID_BALANCED_TREE",
                                          "INVALID_NEXT_THREAD",
                                          "GUARD_ICALL_CHECK_SUPPRESSED",
                                          "APCS_DISABLED",
                                          "INVALID_IDLE_STATE",
                                          "MRDATA_PROTECTION_FAILURE",
                                          "UNEXPECTED_HEAP_EXCEPTION",
                                          "INVALID_LOCK_STATE",
                                          "GUARD_JUMPTABLE",
                                          "INVALID_LONGJUMP_TARGET",
                                          "INVALID_DISPATCH_CONTEXT",
                                          "INVALID_THREAD",
                                          "INVALID_SYSCALL_NUMBER",
                                          "INVALID_FILE_OPERATION",
                                          "LPAC_ACCESS_DENIED",
                                          "GUARD_SS_FAILURE",
                                          "LOADER_CONTINUITY_FAILURE",
                                          "GUARD_EXPORT_SUPPRESSION_FAILURE",
                                          "INVALID_CONTROL_STACK",
                                          "SET_CONTEXT_DENIED",
                                          "INVALID_IAT",
                                          "HEAP_METADATA_CORRUPTION",
                                          "PAYLOAD_RESTRICTION_VIOLATION",
                                          "LOW_LABEL_ACCESS_DENIED",
                                          "ENCLAVE_CALL_FAILURE",
                                          "UNHANDLED_LSS_EXCEPTON",
                                          "ADMINLESS_ACCESS_DENIED",
                                          "UNEXPECTED_CALL",
                                          "CONTROL_INVALID_RETURN_ADDRESS",
                                          "UNEXPECTED_HOST_BEHAVIOR",
                                          "FLAGS_CORRUPTION",
                                          "VEH_CORRUPTION",
                                          "ETW_CORRUPTION",
                                          "RIO_ABORT",
                                          "INVALID_PFN",
                                          "GUARD_ICALL_CHECK_FAILURE_XFG",
                                          "CAST_GUARD",
                                          "HOST_VISIBILITY_CHANGE",
                                          "KERNEL_CET_SHADOW_STACK_ASSIST",
                                          "PATCH_CALLBACK_FAILED",
                                          "NTDLL_PATCH_FAILED",
                                          "INVALID_FLS_DATA"};
  return code < std::size(kFastFail) ? kFastFail[code] : nullptr;
}

namespace {

std::string windowsReason(const SnapshotCrash& crash) {
  // Breakpad's names beyond the exceptions both forms name alike.
  static const std::map<uint32_t, const char*> kCodes = {
      {0x40010005, "DBG_CONTROL_C"},
      {0xc00000ff, "EXCEPTION_BAD_FUNCTION_TABLE"},
      {0xc0000374, "EXCEPTION_HEAP_CORRUPTION"}};
  const std::vector<uint64_t>& p = crash.parameters;
  auto access = [&](const std::string& base) {
    if (p.empty())
      return base;
    switch (p[0]) {
    case 0:
      return base + "_READ";
    case 1:
      return base + "_WRITE";
    case 8:
      return base + "_EXEC";
    }
    return base;
  };
  switch (crash.code) {
  case 0xc0000005:
    return access("EXCEPTION_ACCESS_VIOLATION");
  case 0xc0000006: {
    std::string reason = access("EXCEPTION_IN_PAGE_ERROR");
    if (p.size() >= 3) {
      uint32_t status = static_cast<uint32_t>(p[2]);
      const char* name = ntStatusName(status);
      reason += std::string(" / ") + (name ? name : hex8(status));
    }
    return reason;
  }
  case 0xc0000409:
    if (const char* name = p.empty() ? nullptr : fastFailName(p[0]))
      return std::string("FAST_FAIL_") + name;
    return "EXCEPTION_STACK_BUFFER_OVERRUN";
  }
  const char* name = lookup(kCodes, crash.code);
  if (!name)
    name = windowsExceptionName(crash.code);
  return name ? name : "";
}

std::string appleReason(const SnapshotCrash& crash, SnapshotCpu cpu) {
  static const std::map<uint32_t, const char*> kAccess = {
      {1, "KERN_INVALID_ADDRESS"}, {2, "KERN_PROTECTION_FAILURE"}, {8, "KERN_NO_ACCESS"},
      {9, "KERN_MEMORY_FAILURE"},  {10, "KERN_MEMORY_ERROR"},      {50, "KERN_CODESIGN_ERROR"}};
  bool x86 = cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Amd64;
  std::string flags = hex8(crash.flags);
  auto named = [&](const char* prefix, const char* name) {
    return std::string(prefix) + (name ? name : flags);
  };
  switch (crash.code) {
  case 1: {
    const char* name = lookup(kAccess, crash.flags);
    if (!name && x86 && crash.flags == 13)
      name = "EXC_I386_GPFLT";
    return named("EXC_BAD_ACCESS / ", name);
  }
  case 2: {
    static const std::map<uint32_t, const char*> kX86 = {
        {1, "EXC_I386_INVOP"},   {10, "EXC_I386_INVTSSFLT"}, {11, "EXC_I386_SEGNPFLT"},
        {12, "EXC_I386_STKFLT"}, {13, "EXC_I386_GPFLT"},     {17, "EXC_I386_ALIGNFLT"}};
    const char* name = x86                                           ? lookup(kX86, crash.flags)
                       : cpu == SnapshotCpu::Arm && crash.flags == 1 ? "EXC_ARM_UNDEFINED"
                                                                     : nullptr;
    return named("EXC_BAD_INSTRUCTION / ", name);
  }
  case 3: {
    static const std::map<uint32_t, const char*> kX86 = {
        {1, "EXC_I386_DIV"},    {2, "EXC_I386_INTO"},     {3, "EXC_I386_NOEXT"},
        {4, "EXC_I386_EXTOVR"}, {5, "EXC_I386_EXTERR"},   {6, "EXC_I386_EMERR"},
        {7, "EXC_I386_BOUND"},  {8, "EXC_I386_SSEEXTERR"}};
    return named("EXC_ARITHMETIC / ", x86 ? lookup(kX86, crash.flags) : nullptr);
  }
  case 4:
    return "EXC_EMULATION / " + flags;
  case 5: {
    static const std::map<uint32_t, const char*> kSoftware = {
        {0x10002, "SIGABRT"}, {0xdeadc0de, "UNCAUGHT_NS_EXCEPTION"}};
    return named("EXC_SOFTWARE / ", lookup(kSoftware, crash.flags));
  }
  case 6: {
    const char* name = nullptr;
    if (x86)
      name = crash.flags == 1 ? "EXC_I386_SGL" : crash.flags == 2 ? "EXC_I386_BPT" : nullptr;
    else if (cpu == SnapshotCpu::Arm)
      name = crash.flags == 1       ? "EXC_ARM_BREAKPOINT"
             : crash.flags == 0x101 ? "EXC_ARM_DA_ALIGN"
             : crash.flags == 0x102 ? "EXC_ARM_DA_DEBUG"
                                    : nullptr;
    return named("EXC_BREAKPOINT / ", name);
  }
  case 7:
    return "EXC_SYSCALL / " + flags;
  case 8:
    return "EXC_MACH_SYSCALL / " + flags;
  case 9:
    return "EXC_RPC_ALERT / " + flags;
  case 11:
    return "EXC_RESOURCE / " + flags;
  case 12:
    return "EXC_GUARD / " + flags;
  case 0x43507378:
    return "Simulated Exception";
  case 0x43506e78:
    return "Uncaught NSException";
  }
  return "";
}

bool is32Bit(SnapshotCpu cpu) {
  return cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Mips || cpu == SnapshotCpu::Ppc ||
         cpu == SnapshotCpu::Arm;
}

} // namespace

std::string hexAddress(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string signalName(int signal) {
  if (signal <= 0)
    return "";
  const char* name = sigabbrev_np(signal);
  return name ? std::string("SIG") + name : "signal " + std::to_string(signal);
}

std::string crashReason(const ProcessSnapshot& snapshot) {
  if (!snapshot.crash)
    return "";
  const SnapshotCrash& crash = *snapshot.crash;
  if (crash.stated_reason)
    return *crash.stated_reason;
  std::string reason;
  switch (snapshot.system.os) {
  case SnapshotOs::Linux:
  case SnapshotOs::Android:
    reason = linuxReason(crash);
    break;
  case SnapshotOs::Windows:
    reason = windowsReason(crash);
    break;
  case SnapshotOs::MacOs:
  case SnapshotOs::Ios:
    reason = appleReason(crash, snapshot.cpu);
    break;
  default:
    break;
  }
  if (reason.empty())
    reason = hex8(crash.code) + " / " + hex8(crash.flags);
  return reason;
}

uint64_t crashAddress(const ProcessSnapshot& snapshot) {
  if (!snapshot.crash)
    return 0;
  const SnapshotCrash& crash = *snapshot.crash;
  uint64_t address = crash.address;
  if (snapshot.system.os == SnapshotOs::Windows &&
      (crash.code == 0xc0000005 || crash.code == 0xc0000006) && crash.parameters.size() >= 2)
    address = crash.parameters[1];
  if (snapshot.system.known && is32Bit(snapshot.cpu))
    address &= 0xffffffff;
  return address;
}

std::string assertionText(const ProcessSnapshot& snapshot) {
  if (!snapshot.assertion)
    return "";
  const SnapshotAssertion& a = *snapshot.assertion;
  std::string text;
  if (a.type == 1) {
    text = "Invalid parameter passed to library function";
  } else if (a.type == 2) {
    text = "Pure virtual function called";
  } else {
    char unknown[48];
    std::snprintf(unknown, sizeof unknown, "Unknown assertion type 0x%08x", a.type);
    text = unknown;
  }
  if (!a.expression.empty())
    text += " " + a.expression;
  if (!a.function.empty())
    text += " in function " + a.function;
  if (!a.file.empty())
    text += ", in file " + a.file;
  if (a.line != 0)
    text += " at line " + std::to_string(a.line);
  return text;
}

} // namespace dumpsyms
