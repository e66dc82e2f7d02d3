#include "common/command_line/command_line.h"

#include <cstdio>
#include <cstring>
#include <llvm/Support/ErrorHandling.h>
#include <new>
#include <unistd.h>

namespace dumpsyms {

namespace {

const char* tool_name = "dump_syms";
const std::string* const* current_input = nullptr;

// Corrupt input can make a size field ask for more memory than there is.
[[noreturn]] void outOfMemory() {
  const char* parts[] = {tool_name,
                         ": error: out of memory (a corrupt size field in the input?)\n"};
  for (const char* part : parts) {
    ssize_t ignored = write(STDERR_FILENO, part, std::strlen(part));
    (void)ignored;
  }
  _exit(kExitError);
}

// LLVM ends the process on some malformed input it meets deep inside.
[[noreturn]] void fatalInputError(void*, const char* reason, bool) {
  const std::string* input = current_input ? *current_input : nullptr;
  std::fprintf(stderr, "%s: error: %s: corrupt input: %s\n", tool_name,
               input && !input->empty() ? input->c_str() : "input", reason);
  std::fflush(stderr);
  _exit(kExitError);
}

} // namespace

std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: %s\nRun with --help for usage.\n", app.get_name().c_str(), e.what());
    return kExitUsage;
  }
  return std::nullopt;
}

void installInputErrorHandlers(const char* tool, const std::string* const* input) {
  tool_name = tool;
  current_input = input;
  std::set_new_handler([] { outOfMemory(); });
  llvm::install_bad_alloc_error_handler([](void*, const char*, bool) { outOfMemory(); }, nullptr);
  llvm::install_fatal_error_handler(fatalInputError, nullptr);
}

} // namespace dumpsyms
