#include "store/upload/zip_archive.h"

#include <zip.h>

namespace dumpsyms {

llvm::Expected<std::string>
buildZipArchive(const std::vector<std::pair<std::string, llvm::StringRef>>& entries) {
  zip_error_t error;
  zip_error_init(&error);
  auto fail = [&](const char* what) {
    std::string message = std::string(what) + ": " + zip_error_strerror(&error);
    zip_error_fini(&error);
    return llvm::createStringError(message);
  };
  zip_source_t* memory = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!memory)
    return fail("cannot make a zip archive");
  zip_t* archive = zip_open_from_source(memory, ZIP_TRUNCATE, &error);
  if (!archive) {
    zip_source_free(memory);
    return fail("cannot make a zip archive");
  }
  zip_source_keep(memory); // still ours after zip_close writes into it
  for (const auto& [name, bytes] : entries) {
    zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    zip_int64_t index = source ? zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0) {
      if (source)
        zip_source_free(source);
      zip_error_set(&error, zip_error_code_zip(zip_get_error(archive)), 0);
      zip_discard(archive);
      zip_source_free(memory);
      return fail(("cannot add " + name + " to a zip archive").c_str());
    }
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 0);
    // A fixed time: the same files give the same archive.
    zip_file_set_mtime(archive, static_cast<zip_uint64_t>(index), 0, 0);
  }
  if (zip_close(archive) != 0) {
    zip_error_set(&error, zip_error_code_zip(zip_get_error(archive)), 0);
    zip_discard(archive);
    zip_source_free(memory);
    return fail("cannot write a zip archive");
  }
  std::string out;
  zip_stat_t stat;
  if (zip_source_stat(memory, &stat) == 0 && zip_source_open(memory) == 0) {
    out.resize(stat.size);
    zip_int64_t got = zip_source_read(memory, out.data(), stat.size);
    zip_source_close(memory);
    if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size)
      out.clear();
  }
  zip_source_free(memory);
  if (out.empty())
    return llvm::createStringError("cannot read back a zip archive");
  return out;
}

} // namespace dumpsyms
