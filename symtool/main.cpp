// symtool: reading symbol files back. `validate` checks files against the
// format's grammar and the rules the processor depends on.
#include "dump_syms/shared_options.h"
#include "symbol_writer/text_reader.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <llvm/Support/MemoryBuffer.h>

namespace {

using namespace dumpsyms;

// Prints each problem as PATH:LINE: message; returns how many there were,
// or -1 when the file cannot be read.
long validateFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    std::fprintf(stderr, "symtool: error: %s: cannot read it: %s\n", path.c_str(),
                 buffer.getError().message().c_str());
    return -1;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  ParsedSymbolFile parsed = readSymbolFile(text);
  long problems = static_cast<long>(parsed.problems.size());
  for (const SymbolFileProblem& problem : parsed.problems)
    std::printf("%s:%zu: %s\n", path.c_str(), problem.line, problem.message.c_str());
  if (!text.starts_with("MODULE ")) {
    std::printf("%s:1: the file does not start with a MODULE record\n", path.c_str());
    ++problems;
  }
  if (text.contains(llvm::StringRef("\0", 1))) {
    std::printf("%s: the file holds NUL bytes (the processor marks it corrupt)\n", path.c_str());
    ++problems;
  }
  return problems;
}

} // namespace

int main(int argc, char** argv) {
  const std::string* current_input = nullptr;
  installInputErrorHandlers("symtool", &current_input);
  CLI::App app{"Reads Breakpad symbol files back.", "symtool"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("symtool ") + DUMP_SYMS_VERSION);

  std::vector<std::string> files;
  bool quiet = false;
  CLI::App* validate = app.add_subcommand(
      "validate", "check symbol files: every problem with its line number; exit 1 if any");
  validate->add_option("SYM", files, "symbol files")->required();
  validate->add_flag("-q,--quiet", quiet, "no summary line");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "symtool: %s\nRun with --help for usage.\n", e.what());
    return kExitUsage;
  }

  long total = 0;
  bool unreadable = false;
  for (const std::string& file : files) {
    current_input = &file;
    long problems = validateFile(file);
    if (problems < 0)
      unreadable = true;
    else
      total += problems;
  }
  if (!quiet)
    std::fprintf(stderr, "symtool: %zu files, %ld problems\n", files.size(), total);
  return unreadable || total ? kExitError : 0;
}
