// The minidump reader's pieces on bytes made here: every CPU context layout
// (and the sizes Breakpad's processor refuses, which we read), CodeView
// identities, whole files with their streams; the crash in Breakpad's
// words; the x86 walk by FPO records with Breakpad's synthesized programs.
#include "store/layout/layout.h"
#include "walk/minidump/cpu_context.h"
#include "walk/minidump/minidump_snapshot.h"
#include "walk/minidump/module_identity.h"
#include "walk/printers/crash_reason.h"
#include "walk/stackwalk/process_walk.h"

#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {
namespace {

struct Bytes {
  std::string data;
  void u16(uint16_t v) { data.append(reinterpret_cast<const char*>(&v), 2); }
  void u32(uint32_t v) { data.append(reinterpret_cast<const char*>(&v), 4); }
  void u64(uint64_t v) { data.append(reinterpret_cast<const char*>(&v), 8); }
  void at32(size_t at, uint32_t v) { std::memcpy(&data[at], &v, 4); }
  void at64(size_t at, uint64_t v) { std::memcpy(&data[at], &v, 8); }
};

std::string zeros(size_t n) {
  return std::string(n, '\0');
}

TEST(CpuContext, EveryLayout) {
  std::string problem;
  {
    Bytes x86{zeros(716)};
    x86.at32(0, 0x0001003f);
    x86.at32(0xb8, 0x401234); // eip
    x86.at32(0xc4, 0x12ff00); // esp
    x86.at32(0xb4, 0x12ff40); // ebp
    auto c = decodeContext(x86.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::X86);
    EXPECT_EQ(c->registers.at("$eip"), 0x401234u);
    EXPECT_EQ(c->registers.at("$esp"), 0x12ff00u);
    EXPECT_EQ(c->registers.at("$ebp"), 0x12ff40u);
    EXPECT_TRUE(c->note.empty());
  }
  for (size_t size : {size_t(1232), size_t(720), size_t(1232 + 832)}) {
    Bytes amd64{zeros(size)};
    amd64.at32(0x30, 0x0010000b);
    amd64.at64(0x98, 0x7ffd0000); // rsp
    amd64.at64(0xf8, 0x55550000); // rip
    auto c =
        decodeContext(amd64.data, size > 1232 ? SnapshotCpu::Amd64 : SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c) << size << ": " << problem;
    EXPECT_EQ(c->cpu, SnapshotCpu::Amd64);
    EXPECT_EQ(c->registers.at("$rip"), 0x55550000u);
    EXPECT_EQ(c->registers.at("$rsp"), 0x7ffd0000u);
    EXPECT_EQ(c->note.empty(), size != 720) << c->note; // lldb's short context is said
  }
  {
    Bytes arm{zeros(368)};
    arm.at32(0, 0x40000002);
    arm.at32(4 + 13 * 4, 0xbeef0000); // sp
    arm.at32(4 + 15 * 4, 0x10000);    // pc
    auto c = decodeContext(arm.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Arm);
    EXPECT_EQ(c->registers.at("sp"), 0xbeef0000u);
    EXPECT_EQ(c->registers.at("pc"), 0x10000u);
  }
  {
    Bytes arm64{zeros(912)};
    arm64.at32(0, 0x00400003);
    arm64.at64(8 + 29 * 8, 0x7f0010); // fp
    arm64.at64(8 + 31 * 8, 0x7f0000); // sp
    arm64.at64(8 + 32 * 8, 0x5500);   // pc
    auto c = decodeContext(arm64.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Arm64);
    EXPECT_EQ(c->registers.at("x29"), 0x7f0010u);
    EXPECT_EQ(c->registers.at("sp"), 0x7f0000u);
    EXPECT_EQ(c->registers.at("pc"), 0x5500u);
  }
  {
    Bytes old{zeros(796)}; // Breakpad's old arm64 layout: 64-bit flags
    old.at64(0, 0x80000002);
    old.at64(8 + 32 * 8, 0x6600);
    auto c = decodeContext(old.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Arm64);
    EXPECT_EQ(c->registers.at("pc"), 0x6600u);
  }
  {
    Bytes mips{zeros(600)};
    mips.at32(0, 0x00080002); // mips64
    mips.at64(8 + 29 * 8, 0x7fff0000);
    mips.at64(8 + 32 * 8 + 16 + 32, 0x120000000);
    auto c = decodeContext(mips.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Mips64);
    EXPECT_EQ(c->registers.at("$sp"), 0x7fff0000u);
    EXPECT_EQ(c->registers.at("$pc"), 0x120000000u);
  }
  {
    Bytes riscv64{zeros(528)};
    riscv64.at32(0, 0x08000001);
    riscv64.at64(8, 0x10078);     // pc
    riscv64.at64(8 + 16, 0x3ff0); // sp
    auto c = decodeContext(riscv64.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Riscv64);
    EXPECT_EQ(c->registers.at("pc"), 0x10078u);
    EXPECT_EQ(c->registers.at("sp"), 0x3ff0u);
  }
  {
    Bytes riscv{zeros(268)};
    riscv.at32(0, 0x00800001);
    riscv.at32(8, 0x1000);
    auto c = decodeContext(riscv.data, SnapshotCpu::Unknown, problem);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->cpu, SnapshotCpu::Riscv);
    EXPECT_EQ(c->registers.at("pc"), 0x1000u);
  }
}

TEST(CpuContext, WhatIsNoContext) {
  std::string problem;
  EXPECT_FALSE(decodeContext("", SnapshotCpu::Unknown, problem));
  EXPECT_FALSE(decodeContext(zeros(3), SnapshotCpu::X86, problem));
  Bytes unknown{zeros(400)};
  unknown.at32(0, 0x12345600);
  EXPECT_FALSE(decodeContext(unknown.data, SnapshotCpu::Unknown, problem));
  EXPECT_NE(problem.find("name no CPU"), std::string::npos) << problem;
  Bytes short_x86{zeros(100)};
  short_x86.at32(0, 0x00010007);
  EXPECT_FALSE(decodeContext(short_x86.data, SnapshotCpu::Unknown, problem));
  EXPECT_NE(problem.find("too short"), std::string::npos) << problem;
  // Flags without a CPU: the one SystemInfo names.
  Bytes bare{zeros(716)};
  bare.at32(0xb8, 0x1234);
  auto c = decodeContext(bare.data, SnapshotCpu::X86, problem);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->registers.at("$eip"), 0x1234u);
}

TEST(ModuleIdentity, CodeViewRecords) {
  // RSDS: the GUID's first three fields as little-endian numbers, the age
  // in lower-case hex.
  Bytes rsds;
  rsds.data = "RSDS";
  rsds.u32(0x5A9832E5);
  rsds.u16(0x2872);
  rsds.u16(0x41C1);
  rsds.data += std::string("\x83\x8E\xD9\x89\x14\xE9\xB7\xFF", 8);
  rsds.u32(0x2a);
  rsds.data += std::string("c:\\build\\test_app.pdb\0", 22);
  ModuleIdentity id = identityFromCodeView(rsds.data, "test_app.exe");
  EXPECT_EQ(id.debug_id.str(), "5A9832E5287241C1838ED98914E9B7FF2a");
  EXPECT_EQ(id.debug_file, "c:\\build\\test_app.pdb");
  // A record without its terminating NUL is no record.
  EXPECT_TRUE(
      identityFromCodeView(rsds.data.substr(0, rsds.data.size() - 1), "x").debug_id.empty());

  Bytes nb10;
  nb10.data = "NB10";
  nb10.u32(0);
  nb10.u32(0x3c6f7e6a);
  nb10.u32(3);
  nb10.data += std::string("app.pdb\0", 8);
  EXPECT_EQ(identityFromCodeView(nb10.data, "app.exe").debug_id.str(), "3C6F7E6A3");

  // BpEL (as "LEpB" in the file): the build-id as a GUID, zero-padded to
  // 16 bytes, age 0; the code file is the debug file.
  std::string bpel = std::string("LEpB") + std::string("\x10\xfa\xa6\xbb\xaa\xb8\x3d\xb3", 8);
  id = identityFromCodeView(bpel, "/usr/lib/libfoo.so");
  EXPECT_EQ(id.debug_id.str(), "BBA6FA10B8AAB33D00000000000000000");
  EXPECT_EQ(id.build_id.hex(), "10faa6bbaab83db3");
  EXPECT_EQ(id.debug_file, "/usr/lib/libfoo.so");
  EXPECT_FALSE(identityFromCodeView("LEpB", "x").problem.empty());

  EXPECT_EQ(CodeId::fromMinidumpPeModule(0x45D35F6C, 0x2d000).str(), "45D35F6C2d000");
  EXPECT_EQ(CodeId::fromPeImage(0x45D35F6C, 0x2d000).str(), "45D35F6C2D000");
  EXPECT_EQ(fixedFileVersion(0xfeef04bd, 0x10000, 0x00050001, 0x0A280884), "5.1.2600.2180");
  EXPECT_EQ(fixedFileVersion(0xfeef04bd, 0, 0x00050001, 0), "");
}

// A whole minidump: header, directory, and the streams given.
std::string minidump(const std::vector<std::pair<uint32_t, std::string>>& streams) {
  Bytes out;
  out.u32(0x504d444d);
  out.u32(0xa793);
  out.u32(static_cast<uint32_t>(streams.size()));
  out.u32(32);
  out.u32(0);
  out.u32(1700000000);
  out.u64(0);
  size_t directory = out.data.size();
  out.data += zeros(12 * streams.size());
  for (size_t i = 0; i < streams.size(); ++i) {
    while (out.data.size() % 8)
      out.data += '\0';
    out.at32(directory + 12 * i, streams[i].first);
    out.at32(directory + 12 * i + 4, static_cast<uint32_t>(streams[i].second.size()));
    out.at32(directory + 12 * i + 8, static_cast<uint32_t>(out.data.size()));
    out.data += streams[i].second;
  }
  return out.data;
}

std::string systemInfo(uint16_t architecture, uint32_t platform) {
  Bytes s;
  s.u16(architecture);
  s.u16(6);
  s.u16(0);
  s.data += std::string("\x02\x00", 2);
  s.u32(10);
  s.u32(0);
  s.u32(19045);
  s.u32(platform);
  s.u32(0);
  s.u32(0);
  s.data += zeros(24);
  return s.data;
}

std::string exceptionStream(uint32_t thread, uint32_t code, uint32_t flags, uint64_t address,
                            std::vector<uint64_t> parameters) {
  Bytes e;
  e.u32(thread);
  e.u32(0);
  e.u32(code);
  e.u32(flags);
  e.u64(0);
  e.u64(address);
  e.u32(static_cast<uint32_t>(parameters.size()));
  e.u32(0);
  for (size_t i = 0; i < 15; ++i)
    e.u64(i < parameters.size() ? parameters[i] : 0);
  e.u32(0);
  e.u32(0);
  return e.data;
}

std::string threadList(uint32_t thread) {
  Bytes t;
  t.u32(1);
  t.u32(thread);
  t.data += zeros(44); // no stack, no context
  return t.data;
}

ProcessSnapshot parse(const std::string& bytes) {
  auto snapshot = parseMinidumpSnapshot(llvm::MemoryBuffer::getMemBufferCopy(bytes), "test.dmp");
  EXPECT_TRUE(bool(snapshot)) << (snapshot ? "" : llvm::toString(snapshot.takeError()));
  return snapshot ? std::move(*snapshot) : ProcessSnapshot();
}

TEST(CrashReason, InBreakpadsWords) {
  ProcessSnapshot linux_crash = parse(minidump(
      {{7, systemInfo(9, 0x8201)}, {3, threadList(7)}, {6, exceptionStream(7, 11, 1, 0x10, {})}}));
  EXPECT_EQ(crashReason(linux_crash), "SIGSEGV /SEGV_MAPERR");
  EXPECT_EQ(crashAddress(linux_crash), 0x10u);

  ProcessSnapshot av =
      parse(minidump({{7, systemInfo(0, 2)},
                      {3, threadList(7)},
                      {6, exceptionStream(7, 0xc0000005, 0, 0x401000, {1, 0x45})}}));
  EXPECT_EQ(crashReason(av), "EXCEPTION_ACCESS_VIOLATION_WRITE");
  EXPECT_EQ(crashAddress(av), 0x45u); // the address written, not the instruction's

  ProcessSnapshot fastfail = parse(minidump(
      {{7, systemInfo(9, 2)}, {3, threadList(7)}, {6, exceptionStream(7, 0xc0000409, 1, 0, {7})}}));
  EXPECT_EQ(crashReason(fastfail), "FAST_FAIL_FATAL_APP_EXIT");

  ProcessSnapshot abort = parse(minidump(
      {{7, systemInfo(12, 0x8203)}, {3, threadList(7)}, {6, exceptionStream(7, 6, 0, 0, {})}}));
  EXPECT_EQ(crashReason(abort), "SIGABRT");

  ProcessSnapshot unknown = parse(minidump(
      {{7, systemInfo(9, 0x8201)}, {3, threadList(7)}, {6, exceptionStream(7, 0x99, 0x3, 0, {})}}));
  EXPECT_EQ(crashReason(unknown), "0x00000099 / 0x00000003");
}

TEST(MinidumpSnapshot, ReadsWhatItCanAndSaysWhatItCannot) {
  // The thread list is all a walk needs; a truncated module list and
  // several Exception streams (lldb's) are warnings.
  Bytes modules;
  modules.u32(5); // claims five, holds none
  std::string dump = minidump({{3, threadList(9)},
                               {4, modules.data},
                               {6, exceptionStream(8, 0, 0, 0, {})},
                               {6, exceptionStream(9, 11, 2, 0x20, {})}});
  ProcessSnapshot snapshot = parse(dump);
  ASSERT_EQ(snapshot.threads.size(), 1u);
  ASSERT_TRUE(snapshot.crash);
  EXPECT_EQ(snapshot.crash->thread_id, 9u); // the stream with an exception
  std::string warnings;
  for (const std::string& w : snapshot.warnings)
    warnings += w + "\n";
  EXPECT_NE(warnings.find("module list stream claims 5 entries but holds 0"), std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("2 Exception streams"), std::string::npos) << warnings;

  // No thread list, no directory, no signature: errors naming the file.
  for (const std::string& bad : {minidump({{7, systemInfo(9, 0x8201)}}), dump.substr(0, 40),
                                 std::string("MDMQ") + dump.substr(4)}) {
    auto refused = parseMinidumpSnapshot(llvm::MemoryBuffer::getMemBufferCopy(bad), "bad.dmp");
    ASSERT_FALSE(bool(refused));
    EXPECT_NE(llvm::toString(refused.takeError()).find("bad.dmp"), std::string::npos);
  }
}

// FPO records (STACK WIN 0) as Breakpad's processor runs them: the
// synthesized program finds the return address above the locals and saved
// registers; with a base pointer allocated, the caller's EBP is where the
// program says it was saved.
TEST(StackWinFpo, SynthesizedPrograms) {
  llvm::SmallString<128> store;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("fpo-store", store));
  std::string path =
      symbolFilePath(std::string(store), "fpo.pdb", DebugId("00000000000000000000000000000000A"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)));
  {
    std::ofstream sym(path);
    sym << "MODULE windows x86 00000000000000000000000000000000A fpo.pdb\n"
           "FUNC 1000 100 8 leaf\n"
           "FUNC 2000 100 0 caller\n"
           "FUNC 3000 100 0 outer\n"
           "STACK WIN 0 1000 100 4 0 8 4 8 0 0 0\n"  // leaf: 8 locals, 4 saved, no EBP
           "STACK WIN 0 2000 100 4 0 0 8 4 0 0 1\n"; // caller: EBP allocated
  }
  const uint64_t base = 0x400000, stack = 0x12f000;
  // leaf's frame at esp: 8 bytes of locals, a saved register, the return
  // into caller, leaf's 8 bytes of arguments; then caller's frame: 4 bytes
  // and two saved registers (the program reads its caller's EBP 8 bytes
  // below where the saved registers end), the return into outer.
  std::vector<uint32_t> words = {0x11111111, 0x22222222, 0x33333333, base + 0x2010, 0xaaaa,
                                 0xbbbb,     0x12f0a0,   0x44444444, 0x55555555,    base + 0x3010};
  Bytes memory;
  for (uint32_t w : words)
    memory.u32(w);
  memory.data += zeros(256);

  ProcessSnapshot snapshot;
  snapshot.cpu = SnapshotCpu::X86;
  snapshot.system.os = SnapshotOs::Windows;
  SnapshotThread thread;
  thread.id = 1;
  thread.registers = {{"$eip", base + 0x1050}, {"$esp", stack}, {"$ebp", 0x12ff00}};
  snapshot.threads.push_back(thread);
  auto bytes = std::make_shared<std::string>(memory.data);
  snapshot.memory.add(
      {stack, bytes->size(), bytes->size(), reinterpret_cast<const uint8_t*>(bytes->data())});
  std::vector<std::string> warnings;
  snapshot.memory.finish(warnings);
  snapshot.owner = bytes;
  SnapshotModule module;
  module.base = base;
  module.size = 0x10000;
  module.code_file = "fpo.exe";
  module.debug_file = "fpo.pdb";
  module.debug_id = DebugId("00000000000000000000000000000000A");
  snapshot.modules.push_back(module);

  for (bool breakpad : {false, true}) {
    WalkOptions options;
    options.breakpad_rules = breakpad;
    ProcessWalk walk = walkProcess(snapshot, {std::string(store)}, options);
    ASSERT_EQ(walk.threads.size(), 1u);
    const std::vector<ResolvedStackFrame>& frames = walk.threads[0].frames;
    ASSERT_GE(frames.size(), 3u);
    EXPECT_EQ(frames[0].function, "leaf");
    // leaf -> caller: eip from 12 bytes up, esp past it; EBP not recovered.
    EXPECT_EQ(frames[1].function, "caller");
    EXPECT_EQ(frames[1].trust, FrameTrust::Cfi);
    EXPECT_EQ(frames[1].registers.at("$eip"), base + 0x2010);
    EXPECT_EQ(frames[1].registers.at("$esp"), stack + 16);
    EXPECT_EQ(frames[1].registers.at("$ebp"), 0x12ff00u);
    // caller -> outer: its esp + leaf's 8 bytes of arguments + 4 locals +
    // 8 saved; EBP read at esp + params + saved - 8.
    EXPECT_EQ(frames[2].function, "outer");
    EXPECT_EQ(frames[2].registers.at("$eip"), base + 0x3010);
    EXPECT_EQ(frames[2].registers.at("$esp"), stack + 40);
    EXPECT_EQ(frames[2].registers.at("$ebp"), 0x12f0a0u);
  }
  llvm::sys::fs::remove_directories(store);
}

} // namespace
} // namespace dumpsyms
