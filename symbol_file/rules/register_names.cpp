#include "symbol_file/rules/register_names.h"

#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {

namespace {

void place(std::vector<std::string>& names, size_t index, std::string name) {
  if (names.size() <= index)
    names.resize(index + 1);
  names[index] = std::move(name);
}

void placeSeries(std::vector<std::string>& names, size_t first, const std::string& prefix, int from,
                 int to) {
  for (int i = from; i <= to; ++i)
    place(names, first + (i - from), prefix + std::to_string(i));
}

std::vector<std::string> x86Names() {
  std::vector<std::string> n = {"$eax", "$ecx", "$edx", "$ebx",    "$esp",    "$ebp",
                                "$esi", "$edi", "$eip", "$eflags", "$unused1"};
  placeSeries(n, 11, "$st", 0, 7);
  place(n, 19, "$unused2");
  place(n, 20, "$unused3");
  placeSeries(n, 21, "$xmm", 0, 7);
  placeSeries(n, 29, "$mm", 0, 7);
  const char* rest[] = {"$fcw", "$fsw", "$mxcsr",   "$es",      "$cs", "$ss",  "$ds",
                        "$fs",  "$gs",  "$unused4", "$unused5", "$tr", "$ldtr"};
  for (size_t i = 0; i < std::size(rest); ++i)
    place(n, 37 + i, rest[i]);
  return n;
}

std::vector<std::string> x86_64Names() {
  std::vector<std::string> n = {"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp"};
  placeSeries(n, 8, "$r", 8, 15);
  place(n, 16, "$rip");
  placeSeries(n, 17, "$xmm", 0, 15);
  placeSeries(n, 33, "$st", 0, 7);
  placeSeries(n, 41, "$mm", 0, 7);
  const char* rest[] = {"$rflags",  "$es",      "$cs",      "$ss",      "$ds",      "$fs",
                        "$gs",      "$unused1", "$unused2", "$fs.base", "$gs.base", "$unused3",
                        "$unused4", "$tr",      "$ldtr",    "$mxcsr",   "$fcw",     "$fsw"};
  for (size_t i = 0; i < std::size(rest); ++i)
    place(n, 49 + i, rest[i]);
  return n;
}

std::vector<std::string> armNames() {
  std::vector<std::string> n;
  placeSeries(n, 0, "r", 0, 12);
  place(n, 13, "sp");
  place(n, 14, "lr");
  place(n, 15, "pc");
  placeSeries(n, 16, "f", 0, 7);
  place(n, 24, "fps");
  place(n, 25, "cpsr");
  placeSeries(n, 64, "s", 0, 31);
  placeSeries(n, 96, "f", 0, 7);
  return n;
}

std::vector<std::string> arm64Names() {
  std::vector<std::string> n;
  placeSeries(n, 0, "x", 0, 30);
  place(n, 31, "sp");
  placeSeries(n, 64, "v", 0, 31);
  return n;
}

std::vector<std::string> mipsNames() {
  std::vector<std::string> n = {"$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0",
                                "$t1",   "$t2", "$t3", "$t4", "$t5", "$t6", "$t7", "$s0", "$s1",
                                "$s2",   "$s3", "$s4", "$s5", "$s6", "$s7", "$t8", "$t9", "$k0",
                                "$k1",   "$gp", "$sp", "$fp", "$ra", "$lo", "$hi", "$pc", "$f0"};
  // Breakpad's table has no $f1, so $f2 is number 36 (spec 8.2).
  placeSeries(n, 36, "$f", 2, 31);
  place(n, 66, "$fcsr");
  place(n, 67, "$fir");
  return n;
}

std::vector<std::string> riscvNames() {
  std::vector<std::string> n = {"pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"};
  placeSeries(n, 10, "a", 0, 7);
  placeSeries(n, 18, "s", 2, 11);
  placeSeries(n, 28, "t", 3, 6);
  placeSeries(n, 32, "f", 0, 31);
  placeSeries(n, 96, "v", 0, 31);
  return n;
}

} // namespace

std::optional<RegisterNames> RegisterNames::forMachine(uint16_t machine, bool is_64_bit) {
  using namespace llvm::ELF;
  RegisterNames table;
  table.word_size_ = is_64_bit ? 8 : 4;
  switch (machine) {
  case EM_386:
    table.names_ = x86Names();
    table.stack_pointer_ = "$esp";
    table.program_counter_ = "$eip";
    break;
  case EM_X86_64:
    table.names_ = x86_64Names();
    table.stack_pointer_ = "$rsp";
    table.program_counter_ = "$rip";
    break;
  case EM_ARM:
    table.names_ = armNames();
    table.stack_pointer_ = "sp";
    table.program_counter_ = "pc";
    break;
  case EM_AARCH64:
    table.names_ = arm64Names();
    table.stack_pointer_ = "sp";
    table.program_counter_ = "pc";
    break;
  case EM_MIPS:
    table.names_ = mipsNames();
    table.stack_pointer_ = "$sp";
    table.program_counter_ = "$pc";
    break;
  case EM_RISCV:
    table.names_ = riscvNames();
    table.stack_pointer_ = "sp";
    table.program_counter_ = "pc";
    break;
  default:
    return std::nullopt;
  }
  return table;
}

const std::string& RegisterNames::name(uint64_t dwarf_register) const {
  static const std::string none;
  return dwarf_register < names_.size() ? names_[dwarf_register] : none;
}

} // namespace dumpsyms
