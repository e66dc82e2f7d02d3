// unwind_core SYMBOL_FILE CORE BINARY
//
// Walks the crashed thread's stack in an ELF core file with nothing but the
// STACK CFI records of a symbol file and the postfix evaluator, as
// Breakpad's processor would, and prints each frame's return address (hex,
// one per line). The unwinding test compares them with gdb's backtrace.
#include "dump/object/elf_image.h"
#include "symbol_file/rules/postfix_evaluator.h"
#include "symbol_file/rules/register_names.h"

#include <cstdio>
#include <fstream>
#include <llvm/BinaryFormat/ELF.h>
#include <string>
#include <vector>

using namespace dumpsyms;

namespace {

uint64_t readLittle(llvm::StringRef bytes, uint64_t offset, unsigned size) {
  uint64_t value = 0;
  for (unsigned i = 0; i < size; ++i)
    value |= uint64_t(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return value;
}

std::vector<CfiFrame> readCfi(const std::string& path) {
  std::vector<CfiFrame> frames;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("STACK CFI INIT ", 0) == 0) {
      size_t a = 15, b = line.find(' ', a), c = line.find(' ', b + 1);
      CfiFrame frame;
      frame.range.start = std::stoull(line.substr(a, b - a), nullptr, 16);
      frame.range.end = frame.range.start + std::stoull(line.substr(b + 1, c - b - 1), nullptr, 16);
      frame.initial = parseCfiRules(line.substr(c + 1)).value_or(std::vector<CfiRule>{});
      frames.push_back(std::move(frame));
    } else if (line.rfind("STACK CFI ", 0) == 0 && !frames.empty()) {
      size_t a = 10, b = line.find(' ', a);
      frames.back().changes.push_back(
          {std::stoull(line.substr(a, b - a), nullptr, 16),
           parseCfiRules(line.substr(b + 1)).value_or(std::vector<CfiRule>{})});
    }
  }
  return frames;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: unwind_core SYMBOL_FILE CORE BINARY\n");
    return 2;
  }
  auto core = ElfImage::open(argv[2]);
  auto binary = ElfImage::open(argv[3]);
  if (!core || !binary) {
    std::fprintf(stderr, "unwind_core: cannot open the core or the binary\n");
    return 1;
  }
  uint16_t machine = (*binary)->machine();
  auto registers = RegisterNames::forMachine(machine, (*binary)->is64Bit());
  if (!registers || (machine != llvm::ELF::EM_X86_64 && machine != llvm::ELF::EM_386)) {
    std::fprintf(stderr, "unwind_core: only x86 and x86_64 cores are read\n");
    return 1;
  }
  llvm::StringRef bytes = (*core)->bytes();
  unsigned word = registers->wordSize();

  // The crashing thread's registers: the first NT_PRSTATUS note.
  RegisterValues callee;
  for (const ElfSegment& segment : (*core)->segments()) {
    if (segment.type != llvm::ELF::PT_NOTE)
      continue;
    for (uint64_t at = segment.offset; at + 12 <= segment.offset + segment.file_size;) {
      uint64_t name_size = readLittle(bytes, at, 4), desc_size = readLittle(bytes, at + 4, 4);
      uint64_t type = readLittle(bytes, at + 8, 4);
      uint64_t desc = at + 12 + ((name_size + 3) & ~3ull);
      if (type == llvm::ELF::NT_PRSTATUS && callee.empty()) {
        if (machine == llvm::ELF::EM_X86_64) {
          const char* order[] = {"$r15", "$r14", "$r13", "$r12", "$rbp", "$rbx", "$r11",
                                 "$r10", "$r9",  "$r8",  "$rax", "$rcx", "$rdx", "$rsi",
                                 "$rdi", "",     "$rip", "",     "",     "$rsp"};
          for (unsigned i = 0; i < std::size(order); ++i)
            if (*order[i])
              callee[order[i]] = readLittle(bytes, desc + 112 + 8 * i, 8);
        } else {
          const char* order[] = {"$ebx", "$ecx", "$edx", "$esi", "$edi", "$ebp", "$eax", "",
                                 "",     "",     "",     "",     "$eip", "",     "",     "$esp"};
          for (unsigned i = 0; i < std::size(order); ++i)
            if (*order[i])
              callee[order[i]] = readLittle(bytes, desc + 72 + 4 * i, 4);
        }
      }
      at = desc + ((desc_size + 3) & ~3ull);
    }
  }
  if (callee.empty()) {
    std::fprintf(stderr, "unwind_core: no NT_PRSTATUS note in the core\n");
    return 1;
  }

  MemoryReader memory = [&](uint64_t address) -> std::optional<uint64_t> {
    for (const ElfSegment& segment : (*core)->segments())
      if (segment.type == llvm::ELF::PT_LOAD && address >= segment.address &&
          address + word <= segment.address + segment.file_size)
        return readLittle(bytes, segment.offset + (address - segment.address), word);
    return std::nullopt;
  };

  std::vector<CfiFrame> frames = readCfi(argv[1]);
  uint64_t base = (*binary)->loadAddress();
  const std::string& pc_name = registers->programCounter();
  for (int depth = 0; depth < 64; ++depth) {
    uint64_t pc = callee[pc_name];
    // A caller's pc is a return address: look up the call instruction.
    uint64_t rva = pc - base - (depth > 0 ? 1 : 0);
    const CfiFrame* frame = nullptr;
    for (const CfiFrame& candidate : frames)
      if (candidate.range.contains(rva))
        frame = &candidate;
    if (!frame)
      break;
    auto caller =
        recoverCallerRegisters(cfiRulesAt(*frame, rva), callee, *registers, machine, memory);
    if (!caller || (*caller)[pc_name] == 0)
      break;
    std::printf("%llx\n", static_cast<unsigned long long>((*caller)[pc_name]));
    callee = *caller;
  }
  return 0;
}
