#include "dwarf/debug_info_reader.h"

#include <atomic>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

namespace dumpsyms {

using namespace llvm;

size_t readDebugInfo(const ElfImage& image, const DebugInfoOptions& options,
                     ModuleBuilder& builder, Diagnostics& diagnostics) {
  auto report = [&](Error error) { diagnostics.warn(image.path() + ": " + toString(std::move(error))); };
  std::unique_ptr<DWARFContext> context =
      DWARFContext::create(image.object(), DWARFContext::ProcessDebugRelocations::Process,
                           nullptr, options.dwp_path, report, report, /*ThreadSafe=*/true);

  std::vector<DWARFUnit*> units;
  for (const auto& unit : context->compile_units())
    units.push_back(unit.get());

  std::vector<UnitSymbols> results(units.size());
  std::vector<std::vector<std::string>> warnings(units.size());
  std::atomic<size_t> done{0};
  auto extract = [&](size_t i) {
    results[i] = extractUnit(*context, *units[i], options.extract, warnings[i]);
    size_t finished = ++done;
    if (options.progress)
      options.progress(finished, units.size());
  };

  unsigned threads = options.threads ? options.threads : hardware_concurrency().compute_thread_count();
  if (threads <= 1 || units.size() <= 1) {
    for (size_t i = 0; i < units.size(); ++i)
      extract(i);
  } else {
    DefaultThreadPool pool(hardware_concurrency(threads));
    for (size_t i = 0; i < units.size(); ++i)
      pool.async([&, i] { extract(i); });
    pool.wait();
  }

  for (size_t i = 0; i < units.size(); ++i) {
    for (std::string& warning : warnings[i])
      diagnostics.warn(image.path() + ": " + warning);
    builder.addUnit(std::move(results[i]));
  }
  return units.size();
}

}  // namespace dumpsyms
