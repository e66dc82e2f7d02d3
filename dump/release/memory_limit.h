// How much memory a release's dumps may hold at once (symstore add
// --memory-limit), and what one dump is expected to hold.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dumpsyms {

// "largest": 0, the scheduler's "no more than the largest dump" budget;
// otherwise bytes, written as a number with an optional K, M, G or T
// (powers of 1024, an optional trailing "iB" or "B"), or a percentage of
// the machine's memory ("50%"). Nothing for anything else, or for 0.
std::optional<uint64_t> parseMemoryLimit(const std::string& text);

// The default: half the machine's physical memory (the rest for the
// system, the page cache of the release, and other jobs of a CI runner).
uint64_t defaultMemoryLimit();

// The peak a dump is expected to reach, from the DWARF (or PDB) bytes it
// reads (ReleasePlan's cost, which counts compressed sections four times):
// meant to lie above the measured peak, as ceph-osd's (an estimate of
// 961 MB against 674 MiB at -j1, 409 MiB at -j2) does.
uint64_t estimatedDumpMemory(uint64_t cost);

} // namespace dumpsyms
