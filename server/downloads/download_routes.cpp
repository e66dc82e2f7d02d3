#include "server/downloads/download_routes.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

std::vector<std::string> splitComponents(llvm::StringRef path) {
  std::vector<std::string> parts;
  llvm::SmallVector<llvm::StringRef, 8> pieces;
  // Empty pieces are kept: "a//b" names nothing, it must not become "a/b".
  path.split(pieces, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/true);
  for (llvm::StringRef piece : pieces)
    parts.push_back(piece.str());
  return parts;
}

} // namespace

bool isBuildIdText(const std::string& text) {
  if (text.empty() || text.size() % 2 != 0 || text.size() > 128)
    return false;
  return llvm::all_of(text, [](char c) { return llvm::isHexDigit(c); });
}

DownloadRoute parseDownloadRoute(const std::string& path) {
  DownloadRoute route;
  llvm::StringRef rest(path);
  if (!rest.consume_front("/"))
    return route;
  std::vector<std::string> parts = splitComponents(rest);

  if (parts.size() >= 3 && parts[0] == "buildid" && isBuildIdText(parts[1])) {
    route.build_id = *BuildId::parseHex(parts[1]);
    if (parts.size() == 3 && parts[2] == "debuginfo") {
      route.kind = DownloadRoute::Kind::Debuginfod;
      route.artifact = DownloadRoute::Artifact::Debuginfo;
    } else if (parts.size() == 3 && parts[2] == "executable") {
      route.kind = DownloadRoute::Kind::Debuginfod;
      route.artifact = DownloadRoute::Artifact::Executable;
    } else if (parts.size() == 4 && parts[2] == "section" && !parts[3].empty()) {
      route.kind = DownloadRoute::Kind::Debuginfod;
      route.artifact = DownloadRoute::Artifact::Section;
      route.section = parts[3];
    }
    // A module that happens to be called "buildid" still has its files.
    if (route.kind == DownloadRoute::Kind::Debuginfod)
      return route;
  }
  if (parts.size() == 3) {
    llvm::StringRef key(parts[1]);
    std::string id;
    if (key.starts_with_insensitive("elf-buildid-sym-") &&
        isBuildIdText(id = key.drop_front(16).str()) &&
        llvm::StringRef(parts[0]).equals_insensitive("_.debug") &&
        llvm::StringRef(parts[2]).equals_insensitive("_.debug")) {
      route.kind = DownloadRoute::Kind::Debuginfod;
      route.artifact = DownloadRoute::Artifact::Debuginfo;
      route.build_id = *BuildId::parseHex(id);
      route.ssqp = true;
      return route;
    }
    if (key.starts_with_insensitive("elf-buildid-") &&
        isBuildIdText(id = key.drop_front(12).str()) &&
        llvm::StringRef(parts[0]).equals_insensitive(parts[2])) {
      route.kind = DownloadRoute::Kind::Debuginfod;
      route.artifact = DownloadRoute::Artifact::Executable;
      route.build_id = *BuildId::parseHex(id);
      route.ssqp = true;
      return route;
    }
    route.kind = DownloadRoute::Kind::StoreFile;
    route.components = std::move(parts);
  }
  return route;
}

} // namespace dumpsyms
