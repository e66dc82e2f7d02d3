#include "dump/dwarf/early_unit_walk.h"

#include "dump/dwarf/section_release.h"
#include "dump/dwarf/unit_residency.h"

#include <algorithm>
#include <limits>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Support/DataExtractor.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/ThreadPool.h>
#include <mutex>

namespace dumpsyms {

using namespace llvm;

namespace {

// A stage is a context over the inflated prefix, with the unit headers
// before it parsed again: worth it only for a good many units.
constexpr uint64_t kMinStage = uint64_t(8) << 20;
// Units read in a stage end this far before the last final byte: on
// corrupt input LLVM's DIE parser can run past a unit's end (see
// section_inflation.h), and should read inflated bytes there, not bytes
// being written.
constexpr uint64_t kMargin = uint64_t(1) << 20;

bool refersElsewhere(uint64_t form) {
  switch (form) {
  case dwarf::DW_FORM_ref_addr:
  case dwarf::DW_FORM_ref_sig8:
  case dwarf::DW_FORM_indirect:
  case dwarf::DW_FORM_GNU_ref_alt:
  case dwarf::DW_FORM_ref_sup4:
  case dwarf::DW_FORM_ref_sup8:
    return true;
  default:
    return false;
  }
}

// Where the run of whole units from `from` ends at or before `limit`: their
// headers' lengths only, as LLVM will check the rest.
uint64_t wholeUnitsEnd(StringRef info, bool little_endian, uint64_t from, uint64_t limit) {
  DataExtractor data(info.substr(0, limit), little_endian, 0);
  uint64_t end = from;
  while (true) {
    uint64_t offset = end;
    uint64_t length = data.getU32(&offset, nullptr);
    if (length == 0xffffffff)
      length = data.getU64(&offset, nullptr);
    else if (length >= 0xfffffff0)
      return end;
    if (offset == end || length == 0 || length > limit - offset)
      return end; // past the limit, unreadable, or empty: stop here
    end = offset + length;
  }
}

class StageReader {
public:
  StageReader(DwarfInflation& inflation, bool little_endian, uint8_t address_size,
              const ExtractOptions& options, DieCutter& cutter, EarlyUnits& early, unsigned readers)
      : inflation_(inflation), little_endian_(little_endian), address_size_(address_size),
        options_(options), cutter_(cutter), early_(early), readers_(std::max(1u, readers)) {
    if (readers_ > 1)
      pool_ = std::make_unique<DefaultThreadPool>(hardware_concurrency(readers_));
  }

  // Reads the units in [early.end, end) over a context that sees
  // .debug_info up to `end`, or the first of them until the section is
  // whole. False when it stopped before `end`, or read nothing as LLVM
  // does not find exactly those units or cannot read their abbreviations.
  bool read(uint64_t end) {
    StringMap<std::unique_ptr<MemoryBuffer>> sections;
    for (const auto& [name, bytes] : inflation_.sections())
      sections[name] =
          MemoryBuffer::getMemBuffer(name == "debug_info" ? bytes.substr(0, end) : bytes, name,
                                     /*RequiresNullTerminator=*/false);
    std::vector<std::string> context_warnings;
    std::mutex reporting; // LLVM reports from every reader
    auto report = [&](Error error) {
      std::lock_guard<std::mutex> lock(reporting);
      context_warnings.push_back(toString(std::move(error)));
    };
    std::unique_ptr<DWARFContext> context =
        DWARFContext::create(sections, address_size_, little_endian_, report, report,
                             /*ThreadSafe=*/readers_ > 1);
    std::vector<DWARFUnit*> units;
    uint64_t parsed_to = 0;
    for (const auto& unit : context->info_section_units()) {
      parsed_to = unit->getNextUnitOffset();
      if (unit->getOffset() >= early_.end && !unit->isTypeUnit())
        units.push_back(unit.get());
    }
    if (parsed_to != end || units.empty())
      return false;
    // As before the ordinary walk: abbreviations and unit DIEs first.
    for (DWARFUnit* unit : units) {
      if (!unit->getAbbreviations())
        return false;
      cutter_.check(*unit, /*unit_die_only=*/true);
      unit->getUnitDIE(true);
    }
    UnitResidency residency(units, &cutter_);
    // Units are taken in order, under one lock with the check that the
    // stream goes on: the units read are always a prefix of the stage, and
    // each one taken is read to its end (its bytes are given back).
    std::mutex taking;
    size_t taken = 0;
    bool stopped = false;
    std::vector<UnitSymbols> results(units.size());
    std::vector<std::vector<std::string>> warnings(units.size());
    auto readSome = [&] {
      while (true) {
        size_t i;
        {
          std::lock_guard<std::mutex> lock(taking);
          // Once the section is whole, every thread takes the rest the
          // ordinary way: these stop here rather than read on alone.
          if (stopped || taken == units.size() || inflation_.unitBytesEnded()) {
            stopped = true;
            return;
          }
          i = taken++;
        }
        DWARFUnit* unit = units[i];
        {
          UnitPins pins(&residency);
          pins.hold(*unit, /*referenced=*/false);
          results[i] = extractUnit(*context, *unit, options_, warnings[i], &pins);
          context->clearLineTableForUnit(unit);
        }
        // Its .debug_info bytes are dead (units stand alone), but for the
        // header, which the context over the whole section reads again. Its
        // line table may be another unit's too, in a later stage: kept.
        releaseUnitBytes(*context, *unit, nullptr, /*keep_header=*/true);
        inflation_.unitsReadTo(unit->getNextUnitOffset());
      }
    };
    if (pool_) {
      for (unsigned k = 0; k < readers_; ++k)
        pool_->async(readSome);
      pool_->wait();
    } else {
      readSome();
    }
    uint64_t reached = taken ? units[taken - 1]->getNextUnitOffset() : early_.end;
    for (size_t i = 0; i < taken; ++i) {
      early_.results.push_back(std::move(results[i]));
      early_.warnings.push_back(std::move(warnings[i]));
    }
    for (std::string& warning : context_warnings)
      early_.context_warnings.push_back(std::move(warning));
    early_.end = reached;
    return reached == end;
  }

private:
  DwarfInflation& inflation_;
  bool little_endian_;
  uint8_t address_size_;
  const ExtractOptions& options_;
  DieCutter& cutter_;
  EarlyUnits& early_;
  unsigned readers_;
  std::unique_ptr<DefaultThreadPool> pool_;
};

EarlyUnits dropped(const EarlyUnits& read) {
  EarlyUnits none;
  none.dropped = read.results.size();
  return none;
}

} // namespace

bool unitsStandAlone(StringRef abbreviations) {
  DataExtractor data(abbreviations, true, 0);
  DataExtractor::Cursor cursor(0);
  while (cursor && cursor.tell() < abbreviations.size()) {
    if (data.getULEB128(cursor) == 0)
      continue;              // the end of one unit's table
    data.getULEB128(cursor); // tag
    data.getU8(cursor);      // has children
    while (cursor) {
      uint64_t attribute = data.getULEB128(cursor);
      uint64_t form = data.getULEB128(cursor);
      if (attribute == 0 && form == 0)
        break;
      if (refersElsewhere(form) || attribute == dwarf::DW_AT_dwo_name ||
          attribute == dwarf::DW_AT_GNU_dwo_name) {
        consumeError(cursor.takeError());
        return false;
      }
      if (form == dwarf::DW_FORM_implicit_const)
        data.getSLEB128(cursor);
    }
  }
  if (!cursor) {
    consumeError(cursor.takeError());
    return false;
  }
  return true;
}

EarlyUnits readUnitsWhileInflating(DwarfInflation& inflation, bool little_endian,
                                   uint8_t address_size, const ExtractOptions& options,
                                   DieCutter& cutter, unsigned readers) {
  EarlyUnits early;
  if (!inflation.unitsStream() || !inflation.waitForOtherSections())
    return early;
  const StringMap<StringRef>& sections = inflation.sections();
  if (!sections.lookup("debug_types").empty() || !unitsStandAlone(sections.lookup("debug_abbrev")))
    return early;
  StringRef info = sections.lookup("debug_info");

  // From here the stream keeps pace with the readers, until they stop.
  inflation.startPacing();
  struct StopPacing {
    DwarfInflation& inflation;
    ~StopPacing() { inflation.stopPacing(); }
  } stop_pacing{inflation};
  StageReader stages(inflation, little_endian, address_size, options, cutter, early, readers);
  uint64_t known = 0;
  bool done = false, reading = true;
  while (!done) {
    known =
        inflation.waitForUnitBytes(reading ? known : std::numeric_limits<uint64_t>::max(), done);
    if (known == 0 && !done)
      return dropped(early); // the stream failed: its bytes are not what they seemed
    if (done || !reading || known < kMargin)
      continue;
    uint64_t end = wholeUnitsEnd(info, little_endian, early.end, known - kMargin);
    if (end < early.end + kMinStage)
      continue;
    std::lock_guard<std::mutex> lock(inflation.readingUnits());
    if (inflation.unitBytesFailed())
      return dropped(early);
    reading = stages.read(end);
  }
  return early;
}

} // namespace dumpsyms
