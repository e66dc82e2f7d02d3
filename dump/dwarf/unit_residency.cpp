#include "dump/dwarf/unit_residency.h"

#include "dump/dwarf/die_overrun_guard.h"

#include <algorithm>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

namespace dumpsyms {

namespace {

// How many DIEs referenced units may keep parsed after their last holder
// lets go (24 bytes each). LTO output refers from every unit into a few
// that hold the abstract origins: parsing those again for each referrer
// doubled the CPU time on python3.11's debug file when only the last 8
// such units were kept; 2M DIEs keep all of its referenced units.
constexpr size_t kRetainedDies = size_t(2) << 20;

// LLVM 19 declares DWARFUnit::clearDIEs, which frees a unit's DIE array,
// private. An explicit instantiation may name a private member
// ([temp.spec.general]/6), and the friend it defines hands the member
// pointer out.
using ClearDies = void (llvm::DWARFUnit::*)(bool);
ClearDies clearDiesMember();
template <ClearDies member> struct ClearDiesAccess {
  friend ClearDies clearDiesMember() { return member; }
};
template struct ClearDiesAccess<&llvm::DWARFUnit::clearDIEs>;

// The DIE array, private too: reserved before a unit is parsed, as LLVM
// grows it one DIE at a time (copying it a dozen times on a big unit).
using DieArray = std::vector<llvm::DWARFDebugInfoEntry> llvm::DWARFUnit::*;
DieArray dieArrayMember();
template <DieArray member> struct DieArrayAccess {
  friend DieArray dieArrayMember() { return member; }
};
template struct DieArrayAccess<&llvm::DWARFUnit::DieArray>;

// gcc's and clang's DIEs average well over 8 bytes; a capacity never
// touched costs address space, not memory.
constexpr uint64_t kBytesPerDieAtLeast = 8;

} // namespace

void freeUnitDies(llvm::DWARFUnit& unit) {
  // The unit DIE stays: LLVM reads the unit's bases from it only when it is
  // first parsed, and other code asks for it without holding the unit.
  (unit.*clearDiesMember())(/*KeepCUDie=*/true);
}

UnitResidency::UnitResidency(const std::vector<llvm::DWARFUnit*>& units, DieCutter* cutter)
    : cutter_(cutter) {
  for (llvm::DWARFUnit* unit : units)
    states_.emplace(unit, std::make_unique<State>());
}

UnitResidency::State* UnitResidency::find(const llvm::DWARFUnit& unit) {
  auto found = states_.find(&unit);
  return found == states_.end() ? nullptr : found->second.get();
}

void UnitResidency::acquire(llvm::DWARFUnit& unit, bool referenced) {
  State* state = find(unit);
  if (!state)
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++state->holders;
    state->referenced |= referenced;
    if (state->retained) {
      retained_.remove(&unit);
      retained_dies_ -= state->dies;
      state->retained = false;
    }
  }
  // Holders > 0 now, so nobody frees it; two workers wanting the same unit
  // parse it once.
  std::lock_guard<std::mutex> parse(state->parse_mutex);
  if (!state->parsed) {
    if (cutter_ && !state->checked)
      cutter_->check(unit, /*unit_die_only=*/false);
    state->checked = true;
    uint64_t length = unit.getNextUnitOffset() - unit.getOffset();
    (unit.*dieArrayMember()).reserve(length / kBytesPerDieAtLeast);
    unit.getUnitDIE(/*ExtractUnitDIEOnly=*/false);
    state->dies = unit.getNumDIEs();
    state->parsed = true;
  }
}

void UnitResidency::free(llvm::DWARFUnit& unit, State& state) {
  std::lock_guard<std::mutex> parse(state.parse_mutex);
  freeUnitDies(unit);
  state.parsed = false;
}

void UnitResidency::release(llvm::DWARFUnit& unit) {
  State* state = find(unit);
  if (!state)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (--state->holders != 0)
    return;
  if (!state->referenced) {
    free(unit, *state);
    return;
  }
  retained_.push_front(&unit);
  retained_dies_ += state->dies;
  state->retained = true;
  while (retained_dies_ > kRetainedDies && !retained_.empty()) {
    llvm::DWARFUnit* oldest = retained_.back();
    retained_.pop_back();
    State* victim = find(*oldest);
    retained_dies_ -= victim->dies;
    victim->retained = false;
    free(*oldest, *victim);
  }
}

UnitPins::~UnitPins() {
  if (!residency_)
    return;
  for (llvm::DWARFUnit* unit : held_)
    residency_->release(*unit);
}

void UnitPins::hold(llvm::DWARFUnit& unit, bool referenced) {
  if (!residency_ || std::find(held_.begin(), held_.end(), &unit) != held_.end())
    return;
  residency_->acquire(unit, referenced);
  held_.push_back(&unit);
}

} // namespace dumpsyms
