// `--format rust-minidump` against rust-minidump's own rules (its
// minidump.rs code_identifier and CrashReason, its process_state.rs JSON):
// code ids by CodeView kind and OS, crash types by its names, missing
// symbols only where a symbol source was given, frame_count always.
#include "walk/minidump/module_identity.h"
#include "walk/printers/rust_minidump_rules.h"
#include "walk/printers/walk_printers.h"
#include "walk/stackwalk/process_walk.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

namespace dumpsyms {
namespace {

SnapshotModule module(CodeViewKind kind, const std::string& code_id, const std::string& debug_id,
                      const std::string& build_id = "") {
  SnapshotModule out;
  out.base = 0x10000;
  out.size = 0x2d000;
  out.code_file = "C:\\app\\app.exe";
  out.codeview = kind;
  out.code_id = CodeId(code_id);
  out.debug_id = DebugId(debug_id);
  if (!build_id.empty())
    out.build_id = *BuildId::parseHex(build_id);
  return out;
}

TEST(RustMinidumpCodeId, WindowsPeIdInLowerCase) {
  SnapshotModule pe =
      module(CodeViewKind::Pdb70, "45D35F6C2d000", "ABCDEF0123456789ABCDEF01234567891");
  EXPECT_EQ(rustCodeId(pe, SnapshotOs::Windows), "45d35f6c2d000");
  pe.codeview = CodeViewKind::Pdb20;
  EXPECT_EQ(rustCodeId(pe, SnapshotOs::Windows), "45d35f6c2d000");
  // An entry without a record: the PE id on Windows only.
  pe.codeview = CodeViewKind::Absent;
  EXPECT_EQ(rustCodeId(pe, SnapshotOs::Windows), "45d35f6c2d000");
  EXPECT_EQ(rustCodeId(pe, SnapshotOs::Linux), "");
  pe.codeview = CodeViewKind::Other;
  EXPECT_EQ(rustCodeId(pe, SnapshotOs::Windows), "");
  // The unloaded modules' id is always the PE one.
  EXPECT_EQ(rustUnloadedCodeId(pe), "45d35f6c2d000");
}

TEST(RustMinidumpCodeId, MachOUuidFromItsRsdsRecord) {
  SnapshotModule macho =
      module(CodeViewKind::Pdb70, "00000000c4000", "509C0610949836F7B70BD88BCF03E5400");
  EXPECT_EQ(rustCodeId(macho, SnapshotOs::MacOs), "509c0610949836f7b70bd88bcf03e540");
  EXPECT_EQ(rustCodeId(macho, SnapshotOs::Ios), "509c0610949836f7b70bd88bcf03e540");
  // The same record in a Linux dump (old Breakpad clients): the PE-style id.
  EXPECT_EQ(rustCodeId(macho, SnapshotOs::Linux), "00000000c4000");
}

TEST(RustMinidumpCodeId, ElfBuildIdButNotAnEmptyOne) {
  SnapshotModule elf =
      module(CodeViewKind::Elf, "0123456789abcdef0123456789abcdef01234567",
             "67452301AB89EFCD0123456789ABCDEF0", "0123456789abcdef0123456789abcdef01234567");
  EXPECT_EQ(rustCodeId(elf, SnapshotOs::Linux), "0123456789abcdef0123456789abcdef01234567");
  elf.build_id = *BuildId::parseHex("0000000000000000");
  elf.code_id = CodeId("0000000000000000");
  EXPECT_EQ(rustCodeId(elf, SnapshotOs::Linux), "");
}

TEST(RustMinidumpCodeId, KindsReadFromTheRecord) {
  auto record = [](const char* signature, size_t size) {
    std::string out(signature, 4);
    out.resize(size, '\0');
    return out;
  };
  EXPECT_EQ(codeViewKind(""), CodeViewKind::Absent);
  EXPECT_EQ(codeViewKind(record("RSDS", 25)), CodeViewKind::Pdb70);
  // No NUL-terminated name: no debug id for us, still a GUID for rust-minidump.
  EXPECT_EQ(codeViewKind(record("RSDS", 24)), CodeViewKind::Pdb70);
  EXPECT_EQ(codeViewKind(record("RSDS", 20)), CodeViewKind::Absent);
  EXPECT_EQ(codeViewKind(record("NB10", 17)), CodeViewKind::Pdb20);
  EXPECT_EQ(codeViewKind(record("LEpB", 4)), CodeViewKind::Elf);
  EXPECT_EQ(codeViewKind(record("XXXX", 8)), CodeViewKind::Other);
  EXPECT_EQ(identityFromCodeView(record("RSDS", 25), "a.exe").kind, CodeViewKind::Pdb70);
}

std::string crashType(SnapshotOs os, uint32_t code, uint32_t flags,
                      std::vector<uint64_t> parameters = {}, SnapshotCpu cpu = SnapshotCpu::Amd64) {
  ProcessSnapshot snapshot;
  snapshot.system.os = os;
  snapshot.cpu = cpu;
  snapshot.crash = SnapshotCrash();
  snapshot.crash->code = code;
  snapshot.crash->flags = flags;
  snapshot.crash->parameters = std::move(parameters);
  return rustCrashType(snapshot);
}

TEST(RustMinidumpCrashType, LinuxSignals) {
  EXPECT_EQ(crashType(SnapshotOs::Linux, 11, 0), "SIGSEGV");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 11, 1), "SIGSEGV / SEGV_MAPERR");
  EXPECT_EQ(crashType(SnapshotOs::Android, 11, 2), "SIGSEGV / SEGV_ACCERR");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 11, 0x80), "SIGSEGV / SI_KERNEL");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 11, 8), "SIGSEGV / 0x00000008");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 6, uint32_t(-6)), "SIGABRT / SI_TKILL");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 6, 0), "SIGABRT");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 4, 9), "SIGILL / ILL_BADIADDR");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 5, 4), "SIGTRAP / TRAP_HWBKPT");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 8, 1), "SIGFPE / FPE_INTDIV");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 7, 2), "SIGBUS / BUS_ADRERR");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 31, 1), "SIGSYS / SYS_SECCOMP");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 0xffffffff, 0), "DUMP_REQUESTED");
  EXPECT_EQ(crashType(SnapshotOs::Linux, 42, 0), "unknown 0x0000002a / 0x00000000");
  EXPECT_EQ(crashType(SnapshotOs::Fuchsia, 11, 1), "unknown 0x0000000b / 0x00000001");
}

TEST(RustMinidumpCrashType, WindowsExceptions) {
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000005, 0, {1, 0x45}),
            "EXCEPTION_ACCESS_VIOLATION_WRITE");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000005, 0), "EXCEPTION_ACCESS_VIOLATION");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000006, 0, {0, 0x45, 0xc0000185}),
            "EXCEPTION_IN_PAGE_ERROR_READ / STATUS_IO_DEVICE_ERROR");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000006, 0, {0}), "EXCEPTION_IN_PAGE_ERROR");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000409, 0, {7}),
            "EXCEPTION_STACK_BUFFER_OVERRUN / FAST_FAIL_FATAL_APP_EXIT");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000409, 0), "STATUS_STACK_BUFFER_OVERRUN");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xe06d7363, 0), "Unhandled C++ Exception");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0xc0000374, 0), "STATUS_HEAP_CORRUPTION");
  EXPECT_EQ(crashType(SnapshotOs::Windows, 0x12345678, 0), "unknown 0x12345678");
}

TEST(RustMinidumpCrashType, MachExceptions) {
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 1, 1), "EXC_BAD_ACCESS / KERN_INVALID_ADDRESS");
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 1, 13), "EXC_BAD_ACCESS / EXC_I386_GPFLT");
  EXPECT_EQ(crashType(SnapshotOs::Ios, 1, 0x105, {}, SnapshotCpu::Arm64),
            "EXC_BAD_ACCESS / EXC_ARM_PAC_FAIL");
  EXPECT_EQ(crashType(SnapshotOs::Ios, 2, 1, {}, SnapshotCpu::Arm),
            "EXC_BAD_INSTRUCTION / 0x00000001");
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 5, 0x10002), "EXC_SOFTWARE / SIGABRT");
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 6, 2), "EXC_BREAKPOINT / EXC_I386_BPT");
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 0x43507378, 0), "Simulated Exception");
  EXPECT_EQ(crashType(SnapshotOs::MacOs, 0x43506e78, 0), "unknown 0x43506e78 / 0x00000000");
}

// The whole form on a small walk: a Linux crash with no code, a thread
// without frames, and modules whose symbols no store was asked for.
llvm::json::Value printed(const ProcessWalk& walk) {
  std::FILE* file = std::tmpfile();
  printWalkRustMinidump(walk, file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
    text.append(buffer, got);
  std::fclose(file);
  auto parsed = llvm::json::parse(text);
  EXPECT_TRUE(bool(parsed)) << text;
  return parsed ? std::move(*parsed) : llvm::json::Value(nullptr);
}

TEST(RustMinidumpForm, MissingSymbolsFrameCountAndIds) {
  auto snapshot = std::make_shared<ProcessSnapshot>();
  snapshot->format = "minidump";
  snapshot->cpu = SnapshotCpu::Amd64;
  snapshot->system.os = SnapshotOs::Linux;
  snapshot->modules.push_back(
      module(CodeViewKind::Elf, "abcdef0123", "2301EFCD0000000000000000000000000", "abcdef0123"));
  snapshot->modules.back().code_file = "/usr/lib/libfoo.so";
  snapshot->unloaded_modules.push_back(module(CodeViewKind::NotMinidump, "45D35F6C2d000", ""));
  snapshot->crash = SnapshotCrash();
  snapshot->crash->thread_id = 20;
  snapshot->crash->code = 11;
  ProcessWalk walk;
  walk.snapshot = snapshot;
  WalkedThread idle; // no frames at all
  idle.tid = 10;
  WalkedThread crashed;
  crashed.tid = 20;
  crashed.crashed = crashed.requesting = true;
  ResolvedStackFrame frame;
  frame.address = frame.instruction = 0x10010;
  frame.module = &snapshot->modules[0];
  frame.module_name = "libfoo.so";
  frame.trust = FrameTrust::Context;
  crashed.frames.push_back(frame);
  walk.threads = {idle, crashed};
  walk.requesting = 1;
  walk.crashed = true;
  ModuleSymbolStatus status;
  status.module = &snapshot->modules[0];
  status.status = SymbolStatus::Missing;
  status.walked = status.looked_up = true;
  walk.modules.push_back(status);

  llvm::json::Value document = printed(walk);
  const llvm::json::Object* root = document.getAsObject();
  ASSERT_NE(root, nullptr);
  const llvm::json::Object* module0 = (*root->getArray("modules"))[0].getAsObject();
  EXPECT_EQ(module0->getBoolean("missing_symbols"), false); // no store: never looked for
  EXPECT_EQ(module0->getBoolean("loaded_symbols"), false);
  EXPECT_EQ(module0->getString("code_id"), "abcdef0123");
  const llvm::json::Object* unloaded = (*root->getArray("unloaded_modules"))[0].getAsObject();
  EXPECT_EQ(unloaded->getString("code_id"), "45d35f6c2d000");
  const llvm::json::Array* threads = root->getArray("threads");
  EXPECT_EQ((*threads)[0].getAsObject()->getInteger("frame_count"), 0);
  EXPECT_EQ((*threads)[0].getAsObject()->getArray("frames")->size(), 0u);
  EXPECT_EQ((*threads)[1].getAsObject()->getInteger("frame_count"), 1);
  EXPECT_EQ(root->getObject("crash_info")->getString("type"), "SIGSEGV");

  walk.symbols_given = true; // a store was given and had nothing
  document = printed(walk);
  module0 = (*document.getAsObject()->getArray("modules"))[0].getAsObject();
  EXPECT_EQ(module0->getBoolean("missing_symbols"), true);
}

} // namespace
} // namespace dumpsyms
