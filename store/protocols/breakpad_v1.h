// Breakpad's first upload protocol (sym_upload's default, symupload on
// macOS and Windows): one multipart/form-data POST per symbol file, with
// the MODULE line's facts as plain fields and the file as `symbol_file`.
// Only HTTP 200 counts as stored for Breakpad's clients.
#pragma once

#include "common/ids/debug_id.h"

#include <string>
#include <utility>
#include <vector>

namespace dumpsyms::breakpad_v1 {

// Where servers take it: Socorro's /symupload, and Tecken's /upload/
// (which tells it from a Tecken zip by the `symbol_file` field).
inline constexpr const char* kPaths[] = {"/symupload", "/upload/"};

inline constexpr const char* kOsField = "os";
inline constexpr const char* kCpuField = "cpu";
inline constexpr const char* kDebugFileField = "debug_file";
inline constexpr const char* kCodeFileField = "code_file";
inline constexpr const char* kDebugIdentifierField = "debug_identifier";
inline constexpr const char* kVersionField = "version"; // optional
inline constexpr const char* kSymbolFileField = "symbol_file";

inline constexpr int kStored = 200;

struct FormFacts {
  std::string os, cpu, debug_file, code_file;
  DebugId debug_identifier;
};

// The plain fields in the order sym_upload sends them (the file part,
// kSymbolFileField, follows them).
std::vector<std::pair<std::string, std::string>> plainFields(const FormFacts& facts);

// Whether `path` (decoded, no query) is one of kPaths.
bool isUploadPath(const std::string& path);

} // namespace dumpsyms::breakpad_v1
