#include "dump/locate/debug_file_locator.h"

#include "dump/locate/debug_links.h"
#include "dump/locate/debuginfod_fetcher.h"
#include "dump/object/identifiers.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

namespace {

std::string join(llvm::StringRef a, llvm::StringRef b) {
  llvm::SmallString<256> path(a);
  llvm::sys::path::append(path, b);
  return std::string(path);
}

std::string hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes)
    out += fmt::format("{:02x}", b);
  return out;
}

bool isFile(const std::string& path) {
  return llvm::sys::fs::is_regular_file(path);
}

bool sameFile(const std::string& a, const std::string& b) {
  return llvm::sys::fs::equivalent(a, b);
}

// The build-id of an ELF file, or empty if it has none or cannot be read.
std::vector<uint8_t> buildIdOf(const std::string& path) {
  auto image = ElfImage::open(path);
  if (!image) {
    llvm::consumeError(image.takeError());
    return {};
  }
  return gnuBuildId(**image);
}

} // namespace

DebugFileLocator::DebugFileLocator(std::string binary_path, SearchPaths paths)
    : binary_path_(std::move(binary_path)), paths_(std::move(paths)) {
  llvm::SmallString<256> directory(binary_path_);
  llvm::sys::fs::make_absolute(directory);
  llvm::sys::path::remove_filename(directory);
  llvm::SmallString<256> real;
  binary_dir_ =
      llvm::sys::fs::real_path(directory, real) ? std::string(directory) : std::string(real);
}

std::vector<std::string> DebugFileLocator::buildIdCandidates(const std::vector<uint8_t>& build_id,
                                                             const std::string& suffix) const {
  std::vector<std::string> out;
  if (build_id.size() < 2)
    return out;
  std::string id = hex(build_id);
  std::string relative = ".build-id/" + id.substr(0, 2) + "/" + id.substr(2) + suffix;
  for (const std::string& dir : paths_.debug_dirs)
    out.push_back(join(dir, relative));
  if (!paths_.system_debug_dir.empty())
    out.push_back(join(paths_.system_debug_dir, relative));
  return out;
}

std::optional<LocatedFile> DebugFileLocator::findDebugFile(const ElfImage& binary,
                                                           const std::vector<uint8_t>& build_id,
                                                           Diagnostics& diagnostics) const {
  // 1. Build-id trees.
  for (const std::string& candidate : buildIdCandidates(build_id, ".debug")) {
    if (!isFile(candidate) || sameFile(candidate, binary_path_))
      continue;
    if (buildIdOf(candidate) != build_id) {
      diagnostics.warn(candidate + ": build-id does not match " + binary_path_ + "; skipped");
      continue;
    }
    return LocatedFile{candidate,
                       "its build-id in " + candidate.substr(0, candidate.find(".build-id"))};
  }

  // 2. The .gnu_debuglink name, CRC-checked.
  if (std::optional<DebugLink> link = readDebugLink(binary)) {
    std::vector<std::pair<std::string, std::string>> candidates = {
        {join(binary_dir_, link->name), "beside the binary"},
        {join(join(binary_dir_, ".debug"), link->name), "in .debug/ beside the binary"}};
    for (const std::string& dir : paths_.debug_dirs) {
      candidates.push_back({join(dir, link->name), "in " + dir});
      candidates.push_back({join(join(dir, binary_dir_), link->name), "in " + dir});
    }
    if (!paths_.system_debug_dir.empty())
      candidates.push_back({join(join(paths_.system_debug_dir, binary_dir_), link->name),
                            "in " + paths_.system_debug_dir});
    for (const auto& [candidate, where] : candidates) {
      if (!isFile(candidate) || sameFile(candidate, binary_path_))
        continue;
      std::optional<uint32_t> crc = fileCrc32(candidate);
      if (!crc || *crc != link->crc) {
        diagnostics.warn(candidate + ": CRC " + (crc ? fmt::format("{:08x}", *crc) : "unreadable") +
                         " does not match the .gnu_debuglink CRC " +
                         fmt::format("{:08x}", link->crc) + "; skipped");
        continue;
      }
      return LocatedFile{candidate, ".gnu_debuglink '" + link->name + "' " + where};
    }
  }

  // 3. debuginfod.
  if (paths_.debuginfod && debuginfodConfigured() && !build_id.empty()) {
    llvm::Expected<std::string> path = fetchDebugInfo(build_id);
    if (path)
      return LocatedFile{*path, "fetched from debuginfod by build-id"};
    diagnostics.note("debuginfod has no debug file for build-id " + hex(build_id) + ": " +
                     llvm::toString(path.takeError()));
  }
  return std::nullopt;
}

std::optional<LocatedFile> DebugFileLocator::findAltFile(const ElfImage& debug_image,
                                                         const std::string& debug_path,
                                                         Diagnostics& diagnostics) const {
  std::optional<AltLink> link = readAltLink(debug_image);
  if (!link)
    return std::nullopt;
  llvm::SmallString<256> debug_dir(debug_path);
  llvm::sys::path::remove_filename(debug_dir);
  std::vector<std::pair<std::string, std::string>> candidates;
  if (llvm::sys::path::is_absolute(link->name))
    candidates.push_back({link->name, "at its absolute path"});
  else
    candidates.push_back({join(debug_dir.empty() ? "." : debug_dir.str(), link->name),
                          "relative to the debug file"});
  std::string base = llvm::sys::path::filename(link->name).str();
  candidates.push_back({join(join(debug_dir.empty() ? "." : debug_dir.str(), ".dwz"), base),
                        "in .dwz/ beside the debug file"});
  candidates.push_back(
      {join(debug_dir.empty() ? "." : debug_dir.str(), base), "beside the debug file"});
  for (const std::string& dir : paths_.debug_dirs) {
    candidates.push_back({join(join(dir, ".dwz"), base), "in " + dir + "/.dwz"});
    candidates.push_back({join(dir, base), "in " + dir});
  }
  for (const std::string& candidate : buildIdCandidates(link->build_id, ".debug"))
    candidates.push_back({candidate, "by its build-id"});
  for (const auto& [candidate, where] : candidates) {
    if (!isFile(candidate))
      continue;
    if (!link->build_id.empty() && buildIdOf(candidate) != link->build_id) {
      diagnostics.warn(candidate + ": build-id does not match the supplementary-file link of " +
                       debug_path + "; skipped");
      continue;
    }
    return LocatedFile{candidate, "supplementary (dwz) file " + where};
  }
  if (paths_.debuginfod && debuginfodConfigured() && !link->build_id.empty()) {
    llvm::Expected<std::string> path = fetchDebugInfo(link->build_id);
    if (path)
      return LocatedFile{*path, "supplementary (dwz) file fetched from debuginfod"};
    llvm::consumeError(path.takeError()); // the warning below says what is lost
  }
  diagnostics.warn(debug_path + ": supplementary (dwz) file '" + link->name +
                   "' not found: names kept in it are lost");
  return std::nullopt;
}

std::string DebugFileLocator::findDwo(const std::string& dwo_name,
                                      const std::string& comp_dir) const {
  std::vector<std::string> candidates;
  if (llvm::sys::path::is_absolute(dwo_name))
    candidates.push_back(dwo_name);
  else if (!comp_dir.empty())
    candidates.push_back(join(comp_dir, dwo_name));
  std::string base = llvm::sys::path::filename(dwo_name).str();
  if (!llvm::sys::path::is_absolute(dwo_name))
    candidates.push_back(join(binary_dir_, dwo_name));
  candidates.push_back(join(binary_dir_, base));
  for (const std::string& dir : paths_.debug_dirs) {
    if (!llvm::sys::path::is_absolute(dwo_name))
      candidates.push_back(join(dir, dwo_name));
    candidates.push_back(join(dir, base));
  }
  for (const std::string& candidate : candidates)
    if (isFile(candidate))
      return candidate;
  return "";
}

} // namespace dumpsyms
