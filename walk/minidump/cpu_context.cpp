#include "walk/minidump/cpu_context.h"

#include "walk/minidump/minidump_bytes.h"

#include <array>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

namespace {

// The CPU bits of a context's flags word (MD_CONTEXT_*).
constexpr uint32_t kCpuMask = 0xffffff00;
constexpr uint32_t kX86 = 0x00010000;
constexpr uint32_t kMips = 0x00040000;
constexpr uint32_t kMips64 = 0x00080000;
constexpr uint32_t kAmd64 = 0x00100000;
constexpr uint32_t kArm64 = 0x00400000;
constexpr uint32_t kRiscv = 0x00800000;
constexpr uint32_t kRiscv64 = 0x08000000;
constexpr uint32_t kArm = 0x40000000;
constexpr uint32_t kArmOld = 0x00000040; // Windows CE's value, which clashes with CONTEXT_XSTATE
constexpr uint64_t kArm64Old = 0x80000000;

// Standard sizes (Breakpad's MDRawContext* structures).
constexpr size_t kX86Size = 716;
constexpr size_t kAmd64Size = 1232;
constexpr size_t kArmSize = 368;
constexpr size_t kArm64Size = 912;
constexpr size_t kArm64OldSize = 796;
constexpr size_t kMipsSize = 600;
constexpr size_t kRiscvSize = 268;
constexpr size_t kRiscv64Size = 528;

// Where each layout's general registers end: a shorter context is no use.
constexpr size_t kX86Needed = 0xc8;    // through SegSs
constexpr size_t kAmd64Needed = 0x100; // through Rip
constexpr size_t kArmNeeded = 4 + 16 * 4 + 4;
constexpr size_t kArm64Needed = 8 + 33 * 8;
constexpr size_t kMipsNeeded = 8 + 32 * 8 + 16 + 32 + 8; // through epc
constexpr size_t kRiscvNeeded = 8 + 32 * 4;
constexpr size_t kRiscv64Needed = 8 + 32 * 8;

uint32_t cpuFlag(SnapshotCpu cpu) {
  switch (cpu) {
  case SnapshotCpu::X86:
    return kX86;
  case SnapshotCpu::Amd64:
    return kAmd64;
  case SnapshotCpu::Arm:
    return kArm;
  case SnapshotCpu::Arm64:
    return kArm64;
  case SnapshotCpu::Mips:
    return kMips;
  case SnapshotCpu::Mips64:
    return kMips64;
  case SnapshotCpu::Riscv:
    return kRiscv;
  case SnapshotCpu::Riscv64:
    return kRiscv64;
  default:
    return 0;
  }
}

const uint8_t* u8(llvm::StringRef bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

void x86(llvm::StringRef b, RegisterValues& r) {
  static const std::pair<const char*, size_t> kAt[] = {
      {"$edi", 0x9c}, {"$esi", 0xa0}, {"$ebx", 0xa4}, {"$edx", 0xa8},    {"$ecx", 0xac},
      {"$eax", 0xb0}, {"$ebp", 0xb4}, {"$eip", 0xb8}, {"$eflags", 0xc0}, {"$esp", 0xc4}};
  for (const auto& [name, at] : kAt)
    r[name] = read32le(u8(b) + at);
}

void amd64(llvm::StringRef b, RegisterValues& r) {
  static const char* const kNames[] = {"$rax", "$rcx", "$rdx", "$rbx", "$rsp", "$rbp",
                                       "$rsi", "$rdi", "$r8",  "$r9",  "$r10", "$r11",
                                       "$r12", "$r13", "$r14", "$r15", "$rip"};
  for (size_t i = 0; i < std::size(kNames); ++i)
    r[kNames[i]] = read64le(u8(b) + 0x78 + 8 * i);
  r["$rflags"] = read32le(u8(b) + 0x44);
}

void arm(llvm::StringRef b, RegisterValues& r) {
  for (int i = 0; i < 16; ++i) {
    uint32_t value = read32le(u8(b) + 4 + 4 * i);
    r[i == 13 ? "sp" : i == 14 ? "lr" : i == 15 ? "pc" : "r" + std::to_string(i)] = value;
  }
  r["cpsr"] = read32le(u8(b) + 4 + 64);
}

// x0..x28, x29 (fp), x30 (lr), sp, pc from `at` on.
void arm64Registers(const uint8_t* at, RegisterValues& r) {
  for (int i = 0; i < 31; ++i)
    r["x" + std::to_string(i)] = read64le(at + 8 * i);
  r["sp"] = read64le(at + 8 * 31);
  r["pc"] = read64le(at + 8 * 32);
}

void mips(llvm::StringRef b, bool is_64, RegisterValues& r) {
  static const std::array<const char*, 32> kNames = {
      "$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2",
      "$t3",   "$t4", "$t5", "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4", "$s5",
      "$s6",   "$s7", "$t8", "$t9", "$k0", "$k1", "$gp", "$sp", "$fp", "$ra"};
  uint64_t mask = is_64 ? UINT64_MAX : 0xffffffff;
  for (size_t i = 0; i < kNames.size(); ++i)
    r[kNames[i]] = read64le(u8(b) + 8 + 8 * i) & mask;
  r["$pc"] = read64le(u8(b) + 8 + 256 + 16 + 32) & mask;
}

void riscv(llvm::StringRef b, bool is_64, RegisterValues& r) {
  static const std::array<const char*, 32> kNames = {
      "pc", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
      "a1", "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
      "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  for (size_t i = 0; i < kNames.size(); ++i)
    r[kNames[i]] = is_64 ? read64le(u8(b) + 8 + 8 * i) : read32le(u8(b) + 8 + 4 * i);
}

struct Layout {
  SnapshotCpu cpu;
  size_t size, needed;
  const char* name;
};

const Layout* layoutFor(uint32_t flag) {
  static const Layout kLayouts[] = {
      {SnapshotCpu::X86, kX86Size, kX86Needed, "x86"},
      {SnapshotCpu::Amd64, kAmd64Size, kAmd64Needed, "amd64"},
      {SnapshotCpu::Arm, kArmSize, kArmNeeded, "arm"},
      {SnapshotCpu::Arm64, kArm64Size, kArm64Needed, "arm64"},
      {SnapshotCpu::Mips, kMipsSize, kMipsNeeded, "mips"},
      {SnapshotCpu::Mips64, kMipsSize, kMipsNeeded, "mips64"},
      {SnapshotCpu::Riscv, kRiscvSize, kRiscvNeeded, "riscv"},
      {SnapshotCpu::Riscv64, kRiscv64Size, kRiscv64Needed, "riscv64"},
  };
  for (const Layout& layout : kLayouts)
    if (cpuFlag(layout.cpu) == flag)
      return &layout;
  return nullptr;
}

} // namespace

std::optional<DecodedContext> decodeContext(llvm::StringRef bytes, SnapshotCpu hint,
                                            std::string& problem) {
  DecodedContext out;
  size_t size = bytes.size();
  // amd64 first: its flags word is at 0x30, not at the start. A context
  // longer than the standard one carries XSAVE state after it.
  bool amd64_flags = size >= 0x34 && (read32le(u8(bytes) + 0x30) & kCpuMask) == kAmd64;
  uint32_t first_flags = size >= 4 ? read32le(u8(bytes)) : 0;
  const bool amd64_layout = size == kAmd64Size ||
                            (size > kAmd64Size && (hint == SnapshotCpu::Amd64 || amd64_flags)) ||
                            // Shorter (lldb's 720 bytes): the flags at 0x30 say amd64 and the
                            // first word names no other CPU.
                            (size < kAmd64Size && amd64_flags && (first_flags & kCpuMask) == 0);
  if (amd64_layout) {
    if (size < kAmd64Needed) {
      problem = "an amd64 context of " + std::to_string(size) + " bytes";
      return std::nullopt;
    }
    out.cpu = SnapshotCpu::Amd64;
    amd64(bytes, out.registers);
    if (size < kAmd64Size)
      out.note = "a " + std::to_string(size) + "-byte amd64 context (" +
                 std::to_string(kAmd64Size) +
                 " is the standard size; lldb leaves out the floating-point state): its "
                 "general registers read";
    return out;
  }
  if (size == kArm64OldSize && (read64le(u8(bytes)) & kArm64Old)) {
    out.cpu = SnapshotCpu::Arm64;
    arm64Registers(u8(bytes) + 8, out.registers);
    out.registers["cpsr"] = read32le(u8(bytes) + 8 + 33 * 8);
    return out;
  }
  if (size < 4) {
    problem = "a context of " + std::to_string(size) + " bytes";
    return std::nullopt;
  }
  uint32_t flags = read32le(u8(bytes));
  uint32_t cpu = flags & kCpuMask;
  if (cpu == 0 && (flags & kArmOld))
    cpu = kArm;
  if (cpu == 0)
    cpu = cpuFlag(hint);
  const Layout* layout = layoutFor(cpu);
  if (!layout) {
    problem = "a " + std::to_string(size) + "-byte context whose flags (0x" +
              llvm::utohexstr(flags) + ") name no CPU known";
    return std::nullopt;
  }
  if (size < layout->needed) {
    problem = "a " + std::to_string(size) + "-byte " + layout->name +
              " context, too short for its general registers (" + std::to_string(layout->size) +
              " is the standard size)";
    return std::nullopt;
  }
  if (size != layout->size)
    out.note = "a " + std::to_string(size) + "-byte " + layout->name + " context (" +
               std::to_string(layout->size) + " is the standard size): its general registers read";
  out.cpu = layout->cpu;
  switch (layout->cpu) {
  case SnapshotCpu::X86:
    x86(bytes, out.registers);
    break;
  case SnapshotCpu::Arm:
    arm(bytes, out.registers);
    break;
  case SnapshotCpu::Arm64:
    arm64Registers(u8(bytes) + 8, out.registers);
    out.registers["cpsr"] = read32le(u8(bytes) + 4);
    break;
  case SnapshotCpu::Mips:
  case SnapshotCpu::Mips64:
    mips(bytes, layout->cpu == SnapshotCpu::Mips64, out.registers);
    break;
  case SnapshotCpu::Riscv:
  case SnapshotCpu::Riscv64:
    riscv(bytes, layout->cpu == SnapshotCpu::Riscv64, out.registers);
    break;
  default:
    break;
  }
  return out;
}

} // namespace dumpsyms
