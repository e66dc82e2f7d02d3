#include "server/pages/page_layout.h"

#include "server/pages/html.h"

namespace dumpsyms {
namespace {

const char* tabClass(PageTab tab, PageTab current) {
  return tab == current ? " class=\"current\" aria-current=\"page\"" : "";
}

// One stylesheet for every page: readable at 360 px and at 1600 px, tables
// that scroll sideways on a phone instead of widening the page.
constexpr std::string_view kStylesheet =
    R"css(:root{color-scheme:light;--ink:#1d2329;--muted:#5b6570;--line:#d8dde3;--tint:#f4f6f8;--accent:#1f5fa8;
--lines:#2e7d32;--nolines:#e0a100;--public:#7b8fc9;--none:#d9dde2;--cfi:#00838f;--nocfi:#e9ecef}
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--ink);background:#fff}
header.site{background:#16324f;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1.4rem;align-items:baseline}
header.site .brand{font-weight:600;color:#fff;text-decoration:none}
header.site .store{color:#b8c7d8;font-size:.9em;overflow-wrap:anywhere}
header.site nav{display:flex;gap:1rem;margin-left:auto}
header.site nav a{color:#dbe6f2;text-decoration:none;padding-bottom:2px}
header.site nav a.current{color:#fff;border-bottom:2px solid #fff}
main{max-width:1180px;margin:0 auto;padding:1rem}
h1{font-size:1.45rem;margin:.4rem 0 .8rem;overflow-wrap:anywhere}
h2{font-size:1.12rem;margin:1.6rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
a{color:var(--accent)}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.92em}
code.line{display:block;background:var(--tint);padding:.35rem .5rem;border-radius:4px;overflow-wrap:anywhere}
.muted{color:var(--muted)}
main li,main p{overflow-wrap:anywhere}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-size:.93em}
th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--tint);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{overflow-wrap:anywhere;min-width:12rem}
td.id{white-space:nowrap;font-size:.82em}
td.when,td.nowrap{white-space:nowrap}
dl.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.5rem;margin:.5rem 0}
dl.stats div{background:var(--tint);border-radius:6px;padding:.45rem .6rem}
dl.stats dt{font-size:.8em;color:var(--muted)}
dl.stats dd{margin:0;font-size:1.15em;font-weight:600;font-variant-numeric:tabular-nums}
dl.stats dd .muted{display:block;font-size:.72em;font-weight:400}
form.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.6rem 0}
nav.letters{display:flex;flex-wrap:wrap;gap:.35rem .6rem;margin:.6rem 0;font-size:1.1em}
form.stack{display:grid;gap:.7rem;max-width:40rem;margin:.6rem 0}
form.stack label{display:grid;gap:.2rem}
input[type=search],input[type=text],input[type=password]{font:inherit;padding:.4rem .55rem;border:1px solid #aab4bf;border-radius:4px;min-width:0;flex:1 1 16rem}
button{font:inherit;padding:.4rem 1rem;border:0;border-radius:4px;background:var(--accent);color:#fff;cursor:pointer}
.error{background:#fdecea;border-left:4px solid #c62828;padding:.5rem .7rem}
.note{background:#fff8e1;border-left:4px solid #e0a100;padding:.5rem .7rem}
.ok{background:#e8f5e9;border-left:4px solid #2e7d32;padding:.5rem .7rem}
nav.pages{display:flex;gap:1rem;margin:.6rem 0}
svg.bar{width:100%;height:34px;display:block;border:1px solid var(--line);border-radius:3px;shape-rendering:crispEdges}
svg.bar.thin{height:16px}
.bar-scale{display:flex;justify-content:space-between;font-size:.8em;color:var(--muted)}
rect.func-lines,.key.func-lines{fill:var(--lines);background:var(--lines)}
rect.func-no-lines,.key.func-no-lines{fill:var(--nolines);background:var(--nolines)}
rect.public,.key.public{fill:var(--public);background:var(--public)}
rect.none,.key.none{fill:var(--none);background:var(--none)}
rect.cfi,.key.cfi{fill:var(--cfi);background:var(--cfi)}
rect.no-cfi,.key.no-cfi{fill:var(--nocfi);background:var(--nocfi)}
ul.legend{list-style:none;padding:0;margin:.4rem 0;display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;font-size:.9em}
.key{display:inline-block;width:.9em;height:.9em;border-radius:2px;vertical-align:-.1em;margin-right:.35em}
.tag{display:inline-block;font-size:.78em;padding:0 .4em;border-radius:3px;background:var(--tint);border:1px solid var(--line);white-space:nowrap}
.tag.crashed{background:#fdecea;border-color:#e57373}
.tag.missing{background:#fff8e1;border-color:#e0a100}
tr.inlined td{color:var(--muted)}
tr.frame.trust-scan td,tr.frame.trust-scan-frame td{color:#8a5a00}
section.thread{margin-top:1.2rem}
dl.crash{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.2rem;margin:.5rem 0}
dl.crash dt{color:var(--muted)}
dl.crash dd{margin:0;font-family:ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere}
ul.explain{margin:.2rem 0;padding-left:1.2rem;font-size:.85em;font-family:ui-monospace,"DejaVu Sans Mono",monospace;overflow-wrap:anywhere}
tr.explain td{border-bottom:1px solid var(--line);background:#fcfcfd}
.thread-end{color:var(--muted);font-size:.9em}
ol.problems li{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.9em;overflow-wrap:anywhere}
footer{max-width:1180px;margin:2rem auto 1rem;padding:0 1rem;color:var(--muted);font-size:.85em}
@media (max-width:600px){main{padding:.6rem}h1{font-size:1.2rem}header.site nav{margin-left:0}th,td{padding:.25rem .35rem}}
)css";

// Enhances only: pages work without it. Remembers the upload token a
// person pasted (for this browser tab) so that the other forms have it,
// and keeps a chosen file's size beside its input.
constexpr std::string_view kScript = R"js((function(){
  var fields=document.querySelectorAll('input[name=token]');
  var kept=null;try{kept=sessionStorage.getItem('symstore-token');}catch(e){}
  fields.forEach(function(f){
    if(kept&&!f.value)f.value=kept;
    f.form&&f.form.addEventListener('submit',function(){try{sessionStorage.setItem('symstore-token',f.value);}catch(e){}});
  });
  document.querySelectorAll('input[type=file]').forEach(function(input){
    input.addEventListener('change',function(){
      var out=input.parentNode.querySelector('.chosen');
      if(!out){out=document.createElement('span');out.className='chosen muted';input.parentNode.appendChild(out);}
      var f=input.files&&input.files[0];out.textContent=f?' '+f.size.toLocaleString()+' bytes':'';
    });
  });
})();
)js";

} // namespace

std::string renderPage(const PageFrame& frame, std::string_view body_html) {
  std::string out;
  out.reserve(body_html.size() + 2048);
  out += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escapeHtml(frame.title) + " \xE2\x80\x94 symstore</title>\n";
  out += std::string("<link rel=\"stylesheet\" href=\"") + kStylePath + "\">\n";
  out += std::string("<script src=\"") + kScriptPath + "\" defer></script>\n";
  out += "</head>\n<body>\n<header class=\"site\"><a class=\"brand\" href=\"/\">symstore</a>";
  if (!frame.store_name.empty())
    out += "<span class=\"store\">" + escapeHtml(frame.store_name) + "</span>";
  out += "<nav>";
  out += std::string("<a href=\"/\"") + tabClass(PageTab::Store, frame.tab) + ">Store</a>";
  out += std::string("<a href=\"/ui/check\"") + tabClass(PageTab::Check, frame.tab) +
         ">Check symbols</a>";
  out += std::string("<a href=\"/ui/walk\"") + tabClass(PageTab::Walk, frame.tab) +
         ">Walk a crash</a>";
  out += "</nav></header>\n<main>\n";
  out += body_html;
  out += "\n</main>\n<footer>Served by <code>symstore serve</code>. The same files: "
         "<code>/&lt;debug_file&gt;/&lt;ID&gt;/&lt;file&gt;</code>, debuginfod "
         "<code>/buildid/</code>, Microsoft symbol server paths.</footer>\n</body>\n</html>\n";
  return out;
}

std::string uploadTokenField(bool needs_token) {
  if (!needs_token)
    return "";
  return "<label>Upload token <input type=\"password\" name=\"token\" "
         "autocomplete=\"current-password\"></label>\n";
}

std::vector<std::pair<std::string, std::string>> pageHeaders() {
  return {
      {"Content-Type", "text/html; charset=utf-8"},
      {"Content-Security-Policy",
       "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "same-origin"},
      {"Cache-Control", "no-store"},
  };
}

std::string_view pageStylesheet() {
  return kStylesheet;
}

std::string_view pageScript() {
  return kScript;
}

} // namespace dumpsyms
