// symtool: reading symbol files back. `lookup` says what is at addresses;
// `symbolize` resolves crash text; `validate` checks files against the
// format's grammar and the rules the processor depends on; `stats` counts;
// `diff` compares two builds; `stackwalk` unwinds a core file's threads.
#include "common/command_line/command_line.h"
#include "common/limits/bounded_json.h"
#include "common/limits/input_limits.h"
#include "store/layout/store_listing.h"
#include "store/supply/symbol_supplier.h"
#include "symbol_file/analysis/analysis_output.h"
#include "symbol_file/analysis/symbol_diff.h"
#include "symbol_file/analysis/symbol_stats.h"
#include "symbol_file/analysis/symbol_validate.h"
#include "symbol_file/text/text_reader.h"
#include "symbol_file/text/text_stream.h"
#include "tools/symtool/manual.h"
#include "tools/symtool/symbol_server_flags.h"
#include "walk/printers/walk_printers.h"
#include "walk/stackwalk/symbol_explain.h"
#include "walk/symbolize/crash_report.h"
#include "walk/symbolize/crash_symbolizer.h"
#include "walk/symbolize/frame_line.h"
#include "walk/symbolize/line_reader.h"
#include "walk/symbolize/symbolize_output.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <map>
#include <optional>

namespace {

using namespace dumpsyms;

// Prints each problem as PATH:LINE: message (PATH: message when it is about
// the whole file); returns how many there were, or -1 when the file cannot
// be read.
long validateFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    std::fprintf(stderr, "symtool: error: %s: cannot read it: %s\n", path.c_str(),
                 buffer.getError().message().c_str());
    return -1;
  }
  std::vector<ValidationProblem> problems = validateSymbolText((*buffer)->getBuffer());
  for (const ValidationProblem& problem : problems) {
    if (problem.line == 0)
      std::printf("%s: %s\n", path.c_str(), problem.message.c_str());
    else
      std::printf("%s:%zu: %s\n", path.c_str(), problem.line, problem.message.c_str());
  }
  return static_cast<long>(problems.size());
}

std::optional<uint64_t> parseAddress(llvm::StringRef text) {
  text.consume_front("0x") || text.consume_front("0X");
  uint64_t value;
  if (text.empty() || text.getAsInteger(16, value))
    return std::nullopt;
  return value;
}

} // namespace

int main(int argc, char** argv) {
  const std::string* current_input = nullptr;
  installInputErrorHandlers("symtool", &current_input);
  CLI::App app{"Reads Breakpad symbol files back.", "symtool"};
  app.require_subcommand(1);

  std::vector<std::string> files;
  bool quiet = false;
  CLI::App* validate = app.add_subcommand(
      "validate", "check symbol files: every problem with its line number; exit 1 if any");
  validate->add_option("SYM", files, "symbol files")->required();
  validate->add_flag("-q,--quiet", quiet, "no summary line");

  // What symtool lookup reads: a .sym file, or a store's module (and build).
  struct {
    std::string path, module;
    DebugId id;
  } query;
  std::shared_ptr<SymbolServers> query_servers;
  std::vector<std::string> addresses;
  bool json = false;
  CLI::App* lookup = app.add_subcommand(
      "lookup", "say what is at module-relative addresses: function, file:line, inlined calls");
  SymbolServerFlags lookup_servers, symbolize_servers, stackwalk_servers;
  lookup->add_option("SYM_OR_STORE", query.path,
                     "a .sym file or a symbol store (none with --symbols-url)");
  lookup->add_option("ADDRESS", addresses, "hex addresses relative to the module");
  addSymbolServerFlags(lookup, lookup_servers);
  lookup->add_option("--module", query.module, "the module's name (for a store)");
  lookup->add_option_function<std::string>(
      "--id", [&query](const std::string& id) { query.id = DebugId(id); },
      "the module's debug id (when a store has several)");
  lookup->add_flag("--json", json, "one JSON object per address");
  bool lookup_verbose = false;
  lookup->add_flag("-v,--verbose", lookup_verbose,
                   "on stderr: the symbol file read, and where its index came from (beside it, "
                   "the index cache, or built now) and why");

  std::string store, crash_file;
  std::vector<std::string> id_choices;
  CLI::App* symbolize = app.add_subcommand(
      "symbolize", "resolve every frame of crash text (glibc backtrace_symbols, Solaris "
                   "printstack, module + offset lines) against a symbol store");
  symbolize->add_option("--store", store, "the symbol store (or --symbols-url)");
  addSymbolServerFlags(symbolize, symbolize_servers);
  symbolize->add_option("FILE", crash_file, "crash text (default: standard input)");
  symbolize->add_option("--id", id_choices, "NAME=ID: which build of a module the crash ran")
      ->allow_extra_args(false);
  symbolize->add_flag("--json", json, "JSON Lines: one object per input line");
  bool verbose = false;
  symbolize->add_flag("-v,--verbose", verbose,
                      "on stderr, per module: the PT_DYNAMIC offsets the log and the symbol file "
                      "give, and the prelink shift applied");
  bool trim = false;
  unsigned keep = 3;
  symbolize->add_flag("--trim", trim,
                      "JSON crash reports: keep only the frames after the signal trampoline");
  symbolize->add_option("--keep", keep, "with --trim: how many frames to keep (default 3)")
      ->check(CLI::Range(1, 5));

  std::string dump_file, format = "text";
  std::vector<std::string> stores;
  bool warnings = false;
  CLI::App* stackwalk = app.add_subcommand(
      "stackwalk",
      "unwind every thread of a minidump, an ELF core file or a microdump with symbol stores, "
      "as Breakpad's processor does (STACK WIN, STACK CFI, frame pointers, scanning)");
  stackwalk->add_option("--store", stores, "a symbol store (repeatable, searched in order)");
  stackwalk
      ->add_option("DUMP", dump_file, "a minidump, an ELF core file or a log holding a microdump")
      ->required();
  addSymbolServerFlags(stackwalk, stackwalk_servers);
  stackwalk
      ->add_option("--format", format,
                   "text (default), json, breakpad (minidump_stackwalk's output), "
                   "breakpad-machine (its -m output) or rust-minidump (minidump-stackwalk "
                   "--json's)")
      ->check(CLI::IsMember({"text", "json", "breakpad", "breakpad-machine", "rust-minidump"}));
  stackwalk->add_flag("--json", json, "the same as --format json");
  bool breakpad_walk = false;
  stackwalk->add_flag("--breakpad-walk", breakpad_walk,
                      "walk by Breakpad's rules exactly, as --format breakpad does (ours correct "
                      "four of them: docs/STACKWALK.md)");
  stackwalk->add_flag("-v,--verbose", warnings,
                      "print what was odd in the dump, and why each thread's walk stopped");
  bool explain = false;
  stackwalk->add_flag("--explain", explain,
                      "on stderr, per module: every store path, cache path and symbol server URL "
                      "tried for its symbols, in order, and what each answered (found, missing, "
                      "HTTP status, a miss remembered in the cache, unreadable, another debug id)");

  std::vector<std::string> index_paths;
  CLI::App* index = app.add_subcommand(
      "index", "write each symbol file's lookup index beside it (<name>.sym.idx), so that "
               "lookups map it instead of parsing the file; for a store, every file in it");
  index->add_option("PATH", index_paths, "symbol files and symbol stores")->required();
  index->add_flag("-q,--quiet", quiet, "no summary line");

  // Each lookup reads the symbol files' indexes (docs/SYMBOL_INDEX.md).
  std::string index_cache = IndexCacheOptions::defaultDirectory();
  for (CLI::App* command : {lookup, symbolize, stackwalk})
    command->add_option("--index-cache", index_cache,
                        "where symbol files' indexes are kept for later runs ('none': not kept; "
                        "default: $XDG_CACHE_HOME/symtool/index)");

  std::string stats_file;
  CLI::App* stats = app.add_subcommand(
      "stats", "records by kind, how much of the code is covered, the largest functions");
  stats->add_option("SYM", stats_file, "a symbol file")->required();
  stats->add_flag("--json", json,
                  "one JSON object: records (by kind), bytes (code, function, line, cfi), "
                  "largest ([{name, size}])");

  std::string old_file, new_file;
  CLI::App* diff = app.add_subcommand(
      "diff", "functions added, removed, moved or with other lines; exit 1 if any differ");
  diff->add_option("A", old_file, "the first symbol file")->required();
  diff->add_option("B", new_file, "the second symbol file")->required();

  applyManual(app, symtoolManual());
  if (auto status = printManualIfAsked(symtoolManual(), &app, argc, argv))
    return *status;
  if (auto status = parseCommandLine(app, argc, argv))
    return *status;
  IndexCacheOptions index_options;
  index_options.directory = index_cache == "none" ? std::string() : index_cache;

  if (*index) {
    std::vector<std::string> sym_files;
    bool failed = false;
    for (const std::string& path : index_paths) {
      current_input = &path;
      if (!llvm::sys::fs::is_directory(path)) {
        sym_files.push_back(path);
        continue;
      }
      auto listing = listStore(path);
      if (!listing) {
        std::fprintf(stderr, "symtool: error: %s\n", llvm::toString(listing.takeError()).c_str());
        failed = true;
        continue;
      }
      for (const StoredSymbolFile& file : listing->files)
        sym_files.push_back(file.path);
    }
    size_t written = 0, current = 0;
    for (const std::string& path : sym_files) {
      current_input = &path;
      auto wrote = updateIndexBeside(path);
      if (!wrote) {
        std::fprintf(stderr, "symtool: error: %s\n", llvm::toString(wrote.takeError()).c_str());
        failed = true;
        continue;
      }
      ++(*wrote ? written : current);
    }
    if (!quiet)
      std::fprintf(stderr, "symtool: %zu indexes written, %zu up to date\n", written, current);
    return failed ? kExitError : 0;
  }

  if (*lookup) {
    query_servers = makeSymbolServers(lookup_servers);
    // With servers only, the first positional is an address.
    if (query_servers && !query.path.empty() && !llvm::sys::fs::exists(query.path) &&
        parseAddress(query.path)) {
      addresses.insert(addresses.begin(), query.path);
      query.path.clear();
    }
    if ((query.path.empty() && !query_servers) || addresses.empty()) {
      std::fprintf(stderr, "symtool lookup: %s\nRun with --help for usage.\n",
                   addresses.empty() ? "ADDRESS is required" : "SYM_OR_STORE is required");
      return kExitUsage;
    }
    current_input = &query.path;
    std::vector<std::string> searched;
    if (!query.path.empty())
      searched.push_back(query.path);
    SymbolSupplier supplier(searched, query_servers, index_options);
    llvm::Expected<const ModuleSymbols*> loaded = supplier.findNamed(query.module, query.id);
    if (!loaded) {
      std::fprintf(stderr, "symtool: error: %s\n", llvm::toString(loaded.takeError()).c_str());
      return kExitError;
    }
    if (lookup_verbose)
      std::fprintf(stderr, "symtool: %s: index %s%s%s\n", (*loaded)->path.c_str(),
                   (*loaded)->index_source == "built"   ? "built from the symbol file"
                   : (*loaded)->index_source == "cache" ? "from the index cache"
                                                        : "from beside the symbol file",
                   (*loaded)->index_note.empty() ? "" : ": ", (*loaded)->index_note.c_str());
    const std::string& module = (*loaded)->lookup.heading().name;
    bool bad = false;
    for (const std::string& text : addresses) {
      auto address = parseAddress(text);
      if (!address) {
        std::fprintf(stderr, "symtool: error: '%s' is not a hex address\n", text.c_str());
        bad = true;
        continue;
      }
      printLookup(module, *address, (*loaded)->lookup.lookup(*address), json);
    }
    return bad ? kExitError : 0;
  }

  if (*symbolize) {
    std::map<std::string, DebugId> ids;
    for (const std::string& choice : id_choices) {
      size_t equals = choice.find('=');
      if (equals == std::string::npos || equals == 0) {
        std::fprintf(stderr, "symtool: --id %s: expected NAME=ID\nRun with --help for usage.\n",
                     choice.c_str());
        return kExitUsage;
      }
      ids[choice.substr(0, equals)] = DebugId(choice.substr(equals + 1));
    }
    std::ifstream file;
    if (!crash_file.empty()) {
      file.open(crash_file, std::ios::binary);
      if (!file) {
        std::fprintf(stderr, "symtool: error: %s: cannot read it\n", crash_file.c_str());
        return kExitError;
      }
    }
    std::istream& in = crash_file.empty() ? std::cin : file;
    auto servers = makeSymbolServers(symbolize_servers);
    if (store.empty() && !servers) {
      std::fprintf(stderr, "symtool symbolize: --store or --symbols-url is required\nRun with "
                           "--help for usage.\n");
      return kExitUsage;
    }
    StoreFrameResolver resolver(store, ids, servers, index_options);
    if (verbose)
      resolver.onPrelinkCorrection(printPrelinkCorrection);
    CrashSymbolizer symbolizer(resolver);
    // Frames are resolved a backtrace (a run of frame lines) at a time, so
    // that each frame can use the load addresses the others reveal.
    std::vector<std::string> backtrace;
    auto flush = [&] {
      symbolizer.learnLoadAddresses(backtrace);
      for (const std::string& frame : backtrace)
        printSymbolized(frame, symbolizer.line(frame), json);
      backtrace.clear();
    };
    std::string line;
    std::string name = crash_file.empty() ? "<stdin>" : crash_file;
    bool skipped = false;
    for (size_t number = 1;; ++number) {
      LineRead read = readBoundedLine(in, limits::kMaxCrashTextLine, line);
      if (read == LineRead::End)
        break;
      if (read == LineRead::TooLong) {
        std::fprintf(stderr, "symtool: error: %s:%zu: %s: skipped\n", name.c_str(), number,
                     limits::overLimit("the line", limits::kMaxCrashTextLine, "bytes").c_str());
        skipped = true;
        continue;
      }
      if (parseFrameLine(line)) {
        backtrace.push_back(line);
        continue;
      }
      flush();
      if (llvm::StringRef(line).ltrim().starts_with("{") &&
          jsonNestingDepth(line) > limits::kMaxJsonDepth) {
        std::fprintf(
            stderr, "symtool: error: %s:%zu: %s: not read as a crash report\n", name.c_str(),
            number,
            limits::overLimit("the JSON's nesting", limits::kMaxJsonDepth, "levels").c_str());
        skipped = true;
      }
      if (!symbolizeReport(line, resolver, json,
                           trim ? std::optional<unsigned>(keep) : std::nullopt))
        printSymbolized(line, symbolizer.line(line), json);
    }
    flush();
    return skipped ? kExitError : 0;
  }

  if (*stackwalk) {
    current_input = &dump_file;
    auto snapshot = readProcessSnapshot(dump_file);
    if (!snapshot) {
      std::fprintf(stderr, "symtool: error: %s\n", llvm::toString(snapshot.takeError()).c_str());
      return kExitError;
    }
    if (json)
      format = "json";
    bool breakpad = format == "breakpad" || format == "breakpad-machine";
    WalkOptions options;
    options.breakpad_rules = breakpad || breakpad_walk;
    options.index = index_options;
    ProcessWalk walk =
        walkProcess(std::move(*snapshot), stores, options, makeSymbolServers(stackwalk_servers));
    if (format != "json" && format != "rust-minidump") {
      const std::vector<std::string>& notes = walk.snapshot->warnings;
      if (warnings)
        for (const std::string& note : notes)
          std::fprintf(stderr, "symtool: warning: %s: %s\n", dump_file.c_str(), note.c_str());
      else if (!notes.empty())
        std::fprintf(stderr, "symtool: %zu warning%s about %s (-v shows them)\n", notes.size(),
                     notes.size() == 1 ? "" : "s", dump_file.c_str());
      if (warnings)
        for (const WalkedThread& thread : walk.threads)
          std::fprintf(stderr, "symtool: thread %u: %s\n", thread.tid, thread.end.c_str());
    }
    if (explain)
      for (const std::string& line : explainSymbolSearch(walk))
        std::fprintf(stderr, "symtool: %s\n", line.c_str());
    if (format == "json")
      printWalkJson(walk, stdout);
    else if (format == "breakpad")
      printWalkBreakpad(walk, {}, stdout);
    else if (format == "breakpad-machine")
      printWalkBreakpadMachine(walk, stdout);
    else if (format == "rust-minidump")
      printWalkRustMinidump(walk, stdout);
    else
      printWalkText(walk, stdout);
    return 0;
  }

  auto load = [&](const std::string& path) -> std::optional<Module> {
    current_input = &path;
    auto parsed = parseSymbolFile(path);
    if (!parsed) {
      std::fprintf(stderr, "symtool: error: %s\n", llvm::toString(parsed.takeError()).c_str());
      return std::nullopt;
    }
    return std::move(parsed->module);
  };
  if (*stats) {
    auto module = load(stats_file);
    if (!module)
      return kExitError;
    printStats(stats_file, computeStats(*module), json);
    return 0;
  }
  if (*diff) {
    auto a = load(old_file);
    auto b = load(new_file);
    if (!a || !b)
      return kExitError;
    SymbolDiff d = diffSymbols(*a, *b);
    printDiff(d);
    return d.empty() ? 0 : 1;
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
