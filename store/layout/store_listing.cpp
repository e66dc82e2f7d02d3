#include "store/layout/store_listing.h"

#include "common/errors/file_error.h"
#include "store/layout/layout.h"
#include "symbol_file/index/index_path.h"
#include "symbol_file/text/symbol_header.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <optional>
#include <set>

namespace dumpsyms {

namespace {

// Whether a file that is not a symbol file is one `symstore add
// --keep-binaries` kept beside a module's symbol file (store/layout/layout.h): an
// executable, debug file, PDB or PE at <name>/<ID>/<file>, in a directory
// that holds a .sym (the module's, or its code-id link, followed). A file
// elsewhere is still a problem: it is no part of the store.
bool isKeptBesideSymbols(const std::string& relative_path, const std::string& path) {
  if (std::count(relative_path.begin(), relative_path.end(), '/') != 2)
    return false;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(llvm::sys::path::parent_path(path), error), end;
       it != end && !error; it.increment(error))
    if (llvm::sys::path::filename(it->path()).ends_with(".sym") &&
        llvm::sys::fs::is_regular_file(it->path()))
      return true;
  return false;
}

bool isLowerHex(llvm::StringRef text) {
  return !text.empty() && text.find_first_not_of("0123456789abcdef") == llvm::StringRef::npos;
}

// A .build-id entry's problem, or "": its path is the index path of a
// lower-case hex id, it parses, and every file it names is a kept file of
// the store (so that an upload sends those first).
std::string checkBuildIdEntry(const StoredSymbolFile& entry,
                              const std::set<std::string>& kept_paths) {
  llvm::SmallVector<llvm::StringRef, 3> parts;
  llvm::StringRef(entry.relative_path).split(parts, '/');
  if (parts.size() != 3 || parts[1].size() != 2 || !isLowerHex(parts[1]) || !isLowerHex(parts[2]))
    return "not a build-id index entry (.build-id/<xx>/<rest of the id in lower-case hex>)";
  // An entry names two paths: anything longer is not one we wrote.
  constexpr uint64_t kMaxEntry = 4096;
  if (entry.size > kMaxEntry)
    return "a build-id index entry over " + std::to_string(kMaxEntry) + " bytes";
  std::ifstream in(entry.path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in)
    return "cannot read it";
  std::optional<BuildIdEntry> parsed = parseBuildIdEntry(text);
  if (!parsed)
    return "not a build-id index entry (executable/debuginfo lines naming store paths)";
  for (const std::string* named : {&parsed->executable, &parsed->debuginfo})
    if (!named->empty() && !kept_paths.count(*named))
      return "names " + *named + ", which is not a binary the store keeps";
  return "";
}

} // namespace

llvm::Expected<StoreListing> listStore(const std::string& root) {
  if (!llvm::sys::fs::is_directory(root))
    return fileError(root, "is not a symbol store directory");
  StoreListing listing;
  std::vector<StoredSymbolFile> entries; // checked once every kept file is known
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end; it != end && !error;
       it.increment(error)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    bool build_id_index = it->type() == llvm::sys::fs::file_type::directory_file &&
                          name == ".build-id" && it.level() == 0;
    if (name.starts_with(".") && !build_id_index) {
      if (it->type() == llvm::sys::fs::file_type::directory_file)
        it.no_push();
      continue;
    }
    if (it->type() != llvm::sys::fs::file_type::regular_file)
      continue;
    StoredSymbolFile file;
    file.path = it->path();
    llvm::SmallString<256> relative(llvm::StringRef(file.path).drop_front(root.size()));
    while (relative.starts_with("/"))
      relative.erase(relative.begin());
    file.relative_path = std::string(relative);
    if (llvm::StringRef(file.relative_path).starts_with(".build-id/")) {
      file.kind = StoredKind::BuildIdEntry;
      llvm::sys::fs::file_size(file.path, file.size);
      entries.push_back(std::move(file));
      continue;
    }
    if (isSymbolIndexPath(file.relative_path))
      continue; // a symbol file's lookup index
    if (!llvm::StringRef(file.relative_path).ends_with(".sym")) {
      if (isKeptBesideSymbols(file.relative_path, file.path)) {
        file.kind = StoredKind::KeptBinary;
        llvm::sys::fs::file_size(file.path, file.size);
        listing.kept_files.push_back(std::move(file));
        continue;
      }
      listing.problems.push_back(file.path + ": not a symbol file (no .sym name)");
      continue;
    }
    llvm::sys::fs::file_size(file.path, file.size);
    llvm::Expected<SymbolFileHeader> header = readSymbolFileHeader(file.path);
    if (!header) {
      // (the file error names the file itself)
      std::string problem = llvm::toString(header.takeError());
      listing.problems.push_back(
          problem.starts_with(file.path + ": ") ? problem : file.path + ": " + problem);
      continue;
    }
    // (a module whose debug id names no build is filed by its code id)
    static_cast<SymbolFileHeader&>(file) = std::move(*header);
    std::string expected =
        moduleRelativePath(file.debug_file, file.debug_id, file.code_file, file.code_id);
    if (file.relative_path != expected) {
      listing.problems.push_back(file.path + ": its MODULE line files it as " + expected);
      continue;
    }
    listing.files.push_back(std::move(file));
  }
  if (error)
    return fileError(root, "cannot read the store: " + error.message());
  std::set<std::string> kept_paths;
  for (const StoredSymbolFile& kept : listing.kept_files)
    kept_paths.insert(kept.relative_path);
  for (StoredSymbolFile& entry : entries) {
    if (std::string problem = checkBuildIdEntry(entry, kept_paths); !problem.empty())
      listing.problems.push_back(entry.path + ": " + problem);
    else
      listing.build_id_entries.push_back(std::move(entry));
  }
  auto by_path = [](const StoredSymbolFile& a, const StoredSymbolFile& b) {
    return a.relative_path < b.relative_path;
  };
  std::sort(listing.files.begin(), listing.files.end(), by_path);
  std::sort(listing.kept_files.begin(), listing.kept_files.end(), by_path);
  std::sort(listing.build_id_entries.begin(), listing.build_id_entries.end(), by_path);
  std::sort(listing.problems.begin(), listing.problems.end());
  return listing;
}

} // namespace dumpsyms
