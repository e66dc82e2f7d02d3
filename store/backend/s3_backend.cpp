// The S3 store backend: every call is one or a few signed requests to the
// bucket (HEAD, GET, ranged GET, ListObjectsV2, PUT, DELETE), over the upload
// client's HTTP and signing code (common/http/http_client.h, store/s3/s3_location.h).
// Objects stored gzip-encoded (symstore upload --gzip) are served decoded.
// Nothing is remembered between calls except whole objects cached on disk
// under their key's hash and their ETag, and a cached copy is used only after
// a HEAD says its ETag is still the object's: N servers over one bucket give
// the same answers.
#include "store/backend/s3_backend.h"

#include "common/files/user_cache_dir.h"
#include "common/gzip/gzip.h"
#include "common/http/retry_policy.h"
#include "common/limits/input_limits.h"
#include "store/backend/s3_listed_files.h"
#include "store/s3/s3_answers.h"
#include "store/s3/s3_location.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// A server answering a client must not wait long for a bucket: a couple of
// quick tries, then the client gets an error and may ask again.
RetryPolicy serverRetries() {
  RetryPolicy policy;
  policy.retries = 2;
  policy.first_delay = 0.2;
  policy.max_delay = 2;
  policy.max_retry_after = 5;
  return policy;
}

// Seconds since the epoch of an HTTP date (RFC 7231's IMF-fixdate, which S3
// sends); 0 when it cannot be read.
int64_t httpDateSeconds(const std::string& text) {
  struct tm parts = {};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S", &parts);
  if (!end)
    return 0;
  return static_cast<int64_t>(timegm(&parts));
}

std::string unquoted(llvm::StringRef etag) {
  etag.consume_front("W/");
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"')
    etag = etag.drop_front().drop_back();
  return etag.lower();
}

// Removes the spooled upload whatever publish() decides.
struct RemoveOnExit {
  std::string path;
  ~RemoveOnExit() { std::remove(path.c_str()); }
};

class S3Backend final : public StoreBackend {
public:
  S3Backend(S3Location location, std::string cache_dir, unsigned timeout_seconds)
      : location_(std::move(location)), cache_dir_(std::move(cache_dir)),
        timeout_seconds_(timeout_seconds), retries_(serverRetries()) {}

  std::string describe() const override { return location_.describe(); }
  std::string publicName() const override { return location_.bucket(); }

  // A HEAD; for an object stored gzip-encoded, the size is the decoded
  // file's, from its cached copy (fetched now if need be).
  llvm::Expected<std::optional<StoredObjectInfo>> stat(const std::string& relative) override {
    auto opened = openCurrent(relative);
    if (!opened)
      return opened.takeError();
    if (!*opened)
      return std::nullopt;
    if ((*opened)->fd >= 0)
      ::close((*opened)->fd);
    return (*opened)->info;
  }

  llvm::Expected<OpenedObject> open(const std::string& relative) override {
    auto opened = openCurrent(relative, /*need_fd=*/true);
    if (!opened)
      return opened.takeError();
    if (!*opened)
      return llvm::createStringError(describe() + "/" + relative + ": no longer there");
    return **opened;
  }

  // One HEAD, then the cached copy: what stat() then open() would do with
  // two.
  llvm::Expected<std::optional<OpenedObject>> openIfPresent(const std::string& relative) override {
    return openCurrent(relative, /*need_fd=*/true);
  }

  llvm::Expected<std::string> readRange(const std::string& relative, uint64_t offset,
                                        uint64_t length) override {
    if (length == 0)
      return std::string();
    length = std::min<uint64_t>(length, limits::kMaxAnswerBody);
    HttpRequest ranged = request("GET", location_.objectUrl(relative));
    ranged.headers.push_back("Range: bytes=" + std::to_string(offset) + "-" +
                             std::to_string(offset + length - 1));
    HttpResponse answer = send(ranged);
    if (isGzip(answer)) // a range of the encoded bytes: read the decoded copy
      return readCachedRange(relative, offset, length);
    if (answer.status == 416)
      return std::string(); // the object ends before `offset`
    if (answer.status == 206)
      return answer.body.substr(0, length);
    if (answer.status == 200) // a server that ignores Range sends it all
      return offset >= answer.body.size() ? std::string() : answer.body.substr(offset, length);
    return failure("GET", relative, answer);
  }

  llvm::Expected<std::vector<std::string>> listNames(const std::string& relative_dir) override {
    std::string prefix =
        relative_dir.empty() ? location_.keyPrefix() : location_.key(relative_dir) + "/";
    std::vector<std::string> names;
    auto add = [&](llvm::StringRef full) {
      if (!full.consume_front(prefix))
        return;
      full.consume_back("/");
      // A name one level down; "a//b" keys, the prefix itself and hidden
      // names (the server's own files) are not, as in a directory store.
      if (!full.empty() && !full.contains('/') && !full.starts_with("."))
        names.push_back(full.str());
    };
    if (llvm::Error error = location_.walkListing(
            "listing " + describe() + "/" + relative_dir, prefix, "/",
            [&](const std::string& url) { return send(request("GET", url)); },
            [&](llvm::StringRef body) {
              S3DirectoryPage parsed = parseDirectoryListingPage(body);
              for (const std::string& key : parsed.keys)
                add(key);
              for (const std::string& common : parsed.common_prefixes)
                add(common);
              return parsed.continuation;
            }))
      return error;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  // One walk of the whole listing, without a delimiter: each page says
  // the size, ETag and date of a thousand objects, where listNames and
  // stat would ask once per directory and once per file.
  llvm::Expected<std::vector<ListedObject>> listFiles() override {
    std::string prefix = location_.keyPrefix();
    std::vector<ListedObject> files;
    if (llvm::Error error = location_.walkListing(
            "listing " + describe(), prefix, "",
            [&](const std::string& url) { return send(request("GET", url)); },
            [&](llvm::StringRef body) {
              S3ObjectsPage parsed = parseObjectListingPage(body);
              for (S3ListedObject& object : parsed.objects) {
                llvm::StringRef relative(object.key);
                if (!relative.consume_front(prefix) || !isLayoutFile(relative))
                  continue;
                files.push_back({relative.str(), {object.size, object.etag, object.mtime}});
              }
              return parsed.continuation;
            }))
      return error;
    std::sort(files.begin(), files.end(),
              [](const ListedObject& a, const ListedObject& b) { return a.relative < b.relative; });
    return files;
  }

  // One flat listing of the prefix (no delimiter): every file at any depth
  // in a walk of pages, where listing level by level would ask once per
  // directory (and some S3 servers, s3rver among them, give no common
  // prefixes more than one level above a key).
  llvm::Expected<std::vector<ListedObject>> listTree(const std::string& relative_dir) override {
    std::string prefix =
        relative_dir.empty() ? location_.keyPrefix() : location_.key(relative_dir) + "/";
    std::vector<ListedObject> files;
    if (llvm::Error error = location_.walkListing(
            "listing " + describe() + "/" + relative_dir, prefix, "",
            [&](const std::string& url) { return send(request("GET", url)); },
            [&](llvm::StringRef body) { return addTreeFiles(body, location_.keyPrefix(), files); }))
      return error;
    sortListed(files);
    return files;
  }

  std::string spoolDirectory() const override { return cache_dir_ + "/spool"; }

  llvm::Expected<PublishOutcome> publish(const std::string& relative, const std::string& spooled,
                                         bool replace) override {
    RemoveOnExit cleanup{spooled};
    auto buffer = llvm::MemoryBuffer::getFile(spooled, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(spooled + ": " + buffer.getError().message());
    llvm::StringRef bytes = (*buffer)->getBuffer();
    std::string md5 = md5Hex(bytes);

    auto existing = stat(relative);
    if (!existing)
      return existing.takeError();
    if (*existing) {
      auto same = sameBytes(relative, **existing, bytes, md5);
      if (!same)
        return same.takeError();
      if (*same)
        return PublishOutcome::Same;
      if (!replace)
        return PublishOutcome::Conflict;
    }

    HttpRequest put = request("PUT", location_.objectUrl(relative), bytes);
    put.headers.push_back("Content-MD5: " + md5Base64(bytes));
    put.headers.push_back(llvm::StringRef(relative).ends_with(".sym")
                              ? "Content-Type: text/plain"
                              : "Content-Type: application/octet-stream");
    // S3 (since 2024) and MinIO refuse to overwrite a key that appeared
    // since the HEAD: two servers publishing one key at once cannot both
    // win. A server that ignores the header (s3rver) is last-writer-wins.
    if (!replace)
      put.headers.push_back("If-None-Match: *");
    HttpResponse answer = send(put);
    if (answer.status == 412 || answer.status == 409) {
      auto now = stat(relative);
      if (!now)
        return now.takeError();
      if (!*now)
        return failure("PUT", relative, answer);
      auto same = sameBytes(relative, **now, bytes, md5);
      if (!same)
        return same.takeError();
      return *same ? PublishOutcome::Same : PublishOutcome::Conflict;
    }
    if (answer.status < 200 || answer.status > 299)
      return failure("PUT", relative, answer);
    return PublishOutcome::Published;
  }

  llvm::Error remove(const std::string& relative) override {
    HttpResponse answer = send(request("DELETE", location_.objectUrl(relative)));
    if (answer.status == 200 || answer.status == 204 || answer.status == 404)
      return llvm::Error::success();
    return failure("DELETE", relative, answer);
  }

  // Makes the cache and spool directories (at start, so that a server that
  // cannot write them says so before it listens).
  // Only the server's user reads them: a --private store's files are
  // cached here too. Downloads a killed server left half done (an hour old:
  // another server sharing the cache may be writing a newer one) go.
  llvm::Error prepareDirectories() const {
    for (const std::string& dir : {cache_dir_, cache_dir_ + "/objects", spoolDirectory()})
      if (std::error_code ec = llvm::sys::fs::create_directories(dir, /*IgnoreExisting=*/true,
                                                                 llvm::sys::fs::perms::owner_all))
        return llvm::createStringError(dir + ": " + ec.message());
    removeAbandonedDownloads();
    return llvm::Error::success();
  }

  // One short listing of the prefix: a bucket that is not there, or
  // credentials it refuses, are told at start rather than at the first
  // request.
  llvm::Error probe() const {
    HttpResponse answer =
        send(request("GET", location_.listUrl(location_.keyPrefix(), "/", "", 1)));
    if (answer.status != 200)
      return llvm::createStringError(s3Failure("listing " + describe(), answer));
    return llvm::Error::success();
  }

private:
  HttpRequest request(const std::string& method, const std::string& url,
                      llvm::StringRef body = "") const {
    return location_.request(method, url, body, timeout_seconds_);
  }

  HttpResponse send(const HttpRequest& r) const { return performWithRetries(r, retries_); }

  std::string what(const std::string& method, const std::string& relative) const {
    return method + " " + describe() + "/" + relative;
  }

  llvm::Error failure(const std::string& method, const std::string& relative,
                      const HttpResponse& answer) const {
    return llvm::createStringError(s3Failure(what(method, relative), answer));
  }

  // What a HEAD says of an object: its size in the bucket, ETag, date, and
  // whether it is stored gzip-encoded.
  struct Head {
    StoredObjectInfo info;
    bool gzip = false;
  };

  static bool isGzip(const HttpResponse& answer) {
    return llvm::StringRef(answer.header("content-encoding")).lower().find("gzip") !=
           std::string::npos;
  }

  llvm::Expected<std::optional<Head>> head(const std::string& relative) const {
    HttpResponse answer = send(request("HEAD", location_.objectUrl(relative)));
    if (answer.status == 404)
      return std::nullopt;
    if (answer.status != 200)
      return failure("HEAD", relative, answer);
    Head h;
    if (!llvm::to_integer(answer.header("content-length"), h.info.size, 10))
      return llvm::createStringError(what("HEAD", relative) + ": the answer has no Content-Length");
    h.info.etag = answer.header("etag");
    if (h.info.etag.empty())
      return llvm::createStringError(what("HEAD", relative) + ": the answer has no ETag");
    h.info.mtime = httpDateSeconds(answer.header("last-modified"));
    h.gzip = isGzip(answer);
    return h;
  }

  // The current version of an object: a HEAD for its ETag, then (when
  // `need_fd`, or when it is stored gzip-encoded and so its size is the
  // decoded copy's) the cached copy of that version, or a GET of it into the
  // cache. The object may change between the two: then both are asked
  // again. None when there is no such object; fd -1 when not opened.
  llvm::Expected<std::optional<OpenedObject>> openCurrent(const std::string& relative,
                                                          bool need_fd = false) {
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto h = head(relative);
      if (!h)
        return h.takeError();
      if (!*h)
        return std::nullopt;
      if (!need_fd && !(*h)->gzip)
        return OpenedObject{-1, (*h)->info};
      std::string cached = cachePath(relative, (*h)->info.etag);
      int fd = openCached(cached, **h);
      if (fd < 0) {
        auto fetched = download(relative, **h, cached);
        if (!fetched)
          return fetched.takeError();
        if (!*fetched)
          continue; // another version came in between: ask again
        fd = openCached(cached, **h);
      }
      if (fd < 0)
        continue;
      OpenedObject opened{fd, (*h)->info};
      struct stat st;
      if (::fstat(fd, &st) == 0)
        opened.info.size = uint64_t(st.st_size); // the decoded size when gzip
      return opened;
    }
    return llvm::createStringError(describe() + "/" + relative +
                                   ": the object kept changing while it was read");
  }

  llvm::Expected<std::string> readCachedRange(const std::string& relative, uint64_t offset,
                                              uint64_t length) {
    auto opened = open(relative);
    if (!opened)
      return opened.takeError();
    std::string out;
    if (offset < opened->info.size) {
      out.resize(std::min<uint64_t>(length, opened->info.size - offset));
      ssize_t n = ::pread(opened->fd, out.data(), out.size(), off_t(offset));
      out.resize(n > 0 ? size_t(n) : 0);
    }
    ::close(opened->fd);
    return out;
  }

  // objects/<2 hex>/<hash of the object's URL>-<hash of its ETag>: one file
  // per version; the URL names endpoint, bucket and key, so that one cache
  // directory can serve several stores.
  std::string cacheStem(const std::string& relative) const {
    std::string hash = sha256Hex(location_.objectUrl(relative));
    return cache_dir_ + "/objects/" + hash.substr(0, 2) + "/" + hash;
  }
  std::string cachePath(const std::string& relative, const std::string& etag) const {
    return cacheStem(relative) + "-" + sha256Hex(etag).substr(0, 32);
  }

  // An fd of the cached copy when it is there whole, else -1. A copy is
  // renamed into place only once complete; a decoded gzip object's size is
  // not known before it is decoded.
  static int openCached(const std::string& path, const Head& h) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (!h.gzip && uint64_t(st.st_size) != h.info.size)) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  // GETs the version `info` describes into `cached` (a temporary file
  // renamed into place: a reader sees the whole copy or none) and removes
  // the copies of older versions. False when the object is no longer that
  // version.
  llvm::Expected<bool> download(const std::string& relative, const Head& h,
                                const std::string& cached) {
    const StoredObjectInfo& info = h.info;
    std::string dir = llvm::StringRef(cached).rsplit('/').first.str();
    if (std::error_code ec = llvm::sys::fs::create_directories(dir, /*IgnoreExisting=*/true,
                                                               llvm::sys::fs::perms::owner_all))
      return llvm::createStringError(dir + ": " + ec.message());
    std::string temporary = dir + "/.download-XXXXXX";
    int fd = mkstemp(temporary.data());
    if (fd < 0)
      return llvm::createStringError(temporary + ": " + std::strerror(errno));
    std::FILE* file = fdopen(fd, "w+b");
    if (!file) {
      ::close(fd);
      std::remove(temporary.c_str());
      return llvm::createStringError(temporary + ": " + std::strerror(errno));
    }
    HttpRequest get = request("GET", location_.objectUrl(relative));
    get.headers.push_back("If-Match: " + info.etag);
    get.download = file;
    get.download_limit = info.size; // a bigger object is another version
    HttpResponse answer = send(get);
    bool closed = std::fclose(file) == 0;
    auto discard = [&] { std::remove(temporary.c_str()); };
    if (answer.status == 412 || answer.status == 404 ||
        (answer.status == 0 && answer.download_over_limit)) {
      discard();
      return false;
    }
    if (answer.status != 200) {
      discard();
      return failure("GET", relative, answer);
    }
    if (answer.downloaded != info.size ||
        (!answer.header("etag").empty() &&
         unquoted(answer.header("etag")) != unquoted(info.etag))) {
      discard();
      return false;
    }
    if (closed && h.gzip) {
      // Decoded into a second temporary file, at most as large as the
      // limits let a compressed input inflate.
      std::string decoded = temporary + ".decoded";
      uint64_t cap =
          std::min<uint64_t>(limits::kMaxFetchedSymbolFile,
                             info.size * limits::kMaxInflateRatio + limits::kInflateSlack);
      llvm::Error inflated = gunzipFile(temporary, decoded, {cap, /*concatenated_members=*/true});
      discard();
      if (inflated) {
        std::remove(decoded.c_str());
        return llvm::createStringError(what("GET", relative) + ": " +
                                       llvm::toString(std::move(inflated)));
      }
      temporary = decoded;
    }
    if (!closed || std::rename(temporary.c_str(), cached.c_str()) != 0) {
      std::string reason = std::strerror(errno);
      discard();
      return llvm::createStringError(cached + ": " + reason);
    }
    removeOtherVersions(relative, cached);
    return true;
  }

  void removeAbandonedDownloads() const {
    std::string objects = cache_dir_ + "/objects";
    DIR* top = opendir(objects.c_str());
    if (!top)
      return;
    std::vector<std::string> stale;
    time_t hour_ago = std::time(nullptr) - 3600;
    while (dirent* shard = readdir(top)) {
      if (shard->d_name[0] == '.')
        continue;
      std::string dir = objects + "/" + shard->d_name;
      DIR* listing = opendir(dir.c_str());
      if (!listing)
        continue;
      while (dirent* entry = readdir(listing)) {
        std::string path = dir + "/" + entry->d_name;
        struct stat st;
        if (llvm::StringRef(entry->d_name).starts_with(".download-") &&
            ::lstat(path.c_str(), &st) == 0 && st.st_mtime < hour_ago)
          stale.push_back(path);
      }
      closedir(listing);
    }
    closedir(top);
    for (const std::string& path : stale)
      std::remove(path.c_str());
  }

  void removeOtherVersions(const std::string& relative, const std::string& keep) const {
    std::string stem = cacheStem(relative);
    auto [dir, base] = llvm::StringRef(stem).rsplit('/');
    std::string start = base.str() + "-";
    DIR* listing = opendir(dir.str().c_str());
    if (!listing)
      return;
    std::vector<std::string> stale;
    while (dirent* entry = readdir(listing)) {
      std::string path = dir.str() + "/" + entry->d_name;
      if (llvm::StringRef(entry->d_name).starts_with(start) && path != keep)
        stale.push_back(path);
    }
    closedir(listing);
    for (const std::string& path : stale)
      std::remove(path.c_str());
  }

  // Whether the stored object holds `bytes`: its ETag is their MD5 (a
  // single-part upload without KMS), or, when the ETag is something else, a
  // download says so. Sizes that differ settle it at once.
  llvm::Expected<bool> sameBytes(const std::string& relative, const StoredObjectInfo& info,
                                 llvm::StringRef bytes, const std::string& md5) {
    if (unquoted(info.etag) == md5)
      return true;
    if (info.size != bytes.size())
      return false;
    auto opened = open(relative);
    if (!opened)
      return opened.takeError();
    auto stored =
        llvm::MemoryBuffer::getOpenFile(opened->fd, describe() + "/" + relative, opened->info.size,
                                        /*RequiresNullTerminator=*/false);
    ::close(opened->fd);
    if (!stored)
      return llvm::createStringError(describe() + "/" + relative + ": " +
                                     stored.getError().message());
    return (*stored)->getBuffer() == bytes;
  }

  S3Location location_;
  std::string cache_dir_;
  unsigned timeout_seconds_;
  RetryPolicy retries_;
};

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

} // namespace

llvm::Expected<std::unique_ptr<StoreBackend>> openS3Backend(const std::string& location,
                                                            const StoreBackendSettings& settings) {
  // What the command line did not give comes from the environment, as
  // `symstore upload --protocol s3` reads it.
  S3Credentials credentials{settings.aws_access_key, settings.aws_secret_key, settings.aws_region};
  if (credentials.access_key.empty())
    credentials.access_key = environment("AWS_ACCESS_KEY_ID");
  if (credentials.secret_key.empty())
    credentials.secret_key = environment("AWS_SECRET_ACCESS_KEY");
  if (credentials.region.empty())
    credentials.region = environment("AWS_REGION").empty() ? environment("AWS_DEFAULT_REGION")
                                                           : environment("AWS_REGION");
  std::string endpoint =
      settings.endpoint.empty() ? environment("AWS_ENDPOINT_URL") : settings.endpoint;
  auto parsed = S3Location::parse("store", location, endpoint, credentials);
  if (!parsed)
    return parsed.takeError();
  if (credentials.access_key.empty() || credentials.secret_key.empty())
    return llvm::createStringError(location + ": s3 needs AWS_ACCESS_KEY_ID and "
                                              "AWS_SECRET_ACCESS_KEY in the environment");
  std::string cache_dir =
      settings.cache_dir.empty() ? userCacheDir("symstore", "serve") : settings.cache_dir;
  auto backend =
      std::make_unique<S3Backend>(std::move(*parsed), cache_dir + "/s3", settings.timeout_seconds);
  if (llvm::Error error = backend->prepareDirectories())
    return error;
  if (llvm::Error error = backend->probe())
    return error;
  return backend;
}

} // namespace dumpsyms
