#include "command_line/shared_options.h"

#include <cstdio>
#include <cstring>
#include <llvm/Support/ErrorHandling.h>
#include <map>
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

const CLI::Validator kPrefixMapping(
    [](std::string& value) {
      return value.find('=') == std::string::npos || value.front() == '=' ? "expected OLD=NEW" : "";
    },
    "OLD=NEW");

} // namespace

void addDumpShapeOptions(CLI::App& app, Options& o) {
  app.add_flag("-d,--inlines", o.inlines, "write INLINE_ORIGIN and INLINE records");
  app.add_flag("-c", o.no_cfi, "leave out STACK CFI records");
  app.add_option(
         "--names", o.names,
         "spell function names as llvm (llvm-symbolizer) or breakpad (Breakpad's dump_syms)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, NameStyle>{{"llvm", NameStyle::Llvm},
                                           {"breakpad", NameStyle::Breakpad}},
          CLI::ignore_case))
      ->option_text("llvm|breakpad (default: llvm)");
  app.add_option("--map-prefix", o.path_prefix_map,
                 "OLD=NEW: rewrite source paths starting with OLD (first match wins)")
      ->check(kPrefixMapping)
      ->allow_extra_args(false)
      ->option_text("OLD=NEW ...");
  app.add_flag("--check-cfi", o.check_cfi,
               "fail (exit 1, write nothing) when the module has no STACK CFI at all");
  app.add_flag("--no-debuginfod", o.no_debuginfod, "never fetch debug files from debuginfod");
  app.add_option("--symbol-server", o.symbol_servers,
                 "SPEC: fetch a PE's PDB (or a PDB's PE) from this Windows symbol server or "
                 "store when it is not at hand: srv*CACHE*URL, cache*DIR, DIR or a URL; "
                 "repeatable, tried before $_NT_SYMBOL_PATH")
      ->allow_extra_args(false)
      ->option_text("SPEC ...");
}

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
