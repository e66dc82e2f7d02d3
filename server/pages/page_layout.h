// The frame every page shares: the document head (one stylesheet, one
// small script that only enhances), the header with the store's name and
// the four pages, and the headers an HTML answer carries (its type, a
// Content-Security-Policy that allows nothing but this server's own
// stylesheet and script, no sniffing, no framing).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dumpsyms {

enum class PageTab { Store, Check, Walk, None };

struct PageFrame {
  std::string title; // plain text: escaped here
  PageTab tab = PageTab::None;
  std::string store_name; // plain text, shown in the header
};

// <!doctype html> ... `body_html` (markup the page wrote) ... </html>.
std::string renderPage(const PageFrame& frame, std::string_view body_html);

// The upload token's field of a form that uploads, where the server has
// tokens ("" where it has none). Not `required`: the server says why.
std::string uploadTokenField(bool needs_token);

// The headers of an HTML page answer.
std::vector<std::pair<std::string, std::string>> pageHeaders();

// The stylesheet and the script, served at kStylePath and kScriptPath.
inline constexpr const char* kStylePath = "/ui/static/pages.css";
inline constexpr const char* kScriptPath = "/ui/static/pages.js";
std::string_view pageStylesheet();
std::string_view pageScript();

} // namespace dumpsyms
