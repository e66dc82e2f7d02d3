#include "server/ingest/symbol_publisher.h"

#include "store/layout/code_id_index.h"
#include "store/layout/layout.h"

#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {

namespace {

UploadRefusal storeFailure(llvm::Error error) {
  return UploadRefusal{500, "the store: " + llvm::toString(std::move(error))};
}

// Whether two open files hold the same bytes.
bool sameBytes(int a, int b) {
  std::vector<char> left(1 << 16), right(1 << 16);
  for (;;) {
    ssize_t got = ::read(a, left.data(), left.size());
    if (got < 0)
      return false;
    size_t have = 0;
    while (have < size_t(got)) {
      ssize_t more = ::read(b, right.data() + have, size_t(got) - have);
      if (more <= 0)
        return false;
      have += size_t(more);
    }
    if (got == 0)
      return ::read(b, right.data(), 1) == 0;
    if (std::memcmp(left.data(), right.data(), size_t(got)) != 0)
      return false;
  }
}

// Windows modules are also found by code file and code id (store/layout/code_id_index.h),
// as `symstore add` indexes them.
bool wantsCodeIdCopy(const SymbolFileFacts& facts) {
  return !facts.code_file.empty() && !facts.code_id.empty() && !facts.debug_id.isNull();
}

} // namespace

std::variant<SpoolFile, UploadRefusal> SymbolPublisher::spool(const std::string& source) {
  auto copy = spoolCopy(source, store_.spoolDirectory());
  if (!copy)
    return storeFailure(copy.takeError());
  return std::move(*copy);
}

std::optional<UploadRefusal> SymbolPublisher::check(CheckedSymbolFile& file,
                                                    const std::string& what) {
  return checkSymbolFile(file.spool.path(), what, file.facts);
}

std::optional<UploadRefusal> SymbolPublisher::conflict(const CheckedSymbolFile& file) {
  if (settings_.replace)
    return std::nullopt;
  auto info = store_.stat(file.facts.store_path);
  if (!info)
    return storeFailure(info.takeError());
  if (!*info)
    return std::nullopt;
  UploadRefusal refusal{409, file.facts.store_path +
                                 ": other bytes are stored there (the server replaces only "
                                 "with --replace)"};
  if ((*info)->size != file.spool.size())
    return refusal;
  auto opened = store_.open(file.facts.store_path);
  if (!opened)
    return storeFailure(opened.takeError());
  int mine = ::open(file.spool.path().c_str(), O_RDONLY | O_CLOEXEC);
  bool same = mine >= 0 && sameBytes(opened->fd, mine);
  if (mine >= 0)
    ::close(mine);
  ::close(opened->fd);
  return same ? std::nullopt : std::optional<UploadRefusal>(refusal);
}

std::variant<PublishOutcome, UploadRefusal> SymbolPublisher::publish(CheckedSymbolFile& file) {
  std::optional<SpoolFile> code_id_copy;
  if (wantsCodeIdCopy(file.facts)) {
    auto copy = spoolCopy(file.spool.path(), store_.spoolDirectory());
    if (!copy)
      return storeFailure(copy.takeError());
    code_id_copy = std::move(*copy);
  }
  std::string spooled = file.spool.path();
  file.spool.release(); // publish consumes it, whatever the outcome
  auto outcome = store_.publish(file.facts.store_path, spooled, settings_.replace);
  if (!outcome)
    return storeFailure(outcome.takeError());
  if (*outcome == PublishOutcome::Conflict)
    return UploadRefusal{409, file.facts.store_path +
                                  ": other bytes are stored there (the server replaces only "
                                  "with --replace)"};
  if (*outcome == PublishOutcome::Same) {
    counters_.files_same++;
    return *outcome;
  }
  counters_.files_published++;
  if (code_id_copy) {
    std::string path = codeIdRelativePath(file.facts.code_file, file.facts.code_id);
    if (!checkClientPath(path)) {
      std::string copy_path = code_id_copy->path();
      code_id_copy->release();
      // Replaced whatever is there: the code-id index names the newest build.
      auto indexed = store_.publish(path, copy_path, true);
      if (!indexed)
        return storeFailure(indexed.takeError());
    }
  }
  return *outcome;
}

ServerResponse SymbolPublisher::refuse(const UploadRefusal& refusal) {
  counters_.refusals++;
  return ServerResponse::text(refusal.status, refusal.reason);
}

} // namespace dumpsyms
