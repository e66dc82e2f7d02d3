// What every uploaded file must pass before it is published, whatever the
// protocol: a name that is a safe store path, and for a .sym file, text our
// one parser (symbol_file/text/text_reader.h) reads without the problems that
// make Breakpad's processor call it corrupt, whose MODULE line (and INFO
// CODE_ID, for a null debug id) gives exactly the path it is uploaded to
// (store/layout/layout.h moduleRelativePath; ids compared without regard to case).
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "server/ingest/upload_refusal.h"

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

// The facts of a checked .sym file.
struct SymbolFileFacts {
  std::string os, cpu; // the MODULE line
  DebugId debug_id;
  std::string debug_file;
  CodeId code_id; // INFO CODE_ID, when given
  std::string code_file;
  std::string store_path; // where the store keeps it (its own spelling)
};

// A path a client named (a PUT's path, a zip entry's name): refused (400)
// unless store/layout/layout.h's isSafeRelativePath takes it and it is UTF-8.
std::optional<UploadRefusal> checkClientPath(const std::string& relative);

// A .sym file's text, whole (`what` names it in the reason).
std::optional<UploadRefusal> checkSymbolText(llvm::StringRef text, const std::string& what,
                                             SymbolFileFacts& facts);
// The same read from a local file a run of lines at a time.
std::optional<UploadRefusal> checkSymbolFile(const std::string& local_path, const std::string& what,
                                             SymbolFileFacts& facts);

// The path a client uploaded a checked file to, against the path its MODULE
// line gives (422 when they differ).
std::optional<UploadRefusal> checkClaimedPath(const std::string& claimed,
                                              const SymbolFileFacts& facts);
// The debug file and id a client named (Breakpad's v1 form fields, a
// sym-upload-v2 completion) against its MODULE line.
std::optional<UploadRefusal> checkClaimedModule(const std::string& debug_file,
                                                const DebugId& debug_id,
                                                const SymbolFileFacts& facts);

// Whether the names are the same but for the case of letters.
bool sameIgnoringCase(llvm::StringRef a, llvm::StringRef b);

} // namespace dumpsyms
