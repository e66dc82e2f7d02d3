#include "dump/flows/windows_flow.h"

#include "dump/flows/path_prefix_map.h"
#include "dump/flows/pe_dwarf_flow.h"
#include "dump/flows/pe_only_flow.h"
#include "dump/flows/pe_unwind_rules.h"
#include "dump/locate/pdb_locator.h"
#include "dump/object/elf_image.h"
#include "dump/pdb/breakpad_pdb_names.h"
#include "dump/pdb/dia_local_names.h"
#include "dump/pdb/frame_data.h"
#include "dump/pdb/inlinee_names.h"
#include "dump/pdb/module_symbols.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pdb/publics.h"
#include "dump/pdb/undname_printer.h"
#include "dump/pdb/windows_names.h"
#include "dump/pe/pe_image.h"
#include "store/symbol_servers/symbol_cache.h"
#include "store/symbol_servers/windows_symbol_fetch.h"
#include "symbol_file/model/module_builder.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleList.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <map>
#include <unordered_map>

namespace dumpsyms {

using namespace llvm;

bool pdbBelongsTo(const PdbFile& pdb, const CodeViewRecord& record) {
  return pdb.identity().guid == record.guid && pdb.identity().age == record.age;
}

namespace {

std::string fileStart(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char bytes[32] = {};
  in.read(bytes, sizeof bytes);
  return std::string(bytes, size_t(in.gcount()));
}

// A path read from a (possibly corrupt) file, fit for a one-line message.
std::string printable(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return text;
}

std::optional<std::string> windowsCpu(uint16_t machine) {
  switch (machine) {
  case COFF::IMAGE_FILE_MACHINE_I386:
    return "x86";
  case COFF::IMAGE_FILE_MACHINE_AMD64:
    return "x86_64";
  case COFF::IMAGE_FILE_MACHINE_ARM64:
    return "arm64";
  case COFF::IMAGE_FILE_MACHINE_ARMNT:
    return "arm";
  default:
    return std::nullopt;
  }
}

DebugId codeViewId(const CodeViewRecord& record) {
  return DebugId::fromGuid(record.guid, record.age);
}

// The PE beside a PDB given alone ("app.pdb" -> "app.exe" or "app.dll"),
// when its CodeView record names this PDB.
std::unique_ptr<PeImage> peBesidePdb(const PdbFile& pdb, Diagnostics& diagnostics) {
  for (const char* extension : {".exe", ".dll"}) {
    SmallString<256> path(pdb.path());
    sys::path::replace_extension(path, extension);
    if (!sys::fs::exists(path))
      continue;
    auto pe = PeImage::open(std::string(path));
    if (!pe) {
      diagnostics.warn(toString(pe.takeError()));
      continue;
    }
    if ((*pe)->codeView() && pdbBelongsTo(pdb, *(*pe)->codeView()))
      return std::move(*pe);
    diagnostics.note(std::string(path) + " is beside the PDB but does not name it: not read");
  }
  return nullptr;
}

// The Windows symbol servers and stores of --symbol-server, then of
// $_NT_SYMBOL_PATH; what they give is cached in their downstream stores
// (default: $XDG_CACHE_HOME/dump_syms/windows-symbols).
WindowsSymbolFetcher symbolFetcher(const Options& options, Diagnostics& diagnostics) {
  std::string default_cache = userCacheDir("dump_syms", "windows-symbols");
  WindowsSymbolFetchOptions fetch;
  for (const std::string& spec : options.symbol_servers)
    for (WindowsSymbolSource& source : parseSymbolServerSpec(spec, default_cache))
      fetch.sources.push_back(std::move(source));
  if (const char* path = std::getenv("_NT_SYMBOL_PATH"))
    for (WindowsSymbolSource& source : parseWindowsSymbolPath(path, default_cache))
      fetch.sources.push_back(std::move(source));
  fetch.retry.retries = 3;
  return WindowsSymbolFetcher(std::move(fetch),
                              [&diagnostics](const std::string& line) { diagnostics.warn(line); });
}

// The PDB the PE's CodeView record names, from the symbol servers.
Expected<std::unique_ptr<PdbFile>> fetchPdb(WindowsSymbolFetcher& fetcher,
                                            const CodeViewRecord& record) {
  std::unique_ptr<PdbFile> chosen;
  auto wanted = [&](const std::string& path) {
    auto pdb = PdbFile::open(path);
    if (!pdb) {
      consumeError(pdb.takeError());
      return false;
    }
    if (!pdbBelongsTo(**pdb, record))
      return false;
    chosen = std::move(*pdb);
    return true;
  };
  WindowsFileKey key{pdbFileName(record.pdb_path), pdbServerKey(codeViewId(record))};
  if (Expected<std::string> found = fetcher.find(key, wanted); !found)
    return found.takeError();
  return chosen;
}

// The PE of a PDB given alone, by the code id the user gives.
std::unique_ptr<PeImage> fetchPe(WindowsSymbolFetcher& fetcher, const PdbFile& pdb,
                                 const Options& options, Diagnostics& diagnostics) {
  std::vector<std::string> names;
  if (!options.code_file.empty()) {
    names.push_back(options.code_file);
  } else {
    for (const char* extension : {".dll", ".exe"}) {
      SmallString<128> name(sys::path::filename(pdb.path()));
      sys::path::replace_extension(name, extension);
      names.push_back(std::string(name));
    }
  }
  std::string looked;
  for (const std::string& name : names) {
    std::unique_ptr<PeImage> chosen;
    auto wanted = [&](const std::string& path) {
      auto pe = PeImage::open(path);
      if (!pe) {
        consumeError(pe.takeError());
        return false;
      }
      if (!(*pe)->codeView() || !pdbBelongsTo(pdb, *(*pe)->codeView()))
        return false;
      chosen = std::move(*pe);
      return true;
    };
    Expected<std::string> found = fetcher.find({name, options.code_id.key()}, wanted);
    if (found)
      return chosen;
    looked += (looked.empty() ? "" : "; ") + toString(found.takeError());
  }
  diagnostics.warn(pdb.path() + ": its PE (code id " + options.code_id.str() +
                   ") was not fetched: " + looked);
  return nullptr;
}

struct WindowsInputs {
  std::unique_ptr<PdbFile> pdb; // null: the PE is dumped without it
  std::unique_ptr<PeImage> pe;  // null: no PE at hand
  bool gnu_debug_info = false;  // no PDB: the PE's DWARF and COFF symbols (pe_dwarf_flow)
  std::string pe_only_why;      // no PDB and no DWARF: why the PE is dumped alone
};

Expected<WindowsInputs> openWindowsInputs(const Options& options, Diagnostics& diagnostics,
                                          DumpFacts* facts) {
  WindowsInputs inputs;
  std::string start = fileStart(options.binary);
  if (looksLikePdb(start) ||
      (!looksLikePe(start) && sys::path::extension(options.binary).lower() == ".pdb")) {
    auto pdb = PdbFile::open(options.binary);
    if (!pdb)
      return pdb.takeError();
    inputs.pdb = std::move(*pdb);
    inputs.pe = peBesidePdb(*inputs.pdb, diagnostics);
    if (!inputs.pe && !options.code_id.empty()) {
      WindowsSymbolFetcher fetcher = symbolFetcher(options, diagnostics);
      if (fetcher.empty())
        diagnostics.warn(options.binary + ": --code-id without a symbol server (--symbol-server, "
                                          "$_NT_SYMBOL_PATH): its PE is not fetched");
      else
        inputs.pe = fetchPe(fetcher, *inputs.pdb, options, diagnostics);
    }
    if (facts)
      facts->debug_info_from = "binary";
    return inputs;
  }
  auto pe = PeImage::open(options.binary);
  if (!pe)
    return pe.takeError();
  inputs.pe = std::move(*pe);
  const std::optional<CodeViewRecord>& record = inputs.pe->codeView();
  if (options.pe_only) {
    inputs.pe_only_why = "--pe-only";
    if (facts)
      facts->debug_info_from = "pe-only";
    return inputs;
  }
  // No PDB to look for (MinGW's linkers write no CodeView record, or one
  // naming none): the PE's DWARF, or its companion's, else the PE alone.
  bool names_pdb = record && !pdbFileName(record->pdb_path).empty();
  bool debug_file_is_pe = !options.debug_file.empty() && looksLikePe(fileStart(options.debug_file));
  if (debug_file_is_pe || (!names_pdb && options.debug_file.empty())) {
    inputs.gnu_debug_info = debug_file_is_pe || peHasGnuDebugInfo(*inputs.pe);
    if (!inputs.gnu_debug_info) {
      inputs.pe_only_why = "the PE names no PDB and holds no DWARF and no symbol table";
      if (facts)
        facts->debug_info_from = "pe-only";
    }
    return inputs;
  }
  std::vector<std::string> candidates = pdbCandidates(
      options.binary, record ? record->pdb_path : "", options.debug_file, options.debug_dirs);
  std::optional<std::string> mismatch;
  for (const std::string& candidate : candidates) {
    if (!sys::fs::is_regular_file(candidate))
      continue;
    auto pdb = PdbFile::open(candidate);
    if (!pdb)
      return pdb.takeError();
    if (!record || pdbBelongsTo(**pdb, *record)) {
      if (facts) {
        facts->debug_info_from = "debug-file";
        facts->debug_file = candidate;
        facts->debug_file_how = options.debug_file.empty() ? "CodeView record" : "--debug-file";
      }
      inputs.pdb = std::move(*pdb);
      return inputs;
    }
    mismatch = fmt::format("{}: the PDB does not belong to {}: the PDB is {}, the PE names {}",
                           candidate, options.binary,
                           DebugId::fromGuid((*pdb)->identity().guid, (*pdb)->identity().age),
                           codeViewId(*record));
    if (!options.debug_file.empty())
      break;
  }
  if (mismatch)
    return createStringError(inconvertibleErrorCode(), "%s", mismatch->c_str());
  std::string looked;
  for (const std::string& candidate : candidates)
    looked += (looked.empty() ? "" : ", ") + printable(candidate);
  std::string missing = fmt::format("its PDB {} was not found (looked at: {})",
                                    record ? printable(pdbFileName(record->pdb_path)) : "", looked);
  if (!record || !options.debug_file.empty())
    return fileError(options.binary, missing);
  WindowsSymbolFetcher fetcher = symbolFetcher(options, diagnostics);
  if (!fetcher.empty()) {
    Expected<std::unique_ptr<PdbFile>> fetched = fetchPdb(fetcher, *record);
    if (fetched) {
      if (facts) {
        facts->debug_info_from = "debug-file";
        facts->debug_file = (*fetched)->path();
        facts->debug_file_how = "a symbol server";
      }
      diagnostics.note("read " + (*fetched)->path() + " (from the symbol path)");
      inputs.pdb = std::move(*fetched);
      return inputs;
    }
    missing += "; " + toString(fetched.takeError());
  }
  // No PDB: the PE's own DWARF and symbols, if it has them (a MinGW build
  // that also wrote a CodeView record); else what the PE alone says (a
  // third-party or system DLL).
  if (peHasGnuDebugInfo(*inputs.pe)) {
    diagnostics.note(options.binary + ": " + missing + ": its DWARF and symbol table are read");
    inputs.gnu_debug_info = true;
    return inputs;
  }
  inputs.pe_only_why = missing;
  if (facts)
    facts->debug_info_from = "pe-only";
  return inputs;
}

} // namespace

Expected<Module> windowsIdentity(const PdbFile& pdb, const PeImage* pe) {
  Module header;
  header.os = "windows";
  std::optional<std::string> cpu = windowsCpu(pdb.identity().machine);
  if (!cpu && pe)
    cpu = windowsCpu(pe->machine());
  if (!cpu)
    return fileError(pdb.path(), fmt::format("unsupported machine type {:#x}: Breakpad has no CPU "
                                             "name for it",
                                             pdb.identity().machine));
  header.cpu = *cpu;
  header.debug_id = DebugId::fromGuid(pdb.identity().guid, pdb.identity().age);
  // A minidump names the module's symbols by the PDB name the PE records;
  // the PDB read may have been renamed (--debug-file).
  std::string recorded = pe && pe->codeView() ? pdbFileName(pe->codeView()->pdb_path) : "";
  header.name = !recorded.empty() ? printable(recorded) : sys::path::filename(pdb.path()).str();
  if (pe) {
    header.code_id = CodeId::fromPeImage(pe->timeDateStamp(), pe->sizeOfImage());
    header.code_file = sys::path::filename(pe->path()).str();
  }
  header.load_address = 0; // CodeView addresses become RVAs
  return header;
}

Expected<Module> peIdentity(const PeImage& pe) {
  Module header;
  header.os = "windows";
  std::optional<std::string> cpu = windowsCpu(pe.machine());
  if (!cpu)
    return fileError(pe.path(), fmt::format("unsupported machine type {:#x}", pe.machine()));
  header.cpu = *cpu;
  // Without a CodeView record (MinGW's GNU ld unless --build-id) the id is
  // 33 zeros, as Mozilla's dump_syms writes it and Crashpad records such a
  // module; without a PDB name (ld --build-id, lld in MinGW mode) the module
  // is named by its code file, as minidumps then name it.
  header.debug_id = pe.codeView() ? codeViewId(*pe.codeView()) : DebugId::null();
  header.name = pe.codeView() ? printable(pdbFileName(pe.codeView()->pdb_path)) : "";
  if (header.name.empty())
    header.name = printable(sys::path::filename(pe.path()).str());
  header.code_id = CodeId::fromPeImage(pe.timeDateStamp(), pe.sizeOfImage());
  header.code_file = sys::path::filename(pe.path()).str();
  return header;
}

Expected<Module> peDumpHeader(const PeImage& pe, const Options& options) {
  auto header = peIdentity(pe);
  if (!header)
    return header.takeError();
  if (options.debug_id_override)
    header->debug_id = *options.debug_id_override;
  if (options.name_override)
    header->name = *options.name_override;
  return header;
}

bool isWindowsInput(const std::string& path) {
  std::string start = fileStart(path);
  if (looksLikePdb(start) || looksLikePe(start))
    return true;
  // A damaged .pdb/.exe/.dll is reported as what its name says it is.
  std::string extension = sys::path::extension(path).lower();
  return !StringRef(start).starts_with("\x7f"
                                       "ELF") &&
         !start.empty() && (extension == ".pdb" || extension == ".exe" || extension == ".dll");
}

namespace {

Expected<Module> dumpWindows(const Options& options, Diagnostics& diagnostics,
                             const DumpProgress& progress, DumpFacts* facts) {
  auto inputs = openWindowsInputs(options, diagnostics, facts);
  if (!inputs)
    return inputs.takeError();
  if (inputs->gnu_debug_info)
    return dumpPeDwarfModule(*inputs->pe, options, diagnostics, progress, facts);
  if (!inputs->pdb) {
    // (the warning only once there is a dump: a PE refused is one error)
    auto module = dumpPeOnlyModule(*inputs->pe, options, diagnostics);
    if (module)
      diagnostics.warn(options.binary + ": " + inputs->pe_only_why +
                       ": written from the PE alone: MODULE, INFO, PUBLIC from its exports" +
                       (peHasUnwindRules(*inputs->pe) ? ", STACK CFI from .pdata" : "") +
                       "; no FUNC, line or inline records");
    return module;
  }
  return dumpPdbModule(*inputs->pdb, inputs->pe.get(), options, diagnostics);
}

} // namespace

Expected<Module> dumpPdbModule(PdbFile& pdb, const PeImage* pe, const Options& options,
                               Diagnostics& diagnostics) {
  if (!pe && (pdb.identity().machine == COFF::IMAGE_FILE_MACHINE_AMD64 ||
              pdb.identity().machine == COFF::IMAGE_FILE_MACHINE_ARM64))
    diagnostics.note(pdb.path() + ": no PE at hand (give the .exe/.dll, or put it beside the "
                                  "PDB): no INFO CODE_ID and no STACK CFI");

  auto identity = windowsIdentity(pdb, pe);
  if (!identity)
    return identity.takeError();
  Module header = std::move(*identity);
  if (options.debug_id_override)
    header.debug_id = *options.debug_id_override;
  if (options.header_only)
    return header;
  bool x86 = header.cpu == "x86";

  // Publics: PUBLIC records, and the full (mangled) names of C++ functions,
  // which procedure records give without parameters.
  size_t skipped_publics = 0;
  bool breakpad_names = options.names == NameStyle::Breakpad;
  // (Both styles write a PUBLIC for every public Breakpad's dumper does:
  // DIA counts those in a code section as code, flags or not.)
  std::vector<PdbPublic> publics = readCodePublics(pdb, skipped_publics, true);
  if (skipped_publics)
    diagnostics.warn(pdb.path() + ": " + std::to_string(skipped_publics) +
                     " public symbols were unreadable");
  // At each address the public Breakpad's dumper picks: the least decorated
  // name (in llvm style: the first mangled one, for its parameters).
  std::unordered_map<uint32_t, std::string> mangled_at;
  std::map<uint32_t, std::vector<std::string>> names_at;
  for (const PdbPublic& symbol : publics) {
    if (isMsvcMangled(symbol.name))
      mangled_at.emplace(symbol.rva, symbol.name);
    names_at[symbol.rva].push_back(symbol.name);
  }
  for (auto& [rva, names] : names_at)
    std::sort(names.begin(), names.end());
  // The public DIA undecorates for a procedure: the one of its name (x86
  // decoration aside: "__chkstk" for "_chkstk" beside "__alloca_probe"), or
  // the one its name is the undecorated form of (a folded scalar and vector
  // deleting destructor share an address), else the least.
  auto publicFor = [&](const std::vector<std::string>& names, StringRef procedure) {
    for (const std::string& name : names)
      if (name == procedure ||
          (x86 && !isMsvcMangled(name) && undecorateName(name, true).name == procedure))
        return name;
    for (const std::string& name : names)
      if (auto undecorated = undnameStyle(name);
          undecorated && StringRef(*undecorated).starts_with((procedure + "(").str()))
        return name;
    return names.front();
  };
  DiaLocalNames local_names(pdb.raw());
  // Breakpad's name of a procedure, and the stack parameter size it writes
  // in both styles on x86 (from the stdcall/fastcall decoration of the
  // public it names the procedure by).
  auto breakpadName = [&](const ProcedureFacts& facts) -> BreakpadPdbName {
    if (auto found = names_at.find(facts.rva); found != names_at.end())
      return breakpadNameOfDecorated(publicFor(found->second, facts.name));
    if (!facts.local)
      return breakpadNameOfDecorated(facts.name);
    if (auto dia = local_names.name(facts.name, facts.type))
      return {breakpadNameOfLocal(std::move(*dia)), 0};
    return {facts.name.empty() ? "<name omitted>" : facts.name.str(), 0};
  };
  ProcedureNamer namer = [&](const ProcedureFacts& facts) -> ProcedureName {
    if (breakpad_names) {
      BreakpadPdbName named = breakpadName(facts);
      return {spellAnonymousNamespaces(std::move(named.name)), named.stack_parameter_size};
    }
    // (A local function without a public has no decoration to give one.)
    uint64_t parameter_size = 0;
    if (x86 && (names_at.contains(facts.rva) || !facts.local))
      parameter_size = breakpadName(facts).stack_parameter_size;
    auto mangled = mangled_at.find(facts.rva);
    if (mangled != mangled_at.end())
      return {spellAnonymousNamespaces(undecorateName(mangled->second, x86).name), parameter_size};
    return {spellAnonymousNamespaces(facts.name.empty() ? std::string("<name omitted>")
                                                        : facts.name.str()),
            parameter_size};
  };

  ModuleBuilder builder(std::move(header));
  auto dbi = pdb.raw().getPDBDbiStream();
  if (!dbi)
    return fileError(pdb.path(), "corrupt DBI stream: " + toString(dbi.takeError()));
  InlineeNames inlinees(pdb);
  for (const std::string& warning : pdb.openWarnings())
    diagnostics.warn(pdb.path() + ": " + warning);
  uint32_t module_count = pdb.moduleCount();
  for (uint32_t i = 0; i < module_count; ++i) {
    ModuleSymbolsResult symbols = readModuleSymbols(pdb, i, inlinees, namer, options.inlines);
    for (std::string& warning : symbols.warnings)
      diagnostics.warn(pdb.path() + ": " + warning);
    builder.addUnit(std::move(symbols.unit));
  }
  for (const std::string& problem : inlinees.problems())
    diagnostics.warn(pdb.path() + ": " + problem + ": inlined functions are not named");
  if (breakpad_names) {
    for (const auto& [rva, names] : names_at) {
      BreakpadPdbName named = breakpadNameOfDecorated(names.front());
      builder.addCodeSymbol({rva, 0, spellAnonymousNamespaces(std::move(named.name)),
                             named.stack_parameter_size, names.size() > 1});
    }
  } else {
    for (const PdbPublic& symbol : publics)
      builder.addCodeSymbol({symbol.rva, 0,
                             spellAnonymousNamespaces(undecorateName(symbol.name, x86).name),
                             x86 ? breakpadNameOfDecorated(symbol.name).stack_parameter_size : 0});
  }

  BuildOptions build_options;
  if (!options.no_cfi && pe) {
    addPeUnwindRules(*pe, builder, diagnostics);
    // (The PDB's functions of an OMAP image are in its pre-rewrite
    // layout, the PE's unwind data in the shipped one: no gaps between.)
    if (!pdb.omap())
      build_options.uncovered_function_rules = peLeafFunctionRules(*pe);
  }
  // (Breakpad's Windows dumper marks every shared address; the readers'
  // own `multiple` says where.)
  build_options.mark_multiple = options.mark_multiple && !breakpad_names;
  // (PUBLIC records where Breakpad's dumper writes them: wherever no
  // function starts, inside functions too.)
  build_options.publics_inside_functions = true;
  build_options.keep_inlines = options.inlines;
  build_options.threads = options.jobs;
  BuildStats stats;
  Module module = std::move(builder).finish(build_options, stats);
  if (!options.no_cfi) {
    StackWinResult stack_win = readStackWin(pdb, breakpad_names);
    for (std::string& warning : stack_win.warnings)
      diagnostics.warn(pdb.path() + ": " + warning);
    module.stack_win = std::move(stack_win.records);
  }
  if (pdb.omap()) {
    diagnostics.note(pdb.path() + ": OMAP (" + std::to_string(pdb.omap()->size()) +
                     " blocks): addresses mapped to the rewritten image");
    applyOmap(module, *pdb.omap());
  }
  std::vector<PathPrefixMapping> prefix_map;
  for (const std::string& mapping : options.path_prefix_map)
    if (auto parsed = parsePathPrefixMapping(mapping))
      prefix_map.push_back(*parsed);
  applyPathPrefixMap(module, prefix_map);
  if (options.check_cfi && module.cfi_frames.empty() && module.stack_win.empty())
    return fileError(options.binary, "no STACK CFI or STACK WIN records (--check-cfi): the PDB "
                                     "has no FrameData and no x64 PE with .pdata is at hand");
  return module;
}

namespace {

// LLVM's messages can span lines or quote bytes of the file: one line,
// printable, is what the command line promises.
Error oneLine(Error error) {
  return createStringError(inconvertibleErrorCode(), "%s",
                           printable(toString(std::move(error))).c_str());
}

} // namespace

Expected<Module> dumpWindowsModule(const Options& options, Diagnostics& diagnostics,
                                   const DumpProgress& progress, DumpFacts* facts) {
  auto module = dumpWindows(options, diagnostics, progress, facts);
  if (!module)
    return oneLine(module.takeError());
  return module;
}

} // namespace dumpsyms
