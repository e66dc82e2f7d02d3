// Where a served store's files live: a directory, or an S3 bucket under a
// prefix. The server reads and publishes through this interface alone; the
// store layout library (store/layout/layout.h) still builds every relative path.
// A backend keeps no state that another server over the same store would
// not see: N servers over one bucket or one shared directory answer alike.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// What the backend knows of one file of the store.
struct StoredObjectInfo {
  uint64_t size = 0;
  std::string etag;  // quoted strong validator, e.g. "\"5f3a-1b2c\""; stable across servers
  int64_t mtime = 0; // seconds since the epoch (Last-Modified)
};

// One file's bytes as a local file descriptor, for sendfile: the store's
// own file (directory), or a copy cached locally by its ETag (S3).
struct OpenedObject {
  int fd = -1; // owned by the receiver: close it
  StoredObjectInfo info;
};

// A file a listing found, and what the backend knows of it.
struct ListedObject {
  std::string relative; // "<name>/<id>/<file>"
  StoredObjectInfo info;
};

enum class PublishOutcome {
  Published, // the file is now there (new, or replaced with --replace)
  Same,      // the same bytes were there already: nothing changed
  Conflict,  // other bytes are there and `replace` was false: nothing changed
};

// Backend settings read from the command line and the environment, as
// `symstore upload --protocol s3` reads them.
struct StoreBackendSettings {
  std::string endpoint;                                   // --endpoint, else AWS_ENDPOINT_URL
  std::string aws_access_key, aws_secret_key, aws_region; // AWS_*
  std::string cache_dir; // local copies (S3 objects, gzip variants); default under the user cache
  unsigned timeout_seconds = 60;
};

class StoreBackend {
public:
  virtual ~StoreBackend() = default;

  // "directory /srv/symbols" or "s3://bucket/prefix", for logs and errors.
  virtual std::string describe() const = 0;
  // The store's name on public pages: its directory's last component, or
  // its bucket; never where the server keeps its files.
  virtual std::string publicName() const = 0;

  // `relative` is a store-relative path with '/' separators, already checked
  // (no "..", no empty or dot components). None when there is no such file.
  virtual llvm::Expected<std::optional<StoredObjectInfo>> stat(const std::string& relative) = 0;
  // The bytes of a file stat() found; an error if it vanished.
  virtual llvm::Expected<OpenedObject> open(const std::string& relative) = 0;
  // The bytes of the file at `relative` if it is there, none if not: what
  // a download asks first. stat() then open() here; a backend that can do
  // both at once overrides it (a directory: one open, one path resolution).
  virtual llvm::Expected<std::optional<OpenedObject>> openIfPresent(const std::string& relative) {
    llvm::Expected<std::optional<StoredObjectInfo>> info = stat(relative);
    if (!info)
      return info.takeError();
    if (!*info)
      return std::nullopt;
    llvm::Expected<OpenedObject> opened = open(relative);
    if (!opened)
      return opened.takeError();
    return std::move(*opened);
  }
  // At most `length` bytes from `offset` (a MODULE line, a pointer file).
  virtual llvm::Expected<std::string> readRange(const std::string& relative, uint64_t offset,
                                                uint64_t length) = 0;
  // The names one level under a store-relative directory ("" is the root),
  // for matching a name without regard to case; empty when there is none.
  virtual llvm::Expected<std::vector<std::string>> listNames(const std::string& relative_dir) = 0;

  // Every file of the store's layout, <name>/<id>/<file>, none of whose
  // names starts with '.' (the server's own files, the .build-id index),
  // with what stat() says of it: what a catalog of the store reads. The
  // default lists level by level and stats each file; a backend that can
  // say it in one listing overrides it (S3: one ListObjectsV2 walk rather
  // than a request per directory and per file).
  virtual llvm::Expected<std::vector<ListedObject>> listFiles();
  // Every file under `relative_dir` ("" is the root), at any depth, none
  // of whose names starts with '.', with what stat() says of it, sorted by
  // path: the crash store's listing. The default walks level by level; S3
  // lists the prefix flat, in one walk of pages.
  virtual llvm::Expected<std::vector<ListedObject>> listTree(const std::string& relative_dir);

  // Where to spool an upload before it is checked and published: a
  // directory on the same file system as the store where that makes
  // publish() a rename.
  virtual std::string spoolDirectory() const = 0;
  // Publishes the complete local file `spooled` at `relative`, atomically:
  // a reader sees the old file or the new one, never a part. The spooled
  // file is consumed (renamed or removed) whatever the outcome.
  virtual llvm::Expected<PublishOutcome> publish(const std::string& relative,
                                                 const std::string& spooled, bool replace) = 0;
  // Removes a file the server keeps for itself (a sym-upload-v2 upload's
  // ".uploads/<key>" once it is completed); success when it is gone already.
  // A backend that does not override this leaves such files behind.
  virtual llvm::Error remove(const std::string& relative) {
    (void)relative;
    return llvm::Error::success();
  }
};

// A directory path, or s3://BUCKET[/PREFIX].
llvm::Expected<std::unique_ptr<StoreBackend>>
openStoreBackend(const std::string& location, const StoreBackendSettings& settings);

} // namespace dumpsyms
