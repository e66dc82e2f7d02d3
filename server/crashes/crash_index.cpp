#include "server/crashes/crash_index.h"

#include "server/crashes/crash_id.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sqlite3.h>

namespace dumpsyms {
namespace {

// Made again from the store whenever this changes.
constexpr const char* kSchemaVersion = "2";

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS crashes(
  id TEXT PRIMARY KEY,
  received TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  product TEXT NOT NULL,
  version TEXT NOT NULL,
  kind TEXT NOT NULL,
  signature TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  processed_tag TEXT NOT NULL DEFAULT '',
  bytes INTEGER NOT NULL DEFAULT 0,
  expired INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS crashes_by_time ON crashes(received_ms, id);
CREATE INDEX IF NOT EXISTS crashes_by_signature ON crashes(signature, received_ms);
CREATE TABLE IF NOT EXISTS crash_modules(
  crash_id TEXT NOT NULL,
  debug_file TEXT NOT NULL,
  debug_id TEXT NOT NULL,
  missing INTEGER NOT NULL,
  PRIMARY KEY(crash_id, debug_file, debug_id));
CREATE INDEX IF NOT EXISTS crash_modules_by_id ON crash_modules(debug_id);
CREATE INDEX IF NOT EXISTS crash_modules_missing ON crash_modules(missing, debug_file, debug_id);
)sql";

// One prepared statement, finalized when it goes out of scope.
class Statement {
public:
  Statement(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK)
      statement_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  explicit operator bool() const { return statement_ != nullptr; }
  Statement& bind(int index, const std::string& text) {
    if (statement_)
      sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int index, int64_t value) {
    if (statement_)
      sqlite3_bind_int64(statement_, index, value);
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return statement_ ? sqlite3_step(statement_) : SQLITE_ERROR; }
  std::string text(int column) const {
    const unsigned char* value = sqlite3_column_text(statement_, column);
    return value ? std::string(reinterpret_cast<const char*>(value),
                               static_cast<size_t>(sqlite3_column_bytes(statement_, column)))
                 : std::string();
  }
  int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }

private:
  sqlite3_stmt* statement_ = nullptr;
};

llvm::Error sqliteError(sqlite3* db, const std::string& what) {
  return llvm::createStringError(what + ": " + sqlite3_errmsg(db));
}

constexpr const char* kCrashColumns =
    "id, received, received_ms, product, version, kind, signature, status, processed_tag";

IndexedCrash crashFrom(const Statement& row) {
  IndexedCrash crash;
  crash.id = row.text(0);
  crash.received = row.text(1);
  crash.received_ms = row.integer(2);
  crash.product = row.text(3);
  crash.version = row.text(4);
  crash.kind = row.text(5);
  crash.signature = row.text(6);
  crash.status = row.text(7);
  crash.processed_tag = row.text(8);
  return crash;
}

// The filters a listing and a grouping share, as SQL and its arguments.
struct Argument {
  Argument(std::string value) : text(std::move(value)), is_text(true) {}
  Argument(int64_t value) : number(value) {}
  std::string text;
  int64_t number = 0;
  bool is_text = false;
};

struct Where {
  std::string sql = " WHERE 1";
  std::vector<Argument> arguments;

  void add(const std::string& condition, Argument argument) {
    sql += " AND " + condition;
    arguments.push_back(std::move(argument));
  }
  void bind(Statement& statement, int first = 1) const {
    int index = first;
    for (const Argument& argument : arguments) {
      if (argument.is_text)
        statement.bind(index++, argument.text);
      else
        statement.bind(index++, argument.number);
    }
  }
};

Where whereOf(const CrashQuery& query) {
  Where where;
  if (!query.signature.empty())
    where.add("signature = ?", query.signature);
  if (!query.signature_text.empty())
    where.add("instr(lower(signature), lower(?)) > 0", query.signature_text);
  if (!query.product.empty())
    where.add("product = ?", query.product);
  if (!query.version.empty())
    where.add("version = ?", query.version);
  if (!query.debug_id.empty())
    where.add("id IN (SELECT crash_id FROM crash_modules WHERE debug_id = upper(?))",
              query.debug_id);
  if (!query.id_prefix.empty())
    where.add("instr(id, lower(?)) = 1", query.id_prefix);
  if (query.since_ms)
    where.add("received_ms >= ?", *query.since_ms);
  if (query.until_ms)
    where.add("received_ms < ?", *query.until_ms);
  return where;
}

} // namespace

int64_t epochMillis(const std::string& rfc3339_time) {
  auto when = parseRfc3339(rfc3339_time);
  return when ? std::chrono::duration_cast<std::chrono::milliseconds>(when->time_since_epoch())
                    .count()
              : 0;
}

llvm::Expected<std::unique_ptr<CrashIndex>> CrashIndex::open(const std::string& path,
                                                             const std::string& store) {
  sqlite3* db = nullptr;
  int opened =
      sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (opened != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(opened);
    sqlite3_close(db);
    return llvm::createStringError("cannot open the crash index " + path + ": " + why);
  }
  std::unique_ptr<CrashIndex> index(new CrashIndex(db));
  sqlite3_busy_timeout(db, 5000);
  // The index can always be made again from the store: no fsync per row.
  if (llvm::Error error = index->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"))
    return error;
  if (llvm::Error error = index->exec(
          "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"))
    return error;
  std::string schema, indexed_store;
  {
    Statement read(db, "SELECT key, value FROM meta");
    while (read.step() == SQLITE_ROW) {
      if (read.text(0) == "schema")
        schema = read.text(1);
      else if (read.text(0) == "store")
        indexed_store = read.text(1);
    }
  }
  if (schema != kSchemaVersion || indexed_store != store) {
    // Made anew: another schema's tables are dropped, not migrated.
    if (llvm::Error error = index->exec("DROP TABLE IF EXISTS crashes; "
                                        "DROP TABLE IF EXISTS crash_modules;"))
      return error;
    if (llvm::Error error = index->exec(kSchema))
      return error;
    Statement write(db,
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?), ('store', ?)");
    write.bind(1, std::string(kSchemaVersion)).bind(2, store);
    if (write.step() != SQLITE_DONE)
      return sqliteError(db, "cannot write the crash index " + path);
  } else {
    if (llvm::Error error = index->exec(kSchema))
      return error;
  }
  return index;
}

CrashIndex::~CrashIndex() {
  sqlite3_close(db_);
}

llvm::Error CrashIndex::exec(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string why = message ? message : "unknown error";
    sqlite3_free(message);
    return llvm::createStringError("crash index: " + why);
  }
  return llvm::Error::success();
}

llvm::Error CrashIndex::addReceived(const CrashRecord& record) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement insert(db_, "INSERT OR IGNORE INTO crashes(id, received, received_ms, product, "
                        "version, kind, status, bytes) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?)");
  uint64_t bytes = record.payload.size;
  for (const CrashFileEntry& attachment : record.attachments)
    bytes += attachment.size;
  insert.bind(1, record.id)
      .bind(2, record.received)
      .bind(3, epochMillis(record.received))
      .bind(4, record.product)
      .bind(5, record.version)
      .bind(6, std::string(crashKindName(record.kind)))
      .bind(7, static_cast<int64_t>(bytes));
  if (insert.step() != SQLITE_DONE)
    return sqliteError(db_, "cannot index crash " + record.id);
  return llvm::Error::success();
}

llvm::Error CrashIndex::setProcessed(const std::string& id, const ProcessedCrash& processed,
                                     const std::string& processed_tag) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (llvm::Error error = exec("BEGIN"))
    return error;
  auto fail = [&](const std::string& what) {
    llvm::Error error = sqliteError(db_, what);
    llvm::consumeError(exec("ROLLBACK"));
    return error;
  };
  Statement update(db_,
                   "UPDATE crashes SET signature = ?, status = ?, processed_tag = ? WHERE id = ?");
  update.bind(1, processed.signature).bind(2, processed.status).bind(3, processed_tag).bind(4, id);
  if (update.step() != SQLITE_DONE)
    return fail("cannot index crash " + id);
  Statement clear(db_, "DELETE FROM crash_modules WHERE crash_id = ?");
  clear.bind(1, id);
  if (clear.step() != SQLITE_DONE)
    return fail("cannot index crash " + id);
  std::set<std::pair<std::string, std::string>> missing;
  for (const MissingSymbol& symbol : processed.missing_symbols)
    missing.insert({symbol.debug_file, symbol.debug_id});
  std::set<std::pair<std::string, std::string>> modules(processed.modules.begin(),
                                                        processed.modules.end());
  modules.insert(missing.begin(), missing.end());
  for (const auto& [file, debug_id] : modules) {
    Statement insert(db_, "INSERT OR IGNORE INTO crash_modules(crash_id, debug_file, debug_id, "
                          "missing) VALUES (?, ?, upper(?), ?)");
    insert.bind(1, id)
        .bind(2, file)
        .bind(3, debug_id)
        .bind(4, int64_t(missing.count({file, debug_id})));
    if (insert.step() != SQLITE_DONE)
      return fail("cannot index crash " + id);
  }
  return exec("COMMIT");
}

llvm::Error CrashIndex::setStatus(const std::string& id, const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement update(db_, "UPDATE crashes SET status = ? WHERE id = ?");
  update.bind(1, status).bind(2, id);
  if (update.step() != SQLITE_DONE)
    return sqliteError(db_, "cannot index crash " + id);
  return llvm::Error::success();
}

llvm::Error CrashIndex::forget(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement crashes(db_, "DELETE FROM crashes WHERE id = ?");
  crashes.bind(1, id);
  Statement modules(db_, "DELETE FROM crash_modules WHERE crash_id = ?");
  modules.bind(1, id);
  if (crashes.step() != SQLITE_DONE || modules.step() != SQLITE_DONE)
    return sqliteError(db_, "cannot take crash " + id + " out of the index");
  return llvm::Error::success();
}

std::optional<IndexedCrash> CrashIndex::find(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, std::string("SELECT ") + kCrashColumns + " FROM crashes WHERE id = ?");
  select.bind(1, id);
  if (select.step() != SQLITE_ROW)
    return std::nullopt;
  return crashFrom(select);
}

CrashPage CrashIndex::list(const CrashQuery& query) {
  Where where = whereOf(query);
  // The cursor: the last crash of the page before, "<received_ms>.<id>".
  if (size_t dot = query.cursor.find('.'); dot != std::string::npos && dot > 0) {
    std::string millis = query.cursor.substr(0, dot);
    char* end = nullptr;
    long long ms = std::strtoll(millis.c_str(), &end, 10);
    if (end && *end == 0) {
      where.sql += " AND (received_ms < ? OR (received_ms = ? AND id < ?))";
      where.arguments.push_back(int64_t(ms));
      where.arguments.push_back(int64_t(ms));
      where.arguments.push_back(query.cursor.substr(dot + 1));
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, std::string("SELECT ") + kCrashColumns + " FROM crashes" + where.sql +
                            " ORDER BY received_ms DESC, id DESC LIMIT ?");
  where.bind(select);
  select.bind(static_cast<int>(where.arguments.size()) + 1, int64_t(query.limit + 1));
  CrashPage page;
  while (select.step() == SQLITE_ROW)
    page.crashes.push_back(crashFrom(select));
  if (page.crashes.size() > query.limit) {
    page.crashes.resize(query.limit);
    const IndexedCrash& last = page.crashes.back();
    page.next_cursor = std::to_string(last.received_ms) + "." + last.id;
  }
  return page;
}

std::vector<SignatureGroup> CrashIndex::signatures(std::optional<int64_t> since_ms,
                                                   std::optional<int64_t> until_ms,
                                                   const CrashQuery& filter, size_t limit) {
  CrashQuery query = filter;
  query.since_ms = since_ms;
  query.until_ms = until_ms;
  Where where = whereOf(query);
  where.sql += " AND status != 'queued'";
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT signature, COUNT(*), MIN(received), MAX(received), "
                        "group_concat(DISTINCT product), group_concat(DISTINCT version) "
                        "FROM crashes" +
                            where.sql +
                            " GROUP BY signature ORDER BY COUNT(*) DESC, signature LIMIT ?");
  where.bind(select);
  select.bind(static_cast<int>(where.arguments.size()) + 1, int64_t(limit));
  std::vector<SignatureGroup> groups;
  auto split = [](const std::string& joined) {
    std::vector<std::string> parts;
    for (size_t at = 0; at <= joined.size() && !joined.empty();) {
      size_t comma = joined.find(',', at);
      if (comma == std::string::npos)
        comma = joined.size();
      parts.push_back(joined.substr(at, comma - at));
      at = comma + 1;
    }
    std::sort(parts.begin(), parts.end());
    return parts;
  };
  while (select.step() == SQLITE_ROW) {
    SignatureGroup group;
    group.signature = select.text(0);
    group.count = static_cast<uint64_t>(select.integer(1));
    group.first = select.text(2);
    group.last = select.text(3);
    group.products = split(select.text(4));
    group.versions = split(select.text(5));
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<std::pair<std::string, uint64_t>> CrashIndex::dailyCounts(const std::string& signature,
                                                                      int64_t since_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT substr(received, 1, 10) AS day, COUNT(*) FROM crashes WHERE "
                        "signature = ? AND received_ms >= ? GROUP BY day ORDER BY day");
  select.bind(1, signature).bind(2, since_ms);
  std::vector<std::pair<std::string, uint64_t>> days;
  while (select.step() == SQLITE_ROW)
    days.push_back({select.text(0), static_cast<uint64_t>(select.integer(1))});
  return days;
}

std::vector<std::string> CrashIndex::queued() {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT id FROM crashes WHERE status = 'queued' ORDER BY received_ms, id");
  std::vector<std::string> ids;
  while (select.step() == SQLITE_ROW)
    ids.push_back(select.text(0));
  return ids;
}

std::vector<std::pair<std::string, std::string>> CrashIndex::missingModules() {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_,
                   "SELECT DISTINCT debug_file, debug_id FROM crash_modules WHERE missing = 1");
  std::vector<std::pair<std::string, std::string>> modules;
  while (select.step() == SQLITE_ROW)
    modules.push_back({select.text(0), select.text(1)});
  return modules;
}

std::vector<std::string> CrashIndex::crashesMissing(const std::string& debug_file,
                                                    const std::string& debug_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT DISTINCT crash_id FROM crash_modules WHERE missing = 1 AND "
                        "debug_file = ? AND debug_id = upper(?)");
  select.bind(1, debug_file).bind(2, debug_id);
  std::vector<std::string> ids;
  while (select.step() == SQLITE_ROW)
    ids.push_back(select.text(0));
  return ids;
}

std::vector<std::pair<std::string, int64_t>> CrashIndex::oldestKept(size_t limit,
                                                                    int64_t before_ms) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT id, bytes FROM crashes WHERE expired = 0 AND received_ms < ? "
                        "ORDER BY received_ms, id LIMIT ?");
  select.bind(1, before_ms).bind(2, int64_t(limit));
  std::vector<std::pair<std::string, int64_t>> crashes;
  while (select.step() == SQLITE_ROW)
    crashes.push_back({select.text(0), select.integer(1)});
  return crashes;
}

uint64_t CrashIndex::keptBytes() {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, "SELECT COALESCE(SUM(bytes), 0) FROM crashes WHERE expired = 0");
  return select.step() == SQLITE_ROW ? static_cast<uint64_t>(select.integer(0)) : 0;
}

} // namespace dumpsyms
