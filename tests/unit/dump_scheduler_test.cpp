// The release scheduler: never more threads than the budget, never more
// estimated memory than the limit (or, without one, the largest job plus
// the allowance, with the largest job alone with every thread); a big job
// beside small ones on one thread when memory allows. And the
// --memory-limit values.
#include "dump/release/dump_scheduler.h"
#include "dump/release/memory_limit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
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
            Observed& seen, uint64_t limit = 0) {
  DumpScheduler scheduler(threads, MemoryBudget{limit, allowance});
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

// 60 jobs of costs 1 to 100 on 8 threads: the most they held at once.
uint64_t mixedJobsPeak(uint64_t allowance, uint64_t limit, uint64_t& largest) {
  std::vector<ScheduledJob> jobs;
  for (uint64_t i = 1; i <= 60; ++i)
    jobs.push_back({(i * 37) % 100 + 1});
  Observed seen;
  runAll(jobs, 8, allowance, seen, limit);
  largest = 0;
  for (const ScheduledJob& job : jobs)
    largest = std::max(largest, job.cost);
  EXPECT_LE(seen.max_threads, 8u);
  EXPECT_EQ(seen.given.size(), jobs.size());
  return seen.max_cost;
}

TEST(DumpScheduler, MemoryNeverExceedsTheLargestPlusAllowance) {
  uint64_t largest = 0;
  uint64_t peak = mixedJobsPeak(20, 0, largest);
  EXPECT_LE(peak, largest + 20);
}

TEST(DumpScheduler, ABigJobRunsBesideSmallOnesOnOneThreadWhenMemoryAllows) {
  std::vector<ScheduledJob> jobs = {{1000}};
  for (int i = 0; i < 40; ++i)
    jobs.push_back({100});
  // The big job holds its thread until a small job has run beside it, and
  // small jobs wait for the big one to have started: a scheduler that ran
  // it alone would keep one of them waiting (bounded, so that such a
  // scheduler fails the test instead of hanging it). Which worker the OS
  // runs first does not decide the outcome.
  std::mutex mutex;
  std::condition_variable changed;
  bool big_started = false, small_beside = false;
  unsigned big_threads = 0;
  uint64_t cost = 0, max_cost = 0;
  unsigned threads = 0, max_threads = 0;
  DumpScheduler scheduler(2, MemoryBudget{1200, 16});
  scheduler.run(jobs, [&](size_t job, unsigned given) {
    std::unique_lock lock(mutex);
    cost += jobs[job].cost;
    threads += given;
    max_cost = std::max(max_cost, cost);
    max_threads = std::max(max_threads, threads);
    if (job == 0) {
      big_started = true;
      big_threads = given;
      changed.notify_all();
      changed.wait_for(lock, std::chrono::seconds(30), [&] { return small_beside; });
    } else {
      // (the first small one may reach here before the big one: it waits)
      changed.wait_for(lock, std::chrono::seconds(30), [&] { return big_started; });
      if (cost > jobs[job].cost) // the big one is still running
        small_beside = true;
      changed.notify_all();
    }
    cost -= jobs[job].cost;
    threads -= given;
  });
  EXPECT_TRUE(small_beside);
  EXPECT_EQ(big_threads, 1u); // the rest shares the other core
  EXPECT_LE(max_cost, 1200u);
  EXPECT_LE(max_threads, 2u);
}

TEST(DumpScheduler, MemoryNeverExceedsTheLimit) {
  uint64_t largest = 0;
  EXPECT_LE(mixedJobsPeak(0, 250, largest), 250u);
  EXPECT_LT(largest, 250u);
}

TEST(DumpScheduler, AJobLargerThanTheLimitRunsAloneWithEveryThread) {
  std::vector<ScheduledJob> jobs = {{10}, {5000}, {10}, {10}};
  Observed seen;
  runAll(jobs, 4, 0, seen, /*limit=*/1000);
  ASSERT_EQ(seen.given.size(), jobs.size());
  EXPECT_EQ(seen.given.front().first, 1u);
  EXPECT_EQ(seen.given.front().second, 4u);
  EXPECT_LE(seen.max_cost, 5000u); // never anything beside it
}

TEST(MemoryLimit, SizesPercentagesAndLargest) {
  EXPECT_EQ(parseMemoryLimit("largest"), 0u);
  EXPECT_EQ(parseMemoryLimit("4096"), 4096u);
  EXPECT_EQ(parseMemoryLimit("512M"), 512ull << 20);
  EXPECT_EQ(parseMemoryLimit("512MiB"), 512ull << 20);
  EXPECT_EQ(parseMemoryLimit("8g"), 8ull << 30);
  EXPECT_EQ(parseMemoryLimit("1.5G"), 3ull << 29);
  EXPECT_EQ(parseMemoryLimit("2TB"), 2ull << 40);
  auto half = parseMemoryLimit("50%");
  ASSERT_TRUE(half);
  EXPECT_GT(*half, 0u);
  EXPECT_NEAR(double(*half), double(defaultMemoryLimit()), double(1 << 20));
  for (const char* bad : {"", "0", "-1G", "G", "12X", "150%", "nan", "inf", "1e30", " 5G", "5 G"})
    EXPECT_FALSE(parseMemoryLimit(bad)) << bad;
  EXPECT_GT(estimatedDumpMemory(900u << 20), 900u << 20);
}

TEST(DumpScheduler, NoJobsReturnsAtOnce) {
  Observed seen;
  runAll({}, 4, 0, seen);
  EXPECT_TRUE(seen.given.empty());
}

} // namespace
} // namespace dumpsyms
