#include "dump/dwarf/debug_info_reader.h"

#include "dump/dwarf/die_overrun_guard.h"
#include "dump/dwarf/early_unit_walk.h"
#include "dump/dwarf/section_inflation.h"
#include "dump/dwarf/section_release.h"
#include "dump/dwarf/unit_header_repair.h"
#include "dump/dwarf/unit_residency.h"

#include <algorithm>
#include <atomic>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// LLVM 19's DWARF parser is not thread-safe while it parses: abbreviation
// tables, .dwo loading and the lookup of a unit's bases fill shared caches
// without locks, and a reference into another unit parses that unit. So
// those are done here, one unit at a time, before the parallel walk: every
// unit's abbreviations and unit DIE, and the split units. Then either the
// walk parses and frees each unit's DIEs as it goes (`UnitResidency`, which
// also takes the units references lead into), or, when `keep_all` or when
// the input needs it, all DIEs are parsed here and kept.
struct PreparedUnits {
  // False when some unit's abbreviations cannot be read: LLVM would then
  // retry parsing them, filling a shared table, from whichever thread
  // touches that unit (also through a reference from another unit). Such
  // input is read on one thread.
  bool sound = true;
  // Set when the walk parses DIEs on demand: the units it may parse.
  std::unique_ptr<UnitResidency> residency;
  // No DIE refers into another unit: each unit's bytes are dead once it
  // is extracted.
  bool self_contained = false;
};

// `read_before`: the units before this .debug_info offset were read
// already (dump/dwarf/early_unit_walk) and are left alone. `cutter`: checks
// the file's own units before LLVM parses them (die_overrun_guard).
PreparedUnits prepareUnits(DWARFContext& context, const std::vector<DWARFUnit*>& compile_units,
                           const ExtractOptions& options, unsigned threads, bool keep_all,
                           uint64_t read_before = 0, DieCutter* cutter = nullptr) {
  PreparedUnits prepared;
  std::vector<DWARFUnit*> all;
  for (const auto& unit : context.info_section_units())
    if (unit->getOffset() >= read_before)
      all.push_back(unit.get());
  for (const auto& unit : context.types_section_units())
    all.push_back(unit.get());
  for (DWARFUnit* unit : all) {
    prepared.sound &= unit->getAbbreviations() != nullptr;
    if (cutter)
      cutter->check(*unit, /*unit_die_only=*/true);
    unit->getUnitDIE(true);
  }
  size_t own_units = all.size();
  for (DWARFUnit* unit : compile_units) {
    DWARFDie unit_die = unit->getUnitDIE(true);
    if (!unit_die || !unit_die.find({dwarf::DW_AT_dwo_name, dwarf::DW_AT_GNU_dwo_name}))
      continue;
    std::string location = options.locate_dwo ? options.locate_dwo(*unit) : std::string();
    DWARFDie split = unit->getNonSkeletonUnitDIE(true, location);
    if (split && split.getDwarfUnit() != unit) {
      prepared.sound &= split.getDwarfUnit()->getAbbreviations() != nullptr;
      all.push_back(split.getDwarfUnit());
    }
  }
  // Split units live in contexts of their own, which references from them
  // would parse: those files are read the old way (their DIEs are in the
  // .dwo files, not in this file's peak).
  bool on_demand = !keep_all && prepared.sound && all.size() == own_units;
  if (on_demand) {
    prepared.residency = std::make_unique<UnitResidency>(all, cutter);
    prepared.self_contained = !mayReferAcrossUnits(all);
    return prepared;
  }
  auto extract = [&](size_t i) {
    if (cutter && i < own_units)
      cutter->check(*all[i], /*unit_die_only=*/false);
    all[i]->getUnitDIE(false);
  };
  if (threads <= 1 || !prepared.sound) {
    for (size_t i = 0; i < all.size(); ++i)
      extract(i);
    return prepared;
  }
  DefaultThreadPool pool(hardware_concurrency(threads));
  for (size_t i = 0; i < all.size(); ++i)
    pool.async([i, &extract] { extract(i); });
  pool.wait();
  return prepared;
}

// True when the units LLVM found reach the end of .debug_info: it stops
// early at a unit header it cannot parse.
bool allUnitsParsed(DWARFContext& context) {
  uint64_t size = 0, end = 0;
  context.getDWARFObj().forEachInfoSections(
      [&](const DWARFSection& section) { size += section.Data.size(); });
  for (const auto& unit : context.info_section_units())
    end = std::max(end, unit->getNextUnitOffset());
  return end >= size;
}

} // namespace

StartedDebugInfo::StartedDebugInfo() = default;
StartedDebugInfo::StartedDebugInfo(StartedDebugInfo&&) = default;
StartedDebugInfo& StartedDebugInfo::operator=(StartedDebugInfo&&) = default;
StartedDebugInfo::~StartedDebugInfo() = default;

namespace {

unsigned threadCount(unsigned requested) {
  return requested ? requested : hardware_concurrency().compute_thread_count();
}

} // namespace

StartedDebugInfo startDebugInfo(const ElfImage& image, unsigned threads) {
  StartedDebugInfo started;
  started.started = true;
  if (std::string problem = image.implausibleCompressedSection(); !problem.empty()) {
    started.warnings.push_back(image.path() + ": " + problem + ": the file's DWARF is not read");
    started.unreadable = true;
    return started;
  }
  started.inflation = DwarfInflation::start(image, threadCount(threads), started.warnings);
  return started;
}

size_t readDebugInfo(const ElfImage& image, const DebugInfoOptions& options, ModuleBuilder& builder,
                     Diagnostics& diagnostics, StartedDebugInfo started) {
  auto report = [&](Error error) {
    diagnostics.warn(image.path() + ": " + toString(std::move(error)));
  };
  if (!started.started)
    started = startDebugInfo(image, options.threads);
  if (started.unreadable) {
    diagnostics.warnAll(std::move(started.warnings));
    return 0;
  }
  auto open = [&](const ElfImage& source) {
    return DWARFContext::create(source.object(), DWARFContext::ProcessDebugRelocations::Process,
                                nullptr, options.dwp_path, report, report, /*ThreadSafe=*/true);
  };
  unsigned threads = threadCount(options.threads);
  std::vector<std::string> open_warnings = std::move(started.warnings);
  std::unique_ptr<DwarfInflation> inflation = std::move(started.inflation);
  // While .debug_info inflates, its first units can be read (on files
  // whose units stand alone; Breakpad's names and dwz need them all).
  // LLVM reads a DIE's values past the end of the section when their sizes
  // say so (die_overrun_guard): in the dump's own copy of the DWARF, each
  // unit is checked, and cut, just before LLVM parses it.
  DieCutter cutter(image.path());
  EarlyUnits early;
  if (inflation && threads > 1 && options.extract.names == NameStyle::Llvm &&
      options.supplementary_path.empty())
    early = readUnitsWhileInflating(*inflation, image.isLittleEndian(), image.is64Bit() ? 8 : 4,
                                    options.extract, cutter, threads);
  std::unique_ptr<ElfImage> prepared = inflation ? inflation->finish(open_warnings) : nullptr;
  if (!prepared)
    cutter.takeWarnings(); // (the file is read again, by LLVM, and checked again)
  if (!prepared && !early.results.empty()) {
    size_t dropped = early.results.size();
    early = EarlyUnits();
    early.dropped = dropped;
  }
  if (early.dropped)
    diagnostics.note(std::to_string(early.dropped) +
                     " compile units read while .debug_info was inflating were dropped: the "
                     "section did not inflate as one whole stream");
  inflation.reset();
  const ElfImage& source = prepared ? *prepared : image;
  std::unique_ptr<DWARFContext> context = open(source);
  // LLVM stops at the first unit header it cannot parse; blank the broken
  // headers in a copy and read that instead, losing only those units.
  std::unique_ptr<ElfImage> repaired;
  if (!allUnitsParsed(*context)) {
    repaired = repairUnitHeaders(source, open_warnings);
    if (repaired)
      context = open(*repaired);
  }
  // Over bytes LLVM owns (the file itself), the overrunning DIEs are cut
  // in another copy, all before the walk.
  bool own_copy = prepared || repaired;
  if (!own_copy) {
    DieOverrunCut cut = cutOverrunningDies(image, *context, open_warnings);
    if (cut.needed) {
      if (!cut.image) {
        diagnostics.warnAll(std::move(open_warnings));
        diagnostics.warn(image.path() + ": its DWARF is not read");
        return 0;
      }
      repaired = std::move(cut.image);
      context = open(*repaired);
    }
  }
  diagnostics.warnAll(std::move(open_warnings));

  // The early units end where a unit of this context starts (or at its
  // last unit's end); anything else would be a bug, met by reading all.
  if (early.end) {
    bool aligned = false;
    for (const auto& unit : context->info_section_units())
      aligned |= unit->getOffset() == early.end || unit->getNextUnitOffset() == early.end;
    if (!aligned)
      early = EarlyUnits(); // (never seen: the same bytes give the same headers)
  }
  for (std::string& warning : early.context_warnings)
    diagnostics.warn(image.path() + ": " + warning);
  std::vector<DWARFUnit*> units;
  for (const auto& unit : context->compile_units())
    if (unit->getOffset() >= early.end)
      units.push_back(unit.get());
  // Breakpad's spelling matches DIEs across units by address
  // (`ForwardReferences`), so it keeps every unit's DIEs.
  PreparedUnits prepared_units = prepareUnits(*context, units, options.extract, threads,
                                              options.extract.names == NameStyle::Breakpad,
                                              early.end, own_copy ? &cutter : nullptr);
  if (!prepared_units.sound) {
    diagnostics.warn(
        image.path() +
        ": some units' abbreviations are unreadable (corrupt input): read on one thread");
    threads = 1;
  }

  ExtractOptions unit_options = options.extract;
  std::unique_ptr<ElfImage> supplementary_image;
  std::unique_ptr<DWARFContext> supplementary_context;
  SupplementaryDwarf supplementary;
  if (!options.supplementary_path.empty()) {
    auto opened = ElfImage::open(options.supplementary_path);
    if (!opened) {
      diagnostics.warn(toString(opened.takeError()));
    } else {
      supplementary_image = std::move(*opened);
      auto openSupplementary = [&] {
        supplementary_context = DWARFContext::create(
            supplementary_image->object(), DWARFContext::ProcessDebugRelocations::Process, nullptr,
            "", report, report, /*ThreadSafe=*/true);
      };
      openSupplementary();
      // (its DIEs are as hostile as the file's own)
      std::vector<std::string> cut_warnings;
      DieOverrunCut shared_cut =
          cutOverrunningDies(*supplementary_image, *supplementary_context, cut_warnings);
      diagnostics.warnAll(std::move(cut_warnings));
      if (shared_cut.image) {
        supplementary_context.reset();
        supplementary_image = std::move(shared_cut.image);
        openSupplementary();
      } else if (shared_cut.needed) {
        diagnostics.warn(options.supplementary_path + ": not read");
        supplementary_context.reset();
      }
    }
  }
  if (supplementary_context) {
    std::vector<DWARFUnit*> shared;
    for (const auto& unit : supplementary_context->compile_units())
      shared.push_back(unit.get());
    // The supplementary file's units are reached only through references,
    // from any worker: all parsed up front.
    if (!prepareUnits(*supplementary_context, shared, {}, threads, /*keep_all=*/true).sound)
      threads = 1;
    supplementary.context = supplementary_context.get();
    auto strings = supplementary_image->sectionBytes(".debug_str");
    if (!strings)
      diagnostics.warn(toString(strings.takeError()));
    else if (*strings)
      supplementary.strings = **strings;
    unit_options.supplementary = &supplementary;
  }

  // Breakpad's spelling names some functions after DIEs further on in the
  // file, depending on every unit before them: see which, up front.
  ForwardReferences forward_references;
  if (unit_options.names == NameStyle::Breakpad) {
    DieReader reader(unit_options.supplementary);
    for (DWARFUnit* unit : units) {
      DWARFDie body = unit->getNonSkeletonUnitDIE(false);
      forward_references.addUnit(body ? *body.getDwarfUnit() : *unit, reader);
    }
    unit_options.forward_references = &forward_references;
  }

  // The early units' results go first, in unit order.
  if (!early.results.empty())
    diagnostics.note(std::to_string(early.results.size()) +
                     " compile units read while .debug_info was still inflating");
  for (UnitSymbols& result : early.results)
    builder.addUnit(std::move(result));
  size_t early_count = early.results.size();
  early.results = {};
  std::vector<UnitSymbols> results(units.size());
  std::vector<std::vector<std::string>> warnings(units.size());
  std::atomic<size_t> done{early_count};
  // A unit's parsed line table is freed once the unit is done, unless
  // another unit reads the same table (dwz partial units can).
  std::map<uint64_t, unsigned> line_table_users;
  std::vector<std::optional<uint64_t>> line_table_of(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    line_table_of[i] =
        dwarf::toSectionOffset(units[i]->getUnitDIE(true).find(dwarf::DW_AT_stmt_list));
    if (line_table_of[i])
      ++line_table_users[*line_table_of[i]];
  }

  // Results go to the builder in unit order as soon as every unit before
  // them is done, rather than after the walk: the builder interns each
  // unit's file and inline-origin names, which units repeat many times over.
  std::mutex handoff_mutex;
  std::vector<char> extracted(units.size());
  size_t next_to_add = 0;
  auto handOff = [&](size_t i) {
    std::lock_guard<std::mutex> lock(handoff_mutex);
    extracted[i] = 1;
    for (; next_to_add < units.size() && extracted[next_to_add]; ++next_to_add) {
      builder.addUnit(std::move(results[next_to_add]));
      results[next_to_add] = UnitSymbols();
    }
  };

  auto extract = [&](size_t i) {
    {
      UnitPins pins(prepared_units.residency.get());
      pins.hold(*units[i], /*referenced=*/false);
      results[i] = extractUnit(*context, *units[i], unit_options, warnings[i], &pins);
      if (line_table_of[i] && line_table_users[*line_table_of[i]] == 1)
        context->clearLineTableForUnit(units[i]);
    }
    if (prepared_units.self_contained) {
      const std::optional<uint64_t>& table = line_table_of[i];
      bool own_table = table && line_table_users[*table] == 1;
      releaseUnitBytes(*context, *units[i], own_table ? &*table : nullptr);
    }
    handOff(i);
    size_t finished = ++done;
    if (options.progress)
      options.progress(finished, early_count + units.size());
  };

  if (threads <= 1 || units.size() <= 1) {
    for (size_t i = 0; i < units.size(); ++i)
      extract(i);
  } else {
    DefaultThreadPool pool(hardware_concurrency(threads));
    for (size_t i = 0; i < units.size(); ++i)
      pool.async([&, i] { extract(i); });
    pool.wait();
  }

  diagnostics.warnAll(cutter.takeWarnings());
  for (std::vector<std::string>& unit_warnings : early.warnings)
    for (std::string& warning : unit_warnings)
      diagnostics.warn(image.path() + ": " + warning);
  for (size_t i = 0; i < units.size(); ++i)
    for (std::string& warning : warnings[i])
      diagnostics.warn(image.path() + ": " + warning);
  return early_count + units.size();
}

} // namespace dumpsyms
