// DWARF expressions translated to postfix, and postfix (the translations
// and the raw input as text) evaluated and executed over made-up registers
// and memory. The first byte picks the CPU.
#include "dump/cfi/postfix_translation.h"
#include "symbol_file/rules/postfix_evaluator.h"
#include "tests/fuzz/fuzz_targets.h"

#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms::fuzz {

int postfix(const uint8_t* data, size_t size) {
  if (size < 2)
    return 0;
  static const uint16_t machines[] = {llvm::ELF::EM_X86_64,  llvm::ELF::EM_386,
                                      llvm::ELF::EM_AARCH64, llvm::ELF::EM_ARM,
                                      llvm::ELF::EM_MIPS,    llvm::ELF::EM_RISCV};
  uint16_t machine = machines[data[0] % std::size(machines)];
  bool is_64_bit = machine != llvm::ELF::EM_386 && machine != llvm::ELF::EM_ARM;
  auto registers = RegisterNames::forMachine(machine, is_64_bit);
  if (!registers)
    return 0;
  llvm::StringRef bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  PostfixResult translated = translateExpression(bytes, true, *registers, data[1] & 1, data[1] & 2);

  // Memory: every word readable but a few, so that both paths run.
  MemoryReader memory = [](uint64_t address) -> std::optional<uint64_t> {
    if (address % 97 == 0)
      return std::nullopt;
    return address * 2654435761u;
  };
  PostfixEvaluator evaluator(registers->wordSize(), memory);
  RegisterValues values = {{registers->stackPointer(), 0x7ffc0000},
                           {".cfa", 0x7ffc0010},
                           {registers->programCounter(), 0x401000}};
  if (!translated.postfix.empty())
    (void)evaluator.evaluate(translated.postfix, values);
  std::string text(bytes);
  (void)evaluator.evaluate(text, values);
  RegisterValues program = values;
  (void)evaluator.execute(text, program);
  if (auto rules = parseCfiRules(text)) {
    std::map<std::string, std::string> by_name;
    for (const CfiRule& rule : *rules)
      by_name[rule.name] = rule.expression;
    (void)recoverCallerRegisters(by_name, values, *registers, machine, memory);
  }
  return 0;
}

} // namespace dumpsyms::fuzz
