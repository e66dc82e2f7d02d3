#include "dump/release/release_scan.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <set>
#include <sys/stat.h>
#include <utility>

namespace dumpsyms {

namespace {

class Walker {
public:
  explicit Walker(ReleaseScan& scan) : scan_(scan) {}

  void walkArgument(const std::string& path) {
    struct stat status;
    if (stat(path.c_str(), &status) != 0) {
      scan_.errors.push_back(path + ": " + std::strerror(errno));
      return;
    }
    if (S_ISDIR(status.st_mode)) {
      walkDirectory(path, "", status);
    } else if (S_ISREG(status.st_mode)) {
      std::string name = path.substr(path.find_last_of('/') + 1);
      add(path, name.empty() ? path : name, status);
    }
  }

private:
  void walkDirectory(const std::string& directory, const std::string& key_prefix,
                     const struct stat& status) {
    // Each directory once, however many symlinks lead to it: no loops.
    if (!visited_.insert({status.st_dev, status.st_ino}).second)
      return;
    std::vector<std::string> names;
    if (DIR* dir = opendir(directory.c_str())) {
      while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..")
          names.push_back(std::move(name));
      }
      closedir(dir);
    } else {
      FoundFile unreadable;
      unreadable.path = directory;
      unreadable.key = key_prefix.empty() ? "." : key_prefix;
      unreadable.error = std::string("cannot read the directory: ") + std::strerror(errno);
      scan_.files.push_back(std::move(unreadable));
      return;
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::string path = directory + "/" + name;
      std::string key = key_prefix.empty() ? name : key_prefix + "/" + name;
      struct stat entry;
      if (stat(path.c_str(), &entry) != 0) {
        struct stat link;
        if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
          FoundFile dangling;
          dangling.path = path;
          dangling.key = key;
          dangling.error = std::string("cannot read it: ") + std::strerror(errno);
          scan_.files.push_back(std::move(dangling));
        }
        continue;
      }
      if (S_ISDIR(entry.st_mode))
        walkDirectory(path, key, entry);
      else if (S_ISREG(entry.st_mode)) { // never FIFOs, devices or sockets
        struct stat link;
        add(path, key, entry, lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode));
      }
    }
  }

  void add(const std::string& path, const std::string& key, const struct stat& status,
           bool symlink = false) {
    FoundFile file;
    file.symlink = symlink;
    file.path = path;
    file.key = key;
    file.size = static_cast<uint64_t>(status.st_size);
    scan_.files.push_back(std::move(file));
  }

  ReleaseScan& scan_;
  std::set<std::pair<dev_t, ino_t>> visited_;
};

} // namespace

ReleaseScan scanRelease(const std::vector<std::string>& paths) {
  ReleaseScan scan;
  Walker walker(scan);
  for (const std::string& path : paths)
    walker.walkArgument(path);
  return scan;
}

} // namespace dumpsyms
