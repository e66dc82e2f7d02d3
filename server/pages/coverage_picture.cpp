#include "server/pages/coverage_picture.h"

#include "server/pages/html.h"
#include "walk/printers/walk_printers.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

// Enough buckets for a wide screen; fewer rectangles than that after
// merging neighbours of one kind.
constexpr size_t kBuckets = 600;
constexpr double kWidth = 1000.0;

const char* kindLabel(CoverageKind kind, bool cfi) {
  if (cfi)
    return kind == CoverageKind::Nothing ? "no STACK CFI" : "STACK CFI";
  switch (kind) {
  case CoverageKind::FunctionWithLines:
    return "FUNC with lines";
  case CoverageKind::FunctionWithoutLines:
    return "FUNC without lines";
  case CoverageKind::PublicOnly:
    return "PUBLIC only";
  case CoverageKind::Nothing:
    break;
  }
  return "no symbols";
}

} // namespace

std::vector<CoverageRun> cfiAsRuns(const SymbolCoverage& coverage) {
  std::vector<CoverageRun> runs;
  runs.reserve(coverage.cfi_runs.size());
  for (const auto& [run, covered] : coverage.cfi_runs)
    runs.push_back(
        {run.start, run.end, covered ? CoverageKind::FunctionWithLines : CoverageKind::Nothing});
  return runs;
}

std::string renderCoverageBar(std::string_view id, std::string_view label,
                              const std::vector<CoverageRun>& runs, uint64_t start, uint64_t end,
                              bool thin) {
  bool cfi = id.find("cfi") != std::string_view::npos;
  std::string out = fmt::format("<svg id=\"{}\" class=\"bar{}\" viewBox=\"0 0 {} 10\" "
                                "preserveAspectRatio=\"none\" shape-rendering=\"crispEdges\" "
                                "role=\"img\" aria-label=\"{}\">",
                                escapeHtml(id), thin ? " thin" : "", kWidth, escapeHtml(label));
  if (end > start) {
    double span = static_cast<double>(end - start);
    for (const CoverageRun& run : coverageBuckets(runs, kBuckets)) {
      double x = kWidth * static_cast<double>(run.start - start) / span;
      double w = kWidth * static_cast<double>(run.end - run.start) / span;
      const char* cls =
          cfi ? (run.kind == CoverageKind::Nothing ? "no-cfi" : "cfi") : coverageKindName(run.kind);
      out += fmt::format("<rect class=\"{}\" x=\"{:.3f}\" y=\"0\" width=\"{:.3f}\" "
                         "height=\"10\"><title>{}\xE2\x80\x93{}: {}</title></rect>",
                         cls, x, w, hexAddress(run.start), hexAddress(run.end),
                         kindLabel(run.kind, cfi));
    }
  }
  out += "</svg>";
  return out;
}

} // namespace dumpsyms
