// Which units' DIEs are in memory while units are read in parallel.
//
// LLVM 19 keeps every DIE array it parses until the context goes away; on a
// big debug file those arrays are most of the peak. Here a unit's DIEs are
// parsed when a worker needs them (the unit it extracts, or one a reference
// leads into) and freed when no worker holds them any more, so memory grows
// with the largest units in flight, not with the file.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace llvm {
class DWARFUnit;
}

namespace dumpsyms {

class DieCutter;

class UnitResidency {
public:
  // `units`: the units of one context whose DIEs this parses and frees
  // (compile, partial and type units). Their abbreviations and unit DIEs
  // must be read before workers start (LLVM fills shared tables there).
  // Units not listed (split units, the supplementary file's) are not
  // touched: they must be parsed up front.
  // `cutter`: checks each unit's DIEs before its first parse
  // (dump/dwarf/die_overrun_guard), when the bytes are the dump's own copy.
  explicit UnitResidency(const std::vector<llvm::DWARFUnit*>& units, DieCutter* cutter = nullptr);

  // Parses the unit's DIEs unless they are in memory; they stay until the
  // matching release. `referenced`: reached through a reference from
  // another unit, so likely reached again: kept a while after release.
  void acquire(llvm::DWARFUnit& unit, bool referenced);
  void release(llvm::DWARFUnit& unit);

private:
  struct State {
    std::mutex parse_mutex; // held while parsing and freeing
    bool parsed = false;    // under parse_mutex
    bool checked = false;   // under parse_mutex
    size_t dies = 0;        // when parsed
    unsigned holders = 0;   // the rest under mutex_
    bool referenced = false;
    bool retained = false;
  };
  State* find(const llvm::DWARFUnit& unit);
  void free(llvm::DWARFUnit& unit, State& state);

  std::unordered_map<const llvm::DWARFUnit*, std::unique_ptr<State>> states_;
  DieCutter* cutter_;
  std::mutex mutex_;
  // Referenced units nobody holds, most recently released first, up to a
  // budget of DIEs: a unit many others refer to (dwz partial units, LTO
  // abstract origins) is not parsed again for each of them.
  std::list<llvm::DWARFUnit*> retained_;
  size_t retained_dies_ = 0;
};

// The units one extraction holds, released together when it ends, so that
// DWARFDie values and the namers' caches (keyed by DIE address) stay valid
// for the whole extraction. One per worker; not thread-safe.
class UnitPins {
public:
  explicit UnitPins(UnitResidency* residency) : residency_(residency) {}
  ~UnitPins();
  UnitPins(const UnitPins&) = delete;
  UnitPins& operator=(const UnitPins&) = delete;

  // Makes the unit's DIEs readable until this object goes away.
  void hold(llvm::DWARFUnit& unit, bool referenced);

private:
  UnitResidency* residency_;
  std::vector<llvm::DWARFUnit*> held_;
};

// Frees a unit's DIE array but its unit DIE (LLVM parses it again on the
// next access).
void freeUnitDies(llvm::DWARFUnit& unit);

} // namespace dumpsyms
