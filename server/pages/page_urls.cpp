#include "server/pages/page_urls.h"

#include "server/pages/html.h"

#include <fmt/format.h>

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

std::string pageLinks(size_t page, size_t pages, const std::function<std::string(size_t)>& url_of) {
  if (pages <= 1)
    return "";
  std::string out = "<nav class=\"pages\">";
  if (page > 1)
    out += fmt::format("<a rel=\"prev\" href=\"{}\">\xE2\x86\x90 Previous</a>",
                       escapeHtml(url_of(page - 1)));
  out += fmt::format("<span>Page {} of {}</span>", page, pages);
  if (page < pages)
    out += fmt::format("<a rel=\"next\" href=\"{}\">Next \xE2\x86\x92</a>",
                       escapeHtml(url_of(page + 1)));
  return out + "</nav>";
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
