// Crashpad's CrashpadInfo stream (0x43500001): the report and client ids,
// the process's simple annotations (a key/value dictionary), and per module
// its list annotations, simple annotations and annotation objects (named,
// typed values; the string ones are kept). Every RVA is bounds-checked;
// counts are bounded by what the stream and the file hold.
#include "common/limits/input_limits.h"
#include "walk/minidump/stream_reader.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms::minidump_streams {

namespace {

constexpr uint32_t kCrashpadInfo = 0x43500001;
constexpr uint16_t kAnnotationString = 1;
// Entries of one dictionary or list read at most (Crashpad's clients keep
// a few dozen).
constexpr uint32_t kMaxAnnotations = 4096;

// A MinidumpUTF8String: a 32-bit length, then the bytes.
std::optional<std::string> utf8(const MinidumpBytes& bytes, uint32_t rva) {
  auto length = bytes.object<uint32_t>(rva);
  if (!length || *length > limits::kMaxMinidumpStringBytes)
    return std::nullopt;
  auto text = bytes.at(uint64_t(rva) + 4, *length);
  if (!text)
    return std::nullopt;
  return text->str();
}

// The (count, first entry) of a list at a location, entries `entry` bytes.
std::optional<std::pair<uint32_t, uint64_t>> list(const MinidumpBytes& bytes, uint32_t size,
                                                  uint32_t rva, uint32_t entry) {
  if (size < 4)
    return std::nullopt;
  auto count = bytes.object<uint32_t>(rva);
  if (!count)
    return std::nullopt;
  uint64_t held = (uint64_t(size) - 4) / entry;
  uint64_t in_file = bytes.size() > uint64_t(rva) + 4 ? (bytes.size() - rva - 4) / entry : 0;
  uint64_t n = std::min<uint64_t>({*count, held, in_file, kMaxAnnotations});
  return std::make_pair(uint32_t(n), uint64_t(rva) + 4);
}

} // namespace

void StreamReader::readCrashpadInfo() {
  const MinidumpStream* stream = directory_.first(kCrashpadInfo);
  if (!stream)
    return;
  // version, report id, client id (GUIDs), simple annotations, module list.
  if (stream->bytes.size() < 4 + 16 + 16 + 8 + 8) {
    warn("the CrashpadInfo stream is too short (" + std::to_string(stream->bytes.size()) +
         " bytes); left out");
    return;
  }
  const char* raw = stream->bytes.data();
  auto guid = [&](size_t at) {
    char text[40];
    std::snprintf(text, sizeof text, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                  read32le(raw + at), read16le(raw + at + 4), read16le(raw + at + 6),
                  uint8_t(raw[at + 8]), uint8_t(raw[at + 9]), uint8_t(raw[at + 10]),
                  uint8_t(raw[at + 11]), uint8_t(raw[at + 12]), uint8_t(raw[at + 13]),
                  uint8_t(raw[at + 14]), uint8_t(raw[at + 15]));
    return std::string(text);
  };
  out_.annotations.push_back({"crashpad.report_id", guid(4)});
  out_.annotations.push_back({"crashpad.client_id", guid(20)});
  size_t unreadable = 0;
  auto dictionary = [&](uint32_t size, uint32_t rva, const std::string& prefix) {
    auto entries = list(bytes_, size, rva, 8);
    if (!entries) {
      unreadable += size != 0;
      return;
    }
    for (uint32_t i = 0; i < entries->first; ++i) {
      auto entry = bytes_.at(entries->second + uint64_t(i) * 8, 8);
      auto key = entry ? utf8(bytes_, read32le(entry->data())) : std::nullopt;
      auto value = entry ? utf8(bytes_, read32le(entry->data() + 4)) : std::nullopt;
      if (!key || !value) {
        ++unreadable;
        continue;
      }
      out_.annotations.push_back({prefix + *key, *value});
    }
  };
  dictionary(read32le(raw + 36), read32le(raw + 40), "");

  auto modules = list(bytes_, read32le(raw + 44), read32le(raw + 48), 12);
  for (uint32_t i = 0; modules && i < modules->first; ++i) {
    auto link = bytes_.at(modules->second + uint64_t(i) * 12, 12);
    if (!link)
      break;
    uint32_t index = read32le(link->data());
    uint32_t size = read32le(link->data() + 4), rva = read32le(link->data() + 8);
    // The module's name, as the module list gives it.
    std::string name = "module " + std::to_string(index);
    if (index < out_.modules.size() && !out_.modules[index].code_file.empty())
      name = pathFileName(out_.modules[index].code_file);
    auto info = size >= 28 ? bytes_.at(rva, 28) : std::nullopt;
    if (!info) {
      ++unreadable;
      continue;
    }
    const char* m = info->data();
    std::string prefix = name + ": ";
    // List annotations: an RVA list of strings.
    if (auto strings = list(bytes_, read32le(m + 4), read32le(m + 8), 4)) {
      for (uint32_t k = 0; k < strings->first; ++k) {
        auto rva_bytes = bytes_.at(strings->second + uint64_t(k) * 4, 4);
        auto text = rva_bytes ? utf8(bytes_, read32le(rva_bytes->data())) : std::nullopt;
        if (text)
          out_.annotations.push_back({prefix + "[" + std::to_string(k) + "]", *text});
        else
          ++unreadable;
      }
    }
    dictionary(read32le(m + 12), read32le(m + 16), prefix);
    // Annotation objects: name, type, value (a byte array); strings kept.
    if (size >= 28)
      if (auto objects = list(bytes_, read32le(m + 20), read32le(m + 24), 12)) {
        for (uint32_t k = 0; k < objects->first; ++k) {
          auto object = bytes_.at(objects->second + uint64_t(k) * 12, 12);
          if (!object) {
            ++unreadable;
            continue;
          }
          auto key = utf8(bytes_, read32le(object->data()));
          uint16_t type = read16le(object->data() + 4);
          auto value = utf8(bytes_, read32le(object->data() + 8));
          if (!key || !value) {
            ++unreadable;
            continue;
          }
          out_.annotations.push_back({prefix + *key, type == kAnnotationString
                                                         ? *value
                                                         : "(" + std::to_string(value->size()) +
                                                               " bytes of type 0x" +
                                                               llvm::utohexstr(type) + ")"});
        }
      }
  }
  if (unreadable)
    warn("the CrashpadInfo stream: " + plural(unreadable, "annotation", "annotations") +
         " cannot be read");
}

} // namespace dumpsyms::minidump_streams
