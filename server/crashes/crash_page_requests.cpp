// The crash inbox's pages: the index and the crash store read, their
// values handed to server/pages/crash_pages.h's printers.
#include "server/crashes/crash_id.h"
#include "server/crashes/crash_request_values.h"
#include "server/crashes/crash_service.h"
#include "server/pages/crash_pages.h"
#include "server/pages/page_layout.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {
namespace {

constexpr size_t kDefaultListed = 100;
constexpr size_t kMaxGroupsShown = 200;
constexpr unsigned kSignaturePageDays = 30;

// The counts of each of the `days` days up to today, oldest first.
std::vector<uint64_t> dailySeries(const std::vector<std::pair<std::string, uint64_t>>& counts,
                                  unsigned days) {
  std::vector<uint64_t> series(days, 0);
  int64_t today = nowMillis();
  for (unsigned i = 0; i < days; ++i) {
    std::string day = utcDay(std::chrono::system_clock::time_point(
        std::chrono::milliseconds(today - int64_t(days - 1 - i) * 86400000)));
    for (const auto& [counted, count] : counts)
      if (counted == day)
        series[i] = count;
  }
  return series;
}

bool isHexId(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c != '-' && c != '{' && c != '}')
      digits += c;
  return digits.size() >= 32 && digits.size() <= 40 &&
         std::all_of(digits.begin(), digits.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// The start of a crash id: 8 or more of its characters, with its dashes.
bool isIdPrefix(const std::string& text) {
  std::string id = llvm::StringRef(text).lower();
  if (id.rfind("bp-", 0) == 0)
    id.erase(0, 3);
  if (id.size() < 8 || id.size() > 36)
    return false;
  for (size_t i = 0; i < id.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? id[i] != '-' : !std::isxdigit(static_cast<unsigned char>(id[i])))
      return false;
  }
  return true;
}

std::string stringField(const llvm::json::Object& object, llvm::StringRef key) {
  if (auto text = object.getString(key))
    return text->str();
  if (auto number = object.getInteger(key))
    return std::to_string(*number);
  return "";
}

// The walk's threads as the page shows them.
std::vector<ThreadRows> threadsOf(const llvm::json::Value& walk) {
  std::vector<ThreadRows> threads;
  if (const llvm::json::Object* document = walk.getAsObject()) {
    const llvm::json::Array* list = document->getArray("threads");
    for (size_t t = 0; list && t < list->size(); ++t) {
      const llvm::json::Object* thread = (*list)[t].getAsObject();
      if (!thread)
        continue;
      ThreadRows rows;
      rows.title = "Thread " + stringField(*thread, "tid");
      if (auto name = thread->getString("name"))
        rows.title += " " + name->str();
      if (thread->getBoolean("crashed").value_or(false))
        rows.title += " (crashed)";
      else if (thread->getBoolean("requesting").value_or(false))
        rows.title += " (requesting)";
      size_t index = 0;
      if (const llvm::json::Array* frames = thread->getArray("frames"))
        for (const llvm::json::Value& value : *frames) {
          const llvm::json::Object* frame = value.getAsObject();
          if (!frame)
            continue;
          FrameRow row;
          row.index = std::to_string(index++);
          row.module = stringField(*frame, "module");
          if (std::string offset = stringField(*frame, "offset"); !offset.empty())
            row.module += " + " + offset;
          row.function = stringField(*frame, "function");
          if (row.function.empty())
            row.function = stringField(*frame, "address");
          row.source = stringField(*frame, "file");
          if (std::string line = stringField(*frame, "line"); !row.source.empty() && !line.empty())
            row.source += ":" + line;
          row.trust = stringField(*frame, "trust");
          row.inlined = frame->getBoolean("inlined").value_or(false);
          rows.frames.push_back(std::move(row));
        }
      threads.push_back(std::move(rows));
    }
    return threads;
  }
  // A backtrace: the symbolized lines.
  const llvm::json::Array* lines = walk.getAsArray();
  if (!lines)
    return threads;
  ThreadRows rows;
  rows.title = "Backtrace";
  size_t index = 0;
  auto addLine = [&](const llvm::json::Object& line) {
    const llvm::json::Array* frames = line.getArray("frames");
    std::string module = stringField(line, "module");
    if (std::string offset = stringField(line, "offset"); !offset.empty())
      module += " + " + offset;
    if (!frames || frames->empty()) {
      FrameRow row;
      row.index = std::to_string(index++);
      row.module = module;
      row.function = stringField(line, "public");
      if (row.function.empty())
        row.function = stringField(line, "input");
      rows.frames.push_back(std::move(row));
      return;
    }
    for (size_t i = 0; i < frames->size(); ++i) {
      const llvm::json::Object* frame = (*frames)[i].getAsObject();
      if (!frame)
        continue;
      FrameRow row;
      row.index = std::to_string(index++);
      row.module = module;
      row.function = stringField(*frame, "function");
      row.source = stringField(*frame, "file");
      if (std::string line_number = stringField(*frame, "line");
          !row.source.empty() && line_number != "0")
        row.source += ":" + line_number;
      row.inlined = i + 1 < frames->size();
      rows.frames.push_back(std::move(row));
    }
  };
  for (const llvm::json::Value& value : *lines) {
    const llvm::json::Object* line = value.getAsObject();
    if (!line)
      continue;
    if (const llvm::json::Array* backtrace = line->getArray("backtrace")) { // a report
      for (const llvm::json::Value& frame : *backtrace)
        if (const llvm::json::Object* object = frame.getAsObject())
          addLine(*object);
      continue;
    }
    if (line->get("module") || line->get("frames"))
      addLine(*line);
  }
  threads.push_back(std::move(rows));
  return threads;
}

} // namespace

ServerResponse CrashService::page(int status, const std::string& title, std::string body) {
  ServerResponse response;
  response.status = status;
  response.body = renderPage(PageFrame{title, PageTab::None, settings_.store_name}, body);
  response.headers = pageHeaders();
  response.route = "crash-pages";
  return response;
}

ServerResponse CrashService::crashesPage(const ServerRequest& request) {
  CrashGroupsInput input;
  input.q = queryOf(request, "q");
  input.product = queryOf(request, "product");
  input.version = queryOf(request, "version");
  input.days = 7;
  if (std::string days = queryOf(request, "days"); !days.empty()) {
    unsigned value = 0;
    if (!llvm::StringRef(days).getAsInteger(10, value) && value <= 3650)
      input.days = value;
  }
  std::string q = llvm::StringRef(input.q).trim().str();
  if (auto id = parseCrashId(q)) {
    ServerResponse response;
    response.status = 303;
    response.headers = {{"Location", "/ui/crashes/" + *id}, {"Cache-Control", "no-store"}};
    response.route = "crash-pages";
    return response;
  }
  CrashQuery filter;
  filter.product = input.product;
  filter.version = input.version;
  if (!q.empty() && isHexId(q)) {
    for (char c : q)
      if (std::isxdigit(static_cast<unsigned char>(c)))
        filter.debug_id += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    input.note = "Crashes with a module of debug id " + filter.debug_id + ".";
  } else if (isIdPrefix(q)) {
    filter.id_prefix = llvm::StringRef(q).lower();
    if (filter.id_prefix.rfind("bp-", 0) == 0)
      filter.id_prefix.erase(0, 3);
    input.note = "Crashes whose id starts with " + filter.id_prefix + ".";
  } else {
    filter.signature_text = q;
  }
  std::optional<int64_t> since;
  if (input.days)
    since = nowMillis() - int64_t(input.days) * 86400000;
  unsigned series_days = input.days ? std::min(input.days, 90u) : kSignaturePageDays;
  for (const SignatureGroup& group :
       index_.signatures(since, std::nullopt, filter, kMaxGroupsShown)) {
    CrashGroupRow row{group.signature, group.count,    group.first, group.last,
                      group.products,  group.versions, {}};
    row.daily = dailySeries(
        index_.dailyCounts(group.signature, nowMillis() - int64_t(series_days) * 86400000),
        series_days);
    input.groups.push_back(std::move(row));
  }
  input.queued = processor_.backlog();
  return page(200, "Crash groups", renderCrashGroups(input));
}

ServerResponse CrashService::signaturePage(const ServerRequest& request) {
  std::string signature = queryOf(request, "s");
  CrashQuery filter;
  filter.signature = signature;
  std::vector<SignatureGroup> groups = index_.signatures(std::nullopt, std::nullopt, filter, 1);
  if (signature.empty() || groups.empty())
    return page(404, "No such signature",
                "<h1>No such signature</h1><p class=\"muted\">No processed crash has this "
                "signature.</p>");
  SignaturePageInput input;
  const SignatureGroup& group = groups.front();
  input.group = {group.signature, group.count,    group.first, group.last,
                 group.products,  group.versions, {}};
  input.group.daily = dailySeries(
      index_.dailyCounts(signature, nowMillis() - int64_t(kSignaturePageDays) * 86400000),
      kSignaturePageDays);
  CrashQuery query;
  query.signature = signature;
  query.limit = kDefaultListed;
  CrashPage listed = index_.list(query);
  for (const IndexedCrash& crash : listed.crashes)
    input.crashes.push_back(
        {crash.id, crash.received, crash.product, crash.version, crash.signature, crash.status});
  input.more = !listed.next_cursor.empty();
  return page(200, signature, renderSignaturePage(input));
}

ServerResponse CrashService::crashPage(const ServerRequest& request, const std::string& text) {
  auto id = parseCrashId(text);
  if (!id)
    return page(404, "No such crash", "<h1>No such crash</h1><p>That is not a crash id.</p>");
  auto record = crashes_.record(*id);
  if (!record)
    return page(503, "The crash store cannot be read",
                "<h1>The crash store cannot be read</h1><p>" + llvm::toString(record.takeError()) +
                    "</p>");
  if (!*record)
    return page(404, "No such crash", "<h1>No such crash</h1>");
  auto processed = crashes_.processed(*id);
  if (!processed) {
    llvm::consumeError(processed.takeError());
    processed = std::optional<ProcessedCrash>();
  }
  const CrashRecord& crash = **record;
  CrashPageInput input;
  input.id = crash.id;
  input.received = crash.received;
  input.kind = crashKindName(crash.kind);
  input.product = crash.product;
  input.version = crash.version;
  input.status = "queued";
  for (const auto& [key, value] : crash.annotations)
    input.annotations.push_back({key, value});
  input.files.push_back({crash.kind == CrashKind::Minidump ? "minidump"
                         : crash.kind == CrashKind::Report ? "report"
                                                           : "backtrace",
                         crash.payload.filename, crash.payload.size,
                         "/api/crashes/" + crash.id + "/files/" + crash.payload.file});
  for (const CrashFileEntry& attachment : crash.attachments)
    input.files.push_back({"attachment " + attachment.field, attachment.filename, attachment.size,
                           "/api/crashes/" + crash.id + "/files/" + attachment.file});
  if (*processed) {
    const ProcessedCrash& done = **processed;
    input.status = done.status;
    input.signature = done.signature;
    input.processed_at = done.processed_at;
    input.error = done.error;
    input.note = done.note;
    if (!done.expired_at.empty())
      input.note += std::string(input.note.empty() ? "" : " ") +
                    "Its dump and attachments were "
                    "removed on " +
                    done.expired_at.substr(0, 10) + " (retention); what it was is kept.";
    input.release = done.release;
    for (const SignatureChange& change : done.signature_history)
      input.history.push_back({change.signature, change.at});
    for (const MissingSymbol& symbol : done.missing_symbols)
      input.missing.push_back(
          {symbol.debug_file, symbol.debug_id, symbol.code_file, symbol.code_id});
    input.threads = threadsOf(done.walk);
    if (const llvm::json::Object* document = done.walk.getAsObject())
      if (const llvm::json::Object* reason = document->getObject("crash")) {
        input.crash_reason = stringField(*reason, "reason");
        input.crash_address = stringField(*reason, "address");
      }
  }
  // Where the sym_upload line sends the file: this server, as the browser
  // reached it.
  std::string scheme = request.header("x-forwarded-proto") == "https" ? "https" : "http";
  std::string host = request.header("host");
  input.server_url = host.empty() ? "http://SERVER" : scheme + "://" + host;
  return page(200, "Crash bp-" + crash.id, renderCrashPage(input));
}

} // namespace dumpsyms
