// Mozilla Tecken's upload: POST <base>/upload/ as multipart/form-data with
// one file part, a zip whose entries are <debug_file>/<DEBUG_ID>/<name>.sym,
// and the token in an Auth-Token header. 201 Created with a JSON account of
// the upload means every file was taken.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms::tecken {

inline constexpr const char* kUploadPath = "/upload/";
// The form field and file name our client sends (Tecken takes any file part).
inline constexpr const char* kZipField = "symbols.zip";
inline constexpr const char* kZipContentType = "application/zip";
inline constexpr int kCreated = 201;

// <base>/upload/, whatever slashes end `base`.
std::string uploadUrl(const std::string& base);

// The body of a 201: {"upload": {...}} with the fields Tecken gives.
struct UploadAccount {
  std::string filename;                  // the zip's name as sent
  uint64_t size = 0;                     // its bytes
  std::vector<std::string> uploaded;     // keys published
  std::vector<std::string> skipped_keys; // keys whose same bytes were there
};
std::string uploadAnswer(const UploadAccount& account);

} // namespace dumpsyms::tecken
