#include "dump/locate/dsym_locator.h"

#include "dump/object/elf_image.h"

#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

std::string dwarfDirectory(const std::string& bundle) {
  return bundle + "/Contents/Resources/DWARF";
}

// The regular files in `directory`, sorted.
std::vector<std::string> regularFiles(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; it != end && !error; it.increment(error))
    if (fs::is_regular_file(it->path()))
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace

bool isDsymBundle(const std::string& bundle) {
  return fs::is_directory(bundle) && fs::is_directory(dwarfDirectory(bundle));
}

llvm::Expected<std::string> dsymDwarfFile(const std::string& bundle) {
  if (!isDsymBundle(bundle))
    return fileError(bundle, "is not a dSYM bundle (no Contents/Resources/DWARF directory)");
  std::vector<std::string> files = regularFiles(dwarfDirectory(bundle));
  if (files.empty())
    return fileError(bundle, "holds no DWARF file in Contents/Resources/DWARF");
  if (files.size() > 1)
    return fileError(bundle, "holds " + std::to_string(files.size()) +
                                 " files in Contents/Resources/DWARF: give the one to read");
  return files.front();
}

std::vector<std::string> dsymCandidates(const std::string& binary,
                                        const std::vector<std::string>& debug_dirs) {
  std::vector<std::string> out;
  std::string name = path::filename(binary).str();
  auto addBundle = [&](const std::string& bundle) {
    if (!isDsymBundle(bundle))
      return;
    std::vector<std::string> files = regularFiles(dwarfDirectory(bundle));
    out.insert(out.end(), files.begin(), files.end());
  };
  addBundle(binary + ".dSYM");
  for (const std::string& dir : debug_dirs) {
    if (isDsymBundle(dir)) {
      addBundle(dir);
      continue;
    }
    if (fs::is_regular_file(dir)) {
      out.push_back(dir);
      continue;
    }
    addBundle(dir + "/" + name + ".dSYM");
    if (fs::is_regular_file(dir + "/" + name))
      out.push_back(dir + "/" + name);
    std::error_code error;
    std::vector<std::string> bundles;
    for (fs::directory_iterator it(dir, error), end; it != end && !error; it.increment(error))
      if (llvm::StringRef(it->path()).ends_with(".dSYM"))
        bundles.push_back(it->path());
    std::sort(bundles.begin(), bundles.end());
    for (const std::string& bundle : bundles)
      addBundle(bundle);
  }
  // (each once, in first-found order)
  std::vector<std::string> unique;
  for (const std::string& candidate : out)
    if (std::find(unique.begin(), unique.end(), candidate) == unique.end())
      unique.push_back(candidate);
  return unique;
}

} // namespace dumpsyms
