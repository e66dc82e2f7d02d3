#include "dump/release/dump_scheduler.h"

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
  const uint64_t budget =
      memory_.limit ? memory_.limit : jobs[waiting.front()].cost + memory_.allowance;
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
    // Threads in proportion to the job's share of the work that could run
    // beside it (cost stands for time too): a job nothing can join gets
    // every free thread, one among many small ones gets one.
    unsigned free_threads = threads - threads_busy;
    uint64_t room = budget - std::min(budget, cost_running + jobs[job].cost);
    uint64_t beside = 0;
    for (size_t other : waiting)
      if (jobs[other].cost <= room)
        beside += jobs[other].cost;
    double share = double(jobs[job].cost) / double(jobs[job].cost + beside);
    unsigned given =
        std::clamp<unsigned>(static_cast<unsigned>(free_threads * share + 0.5), 1, free_threads);
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
