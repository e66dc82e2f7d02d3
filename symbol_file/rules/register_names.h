// Breakpad's names for DWARF register numbers, per CPU (spec section 8.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

class RegisterNames {
public:
  // std::nullopt for CPUs whose stack walkers take no CFI (ppc, s390, ...).
  // Postfix arithmetic is as wide as the ELF class's words.
  static std::optional<RegisterNames> forMachine(uint16_t machine, bool is_64_bit);

  // "" when the CPU has no name for this number.
  const std::string& name(uint64_t dwarf_register) const;
  // Bytes in a machine word: the width of postfix arithmetic and of `^`.
  unsigned wordSize() const { return word_size_; }
  // The stack pointer's name, which the caller's value of is the CFA.
  const std::string& stackPointer() const { return stack_pointer_; }
  // The program counter's name, which the caller's value of is `.ra`.
  const std::string& programCounter() const { return program_counter_; }

private:
  std::vector<std::string> names_;
  unsigned word_size_ = 8;
  std::string stack_pointer_;
  std::string program_counter_;
};

} // namespace dumpsyms
