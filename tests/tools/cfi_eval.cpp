// cfi_eval SYMBOL_FILE SEED RVA...
//
// Evaluates the STACK CFI rules of an x86_64 symbol file at each RVA on a
// made-up machine state, with the postfix evaluator the stack walker uses,
// and prints the caller's registers: "rva name=value ..." (hex), or
// "rva none" when no rule covers the RVA or the rules cannot be evaluated.
// The callee's registers and memory are the pseudo-random values
// tests/e2e/unwind_eval.py's MachineState gives for the same seed, so that
// a test can compute what the unwind codes say from the same state.
#include "symbol_file/rules/postfix_evaluator.h"
#include "symbol_file/rules/register_names.h"
#include "symbol_file/text/text_reader.h"

#include <cstdio>
#include <fstream>
#include <llvm/BinaryFormat/ELF.h>
#include <sstream>
#include <string>

using namespace dumpsyms;

namespace {

uint64_t mix(uint64_t x, uint64_t seed) {
  x = x * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 29);
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cfi_eval SYMBOL_FILE SEED RVA...\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  ParsedSymbolFile parsed = readSymbolFile(text.str());
  uint64_t seed = std::stoull(argv[2]);
  auto registers = RegisterNames::forMachine(llvm::ELF::EM_X86_64, true);
  RegisterValues callee;
  for (uint64_t number = 0; number <= 16; ++number) // DWARF numbers, as MachineState
    callee[registers->name(number)] = mix(1000 + number, seed);
  MemoryReader memory = [&](uint64_t address) -> std::optional<uint64_t> {
    return mix(address, seed);
  };
  for (int i = 3; i < argc; ++i) {
    uint64_t rva = std::stoull(argv[i], nullptr, 16);
    const CfiFrame* frame = nullptr;
    for (const CfiFrame& candidate : parsed.module.cfi_frames)
      if (candidate.range.contains(rva))
        frame = &candidate;
    std::optional<RegisterValues> caller;
    if (frame)
      caller = recoverCallerRegisters(cfiRulesAt(*frame, rva), callee, *registers,
                                      llvm::ELF::EM_X86_64, memory);
    std::printf("%llx", static_cast<unsigned long long>(rva));
    if (!caller)
      std::printf(" none");
    else
      for (const auto& [name, value] : *caller)
        std::printf(" %s=%llx", name.c_str(), static_cast<unsigned long long>(value));
    std::printf("\n");
  }
  return 0;
}
