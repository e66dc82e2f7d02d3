#include "store/layout/manifest.h"

#include "common/errors/file_error.h"
#include "common/files/atomic_file.h"

#include <llvm/Support/FormatVariadic.h>

namespace dumpsyms {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

struct StatusName {
  EntryStatus status;
  const char* name;
};
constexpr StatusName kStatusNames[] = {
    {EntryStatus::Written, "written"},     {EntryStatus::Exists, "exists"},
    {EntryStatus::Duplicate, "duplicate"}, {EntryStatus::NoDebugInfo, "no-debug-info"},
    {EntryStatus::Failed, "failed"},
};

void putIfSet(Object& object, const char* key, const std::string& value) {
  if (!value.empty())
    object[key] = value;
}

std::string getString(const Object& object, llvm::StringRef key) {
  auto value = object.getString(key);
  return value ? value->str() : std::string();
}

} // namespace

const char* statusName(EntryStatus status) {
  for (const StatusName& entry : kStatusNames)
    if (entry.status == status)
      return entry.name;
  return "failed";
}

std::optional<EntryStatus> parseStatus(llvm::StringRef name) {
  for (const StatusName& entry : kStatusNames)
    if (name == entry.name)
      return entry.status;
  return std::nullopt;
}

Value toJson(const ManifestEntry& entry) {
  Object out;
  out["path"] = entry.path;
  out["key"] = entry.key;
  out["status"] = statusName(entry.status);
  putIfSet(out, "module", entry.module);
  putIfSet(out, "cpu", entry.cpu);
  putIfSet(out, "arch", entry.arch);
  putIfSet(out, "debug_id", entry.debug_id.str());
  putIfSet(out, "code_id", entry.code_id.str());
  if (!entry.debug_info_from.empty()) {
    Object debug{{"from", entry.debug_info_from}};
    putIfSet(debug, "file", entry.debug_file);
    putIfSet(debug, "how", entry.debug_file_how);
    out["debug_info"] = std::move(debug);
  }
  putIfSet(out, "sym", entry.sym);
  if (!entry.kept.empty()) {
    Array kept;
    for (const std::string& path : entry.kept)
      kept.push_back(path);
    out["kept"] = std::move(kept);
  }
  if (entry.records) {
    Object records;
    for (const RecordKind& kind : kRecordKinds)
      records[kind.key] = static_cast<int64_t>((*entry.records).*kind.count);
    out["records"] = std::move(records);
  }
  if (!entry.warnings.empty()) {
    Array warnings;
    for (const std::string& warning : entry.warnings)
      warnings.push_back(warning);
    out["warnings"] = std::move(warnings);
  }
  putIfSet(out, "duplicate_of", entry.duplicate_of);
  putIfSet(out, "error", entry.error);
  return out;
}

llvm::Expected<ManifestEntry> entryFromJson(const Value& value) {
  const Object* object = value.getAsObject();
  if (!object)
    return llvm::createStringError("a manifest entry is not a JSON object");
  ManifestEntry entry;
  entry.path = getString(*object, "path");
  entry.key = getString(*object, "key");
  auto status = parseStatus(getString(*object, "status"));
  if (!status)
    return llvm::createStringError("a manifest entry has no valid status");
  entry.status = *status;
  entry.module = getString(*object, "module");
  entry.cpu = getString(*object, "cpu");
  entry.arch = getString(*object, "arch");
  entry.debug_id = DebugId(getString(*object, "debug_id"));
  entry.code_id = CodeId(getString(*object, "code_id"));
  if (const Object* debug = object->getObject("debug_info")) {
    entry.debug_info_from = getString(*debug, "from");
    entry.debug_file = getString(*debug, "file");
    entry.debug_file_how = getString(*debug, "how");
  }
  entry.sym = getString(*object, "sym");
  if (const Array* kept = object->getArray("kept"))
    for (const Value& path : *kept)
      if (auto text = path.getAsString())
        entry.kept.push_back(text->str());
  if (const Object* records = object->getObject("records")) {
    RecordCounts counts;
    for (const RecordKind& kind : kRecordKinds)
      counts.*kind.count = static_cast<uint64_t>(records->getInteger(kind.key).value_or(0));
    entry.records = counts;
  }
  if (const Array* warnings = object->getArray("warnings"))
    for (const Value& warning : *warnings)
      if (auto text = warning.getAsString())
        entry.warnings.push_back(text->str());
  entry.duplicate_of = getString(*object, "duplicate_of");
  entry.error = getString(*object, "error");
  return entry;
}

void countStatuses(Manifest& manifest) {
  ManifestTotals& totals = manifest.totals;
  totals.candidates = manifest.entries.size();
  totals.written = totals.exists = totals.duplicate = totals.no_debug_info = totals.failed = 0;
  for (const ManifestEntry& entry : manifest.entries) {
    switch (entry.status) {
    case EntryStatus::Written:
      ++totals.written;
      break;
    case EntryStatus::Exists:
      ++totals.exists;
      break;
    case EntryStatus::Duplicate:
      ++totals.duplicate;
      break;
    case EntryStatus::NoDebugInfo:
      ++totals.no_debug_info;
      break;
    case EntryStatus::Failed:
      ++totals.failed;
      break;
    }
  }
}

llvm::Error writeManifest(const std::string& path, const Manifest& manifest) {
  Array entries;
  for (const ManifestEntry& entry : manifest.entries)
    entries.push_back(toJson(entry));
  const ManifestTotals& t = manifest.totals;
  auto count = [](uint64_t n) { return static_cast<int64_t>(n); };
  Object totals{
      {"candidates", count(t.candidates)},
      {"written", count(t.written)},
      {"exists", count(t.exists)},
      {"duplicate", count(t.duplicate)},
      {"no-debug-info", count(t.no_debug_info)},
      {"failed", count(t.failed)},
      {"debug_files", count(t.debug_files)},
      {"skipped_non_elf", count(t.skipped_non_elf)},
      {"other_shards", count(t.other_shards)},
      {"bytes_written", count(t.bytes_written)},
  };
  Object document{
      {"manifest_version", 1},       {"store", manifest.store},
      {"shard", manifest.shard},     {"entries", std::move(entries)},
      {"totals", std::move(totals)}, {"wall_seconds", t.wall_seconds},
  };
  Value value(std::move(document));
  return writeFileAtomically(path, [&](std::ostream& out) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    stream << llvm::formatv("{0:2}", value);
    stream.flush();
    out << text << '\n';
  });
}

} // namespace dumpsyms
