#include "symstore/dump_scheduler.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>

namespace dumpsyms {

void DumpScheduler::run(const std::vector<ScheduledJob>& jobs,
                        const std::function<void(size_t, unsigned)>& work) const {
  if (jobs.empty())
    return;
  std::vector<size_t> waiting(jobs.size()); // largest first
  std::iota(waiting.begin(), waiting.end(), 0);
  std::stable_sort(waiting.begin(), waiting.end(),
                   [&](size_t a, size_t b) { return jobs[a].cost > jobs[b].cost; });
  const uint64_t budget = jobs[waiting.front()].cost + allowance_;
  const unsigned threads = std::max(1u, threads_);

  std::mutex mutex;
  std::condition_variable changed;
  unsigned threads_busy = 0;
  uint64_t cost_running = 0;
  size_t running = 0;
  std::vector<std::thread> workers;
  std::vector<size_t> finished; // workers to join: a long release starts thousands
  auto joinFinished = [&] {
    for (size_t worker : finished)
      workers[worker].join();
    finished.clear();
  };

  std::unique_lock lock(mutex);
  while (!waiting.empty()) {
    // The largest waiting job that fits beside what runs; anything fits
    // when nothing runs.
    auto next = waiting.end();
    if (threads_busy < threads)
      next = std::find_if(waiting.begin(), waiting.end(), [&](size_t job) {
        return running == 0 || cost_running + jobs[job].cost <= budget;
      });
    if (next == waiting.end()) {
      changed.wait(lock);
      joinFinished();
      continue;
    }
    size_t job = *next;
    waiting.erase(next);
    unsigned free_threads = threads - threads_busy;
    uint64_t smallest_left = waiting.empty() ? 0 : jobs[waiting.back()].cost;
    unsigned given = 1;
    if (waiting.empty() || cost_running + jobs[job].cost + smallest_left > budget)
      given = free_threads; // nothing else could run beside it
    else if (waiting.size() < free_threads)
      given = std::max<unsigned>(1, free_threads / static_cast<unsigned>(waiting.size() + 1));
    threads_busy += given;
    cost_running += jobs[job].cost;
    ++running;
    size_t worker = workers.size();
    workers.emplace_back([&, job, given, worker] {
      work(job, given);
      std::lock_guard done(mutex);
      threads_busy -= given;
      cost_running -= jobs[job].cost;
      --running;
      finished.push_back(worker);
      changed.notify_all();
    });
  }
  lock.unlock();
  for (std::thread& worker : workers)
    if (worker.joinable())
      worker.join();
}

} // namespace dumpsyms
