#include "dump/release/add_command.h"

#include "common/files/atomic_file.h"
#include "common/limits/bounded_json.h"
#include "common/progress/file_progress.h"
#include "dump/release/child_process.h"
#include "dump/release/dump_scheduler.h"
#include "dump/release/memory_limit.h"
#include "store/layout/releases.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Threading.h>
#include <mutex>
#include <unistd.h>

namespace dumpsyms {

namespace {

// Cost (bytes of DWARF) that may run beside the largest dump.
constexpr uint64_t kMemoryAllowance = 16ull << 20;

// The last non-empty line a child wrote on stderr, without our tool prefix.
std::string lastLine(llvm::StringRef text) {
  llvm::StringRef trimmed = text.rtrim("\n ");
  llvm::StringRef line = trimmed.substr(trimmed.rfind('\n') + 1); // npos + 1: all of it
  if (!line.consume_front("symstore: error: "))
    line.consume_front("symstore: ");
  return line.str();
}

// What a child's run says about its module; `planned` holds what the plan knew.
ManifestEntry outcome(const ChildResult& child, const ManifestEntry& planned) {
  ManifestEntry entry = planned;
  entry.status = EntryStatus::Failed;
  if (!child.spawn_error.empty()) {
    entry.error = planned.path + ": " + child.spawn_error;
    return entry;
  }
  if (child.signal) {
    std::string detail = lastLine(child.err);
    entry.error = planned.path + ": the dump was killed by signal " + std::to_string(child.signal) +
                  " (" + strsignal(child.signal) + ")" + (detail.empty() ? "" : ": " + detail);
    return entry;
  }
  auto parsed = parseBoundedJson(child.out);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    std::string detail = lastLine(child.err);
    entry.error = detail.empty() ? planned.path + ": the dump exited " +
                                       std::to_string(child.exit_code) + " without a report"
                                 : detail;
    return entry;
  }
  auto reported = entryFromJson(*parsed);
  if (!reported) {
    entry.error = planned.path + ": " + llvm::toString(reported.takeError());
    return entry;
  }
  reported->path = planned.path;
  reported->key = planned.key;
  reported->arch = planned.arch;
  if (reported->debug_file_how.empty() || reported->debug_file_how == "--debug-file")
    reported->debug_file_how = planned.debug_file_how;
  return std::move(*reported);
}

} // namespace

std::vector<std::string> dumpOneArguments(const std::string& self, const std::string& store,
                                          const Options& dump, const std::string& binary,
                                          const std::string& debug_file, unsigned threads) {
  std::vector<std::string> args = {self,  "dump-one", "--store",
                                   store, "-j",       std::to_string(threads)};
  if (dump.inlines)
    args.push_back("-d");
  if (dump.no_cfi)
    args.push_back("-c");
  if (dump.check_cfi)
    args.push_back("--check-cfi");
  if (dump.write_index)
    args.push_back("--index");
  if (dump.keep_binaries)
    args.push_back("--keep-binaries");
  if (dump.no_debuginfod)
    args.push_back("--no-debuginfod");
  args.push_back("--names");
  args.push_back(dump.names == NameStyle::Breakpad ? "breakpad" : "llvm");
  for (const std::string& spec : dump.symbol_servers) {
    args.push_back("--symbol-server");
    args.push_back(spec);
  }
  for (const std::string& mapping : dump.path_prefix_map) {
    args.push_back("--map-prefix");
    args.push_back(mapping);
  }
  if (!debug_file.empty()) {
    args.push_back("--debug-file");
    args.push_back(debug_file);
  }
  if (!dump.arch.empty()) {
    args.push_back("--arch");
    args.push_back(dump.arch);
  }
  args.push_back("--");
  args.push_back(binary);
  for (const std::string& dir : dump.debug_dirs)
    args.push_back(dir);
  return args;
}

int runAdd(const AddOptions& options) {
  auto started = std::chrono::steady_clock::now();
  if (std::error_code error = llvm::sys::fs::create_directories(options.store)) {
    std::fprintf(stderr, "symstore: error: %s: cannot create the store: %s\n",
                 options.store.c_str(), error.message().c_str());
    return 1;
  }
  // What a killed run left half-written.
  size_t stale = removeStaleTemporaries(options.store);
  if (stale && options.verbose)
    std::fprintf(stderr, "symstore: removed %zu temporary files a stopped run left\n", stale);

  ReleaseScan scan = scanRelease(options.paths);
  bool failed = false;
  for (const std::string& error : scan.errors) {
    std::fprintf(stderr, "symstore: error: %s\n", error.c_str());
    failed = true;
  }
  PlanOptions plan_options{options.store, options.force, options.shard};
  ReleasePlan plan = planRelease(scan, options.dump, plan_options);

  unsigned threads =
      options.jobs ? options.jobs : llvm::hardware_concurrency().compute_thread_count();
  const std::string self = selfExecutable();
  FileProgress progress(!options.quiet && isatty(STDERR_FILENO), plan.dumps.size(),
                        plan.bytes_to_read);
  std::mutex report_mutex;
  auto reportEntry = [&](const ManifestEntry& entry) {
    if (entry.status == EntryStatus::Failed) {
      progress.clear();
      std::fprintf(stderr, "symstore: error: %s\n", entry.error.c_str());
    } else if (options.verbose && !options.quiet) {
      progress.clear();
      for (const std::string& warning : entry.warnings)
        std::fprintf(stderr, "symstore: warning: %s\n", warning.c_str());
    }
  };
  // Files that failed before any dump (unreadable, not a usable ELF file).
  for (const ManifestEntry& entry : plan.entries)
    if (entry.status == EntryStatus::Failed && !entry.error.empty())
      reportEntry(entry);

  std::vector<ScheduledJob> jobs;
  for (const PlannedDump& dump : plan.dumps)
    jobs.push_back({estimatedDumpMemory(dump.cost)});
  if (options.verbose && !options.quiet) {
    if (options.memory_limit)
      std::fprintf(stderr, "symstore: dumps side by side within %llu MiB (their estimates)\n",
                   static_cast<unsigned long long>(options.memory_limit >> 20));
    else
      std::fprintf(stderr, "symstore: dumps side by side within the largest dump's estimate\n");
  }
  DumpScheduler scheduler(threads, MemoryBudget{options.memory_limit, kMemoryAllowance});
  scheduler.run(jobs, [&](size_t job, unsigned job_threads) {
    const PlannedDump& dump = plan.dumps[job];
    ManifestEntry& entry = plan.entries[dump.entry];
    uint64_t size = 0;
    llvm::sys::fs::file_size(entry.path, size);
    progress.started(entry.path);
    Options dump_options = options.dump;
    dump_options.arch = dump.arch;
    ChildResult child = runChild(dumpOneArguments(self, options.store, dump_options, entry.path,
                                                  dump.debug_file, job_threads));
    ManifestEntry done = outcome(child, entry);
    std::lock_guard lock(report_mutex);
    entry = std::move(done);
    reportEntry(entry);
    progress.finished(entry.path, size);
  });
  progress.clear();

  // Again now that this run's writers are done: a writer of a killed run
  // (a child the kernel kills with its parent) may have been dying still
  // when the first sweep ran.
  removeStaleTemporaries(options.store);

  Manifest manifest;
  manifest.store = options.store;
  manifest.shard = std::to_string(options.shard.index) + "/" + std::to_string(options.shard.count);
  manifest.entries = std::move(plan.entries);
  countStatuses(manifest);
  manifest.totals.debug_files = plan.debug_files;
  manifest.totals.skipped_non_elf = plan.non_elf;
  manifest.totals.other_shards = plan.other_shards;
  for (const ManifestEntry& entry : manifest.entries) {
    uint64_t size = 0;
    if ((entry.status == EntryStatus::Written || entry.status == EntryStatus::NoDebugInfo) &&
        !llvm::sys::fs::file_size(options.store + "/" + entry.sym, size))
      manifest.totals.bytes_written += size;
  }
  manifest.totals.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const ManifestTotals& t = manifest.totals;
  failed |= t.failed > 0;
  if (!options.manifest.empty())
    if (llvm::Error error = writeManifest(options.manifest, manifest)) {
      std::fprintf(stderr, "symstore: error: %s\n", llvm::toString(std::move(error)).c_str());
      failed = true;
    }
  if (!options.release.empty()) {
    auto name = parseReleaseName(options.release);
    llvm::Error error =
        name ? recordRelease(options.store, releaseOf(name->first, name->second, manifest))
             : llvm::createStringError("--release " + options.release +
                                       ": expected PRODUCT/VERSION");
    if (error) {
      std::fprintf(stderr, "symstore: error: %s\n", llvm::toString(std::move(error)).c_str());
      failed = true;
    }
  }
  std::string shards = options.shard.count > 1
                           ? "; " + std::to_string(t.other_shards) + " left to other shards"
                           : "";
  if (!options.quiet)
    std::fprintf(stderr,
                 "symstore: %llu written, %llu no-debug-info, %llu exists, %llu duplicate, "
                 "%llu failed; %llu separate debug files, %llu non-ELF files skipped%s; %.1f s\n",
                 (unsigned long long)t.written, (unsigned long long)t.no_debug_info,
                 (unsigned long long)t.exists, (unsigned long long)t.duplicate,
                 (unsigned long long)t.failed, (unsigned long long)t.debug_files,
                 (unsigned long long)t.skipped_non_elf, shards.c_str(), t.wall_seconds);
  return failed ? 1 : 0;
}

} // namespace dumpsyms
