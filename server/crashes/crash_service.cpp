#include "server/crashes/crash_service.h"

#include "common/json/json_text.h"
#include "server/crashes/crash_id.h"
#include "server/crashes/crash_request_values.h"
#include "server/pages/crash_pages.h"
#include "server/pages/page_layout.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {
namespace {

constexpr size_t kDefaultListLimit = 100;
constexpr size_t kMaxListLimit = 1000;
constexpr size_t kMaxRateKeys = 100000;

using Clock = std::chrono::system_clock;

ServerResponse jsonAnswer(int status, const llvm::json::Value& value) {
  ServerResponse response;
  response.status = status;
  response.body = jsonText(value) + "\n";
  response.headers = {{"Content-Type", "application/json"}, {"Cache-Control", "no-store"}};
  response.route = "crashes";
  return response;
}

ServerResponse textAnswer(int status, std::string text) {
  ServerResponse response = ServerResponse::text(status, std::move(text));
  response.route = "crashes";
  return response;
}
// A client's address without its port: "127.0.0.1:5432" -> "127.0.0.1",
// "[::1]:5432" -> "::1".
std::string addressOf(const std::string& client) {
  if (!client.empty() && client.front() == '[') {
    size_t close = client.find(']');
    return close == std::string::npos ? client : client.substr(1, close - 1);
  }
  size_t colon = client.rfind(':');
  return colon == std::string::npos ? client : client.substr(0, colon);
}

// RFC 3339, or a day "2026-12-01" (its start, UTC).
std::optional<int64_t> timeArgument(const std::string& text) {
  std::string full = text;
  if (text.size() == 10)
    full += "T00:00:00Z";
  auto when = parseRfc3339(full);
  if (!when)
    return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(when->time_since_epoch()).count();
}

llvm::json::Value orNull(const std::string& text) {
  return text.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(text);
}

llvm::json::Object crashSummaryJson(const IndexedCrash& crash) {
  return llvm::json::Object{{"id", crash.id},
                            {"received", crash.received},
                            {"product", crash.product},
                            {"version", crash.version},
                            {"signature", orNull(crash.signature)},
                            {"status", crash.status}};
}

} // namespace

CrashRoute crashRouteOf(const std::string& method, const std::string& path) {
  if (method == "POST" && (path == "/submit" || path == "/submit/report"))
    return CrashRoute::Submit;
  if (method != "GET" && method != "HEAD")
    return CrashRoute::None;
  if (path == "/api/crashes" || path.rfind("/api/crashes/", 0) == 0 || path == "/api/signatures" ||
      path == "/ui/crashes" || path.rfind("/ui/crashes/", 0) == 0 || path == "/ui/signature")
    return CrashRoute::Read;
  return CrashRoute::None;
}

CrashService::CrashService(CrashStore& crashes, CrashIndex& index, CrashProcessor& processor,
                           CrashServiceSettings settings, CrashCounters& counters)
    : crashes_(crashes), index_(index), processor_(processor), settings_(std::move(settings)),
      counters_(counters) {}

bool CrashService::overRate(const std::string& key) {
  if (settings_.rate_per_minute == 0)
    return false;
  int64_t minute = nowMillis() / 60000;
  std::lock_guard<std::mutex> lock(rate_mutex_);
  if (rates_.size() > kMaxRateKeys)
    for (auto it = rates_.begin(); it != rates_.end();)
      it = it->second.first == minute ? std::next(it) : rates_.erase(it);
  auto& [counted_minute, count] = rates_[key];
  if (counted_minute != minute) {
    counted_minute = minute;
    count = 0;
  }
  return ++count > settings_.rate_per_minute;
}

ServerResponse CrashService::handle(ServerRequest& request) {
  const std::string& path = request.path;
  if (request.method == "POST")
    return submit(request, path == "/submit/report");
  if (path == "/api/crashes")
    return listCrashes(request);
  if (path == "/api/signatures")
    return listSignatures(request);
  if (path.rfind("/api/crashes/", 0) == 0) {
    std::string rest = path.substr(std::string("/api/crashes/").size());
    size_t files = rest.find("/files/");
    if (files != std::string::npos)
      return crashFile(rest.substr(0, files), rest.substr(files + 7));
    return crash(rest);
  }
  if (path == "/ui/crashes")
    return crashesPage(request);
  if (path.rfind("/ui/crashes/", 0) == 0)
    return crashPage(request, path.substr(std::string("/ui/crashes/").size()));
  if (path == "/ui/signature")
    return signaturePage(request);
  return textAnswer(404, "no such page");
}

ServerResponse CrashService::submit(ServerRequest& request, bool report) {
  Clock::time_point received = Clock::now();
  auto discard = [&](int status, const std::string& reason) {
    ServerResponse response = textAnswer(status, "Discarded=" + reason);
    response.route = "submit";
    return response;
  };
  if (overRate("address " + addressOf(request.client))) {
    ++counters_.discarded_rate;
    return discard(200, "rule_rate");
  }
  SubmissionResult result =
      report ? readCrashReport(request, settings_.limits, crashes_.spoolDirectory())
             : readCrashSubmission(request, settings_.limits, crashes_.spoolDirectory());
  if (CrashRefusal* refusal = std::get_if<CrashRefusal>(&result)) {
    if (refusal->status == 413)
      ++counters_.too_large;
    else if (refusal->status < 500)
      ++counters_.malformed;
    if (refusal->discarded.empty()) {
      ServerResponse response = textAnswer(refusal->status, "the crash could not be received");
      response.route = "submit";
      return response;
    }
    return discard(refusal->status, refusal->discarded);
  }
  ReceivedCrash& crash = std::get<ReceivedCrash>(result);
  if (!crash.guid.empty() && overRate("guid " + crash.guid)) {
    ++counters_.discarded_rate;
    return discard(200, "rule_rate");
  }
  std::string id = newCrashId(received);
  auto record = crashes_.publish(id, crash, received);
  if (!record) {
    // Not the client's fault: it may send the crash again.
    std::string why = llvm::toString(record.takeError());
    ServerResponse response = textAnswer(503, "the crash could not be stored: " + why);
    response.route = "submit";
    return response;
  }
  if (llvm::Error error = index_.addReceived(*record))
    llvm::consumeError(std::move(error)); // the next listing of the store indexes it
  processor_.enqueue(id);
  ++counters_.accepted;
  ServerResponse response = textAnswer(200, "CrashID=bp-" + id);
  response.route = "submit";
  return response;
}

ServerResponse CrashService::listCrashes(const ServerRequest& request) {
  CrashQuery query;
  query.signature = queryOf(request, "signature");
  query.signature_text = queryOf(request, "q");
  query.product = queryOf(request, "product");
  query.version = queryOf(request, "version");
  query.debug_id = queryOf(request, "debug_id");
  query.cursor = queryOf(request, "cursor");
  query.limit = kDefaultListLimit;
  if (std::string limit = queryOf(request, "limit"); !limit.empty()) {
    unsigned long long value = 0;
    if (llvm::StringRef(limit).getAsInteger(10, value) || value == 0 || value > kMaxListLimit)
      return jsonAnswer(400, llvm::json::Object{{"error", "limit must be 1 to 1000"}});
    query.limit = static_cast<size_t>(value);
  }
  if (std::string since = queryOf(request, "since"); !since.empty()) {
    query.since_ms = timeArgument(since);
    if (!query.since_ms)
      return jsonAnswer(400, llvm::json::Object{{"error", "since must be RFC 3339 or YYYY-MM-DD"}});
  }
  CrashPage page = index_.list(query);
  llvm::json::Array crashes;
  for (const IndexedCrash& crash : page.crashes)
    crashes.push_back(crashSummaryJson(crash));
  return jsonAnswer(200, llvm::json::Object{{"crashes", std::move(crashes)},
                                            {"next_cursor", orNull(page.next_cursor)}});
}

ServerResponse CrashService::crash(const std::string& text) {
  auto id = parseCrashId(text);
  if (!id)
    return jsonAnswer(404, llvm::json::Object{{"error", "not a crash id"}});
  auto record = crashes_.record(*id);
  if (!record)
    return jsonAnswer(503, llvm::json::Object{{"error", llvm::toString(record.takeError())}});
  if (!*record)
    return jsonAnswer(404, llvm::json::Object{{"error", "no such crash"}});
  auto processed = crashes_.processed(*id);
  if (!processed)
    return jsonAnswer(503, llvm::json::Object{{"error", llvm::toString(processed.takeError())}});
  const CrashRecord& crash = **record;
  llvm::json::Object annotations;
  for (const auto& [key, value] : crash.annotations)
    annotations[key] = value;
  llvm::json::Array files;
  for (const CrashFileEntry* entry : [&] {
         std::vector<const CrashFileEntry*> all{&crash.payload};
         for (const CrashFileEntry& attachment : crash.attachments)
           all.push_back(&attachment);
         return all;
       }())
    files.push_back(
        llvm::json::Object{{"file", entry->file},
                           {"field", entry->field},
                           {"filename", entry->filename},
                           {"size", static_cast<int64_t>(entry->size)},
                           {"url", "/api/crashes/" + crash.id + "/files/" + entry->file}});
  llvm::json::Object out{{"id", crash.id},
                         {"received", crash.received},
                         {"kind", crashKindName(crash.kind)},
                         {"product", crash.product},
                         {"version", crash.version},
                         {"annotations", std::move(annotations)},
                         {"files", std::move(files)}};
  if (*processed) {
    llvm::json::Value stored = toJson(**processed);
    llvm::json::Object& fields = *stored.getAsObject();
    for (const char* key : {"signature", "signature_history", "missing_symbols", "status",
                            "processed_at", "release", "note", "error", "expired_at", "walk"})
      if (llvm::json::Value* value = fields.get(key))
        out[key] = std::move(*value);
    if ((*processed)->signature.empty())
      out["signature"] = nullptr;
  } else {
    out["signature"] = nullptr;
    out["signature_history"] = llvm::json::Array();
    out["missing_symbols"] = llvm::json::Array();
    out["status"] = "queued";
    out["walk"] = nullptr;
  }
  return jsonAnswer(200, llvm::json::Value(std::move(out)));
}

ServerResponse CrashService::crashFile(const std::string& text, const std::string& file) {
  auto id = parseCrashId(text);
  if (!id)
    return textAnswer(404, "not a crash id");
  auto record = crashes_.record(*id);
  if (!record)
    return textAnswer(503, llvm::toString(record.takeError()));
  if (!*record)
    return textAnswer(404, "no such crash");
  const CrashFileEntry* entry = nullptr;
  if ((*record)->payload.file == file)
    entry = &(*record)->payload;
  for (const CrashFileEntry& attachment : (*record)->attachments)
    if (attachment.file == file)
      entry = &attachment;
  if (!entry)
    return textAnswer(404, "the crash has no such file");
  auto opened = crashes_.openFile(*id, file);
  if (!opened)
    return textAnswer(503, llvm::toString(opened.takeError()));
  if (!*opened)
    return textAnswer(404, "the crash's file is gone (retention)");
  ServerResponse response;
  response.fd = (*opened)->fd;
  response.fd_length = (*opened)->info.size;
  response.headers = {{"Content-Type", "application/octet-stream"},
                      {"Content-Disposition", "attachment; filename=\"" + *id + "-" + file + "\""},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Cache-Control", "no-store"}};
  response.route = "crashes";
  return response;
}

ServerResponse CrashService::listSignatures(const ServerRequest& request) {
  std::optional<int64_t> since;
  if (std::string text = queryOf(request, "since"); !text.empty()) {
    since = timeArgument(text);
    if (!since)
      return jsonAnswer(400, llvm::json::Object{{"error", "since must be RFC 3339 or YYYY-MM-DD"}});
  }
  CrashQuery filter;
  filter.product = queryOf(request, "product");
  filter.version = queryOf(request, "version");
  llvm::json::Array groups;
  for (const SignatureGroup& group :
       index_.signatures(since, std::nullopt, filter, SIZE_MAX >> 1)) {
    llvm::json::Array products, versions;
    for (const std::string& product : group.products)
      products.push_back(product);
    for (const std::string& version : group.versions)
      versions.push_back(version);
    groups.push_back(llvm::json::Object{{"signature", group.signature},
                                        {"count", static_cast<int64_t>(group.count)},
                                        {"first", group.first},
                                        {"last", group.last},
                                        {"products", std::move(products)},
                                        {"versions", std::move(versions)}});
  }
  return jsonAnswer(200, llvm::json::Value(std::move(groups)));
}
} // namespace dumpsyms
