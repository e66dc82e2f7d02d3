// The crash inbox's pages, printed from values (server/crashes/ reads the
// index and the crash store): the groups (/ui/crashes), one group
// (/ui/signature) and one crash (/ui/crashes/<id>). Every text from a
// crash goes through escapeHtml; no server path is ever shown.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

struct CrashGroupRow {
  std::string signature;
  uint64_t count = 0;
  std::string first, last; // RFC 3339
  std::vector<std::string> products, versions;
  std::vector<uint64_t> daily; // a count per day of the period, oldest first
};

struct CrashGroupsInput {
  std::string q, product, version; // the search as typed
  unsigned days = 7;               // the period; 0: all time
  std::vector<CrashGroupRow> groups;
  uint64_t queued = 0; // crashes waiting to be processed
  std::string note;    // what the search was taken as
};

struct CrashRow {
  std::string id, received, product, version, signature, status;
};

struct SignaturePageInput {
  CrashGroupRow group;
  std::vector<CrashRow> crashes; // newest first
  bool more = false;             // more crashes than listed
};

struct CrashFileRow {
  std::string label;    // "minidump", "attachment upload_file_log"
  std::string filename; // as the client named it
  uint64_t size = 0;
  std::string url;
};

struct MissingSymbolRow {
  std::string debug_file, debug_id, code_file, code_id;
};

struct FrameRow {
  std::string index, module, function, source, trust;
  bool inlined = false;
};

struct ThreadRows {
  std::string title; // "Thread 0 (crashed)"
  std::vector<FrameRow> frames;
};

struct CrashPageInput {
  std::string id, received, kind, product, version, status, signature, processed_at;
  std::string error, note, release, crash_reason, crash_address;
  std::vector<std::pair<std::string, std::string>> history; // (signature, until)
  std::vector<std::pair<std::string, std::string>> annotations;
  std::vector<CrashFileRow> files;
  std::vector<MissingSymbolRow> missing;
  std::vector<ThreadRows> threads; // the walk, the crashing thread first
  std::string server_url;          // for the sym_upload line ("http://host:port")
};

std::string renderCrashGroups(const CrashGroupsInput& input);
std::string renderSignaturePage(const SignaturePageInput& input);
std::string renderCrashPage(const CrashPageInput& input);
// A daily count as a small bar chart (inline SVG, no script).
std::string sparklineSvg(const std::vector<uint64_t>& daily);

} // namespace dumpsyms
