#include "store/layout/releases.h"

#include "common/files/atomic_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FormatVariadic.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <set>
#include <sys/file.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

std::string percentEncoded(const std::string& part) {
  std::string out;
  for (size_t i = 0; i < part.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(part[i]);
    bool plain = std::isalnum(c) || c == '-' || c == '_' || (c == '.' && i > 0);
    if (plain) {
      out += static_cast<char>(c);
      continue;
    }
    char escaped[4];
    std::snprintf(escaped, sizeof escaped, "%%%02X", c);
    out += escaped;
  }
  return out;
}

std::string fileName(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::optional<std::pair<std::string, std::string>> parseReleaseName(const std::string& text) {
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 >= text.size())
    return std::nullopt;
  return std::make_pair(text.substr(0, slash), text.substr(slash + 1));
}

std::string releaseRelativePath(const std::string& product, const std::string& version) {
  return ".releases/" + percentEncoded(product) + "/" + percentEncoded(version) + ".json";
}

Release releaseOf(const std::string& product, const std::string& version,
                  const Manifest& manifest) {
  Release release{product, version, {}};
  for (const ManifestEntry& entry : manifest.entries) {
    if (entry.status != EntryStatus::Written && entry.status != EntryStatus::Exists &&
        entry.status != EntryStatus::NoDebugInfo && entry.status != EntryStatus::Duplicate)
      continue;
    if (entry.module.empty())
      continue;
    release.modules.push_back(
        {fileName(entry.path), entry.key, entry.module, entry.debug_id, entry.code_id});
  }
  return release;
}

llvm::json::Value toJson(const Release& release) {
  llvm::json::Array modules;
  for (const ReleaseModule& module : release.modules)
    modules.push_back(llvm::json::Object{{"name", module.name},
                                         {"path", module.path},
                                         {"debug_file", module.debug_file},
                                         {"debug_id", module.debug_id.str()},
                                         {"code_id", module.code_id.str()}});
  return llvm::json::Object{{"release_version", 1},
                            {"product", release.product},
                            {"version", release.version},
                            {"modules", std::move(modules)}};
}

llvm::Expected<Release> releaseFromJson(const llvm::json::Value& value) {
  const llvm::json::Object* object = value.getAsObject();
  if (!object || !object->getString("product") || !object->getArray("modules"))
    return llvm::createStringError("not a release record");
  Release release;
  release.product = object->getString("product")->str();
  release.version = object->getString("version").value_or("").str();
  for (const llvm::json::Value& entry : *object->getArray("modules")) {
    const llvm::json::Object* module = entry.getAsObject();
    if (!module)
      continue;
    ReleaseModule parsed;
    parsed.name = module->getString("name").value_or("").str();
    parsed.path = module->getString("path").value_or("").str();
    parsed.debug_file = module->getString("debug_file").value_or("").str();
    parsed.debug_id = DebugId(module->getString("debug_id").value_or("").str());
    if (auto code = module->getString("code_id"))
      parsed.code_id = CodeId(code->str());
    if (!parsed.name.empty())
      release.modules.push_back(std::move(parsed));
  }
  return release;
}

llvm::Error recordRelease(const std::string& store_root, const Release& release) {
  std::string path = store_root + "/" + releaseRelativePath(release.product, release.version);
  std::string directory = llvm::sys::path::parent_path(path).str();
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError("cannot create " + directory + ": " + error.message());
  std::string lock_path = store_root + "/.releases/.lock";
  int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0)
    return llvm::createStringError("cannot open " + lock_path + ": " + std::strerror(errno));
  ::flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); } // closing releases the lock
  } unlock{lock};

  Release merged = release;
  if (auto existing = llvm::MemoryBuffer::getFile(path, /*IsText=*/true)) {
    auto parsed = llvm::json::parse((*existing)->getBuffer());
    if (parsed)
      if (auto before = releaseFromJson(*parsed)) {
        std::set<std::string> paths;
        for (const ReleaseModule& module : release.modules)
          paths.insert(module.path);
        merged.modules.clear();
        for (ReleaseModule& module : before->modules)
          if (!paths.count(module.path))
            merged.modules.push_back(std::move(module));
        merged.modules.insert(merged.modules.end(), release.modules.begin(), release.modules.end());
      } else {
        llvm::consumeError(before.takeError());
      }
    else
      llvm::consumeError(parsed.takeError());
  }
  std::sort(merged.modules.begin(), merged.modules.end(),
            [](const ReleaseModule& a, const ReleaseModule& b) { return a.path < b.path; });
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << llvm::formatv("{0:2}", toJson(merged)) << "\n";
  stream.flush();
  return writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

} // namespace dumpsyms
