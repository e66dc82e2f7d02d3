#include "walk/core/core_registers.h"

#include <array>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/Endian.h>
#include <string>

namespace dumpsyms {

namespace {

// struct elf_prstatus on 64-bit Linux: siginfo (12 bytes), pr_cursig (2),
// padding, pr_sigpend and pr_sighold (8 each), pr_pid at 32, four timevals,
// then pr_reg at 112.
constexpr size_t kCursigOffset = 12;
constexpr size_t kPidOffset = 32;
constexpr size_t kRegistersOffset = 112;

// x86_64's user_regs_struct, in order.
constexpr std::array<const char*, 27> kX86_64Registers = {
    "$r15",    "$r14", "$r13", "$r12",     "$rbp",     "$rbx", "$r11", "$r10", "$r9",
    "$r8",     "$rax", "$rcx", "$rdx",     "$rsi",     "$rdi", "",     "$rip", "$cs",
    "$rflags", "$rsp", "$ss",  "$fs.base", "$gs.base", "$ds",  "$es",  "$fs",  "$gs"};

uint64_t word(llvm::StringRef note, size_t offset) {
  return llvm::support::endian::read64le(note.data() + offset);
}

} // namespace

std::optional<PrStatus> decodePrStatus(uint16_t machine, llvm::StringRef note) {
  size_t count = 0;
  if (machine == llvm::ELF::EM_X86_64)
    count = kX86_64Registers.size();
  else if (machine == llvm::ELF::EM_AARCH64)
    count = 34; // x0..x30, sp, pc, pstate
  else
    return std::nullopt;
  if (note.size() < kRegistersOffset + count * 8)
    return std::nullopt;

  PrStatus status;
  status.signal = llvm::support::endian::read16le(note.data() + kCursigOffset);
  status.tid = llvm::support::endian::read32le(note.data() + kPidOffset);
  for (size_t i = 0; i < count; ++i) {
    uint64_t value = word(note, kRegistersOffset + i * 8);
    if (machine == llvm::ELF::EM_X86_64) {
      if (*kX86_64Registers[i])
        status.registers[kX86_64Registers[i]] = value;
    } else if (i < 31) {
      status.registers["x" + std::to_string(i)] = value;
    } else if (i == 31) {
      status.registers["sp"] = value;
    } else if (i == 32) {
      status.registers["pc"] = value;
    }
  }
  return status;
}

} // namespace dumpsyms
