#include "store/upload/upload_ledger.h"

#include "common/errors/file_error.h"
#include "common/files/atomic_file.h"

#include <fstream>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sstream>

namespace dumpsyms {

UploadLedger::UploadLedger(const std::string& store, const std::string& server_name) {
  llvm::SmallString<256> path(store);
  llvm::sys::path::append(path, ".uploaded", server_name);
  path_ = std::string(path);
}

llvm::Error UploadLedger::load() {
  std::ifstream in(path_);
  if (!in)
    return llvm::Error::success();
  std::string line;
  while (std::getline(in, line)) {
    size_t space = line.rfind(' ');
    if (space == std::string::npos)
      continue;
    sizes_[line.substr(0, space)] = std::strtoull(line.c_str() + space + 1, nullptr, 10);
  }
  return llvm::Error::success();
}

bool UploadLedger::confirmed(const StoredSymbolFile& file) const {
  std::lock_guard lock(mutex_);
  auto it = sizes_.find(file.relative_path);
  return it != sizes_.end() && it->second == file.size;
}

void UploadLedger::record(const StoredSymbolFile& file) {
  std::lock_guard lock(mutex_);
  sizes_[file.relative_path] = file.size;
}

llvm::Error UploadLedger::save() const {
  std::lock_guard lock(mutex_);
  if (std::error_code error =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path_)))
    return fileError(path_, "cannot create the directory: " + error.message());
  return writeFileAtomically(path_, [&](std::ostream& out) {
    for (const auto& [path, size] : sizes_)
      out << path << ' ' << size << '\n';
  });
}

} // namespace dumpsyms
