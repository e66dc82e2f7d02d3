#include "store/upload/upload_runner.h"

#include "common/progress/file_progress.h"
#include "store/upload/upload_ledger.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace dumpsyms {

namespace {

// Groups files into requests: one each, or (for packing protocols) as many
// as fit under the batch limit. Sizes are uncompressed, which bounds the
// zip; the multipart and zip framing get a margin.
std::vector<std::vector<const StoredSymbolFile*>>
makeBatches(const std::vector<const StoredSymbolFile*>& files, bool packs, uint64_t limit) {
  std::vector<std::vector<const StoredSymbolFile*>> batches;
  uint64_t used = 0;
  constexpr uint64_t kFraming = 4096, kPerEntry = 256;
  for (const StoredSymbolFile* file : files) {
    uint64_t cost = file->size + file->size / 100 + kPerEntry;
    if (!packs || batches.empty() || used + cost + kFraming > limit) {
      batches.push_back({});
      used = 0;
    }
    batches.back().push_back(file);
    used += cost;
  }
  return batches;
}

} // namespace

std::string redactSecrets(std::string text, const UploadConfig& config) {
  for (const std::string* secret : {&config.token, &config.aws_secret_key}) {
    if (secret->size() < 1)
      continue;
    for (const std::string& form : {*secret, urlEncode(*secret)}) {
      size_t at = 0;
      while ((at = text.find(form, at)) != std::string::npos) {
        text.replace(at, form.size(), "***");
        at += 3;
      }
    }
  }
  return text;
}

int runUpload(const UploadRunOptions& options) {
  auto started = std::chrono::steady_clock::now();
  const UploadConfig& config = options.config;
  auto say = [&](const std::string& line) {
    std::fprintf(stderr, "symstore: %s\n", redactSecrets(line, config).c_str());
  };

  auto listing = listStore(options.store);
  if (!listing) {
    say("error: " + llvm::toString(listing.takeError()));
    return 1;
  }
  // A misfiled or foreign file would land under a wrong name on the
  // server: refuse the whole store before anything is sent.
  if (!listing->problems.empty()) {
    for (const std::string& problem : listing->problems)
      say("error: " + problem);
    say("error: " + options.store + ": " + std::to_string(listing->problems.size()) +
        " files are not well-formed symbol files of this store; nothing was sent");
    return 1;
  }
  auto protocol = makeUploadProtocol(config);
  if (!protocol) {
    say("error: " + llvm::toString(protocol.takeError()));
    return 1;
  }

  std::unique_ptr<UploadLedger> ledger;
  if (!(*protocol)->asksServer()) {
    ledger = std::make_unique<UploadLedger>(options.store, (*protocol)->serverName());
    if (llvm::Error error = ledger->load()) {
      say("error: " + llvm::toString(std::move(error)));
      return 1;
    }
  }
  std::vector<const StoredSymbolFile*> to_send;
  size_t in_ledger = 0;
  for (const StoredSymbolFile& file : listing->files) {
    if (ledger && ledger->confirmed(file))
      ++in_ledger;
    else
      to_send.push_back(&file);
  }
  // Kept binaries after the symbol files, .build-id entries last: a server
  // never names a file it does not have yet.
  size_t binaries = listing->kept_files.size() + listing->build_id_entries.size();
  size_t symbol_count = to_send.size(), kept_end = to_send.size();
  if (binaries && config.binaries && (*protocol)->carriesBinaries()) {
    for (const StoredSymbolFile& file : listing->kept_files)
      to_send.push_back(&file);
    kept_end = to_send.size();
    for (const StoredSymbolFile& file : listing->build_id_entries)
      to_send.push_back(&file);
  } else if (binaries && config.binaries && !options.quiet) {
    say("note: " + std::to_string(binaries) +
        " kept binaries and .build-id entries are not sent: " + config.protocol +
        " carries .sym files only (put and s3 carry them)");
  }

  if (options.dry_run) {
    uint64_t bytes = 0;
    for (const StoredSymbolFile* file : to_send) {
      std::printf("%s %llu\n", file->relative_path.c_str(), (unsigned long long)file->size);
      bytes += file->size;
    }
    if (!options.quiet)
      say("dry run: " + std::to_string(to_send.size()) + " files (" + std::to_string(bytes) +
          " bytes) would be sent" +
          ((*protocol)->asksServer()
               ? " unless the server has them"
               : ", " + std::to_string(in_ledger) + " the server confirmed before are not") +
          "; nothing was sent");
    return 0;
  }

  size_t uploaded = 0, present = in_ledger, failed = 0;
  uint64_t bytes_sent = 0, requests = 0;
  std::mutex mutex;
  if (llvm::Error error = (*protocol)->prepare(to_send)) {
    say("error: " + llvm::toString(std::move(error)));
    for (const StoredSymbolFile* file : to_send)
      say("error: " + file->relative_path + ": not uploaded");
    failed = to_send.size();
    to_send.clear();
    symbol_count = kept_end = 0;
  }

  uint64_t total_bytes = 0;
  for (const StoredSymbolFile* file : to_send)
    total_bytes += file->size;
  FileProgress progress(!options.quiet && isatty(STDERR_FILENO), to_send.size(), total_bytes);
  std::vector<std::vector<const StoredSymbolFile*>> batches;
  std::atomic<size_t> next{0};
  size_t since_save = 0;
  auto work = [&] {
    for (size_t b; (b = next++) < batches.size();) {
      const auto& batch = batches[b];
      progress.started(batch.front()->relative_path);
      std::vector<UploadResult> results = (*protocol)->upload(batch);
      std::lock_guard lock(mutex);
      for (size_t i = 0; i < batch.size(); ++i) {
        const UploadResult& result = results[i];
        requests += result.requests;
        switch (result.outcome) {
        case UploadOutcome::Uploaded:
          ++uploaded;
          bytes_sent += result.bytes_sent;
          if (ledger)
            ledger->record(*batch[i]);
          if (options.verbose && !options.quiet) {
            progress.clear();
            say("uploaded " + batch[i]->relative_path);
          }
          break;
        case UploadOutcome::Present:
          ++present;
          if (options.verbose && !options.quiet) {
            progress.clear();
            say("already on the server: " + batch[i]->relative_path);
          }
          break;
        case UploadOutcome::Failed:
          ++failed;
          progress.clear();
          say("error: " + result.error);
          break;
        }
        progress.finished(batch[i]->relative_path, batch[i]->size);
      }
      // The ledger is saved as work goes, so that a stopped run loses little.
      if (ledger && (since_save += batch.size()) >= 64) {
        since_save = 0;
        if (llvm::Error error = ledger->save())
          say("warning: " + llvm::toString(std::move(error)));
      }
    }
  };
  // The phases one after another: .sym files, kept binaries, .build-id
  // entries (sent only when everything before them is on the server).
  size_t phase_starts[] = {0, symbol_count, kept_end, to_send.size()};
  for (size_t phase = 0; phase < 3; ++phase) {
    std::vector<const StoredSymbolFile*> files(to_send.begin() + phase_starts[phase],
                                               to_send.begin() + phase_starts[phase + 1]);
    if (files.empty())
      continue;
    if (phase == 2 && failed) {
      progress.clear();
      for (const StoredSymbolFile* file : files)
        say("error: " + file->relative_path +
            ": not sent, as a file before it failed (it may name that file)");
      failed += files.size();
      continue;
    }
    batches = makeBatches(files, (*protocol)->packsBatches(), config.max_batch_bytes);
    next = 0;
    unsigned workers = std::max(1u, std::min<unsigned>(options.jobs, batches.size()));
    std::vector<std::thread> threads;
    for (unsigned i = 0; i + 1 < workers; ++i)
      threads.emplace_back(work);
    work();
    for (std::thread& thread : threads)
      thread.join();
  }
  progress.clear();
  // The files are on the server either way; only the record would be lost.
  if (ledger && uploaded)
    if (llvm::Error error = ledger->save())
      say("warning: " + llvm::toString(std::move(error)));

  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.quiet) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "%zu uploaded, %zu already present, %zu failed; %.1f MB sent in %llu requests; "
                  "%.1f s",
                  uploaded, present, failed, double(bytes_sent) / 1e6, (unsigned long long)requests,
                  wall);
    say(line);
  }
  return failed ? 1 : 0;
}

} // namespace dumpsyms
