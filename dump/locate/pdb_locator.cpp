#include "dump/locate/pdb_locator.h"

#include <algorithm>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

std::string pdbFileName(const std::string& recorded) {
  size_t slash = recorded.find_last_of("/\\");
  return slash == std::string::npos ? recorded : recorded.substr(slash + 1);
}

std::vector<std::string> pdbCandidates(const std::string& pe_path, const std::string& recorded,
                                       const std::string& debug_file,
                                       const std::vector<std::string>& debug_dirs) {
  std::vector<std::string> candidates;
  auto add = [&](const std::string& path) {
    if (!path.empty() && std::find(candidates.begin(), candidates.end(), path) == candidates.end())
      candidates.push_back(path);
  };
  if (!debug_file.empty()) {
    add(debug_file); // named on the command line: nothing else is tried
    return candidates;
  }
  if (recorded.empty())
    return candidates;
  add(recorded);
  std::string forward = recorded;
  std::replace(forward.begin(), forward.end(), '\\', '/');
  // "C:/build/app.pdb" means nothing on this machine, but a relative one
  // may be relative to where the tool runs.
  if (forward.size() < 2 || forward[1] != ':')
    add(forward);
  std::string name = pdbFileName(recorded);
  llvm::SmallString<256> beside(llvm::sys::path::parent_path(pe_path));
  llvm::sys::path::append(beside, name);
  add(std::string(beside));
  for (const std::string& dir : debug_dirs) {
    llvm::SmallString<256> in_dir(dir);
    llvm::sys::path::append(in_dir, name);
    add(std::string(in_dir));
  }
  return candidates;
}

} // namespace dumpsyms
