#include "server/crashes/crash_store.h"

#include "common/json/json_text.h"
#include "common/limits/bounded_json.h"
#include "server/crashes/crash_id.h"

#include <llvm/ADT/SmallVector.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

constexpr uint64_t kMaxReceivedJson = 4 * 1024 * 1024;
constexpr uint64_t kMaxProcessedJson = 256 * 1024 * 1024;

std::string payloadFile(CrashKind kind) {
  switch (kind) {
  case CrashKind::Minidump:
    return "minidump.dmp";
  case CrashKind::Backtrace:
    return "backtrace.txt";
  case CrashKind::Report:
    return "report.json";
  }
  return "minidump.dmp";
}

llvm::json::Value fileJson(const CrashFileEntry& entry) {
  return llvm::json::Object{{"file", entry.file},
                            {"field", entry.field},
                            {"filename", entry.filename},
                            {"size", static_cast<int64_t>(entry.size)}};
}

CrashFileEntry fileFromJson(const llvm::json::Object& object) {
  CrashFileEntry entry;
  entry.file = object.getString("file").value_or("").str();
  entry.field = object.getString("field").value_or("").str();
  entry.filename = object.getString("filename").value_or("").str();
  entry.size = static_cast<uint64_t>(object.getInteger("size").value_or(0));
  return entry;
}

std::string stringOf(const llvm::json::Object& object, llvm::StringRef key) {
  return object.getString(key).value_or("").str();
}

// A file's name: a safe leaf of the crash's directory.
bool isCrashFileName(const std::string& file) {
  return !file.empty() && file.size() < 64 && file[0] != '.' &&
         file.find_first_of("/\\") == std::string::npos;
}

} // namespace

llvm::json::Value toJson(const CrashRecord& record) {
  llvm::json::Object annotations;
  for (const auto& [key, value] : record.annotations)
    annotations[key] = value;
  llvm::json::Array attachments;
  for (const CrashFileEntry& entry : record.attachments)
    attachments.push_back(fileJson(entry));
  return llvm::json::Object{{"id", record.id},
                            {"received", record.received},
                            {"kind", crashKindName(record.kind)},
                            {"product", record.product},
                            {"version", record.version},
                            {"guid", record.guid},
                            {"annotations", std::move(annotations)},
                            {"payload", fileJson(record.payload)},
                            {"attachments", std::move(attachments)}};
}

llvm::Expected<CrashRecord> crashRecordFromJson(const llvm::json::Value& value) {
  const llvm::json::Object* object = value.getAsObject();
  if (!object || !object->getString("id") || !object->getString("received"))
    return llvm::createStringError("not a crash's received.json");
  CrashRecord record;
  record.id = stringOf(*object, "id");
  record.received = stringOf(*object, "received");
  std::string kind = stringOf(*object, "kind");
  record.kind = kind == "backtrace" ? CrashKind::Backtrace
                : kind == "report"  ? CrashKind::Report
                                    : CrashKind::Minidump;
  record.product = stringOf(*object, "product");
  record.version = stringOf(*object, "version");
  record.guid = stringOf(*object, "guid");
  if (const llvm::json::Object* annotations = object->getObject("annotations"))
    for (const auto& [key, annotation] : *annotations)
      if (auto text = annotation.getAsString())
        record.annotations[key.str()] = text->str();
  if (const llvm::json::Object* payload = object->getObject("payload"))
    record.payload = fileFromJson(*payload);
  if (const llvm::json::Array* attachments = object->getArray("attachments"))
    for (const llvm::json::Value& attachment : *attachments)
      if (const llvm::json::Object* entry = attachment.getAsObject())
        record.attachments.push_back(fileFromJson(*entry));
  return record;
}

llvm::json::Value toJson(const ProcessedCrash& processed) {
  llvm::json::Array history, missing, modules;
  for (const SignatureChange& change : processed.signature_history)
    history.push_back(llvm::json::Object{{"signature", change.signature}, {"at", change.at}});
  for (const MissingSymbol& symbol : processed.missing_symbols)
    missing.push_back(llvm::json::Object{{"debug_file", symbol.debug_file},
                                         {"debug_id", symbol.debug_id},
                                         {"code_file", symbol.code_file},
                                         {"code_id", symbol.code_id}});
  for (const auto& [file, id] : processed.modules)
    modules.push_back(llvm::json::Object{{"debug_file", file}, {"debug_id", id}});
  return llvm::json::Object{{"status", processed.status},
                            {"processed_at", processed.processed_at},
                            {"signature", processed.signature},
                            {"signature_history", std::move(history)},
                            {"missing_symbols", std::move(missing)},
                            {"modules", std::move(modules)},
                            {"release", processed.release},
                            {"note", processed.note},
                            {"error", processed.error},
                            {"expired_at", processed.expired_at},
                            {"walk", processed.walk}};
}

llvm::Expected<ProcessedCrash> processedCrashFromJson(const llvm::json::Value& value) {
  const llvm::json::Object* object = value.getAsObject();
  if (!object || !object->getString("status"))
    return llvm::createStringError("not a crash's processed.json");
  ProcessedCrash processed;
  processed.status = stringOf(*object, "status");
  processed.processed_at = stringOf(*object, "processed_at");
  processed.signature = stringOf(*object, "signature");
  processed.release = stringOf(*object, "release");
  processed.note = stringOf(*object, "note");
  processed.error = stringOf(*object, "error");
  processed.expired_at = stringOf(*object, "expired_at");
  if (const llvm::json::Array* history = object->getArray("signature_history"))
    for (const llvm::json::Value& entry : *history)
      if (const llvm::json::Object* change = entry.getAsObject())
        processed.signature_history.push_back(
            {stringOf(*change, "signature"), stringOf(*change, "at")});
  if (const llvm::json::Array* missing = object->getArray("missing_symbols"))
    for (const llvm::json::Value& entry : *missing)
      if (const llvm::json::Object* symbol = entry.getAsObject())
        processed.missing_symbols.push_back(
            {stringOf(*symbol, "debug_file"), stringOf(*symbol, "debug_id"),
             stringOf(*symbol, "code_file"), stringOf(*symbol, "code_id")});
  if (const llvm::json::Array* modules = object->getArray("modules"))
    for (const llvm::json::Value& entry : *modules)
      if (const llvm::json::Object* module = entry.getAsObject())
        processed.modules.push_back(
            {stringOf(*module, "debug_file"), stringOf(*module, "debug_id")});
  if (const llvm::json::Value* walk = object->get("walk"))
    processed.walk = *walk;
  return processed;
}

llvm::Error CrashStore::publishText(const std::string& relative, const std::string& text,
                                    bool replace) {
  auto spooled = SpoolFile::create(backend_.spoolDirectory());
  if (!spooled)
    return spooled.takeError();
  if (llvm::Error error = spooled->write(text))
    return error;
  if (llvm::Error error = spooled->close())
    return error;
  auto outcome = backend_.publish(relative, spooled->path(), replace);
  spooled->release(); // consumed by publish, whatever it answered
  if (!outcome)
    return outcome.takeError();
  if (*outcome == PublishOutcome::Conflict)
    return llvm::createStringError(relative + " exists already");
  return llvm::Error::success();
}

llvm::Expected<CrashRecord> CrashStore::publish(const std::string& id, ReceivedCrash& crash,
                                                std::chrono::system_clock::time_point received) {
  std::string directory = crashDirectory(id);
  CrashRecord record;
  record.id = id;
  record.received = rfc3339(received);
  record.kind = crash.kind;
  record.product = crash.product;
  record.version = crash.version;
  record.guid = crash.guid;
  record.annotations = crash.annotations;
  auto put = [&](SpoolFile& file, const std::string& name) -> llvm::Error {
    auto outcome = backend_.publish(directory + "/" + name, file.path(), false);
    file.release();
    if (!outcome)
      return outcome.takeError();
    if (*outcome == PublishOutcome::Conflict)
      return llvm::createStringError(directory + "/" + name + " exists already");
    return llvm::Error::success();
  };
  for (size_t i = 0; i < crash.attachments.size(); ++i) {
    CrashAttachment& attachment = crash.attachments[i];
    CrashFileEntry entry{"attachment-" + std::to_string(i + 1), attachment.field,
                         attachment.filename, attachment.file.size()};
    if (llvm::Error error = put(attachment.file, entry.file))
      return error;
    record.attachments.push_back(std::move(entry));
  }
  record.payload = {payloadFile(crash.kind),
                    crash.kind == CrashKind::Minidump    ? "upload_file_minidump"
                    : crash.kind == CrashKind::Backtrace ? "backtrace"
                                                         : "report",
                    crash.payload_filename, crash.payload->size()};
  if (llvm::Error error = put(*crash.payload, record.payload.file))
    return error;
  if (llvm::Error error =
          publishText(directory + "/" + kReceivedFile, jsonText(toJson(record)) + "\n", false))
    return error;
  return record;
}

llvm::Expected<std::optional<llvm::json::Value>> CrashStore::readJson(const std::string& relative,
                                                                      uint64_t cap) {
  auto info = backend_.stat(relative);
  if (!info)
    return info.takeError();
  if (!*info)
    return std::nullopt;
  if ((*info)->size > cap)
    return llvm::createStringError(relative + " is larger than " + std::to_string(cap) + " bytes");
  auto text = backend_.readRange(relative, 0, (*info)->size);
  if (!text)
    return text.takeError();
  auto parsed = parseBoundedJson(*text);
  if (!parsed)
    return llvm::createStringError(relative + ": " + llvm::toString(parsed.takeError()));
  return std::optional<llvm::json::Value>(std::move(*parsed));
}

// A JSON file of the crash read and parsed by `parse`; none when absent.
template <typename T>
llvm::Expected<std::optional<T>>
parsedOrNone(llvm::Expected<std::optional<llvm::json::Value>> value,
             llvm::Expected<T> (*parse)(const llvm::json::Value&)) {
  if (!value)
    return value.takeError();
  if (!*value)
    return std::nullopt;
  auto parsed = parse(**value);
  if (!parsed)
    return parsed.takeError();
  return std::optional<T>(std::move(*parsed));
}

llvm::Expected<std::optional<CrashRecord>> CrashStore::record(const std::string& id) {
  return parsedOrNone<CrashRecord>(
      readJson(crashDirectory(id) + "/" + kReceivedFile, kMaxReceivedJson), crashRecordFromJson);
}

llvm::Expected<std::string> CrashStore::processedTag(const std::string& id) {
  auto info = backend_.stat(crashDirectory(id) + "/" + kProcessedFile);
  if (!info)
    return info.takeError();
  return *info ? (*info)->etag : std::string();
}

llvm::Expected<std::optional<ProcessedCrash>> CrashStore::processed(const std::string& id,
                                                                    std::string* etag) {
  std::string relative = crashDirectory(id) + "/" + kProcessedFile;
  if (etag) {
    auto tag = processedTag(id);
    if (!tag)
      return tag.takeError();
    *etag = *tag;
  }
  return parsedOrNone<ProcessedCrash>(readJson(relative, kMaxProcessedJson),
                                      processedCrashFromJson);
}

llvm::Error CrashStore::writeProcessed(const std::string& id, const ProcessedCrash& processed) {
  return publishText(crashDirectory(id) + "/" + kProcessedFile, jsonText(toJson(processed)) + "\n",
                     true);
}

llvm::Expected<std::optional<OpenedObject>> CrashStore::openFile(const std::string& id,
                                                                 const std::string& file) {
  if (!isCrashFileName(file))
    return std::nullopt;
  return backend_.openIfPresent(crashDirectory(id) + "/" + file);
}

llvm::Expected<std::vector<CrashStore::ListedCrash>> CrashStore::list(const std::string& day) {
  auto files = backend_.listTree(day);
  if (!files)
    return files.takeError();
  std::vector<ListedCrash> crashes;
  for (const ListedObject& file : *files) {
    // <yyyymmdd>/<id>/<file>, the id's day its directory's.
    llvm::SmallVector<llvm::StringRef, 4> parts;
    llvm::StringRef(file.relative).split(parts, '/');
    if (parts.size() != 3)
      continue;
    auto id = parseCrashId(parts[1].str());
    if (!id || *id != parts[1] || crashDirectory(*id) != (parts[0] + "/" + parts[1]).str())
      continue;
    if (crashes.empty() || crashes.back().id != *id)
      crashes.push_back({*id, false, ""});
    if (parts[2] == kReceivedFile)
      crashes.back().received = true;
    else if (parts[2] == kProcessedFile)
      crashes.back().processed_tag = file.info.etag;
  }
  return crashes;
}

llvm::Error CrashStore::expire(const std::string& id, const std::string& at) {
  auto found = record(id);
  if (!found)
    return found.takeError();
  if (!*found)
    return llvm::Error::success(); // gone already
  auto before = processed(id);
  if (!before)
    return before.takeError();
  ProcessedCrash kept = *before ? std::move(**before) : ProcessedCrash{};
  if (kept.status.empty()) {
    kept.status = "failed";
    kept.error = "its files were removed by retention before it was processed";
    kept.signature = "EMPTY: no frame data available";
  }
  kept.walk = nullptr;
  kept.expired_at = at;
  // The record of what it was first, then the files: a removal cut short
  // leaves files the next pass removes.
  if (llvm::Error error = writeProcessed(id, kept))
    return error;
  std::string directory = crashDirectory(id);
  if (llvm::Error error = backend_.remove(directory + "/" + (*found)->payload.file))
    return error;
  for (const CrashFileEntry& attachment : (*found)->attachments)
    if (llvm::Error error = backend_.remove(directory + "/" + attachment.file))
      return error;
  return llvm::Error::success();
}

} // namespace dumpsyms
