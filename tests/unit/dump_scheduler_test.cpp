// The release scheduler: never more threads than the budget, never more
// estimated memory than the largest job plus the allowance, and the largest
// job alone with every thread.
#include "symstore/dump_scheduler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <mutex>
#include <thread>

namespace dumpsyms {
namespace {

struct Observed {
  std::mutex mutex;
  unsigned threads = 0, max_threads = 0;
  uint64_t cost = 0, max_cost = 0;
  std::vector<std::pair<size_t, unsigned>> given;
};

void runAll(const std::vector<ScheduledJob>& jobs, unsigned threads, uint64_t allowance,
            Observed& seen) {
  DumpScheduler scheduler(threads, allowance);
  scheduler.run(jobs, [&](size_t job, unsigned job_threads) {
    {
      std::lock_guard lock(seen.mutex);
      seen.threads += job_threads;
      seen.cost += jobs[job].cost;
      seen.max_threads = std::max(seen.max_threads, seen.threads);
      seen.max_cost = std::max(seen.max_cost, seen.cost);
      seen.given.push_back({job, job_threads});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(seen.mutex);
    seen.threads -= job_threads;
    seen.cost -= jobs[job].cost;
  });
}

TEST(DumpScheduler, ManySmallJobsFillEveryThreadOneEach) {
  std::vector<ScheduledJob> jobs(200, ScheduledJob{10});
  Observed seen;
  runAll(jobs, 4, 1000, seen);
  EXPECT_EQ(seen.given.size(), 200u);
  EXPECT_EQ(seen.max_threads, 4u);
  size_t single =
      std::count_if(seen.given.begin(), seen.given.end(), [](auto& g) { return g.second == 1; });
  EXPECT_GE(single, 190u); // only the tail may get more than one
}

TEST(DumpScheduler, TheLargestRunsAloneWithEveryThread) {
  std::vector<ScheduledJob> jobs = {{5}, {1000}, {5}, {5}, {5}, {5}};
  Observed seen;
  runAll(jobs, 4, 8, seen);
  ASSERT_FALSE(seen.given.empty());
  EXPECT_EQ(seen.given.front().first, 1u); // largest first
  EXPECT_EQ(seen.given.front().second, 4u);
  EXPECT_LE(seen.max_cost, 1000u + 8u);
  EXPECT_LE(seen.max_threads, 4u);
}

TEST(DumpScheduler, MemoryNeverExceedsTheLargestPlusAllowance) {
  std::vector<ScheduledJob> jobs;
  for (uint64_t i = 1; i <= 60; ++i)
    jobs.push_back({(i * 37) % 100 + 1});
  Observed seen;
  runAll(jobs, 8, 20, seen);
  uint64_t largest = 0;
  for (const ScheduledJob& job : jobs)
    largest = std::max(largest, job.cost);
  EXPECT_LE(seen.max_cost, largest + 20);
  EXPECT_LE(seen.max_threads, 8u);
  EXPECT_EQ(seen.given.size(), jobs.size());
}

TEST(DumpScheduler, NoJobsReturnsAtOnce) {
  Observed seen;
  runAll({}, 4, 0, seen);
  EXPECT_TRUE(seen.given.empty());
}

} // namespace
} // namespace dumpsyms
