#include "dump/flows/macho_flow.h"

#include "dump/cfi/compact_unwind_rules.h"
#include "dump/dwarf/debug_info_reader.h"
#include "dump/flows/finish_dump.h"
#include "dump/locate/dsym_locator.h"
#include "dump/macho/elf_view.h"
#include "dump/macho/macho_symbols.h"
#include "dump/object/symbol_table.h"
#include "symbol_file/model/module_builder.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/MachO.h>
#include <llvm/Support/MD5.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

using namespace llvm;

namespace {

std::string upperHex(ArrayRef<uint8_t> bytes) {
  return toHex(bytes, /*LowerCase=*/false);
}

std::string uuidText(const MachOImage& image) {
  auto uuid = image.uuid();
  return uuid ? upperHex(*uuid) : std::string();
}

// The DWARF file a path names: a bundle's, else the path.
Expected<std::string> dwarfFileOf(const std::string& path) {
  if (isDsymBundle(path))
    return dsymDwarfFile(path);
  return path;
}

struct MachOInputs {
  std::unique_ptr<MachOImage> binary;
  std::unique_ptr<MachOImage> dsym; // null: the binary holds its DWARF, if any
  std::string dsym_how;
};

// The dSYM whose UUID is the binary's, from --debug-file or the candidates.
Expected<MachOInputs> openInputs(const Options& options, Diagnostics& diagnostics) {
  MachOInputs inputs;
  auto binary_path = dwarfFileOf(options.binary);
  if (!binary_path)
    return binary_path.takeError();
  auto binary = MachOImage::open(*binary_path, options.arch);
  if (!binary)
    return binary.takeError();
  inputs.binary = std::move(*binary);
  if (inputs.binary->fileType() == MachO::MH_DSYM)
    return inputs;
  std::vector<std::string> candidates;
  bool given = !options.debug_file.empty();
  if (given) {
    auto file = dwarfFileOf(options.debug_file);
    if (!file)
      return file.takeError();
    candidates.push_back(*file);
  } else {
    candidates = dsymCandidates(*binary_path, options.debug_dirs);
  }
  std::string uuid = uuidText(*inputs.binary);
  for (const std::string& candidate : candidates) {
    auto image = MachOImage::open(candidate, inputs.binary->arch());
    if (!image) {
      if (given)
        return image.takeError();
      diagnostics.note(toString(image.takeError()) + ": not read");
      continue;
    }
    std::string theirs = uuidText(**image);
    if (uuid.empty() || theirs != uuid) {
      std::string why = candidate + ": its UUID " + (theirs.empty() ? "(none)" : theirs) +
                        " is not " + inputs.binary->path() + "'s " +
                        (uuid.empty() ? "(none)" : uuid) + ": not read";
      if (given)
        return fileError(candidate, "its UUID " + (theirs.empty() ? "(none)" : theirs) +
                                        " is not " + inputs.binary->path() + "'s");
      diagnostics.note(why);
      continue;
    }
    inputs.dsym = std::move(*image);
    inputs.dsym_how = given ? "--debug-file" : "dSYM";
    diagnostics.note("read " + candidate + " (" + inputs.dsym_how + ", UUID " + uuid + ")");
    break;
  }
  return inputs;
}

// The bytes of the code at `address`, up to `end`, from the section that
// holds it (empty when no section with bytes does).
StringRef codeAt(const MachOImage& image, uint64_t address, uint64_t end) {
  for (const MachOSection& section : image.sections()) {
    if (!section.holdsCode() || address < section.address ||
        address - section.address >= section.size)
      continue;
    auto bytes = image.sectionBytes(section);
    if (!bytes)
      return {};
    uint64_t from = address - section.address;
    return bytes->substr(from, std::min(end, section.address + section.size) - address);
  }
  return {};
}

// Compact unwind entries as CFI frames, for the code no FDE covers.
void addCompactUnwind(ModuleBuilder& builder, const MachOImage& image, Diagnostics& diagnostics) {
  const MachOSection* section = image.findSection("__TEXT", "__unwind_info");
  if (!section)
    return;
  auto bytes = image.sectionBytes(*section);
  if (!bytes)
    return;
  if (image.cpuType() != MachO::CPU_TYPE_X86_64 && image.cpuType() != MachO::CPU_TYPE_ARM64) {
    diagnostics.note(image.path() + ": __unwind_info of " + image.arch() + " is not read");
    return;
  }
  std::vector<std::string> warnings;
  std::vector<CompactUnwindEntry> entries =
      readCompactUnwindEntries(*bytes, image.textAddress(), warnings);
  for (std::string& warning : warnings)
    diagnostics.warn(image.path() + ": " + warning);
  // Linkers fold neighbouring functions of one encoding into one entry:
  // each function gets its own frame (and prologue rows), split at the
  // function starts the image lists.
  std::vector<uint64_t> starts = image.functionStarts();
  std::vector<CompactUnwindEntry> split;
  for (const CompactUnwindEntry& entry : entries) {
    uint64_t from = entry.start;
    for (auto it = std::upper_bound(starts.begin(), starts.end(), entry.start);
         it != starts.end() && *it < entry.end; ++it) {
      split.push_back({from, *it, entry.encoding});
      from = *it;
    }
    split.push_back({from, entry.end, entry.encoding});
  }
  std::map<std::string, size_t> problems;
  for (const CompactUnwindEntry& entry : split) {
    std::string problem;
    auto frame =
        compactUnwindFrame(entry, image.cpuType(), codeAt(image, entry.start, entry.end), problem);
    if (frame)
      builder.addCfiFrame(std::move(*frame), CfiSource::CompactUnwind);
    else if (!problem.empty())
      ++problems[problem];
  }
  for (const auto& [problem, count] : problems)
    diagnostics.warn(image.path() + ": __unwind_info: " + std::to_string(count) + " x " + problem +
                     ": no STACK CFI for it");
}

} // namespace

bool isMachOInput(const std::string& path) {
  return isDsymBundle(path) || MachOImage::isMachO(path);
}

DebugId machODebugId(const MachOImage& image) {
  if (auto uuid = image.uuid())
    return DebugId::fromUuid(*uuid);
  // No LC_UUID (old linkers): an MD5 of the slice, as Breakpad's falls back to.
  MD5 md5;
  md5.update(image.bytes());
  MD5::MD5Result digest = md5.final();
  return DebugId::fromUuid(digest);
}

Expected<Module> machOIdentity(const MachOImage& image, const Options& options) {
  Module header;
  std::optional<std::string> cpu = machOCpuName(image.cpuType(), image.cpuSubtype());
  if (!cpu)
    return fileError(image.path(), "unsupported Mach-O cpu " + image.arch() +
                                       ": Breakpad has no CPU name for it");
  header.os = options.os.empty() ? "mac" : options.os;
  header.cpu = *cpu;
  header.debug_id = options.debug_id_override ? *options.debug_id_override : machODebugId(image);
  header.code_id = CodeId(uuidText(image));
  header.name =
      options.name_override ? *options.name_override : sys::path::filename(image.path()).str();
  header.load_address = image.textAddress();
  return header;
}

Expected<Module> dumpMachOModule(const Options& options, Diagnostics& diagnostics,
                                 const DumpProgress& progress, DumpFacts* facts) {
  auto inputs = openInputs(options, diagnostics);
  if (!inputs)
    return inputs.takeError();
  const MachOImage& binary = *inputs->binary;
  const MachOImage& debug = inputs->dsym ? *inputs->dsym : binary;
  if (facts) {
    facts->debug_info_from = inputs->dsym ? "debug-file" : binary.hasDwarf() ? "binary" : "none";
    if (inputs->dsym) {
      facts->debug_file = inputs->dsym->path();
      facts->debug_file_how = inputs->dsym_how;
    }
  }
  auto header = machOIdentity(binary, options);
  if (!header)
    return header.takeError();
  if (options.header_only)
    return std::move(*header);
  if (!inputs->dsym && !binary.hasDwarf() && binary.fileType() != MachO::MH_DSYM)
    diagnostics.warn(binary.path() + ": no DWARF and no dSYM found (" + binary.path() +
                     ".dSYM, or give its directory): only PUBLIC and STACK CFI records");

  ModuleBuilder builder(std::move(*header));
  builder.setLoadedRanges(binary.loadedRanges());
  // The binary's symbol table, else the dSYM's copy of it.
  std::vector<CodeSymbol> symbols = readMachOSymbols(binary, options.names, diagnostics);
  if (symbols.empty() && inputs->dsym)
    symbols = readMachOSymbols(*inputs->dsym, options.names, diagnostics);
  SymbolIndex symbol_index(symbols);

  std::unique_ptr<ElfImage> debug_view;
  if (debug.hasDwarf()) {
    auto view = machOElfView(debug);
    if (!view)
      diagnostics.warn(toString(view.takeError()));
    else
      debug_view = std::move(*view);
  }
  if (debug_view)
    readDebugInfo(*debug_view, dumpDebugInfoOptions(options, symbol_index, progress), builder,
                  diagnostics);
  for (CodeSymbol& symbol : symbols)
    builder.addCodeSymbol(std::move(symbol));

  if (!options.no_cfi) {
    std::unique_ptr<ElfImage> binary_view;
    if (&debug == &binary && debug_view) {
      addUnwindTables(builder, {debug_view.get()}, binary.path(), diagnostics);
    } else {
      auto view = machOElfView(binary);
      if (!view)
        diagnostics.warn(toString(view.takeError()));
      else
        binary_view = std::move(*view);
      std::vector<const ElfImage*> images;
      if (binary_view)
        images.push_back(binary_view.get());
      if (debug_view)
        images.push_back(debug_view.get());
      if (!images.empty())
        addUnwindTables(builder, images, binary.path(), diagnostics);
    }
    addCompactUnwind(builder, binary, diagnostics);
  }
  return finishDump(std::move(builder), options, diagnostics,
                    "no usable __eh_frame, __debug_frame or __unwind_info");
}

} // namespace dumpsyms
