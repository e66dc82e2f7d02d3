// Runs a release's dumps on one thread budget without letting their memory
// add up past a limit. Dumps start largest first, as many side by side as
// there are threads and as the limit allows: the estimated peaks of the
// dumps running stay within it (a dump larger than the limit runs alone).
// The limit is given (symstore add --memory-limit; by default half the
// machine's memory), or is the largest dump's estimate plus a small
// allowance, which makes the largest run alone. A dump gets the free
// threads in proportion to its share of the work that could run beside
// it: all of them when nothing else fits, one when many dumps wait. So
// 2,000 small libraries run `threads` at a time, one thread each, and a
// huge binary runs on one thread beside the rest of a release, as a shell
// loop would run it, when memory allows: a single dump cannot keep two
// cores busy all the time, two dumps can.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dumpsyms {

struct ScheduledJob {
  uint64_t cost = 0; // estimated peak memory, bytes (or any unit proportional to them)
};

struct MemoryBudget {
  // What the running jobs' costs may add up to; 0: the largest job's cost
  // plus `allowance` (the largest runs alone, smaller ones side by side).
  uint64_t limit = 0;
  uint64_t allowance = 0;
};

class DumpScheduler {
public:
  DumpScheduler(unsigned threads, MemoryBudget memory) : threads_(threads), memory_(memory) {}

  // Calls run(job index, threads for it) for every job, from worker
  // threads; returns when all have returned.
  void run(const std::vector<ScheduledJob>& jobs,
           const std::function<void(size_t job, unsigned threads)>& run) const;

private:
  unsigned threads_;
  MemoryBudget memory_;
};

} // namespace dumpsyms
