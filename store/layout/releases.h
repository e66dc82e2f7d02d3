// A release recorded in the store (`symstore add --release PRODUCT/VERSION`):
// each module's file name and path in the release with its debug file and
// id, at .releases/<PRODUCT>/<VERSION>.json. A logged backtrace names
// modules, not builds: the crash inbox reads a crash's release to know
// which build of each module it ran.
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "store/layout/manifest.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ReleaseModule {
  std::string name; // the file's name ("libfoo.so.1"), what a backtrace names
  std::string path; // its path in the release, relative to the release's root
  std::string debug_file;
  DebugId debug_id;
  CodeId code_id;
};

struct Release {
  std::string product, version;
  std::vector<ReleaseModule> modules;
};

// "PRODUCT/VERSION" split; none unless both parts are there, non-empty,
// and the product holds no '/'.
std::optional<std::pair<std::string, std::string>> parseReleaseName(const std::string& text);

// ".releases/<product>/<version>.json", each part percent-encoded (all but
// letters, digits, '-', '_' and '.', a leading '.' too).
std::string releaseRelativePath(const std::string& product, const std::string& version);

// The modules a manifest says the store has (written, there already, or
// written without debug information), in the manifest's order.
Release releaseOf(const std::string& product, const std::string& version, const Manifest& manifest);

llvm::json::Value toJson(const Release& release);
llvm::Expected<Release> releaseFromJson(const llvm::json::Value& value);

// Records the release in the store directory, atomically: its modules are
// added to those a record of the same release has already (the shards of
// one `symstore add` each record theirs), a module of the same path
// replaced. Writers of one store are serialized by a lock file.
llvm::Error recordRelease(const std::string& store_root, const Release& release);

} // namespace dumpsyms
