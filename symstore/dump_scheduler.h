// Runs a release's dumps on one thread budget without letting memory add
// up. Dumps start largest first. The memory budget is the largest dump's
// estimated cost plus a small allowance: the largest runs alone (with every
// thread), and smaller ones run side by side only while their estimates
// together stay within that budget. A dump gets the free threads in
// proportion to its share of the work that could run beside it: all of them
// when nothing else fits, one when many small dumps wait. So 2,000 small
// libraries run `threads` at a time, one thread each, and one huge binary
// gets every thread to itself.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace dumpsyms {

struct ScheduledJob {
  uint64_t cost = 0; // estimated memory, any unit proportional to it
};

class DumpScheduler {
public:
  // `allowance`: cost that may run beside the largest job (the "small constant").
  DumpScheduler(unsigned threads, uint64_t allowance) : threads_(threads), allowance_(allowance) {}

  // Calls run(job index, threads for it) for every job, from worker
  // threads; returns when all have returned.
  void run(const std::vector<ScheduledJob>& jobs,
           const std::function<void(size_t job, unsigned threads)>& run) const;

private:
  unsigned threads_;
  uint64_t allowance_;
};

} // namespace dumpsyms
