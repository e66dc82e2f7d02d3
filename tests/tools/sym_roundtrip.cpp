// Reads a symbol file with the project's parser and writes it back with the
// project's writer, to stdout: the round trip the tests hold to be the identity.
#include "symbol_file/text/text_reader.h"
#include "symbol_file/text/text_writer.h"

#include <cstdio>
#include <iostream>
#include <llvm/Support/MemoryBuffer.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: sym_roundtrip FILE.sym\n");
    return 2;
  }
  auto buffer = llvm::MemoryBuffer::getFile(argv[1]);
  if (!buffer) {
    std::fprintf(stderr, "sym_roundtrip: %s: %s\n", argv[1], buffer.getError().message().c_str());
    return 1;
  }
  dumpsyms::ParsedSymbolFile parsed = dumpsyms::readSymbolFile((*buffer)->getBuffer());
  for (const auto& problem : parsed.problems)
    std::fprintf(stderr, "%s:%zu: %s\n", argv[1], problem.line, problem.message.c_str());
  dumpsyms::writeSymbolFile(parsed.module, {}, std::cout);
  return parsed.problems.empty() ? 0 : 1;
}
