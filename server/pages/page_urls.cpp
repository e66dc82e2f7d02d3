#include "server/pages/page_urls.h"

#include "server/pages/html.h"

namespace dumpsyms {

std::string modulePageUrl(std::string_view debug_file, const DebugId& debug_id) {
  return "/ui/module/" + percentEncode(debug_file) + "/" + percentEncode(debug_id.str());
}

std::string searchUrl(std::string_view text, size_t page) {
  std::string url = "/?q=" + percentEncode(text);
  if (page > 1)
    url += "&page=" + std::to_string(page);
  return url;
}

std::string moduleListUrl(std::string_view letter, size_t page) {
  std::string url = "/ui/modules?letter=" + percentEncode(letter);
  if (page > 1)
    url += "&page=" + std::to_string(page);
  return url;
}

std::string downloadUrl(std::string_view relative_path) {
  // Each component encoded, the separators kept.
  std::string url;
  size_t start = 0;
  while (true) {
    size_t slash = relative_path.find('/', start);
    url += '/';
    url += percentEncode(relative_path.substr(start, slash - start));
    if (slash == std::string_view::npos)
      break;
    start = slash + 1;
  }
  return url;
}

} // namespace dumpsyms
