#include "server/crashes/crash_processor.h"

#include "common/errors/file_error.h"
#include "common/limits/bounded_json.h"
#include "common/limits/input_limits.h"
#include "server/crashes/crash_id.h"
#include "store/layout/releases.h"
#include "walk/printers/walk_printers.h"
#include "walk/signature/crash_signature.h"
#include "walk/snapshot/process_snapshot.h"
#include "walk/stackwalk/process_walk.h"
#include "walk/symbolize/crash_text.h"

#include <cerrno>
#include <cstring>
#include <llvm/ADT/SmallVector.h>
#include <map>
#include <set>
#include <unistd.h>

namespace dumpsyms {
namespace {

// Frames of a report kept after its signal trampoline, as `symtool
// symbolize --trim` keeps them.
constexpr unsigned kReportFrames = 3;

// Symbol files a worker keeps open between crashes before it starts over:
// each is a mapping and a descriptor, and a server walks crashes of many
// products.
constexpr size_t kKeptSymbolFiles = 256;

std::string now() {
  return rfc3339(std::chrono::system_clock::now());
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

// The server's directories are its own business: a symbol file the walk
// read is named by its place in the store.
void hideServerPaths(llvm::json::Value& walk, const std::string& store_root) {
  llvm::json::Object* document = walk.getAsObject();
  llvm::json::Array* modules = document ? document->getArray("modules") : nullptr;
  if (!modules)
    return;
  for (llvm::json::Value& value : *modules) {
    llvm::json::Object* module = value.getAsObject();
    if (!module)
      continue;
    if (auto path = module->getString("symbol_file")) {
      std::string text = path->str();
      if (text.rfind(store_root + "/", 0) == 0)
        (*module)["symbol_file"] = text.substr(store_root.size() + 1);
      else
        (*module)["symbol_file"] = pathFileName(text);
    }
  }
}

llvm::Expected<std::string> readWhole(int fd, uint64_t cap) {
  std::string text;
  char piece[65536];
  for (;;) {
    ssize_t got = ::read(fd, piece, sizeof piece);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return llvm::createStringError(std::strerror(errno));
    if (got == 0)
      return text;
    text.append(piece, static_cast<size_t>(got));
    if (text.size() > cap) {
      text.resize(cap);
      return text;
    }
  }
}

// What processing makes of a crash it cannot read.
ProcessedCrash failedCrash(std::string why) {
  ProcessedCrash out;
  out.status = "failed";
  out.error = std::move(why);
  out.signature = "EMPTY: no frame data available";
  return out;
}

// The crash's payload, open; an error says which file and why.
llvm::Expected<int> openPayload(CrashStore& crashes, const CrashRecord& record) {
  auto opened = crashes.openFile(record.id, record.payload.file);
  if (!opened)
    return llvm::createStringError(record.payload.file +
                                   " cannot be read: " + llvm::toString(opened.takeError()));
  if (!*opened)
    return llvm::createStringError(record.payload.file + " is not in the crash store");
  return (*opened)->fd;
}

} // namespace

CrashProcessor::CrashProcessor(CrashStore& crashes, CrashIndex& index, StoreBackend& symbols,
                               StoreCatalog& catalog, StoreMirror& mirror,
                               SignatureRuleSource& rules, CrashProcessorSettings settings)
    : crashes_(crashes), index_(index), symbols_(symbols), catalog_(catalog), mirror_(mirror),
      rules_(rules), settings_(std::move(settings)) {}

CrashProcessor::~CrashProcessor() {
  stop();
}

void CrashProcessor::start() {
  unsigned workers = std::max(1u, settings_.workers);
  for (unsigned i = 0; i < workers; ++i)
    threads_.emplace_back([this] { work(); });
}

void CrashProcessor::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_)
    thread.join();
  threads_.clear();
}

void CrashProcessor::enqueue(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!queued_.insert(id).second)
      return;
    queue_.push_back(id);
  }
  wake_.notify_one();
}

size_t CrashProcessor::backlog() {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_.size();
}

SymbolSupplier& CrashProcessor::keptSupplier(KeptSymbols& kept) {
  std::shared_ptr<const CatalogSnapshot> catalog;
  if (auto read = catalog_.snapshot())
    catalog = *read;
  else
    llvm::consumeError(read.takeError());
  if (!kept.supplier || catalog != kept.catalog ||
      kept.supplier->openedFiles() > kKeptSymbolFiles) {
    kept.supplier =
        std::make_shared<SymbolSupplier>(walkStores({mirror_.root()}), nullptr, settings_.index);
    kept.catalog = std::move(catalog);
  }
  return *kept.supplier;
}

void CrashProcessor::work() {
  KeptSymbols kept;
  for (;;) {
    std::string id;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_)
        return;
      id = std::move(queue_.front());
      queue_.pop_front();
    }
    processOne(id, kept);
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.erase(id);
  }
}

void CrashProcessor::processOne(const std::string& id, KeptSymbols& kept) {
  auto report = [this](const std::string& message) {
    if (settings_.report)
      settings_.report(message);
  };
  auto record = crashes_.record(id);
  if (!record) {
    report("crash " + id + ": " + llvm::toString(record.takeError()));
    ++failed_;
    return;
  }
  if (!*record) // removed since it was queued
    return;
  auto previous = crashes_.processed(id);
  if (!previous) {
    report("crash " + id + ": " + llvm::toString(previous.takeError()));
  } else if (*previous && !(*previous)->expired_at.empty()) {
    return; // its files are gone (retention): what it was stays
  }

  ProcessedCrash processed = (*record)->kind == CrashKind::Minidump ? walkMinidump(**record, kept)
                                                                    : readCrashText(**record, kept);
  processed.processed_at = now();
  if (previous && *previous) {
    const ProcessedCrash& before = **previous;
    processed.signature_history = before.signature_history;
    if (!before.signature.empty() && before.signature != processed.signature)
      processed.signature_history.push_back({before.signature, before.processed_at});
  }
  if (llvm::Error error = crashes_.writeProcessed(id, processed)) {
    report("crash " + id +
           ": cannot keep what processing made: " + llvm::toString(std::move(error)));
    ++failed_;
    return;
  }
  auto tag = crashes_.processedTag(id);
  std::string etag = tag ? *tag : std::string();
  if (!tag)
    llvm::consumeError(tag.takeError());
  if (llvm::Error error = index_.addReceived(**record))
    report(llvm::toString(std::move(error)));
  if (llvm::Error error = index_.setProcessed(id, processed, etag))
    report(llvm::toString(std::move(error)));
  if (processed.status == "failed") {
    report("crash " + id + ": " + processed.error);
    ++failed_;
  } else {
    ++processed_;
  }
}

ProcessedCrash CrashProcessor::walkMinidump(const CrashRecord& record, KeptSymbols& kept) {
  ProcessedCrash out;
  auto fd = openPayload(crashes_, record);
  if (!fd)
    return failedCrash(llvm::toString(fd.takeError()));
  FdCloser closer{*fd};
  std::string path = "/proc/self/fd/" + std::to_string(*fd);
  auto snapshot = readProcessSnapshot(path);
  if (!snapshot) {
    return failedCrash(
        renamedFile(llvm::toString(snapshot.takeError()), path, record.payload.file));
  }
  // A store elsewhere (S3) is walked from its local mirror: this dump's
  // modules are fetched into it first.
  if (mirror_.mirrored()) {
    auto catalog = catalog_.snapshot();
    if (catalog) {
      for (const SnapshotModule& module : snapshot->modules)
        if (const CatalogEntry* entry =
                (*catalog)->find(pathFileName(module.debug_file), module.debug_id))
          if (auto fetched = mirror_.path(*entry); !fetched)
            llvm::consumeError(fetched.takeError()); // the walk says the symbols are missing
    } else {
      llvm::consumeError(catalog.takeError());
    }
  }
  WalkOptions options;
  options.index = settings_.index;
  keptSupplier(kept);
  ProcessWalk walked = walkProcess(std::move(*snapshot), kept.supplier, options);
  out.walk = walkJson(walked);
  hideServerPaths(out.walk, mirror_.root());

  SignatureInput input;
  input.annotations = record.annotations;
  if (walked.requesting && *walked.requesting < walked.threads.size())
    for (const ResolvedStackFrame& frame : walked.threads[*walked.requesting].frames)
      input.frames.push_back({frame.function, frame.module_name, frame.offset, frame.address});
  for (const ModuleSymbolStatus& status : walked.modules) {
    const SnapshotModule& module = *status.module;
    std::string debug_file = pathFileName(module.debug_file);
    if (debug_file.empty() && module.debug_id.str().empty())
      continue;
    out.modules.push_back({debug_file, module.debug_id.str()});
    if (status.looked_up && status.status != SymbolStatus::Loaded)
      out.missing_symbols.push_back({debug_file, module.debug_id.str(),
                                     pathFileName(module.code_file), module.code_id.str()});
  }
  out.signature = crashSignature(input, *rules_.current());
  out.status = "processed";
  return out;
}

ProcessedCrash CrashProcessor::readCrashText(const CrashRecord& record, KeptSymbols& kept) {
  ProcessedCrash out;
  auto fd = openPayload(crashes_, record);
  if (!fd)
    return failedCrash(llvm::toString(fd.takeError()));
  FdCloser closer{*fd};
  auto text = readWhole(*fd, limits::kMaxCrashText);
  if (!text)
    return failedCrash(record.payload.file +
                       " cannot be read: " + llvm::toString(text.takeError()));

  // Which build of each module: the release's, else the newest the store has.
  std::map<std::string, DebugId> ids;
  bool from_release = false;
  if (!record.product.empty() && !record.version.empty()) {
    std::string relative = releaseRelativePath(record.product, record.version);
    auto info = symbols_.stat(relative);
    if (info && *info && (*info)->size <= limits::kMaxCrashText) {
      auto bytes = symbols_.readRange(relative, 0, (*info)->size);
      auto parsed =
          bytes ? parseBoundedJson(*bytes) : llvm::Expected<llvm::json::Value>(bytes.takeError());
      auto release =
          parsed ? releaseFromJson(*parsed) : llvm::Expected<Release>(parsed.takeError());
      if (release) {
        from_release = true;
        for (const ReleaseModule& module : release->modules) {
          ids.emplace(module.name, module.debug_id);
          ids.emplace(module.debug_file, module.debug_id);
        }
      } else {
        out.note = "the release record " + relative +
                   " is unreadable: " + llvm::toString(release.takeError());
      }
    } else if (!info) {
      llvm::consumeError(info.takeError());
    }
  }
  auto catalog = catalog_.snapshot();
  std::shared_ptr<const CatalogSnapshot> known;
  if (catalog)
    known = *catalog;
  else
    llvm::consumeError(catalog.takeError());
  // The modules the text names, for the newest builds and the mirror.
  std::set<std::string> names;
  {
    llvm::SmallVector<llvm::StringRef, 64> lines;
    llvm::StringRef(*text).split(lines, '\n');
    for (llvm::StringRef line : lines)
      if (auto frame = parseFrameLine(line.rtrim("\r")); frame && !frame->module.empty())
        names.insert(pathFileName(frame->module));
    if (record.kind == CrashKind::Report) {
      if (auto parsed = parseBoundedJson(*text); parsed) {
        const llvm::json::Object* report = parsed->getAsObject();
        if (auto backtrace = report ? report->getString("backtrace") : std::nullopt) {
          llvm::SmallVector<llvm::StringRef, 32> frames;
          backtrace->split(frames, '\n');
          for (llvm::StringRef line : frames)
            if (auto frame = parseFrameLine(line.rtrim("\r")); frame && !frame->module.empty())
              names.insert(pathFileName(frame->module));
        }
      } else {
        llvm::consumeError(parsed.takeError());
      }
    }
  }
  bool used_newest = false;
  if (known)
    for (const std::string& name : names) {
      const CatalogEntry* entry = nullptr;
      if (auto id = ids.find(name); id != ids.end())
        entry = known->find(name, id->second);
      else if (auto versions = known->versions(name); !versions.empty()) {
        entry = versions.front();
        ids.emplace(name, entry->debug_id);
        used_newest = true;
      }
      if (entry && mirror_.mirrored())
        if (auto fetched = mirror_.path(*entry); !fetched)
          llvm::consumeError(fetched.takeError());
    }
  if (from_release)
    out.release = record.product + "/" + record.version;
  if (used_newest && out.note.empty())
    out.note = from_release ? "modules the release does not name were read with their newest build"
                            : "no release " + record.product + "/" + record.version +
                                  " is recorded in the store: each module was read with its "
                                  "newest build";

  keptSupplier(kept);
  StoreFrameResolver resolver(kept.supplier, ids);
  SymbolizedCrashText symbolized = symbolizeCrashText(
      *text, resolver,
      record.kind == CrashKind::Report ? std::optional<unsigned>(kReportFrames) : std::nullopt);
  out.walk = llvm::json::Value(std::move(symbolized.lines));

  SignatureInput input;
  input.annotations = record.annotations;
  std::set<std::string> missing_seen;
  for (size_t i = 0; i < symbolized.crash_frames.size(); ++i) {
    const ResolvedFrame& frame = symbolized.crash_frames[i];
    const FrameLine& line = symbolized.crash_lines[i];
    std::string module = pathFileName(frame.module.empty() ? line.module : frame.module);
    uint64_t address = line.address.value_or(0);
    if (!frame.info.frames.empty()) {
      for (const SourceFrame& source : frame.info.frames)
        input.frames.push_back({source.function, module, frame.offset, address});
    } else {
      input.frames.push_back({frame.info.public_name.value_or(""), module, frame.offset, address});
    }
  }
  for (const std::string& name : names) {
    auto id = ids.find(name);
    bool have = known && id != ids.end() && known->find(name, id->second);
    if (!have && missing_seen.insert(name).second)
      out.missing_symbols.push_back({name, id == ids.end() ? "" : id->second.str(), name, ""});
    out.modules.push_back({name, id == ids.end() ? "" : id->second.str()});
  }
  out.signature = crashSignature(input, *rules_.current());
  out.status = "processed";
  return out;
}

} // namespace dumpsyms
