#include "server/ingest/upload_zip.h"

#include "server/ingest/upload_checks.h"

#include <memory>
#include <set>
#include <sys/stat.h>
#include <vector>
#include <zip.h>

namespace dumpsyms {

namespace {

UploadRefusal refuse(int status, std::string reason) {
  return UploadRefusal{status, "the zip: " + std::move(reason)};
}

struct ZipCloser {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
struct EntryCloser {
  void operator()(zip_file_t* file) const { zip_fclose(file); }
};

bool isSymlink(zip_t* archive, zip_uint64_t index) {
  zip_uint8_t opsys = 0;
  zip_uint32_t attributes = 0;
  if (zip_file_get_external_attributes(archive, index, 0, &opsys, &attributes) != 0)
    return false;
  return opsys == ZIP_OPSYS_UNIX && ((attributes >> 16) & S_IFMT) == S_IFLNK;
}

std::optional<UploadRefusal> readArchive(zip_t* archive, uint64_t archive_bytes,
                                         const InflateCaps& caps, ZipEntrySink& sink) {
  zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0)
    return refuse(400, "cannot count its entries");
  if (uint64_t(count) > caps.entries)
    return refuse(413, limits::overLimit("its number of entries (" + std::to_string(count) + ")",
                                         caps.entries, "entries"));
  uint64_t total_cap = std::min(caps.total_bytes, caps.ratioBound(archive_bytes));
  uint64_t total = 0;
  std::set<std::string> names;
  std::vector<char> buffer(1 << 18);
  for (zip_uint64_t index = 0; index < zip_uint64_t(count); ++index) {
    const char* raw = zip_get_name(archive, index, ZIP_FL_ENC_GUESS);
    if (!raw)
      return refuse(400, "entry " + std::to_string(index) + " has no name");
    std::string name(raw);
    bool directory = !name.empty() && name.back() == '/';
    std::string path = directory ? name.substr(0, name.size() - 1) : name;
    if (auto refusal = checkClientPath(path))
      return refuse(400, "entry " + refusal->reason);
    if (isSymlink(archive, index))
      return refuse(400, "entry '" + path + "' is a symbolic link");
    zip_stat_t stat;
    zip_stat_init(&stat);
    if (zip_stat_index(archive, index, 0, &stat) != 0)
      return refuse(400, "entry '" + path + "': " + zip_strerror(archive));
    if ((stat.valid & ZIP_STAT_ENCRYPTION_METHOD) && stat.encryption_method != ZIP_EM_NONE)
      return refuse(400, "entry '" + path + "' is encrypted");
    if (directory)
      continue;
    if (!names.insert(path).second)
      return refuse(400, "entry '" + path + "' is there twice");
    std::unique_ptr<zip_file_t, EntryCloser> file(zip_fopen_index(archive, index, 0));
    if (!file)
      return refuse(400, "entry '" + path + "': " + zip_strerror(archive));
    if (auto refusal = sink.begin(path))
      return refusal;
    uint64_t entry_bytes = 0;
    for (;;) {
      zip_int64_t got = zip_fread(file.get(), buffer.data(), buffer.size());
      if (got < 0)
        return refuse(400, "entry '" + path + "': " + zip_file_strerror(file.get()));
      if (got == 0)
        break;
      entry_bytes += uint64_t(got);
      total += uint64_t(got);
      if (entry_bytes > caps.entry_bytes)
        return refuse(413, "entry '" + path + "': " +
                               limits::overLimit("what it inflates to", caps.entry_bytes, "bytes"));
      if (total > total_cap)
        return refuse(413, limits::overLimit("what its entries inflate to", total_cap, "bytes") +
                               " (at most " + std::to_string(caps.ratio) +
                               " times the zip's size)");
      if (auto refusal = sink.write(llvm::StringRef(buffer.data(), size_t(got))))
        return refusal;
    }
    if (auto refusal = sink.end())
      return refusal;
  }
  return std::nullopt;
}

} // namespace

std::optional<UploadRefusal> readUploadZipFile(const std::string& path, const InflateCaps& caps,
                                               ZipEntrySink& sink) {
  int error = 0;
  std::unique_ptr<zip_t, ZipCloser> archive(
      zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_error_t described;
    zip_error_init_with_code(&described, error);
    UploadRefusal refusal =
        refuse(400, std::string("not a zip file: ") + zip_error_strerror(&described));
    zip_error_fini(&described);
    return refusal;
  }
  struct stat info = {};
  ::stat(path.c_str(), &info);
  return readArchive(archive.get(), uint64_t(info.st_size), caps, sink);
}

std::optional<UploadRefusal> readUploadZipBytes(llvm::StringRef bytes, const InflateCaps& caps,
                                                ZipEntrySink& sink) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (!source) {
    zip_error_fini(&error);
    return refuse(400, "not a zip file");
  }
  std::unique_ptr<zip_t, ZipCloser> archive(
      zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error));
  if (!archive) {
    zip_source_free(source);
    UploadRefusal refusal =
        refuse(400, std::string("not a zip file: ") + zip_error_strerror(&error));
    zip_error_fini(&error);
    return refusal;
  }
  zip_error_fini(&error);
  return readArchive(archive.get(), bytes.size(), caps, sink);
}

} // namespace dumpsyms
