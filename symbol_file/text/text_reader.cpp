#include "symbol_file/text/text_reader.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <llvm/ADT/SmallVector.h>

namespace dumpsyms {

namespace {

using llvm::StringRef;

// Splits off the next space-separated field; the rest stays in `text`.
StringRef field(StringRef& text) {
  auto [head, tail] = text.split(' ');
  text = tail;
  return head;
}

// Hex and decimal numbers as StringRef::getAsInteger reads them (digits
// only, no prefix or sign, nothing that overflows 64 bits), without its
// generality: these are the most numerous tokens of a symbol file.
bool hex(StringRef text, uint64_t& value) {
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = unsigned(c - '0');
    else if (c >= 'a' && c <= 'f')
      digit = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      digit = unsigned(c - 'A' + 10);
    else
      return false;
    if (v >> 60)
      return false;
    v = (v << 4) | digit;
  }
  value = v;
  return true;
}

bool decimal(StringRef text, uint64_t& value) {
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    unsigned digit = unsigned(c - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  value = v;
  return true;
}

// A signed decimal: an optional '-', then digits, within int64_t.
bool signedDecimal(StringRef text, int64_t& value) {
  bool negative = text.consume_front("-");
  uint64_t magnitude;
  if (!decimal(text, magnitude))
    return false;
  if (negative ? magnitude > uint64_t(INT64_MAX) + 1 : magnitude > uint64_t(INT64_MAX))
    return false;
  value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// The deepest stack a postfix expression or STACK WIN program needs: every
// operand pushes, every binary operator and assignment pops two (an
// operator pushes its result back), `^` replaces the top. Fed a token at a
// time.
struct StackDepth {
  size_t depth = 0, deepest = 0;
  void token(StringRef token) {
    if (token == "^")
      return;
    if (token == "=" || token == "+" || token == "-" || token == "*" || token == "/" ||
        token == "%" || token == "@") {
      depth -= std::min<size_t>(depth, 2);
      if (token != "=")
        ++depth;
      return;
    }
    // "=$eip": an assignment glued to the next operand.
    if (token.size() > 1 && token.front() == '=')
      depth -= std::min<size_t>(depth, 2);
    deepest = std::max(deepest, ++depth);
  }
};

size_t postfixStackDepth(StringRef text) {
  StackDepth stack;
  while (!text.empty()) {
    StringRef token = field(text);
    if (!token.empty())
      stack.token(token);
  }
  return stack.deepest;
}

} // namespace

bool parseCfiRules(StringRef text, std::vector<CfiRule>& rules) {
  llvm::SmallVector<StringRef, 16> tokens;
  text.split(tokens, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef token : tokens) {
    if (token.ends_with(":") && token.size() > 1) {
      rules.push_back({token.drop_back().str(), ""});
    } else {
      if (rules.empty())
        return false;
      std::string& expression = rules.back().expression;
      if (!expression.empty())
        expression += ' ';
      expression += token.str();
    }
  }
  return !rules.empty();
}

bool makesSymbolsCorrupt(const std::vector<SymbolFileProblem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const SymbolFileProblem& problem) {
    return problem.skipped && !StringRef(problem.message).starts_with("INLINE");
  });
}

bool SymbolTextParser::RangeSet::overlapsOrAdd(uint64_t start, uint64_t end) {
  if (sorted_) {
    if (ordered_.empty() || start >= ordered_.back().first) {
      // Sorted and disjoint so far: only the last range can hold `start`.
      if (!ordered_.empty() && start < ordered_.back().second)
        return true;
      ordered_.emplace_back(start, end);
      return false;
    }
    tree_.insert(ordered_.begin(), ordered_.end());
    ordered_ = {};
    sorted_ = false;
  }
  auto next = tree_.lower_bound(start);
  if (next != tree_.end() && next->first < end)
    return true;
  if (next != tree_.begin() && std::prev(next)->second > start)
    return true;
  tree_.emplace(start, end);
  return false;
}

bool SymbolTextParser::AddressSet::containsOrAdd(uint64_t address) {
  if (sorted_) {
    if (ordered_.empty() || address > ordered_.back()) {
      ordered_.push_back(address);
      return false;
    }
    if (address == ordered_.back())
      return true;
    tree_.insert(ordered_.begin(), ordered_.end());
    ordered_ = {};
    sorted_ = false;
  }
  return !tree_.insert(address).second;
}

SymbolTextParser::SymbolTextParser(SymbolRecordSink& sink, uint64_t input_bytes)
    : sink_(sink), input_bytes_(input_bytes) {}

void SymbolTextParser::lines(StringRef text) {
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    ++number_;
    line = line.rtrim('\r');
    if (line.empty())
      continue;
    if (line.size() > limits::kMaxSymbolFileLine) {
      --number_;
      overlongLine();
      continue;
    }
    problem_.clear();
    well_formed_ = false;
    if (std::string problem = record(line); !problem.empty())
      problems_.push_back({number_, problem, !well_formed_});
    else if (!problem_.empty())
      problems_.push_back({number_, problem_});
  }
}

void SymbolTextParser::overlongLine() {
  ++number_;
  problems_.push_back(
      {number_, limits::overLimit("the line", limits::kMaxSymbolFileLine, "bytes") + ": not read",
       true});
}

std::string SymbolTextParser::record(StringRef line) {
  if (line.consume_front("MODULE ")) {
    StringRef os = field(line), cpu = field(line), id = field(line);
    sink_.moduleRecord(os, cpu, id, line);
    return line.empty() ? "MODULE without os, cpu, id and name" : "";
  }
  if (line.consume_front("INFO ")) {
    if (line.consume_front("CODE_ID ")) {
      StringRef id = field(line);
      sink_.codeId(id, line);
      return "";
    }
    sink_.info(line);
    return "";
  }
  if (line.consume_front("FILE "))
    return numbered(line, files_, false);
  if (line.consume_front("INLINE_ORIGIN "))
    return numbered(line, origins_, true);
  if (line.consume_front("FUNC "))
    return function(line);
  if (line.consume_front("INLINE "))
    return inlineCall(line);
  if (line.consume_front("PUBLIC "))
    return publicSymbol(line);
  if (line.consume_front("STACK CFI INIT "))
    return cfiInit(line);
  if (line.consume_front("STACK CFI "))
    return cfiChange(line);
  if (line.consume_front("STACK WIN "))
    return stackWin(line);
  return sourceLine(line);
}

std::string SymbolTextParser::numbered(StringRef line, std::vector<bool>& defined, bool origin) {
  const char* kind = origin ? "INLINE_ORIGIN" : "FILE";
  uint64_t id;
  if (!decimal(field(line), id) || line.empty())
    return std::string(kind) + " without a decimal id and a name";
  // The table grows to the largest id, so an id costs what the ids below
  // it cost: bounded by the file's size, no table is longer than the file
  // (real ids count up from 0, at least 9 bytes a record).
  if (id > limits::kMaxSymbolFileId || id >= input_bytes_)
    return std::string(kind) + " id " + std::to_string(id) + " is implausibly large (the file " +
           "holds " + std::to_string(input_bytes_) + " bytes)";
  if (defined.size() <= id)
    defined.resize(id + 1);
  else if (defined[id])
    return std::string(kind) + " id " + std::to_string(id) + " given twice";
  defined[id] = true;
  if (origin)
    sink_.inlineOrigin(static_cast<uint32_t>(id), line);
  else
    sink_.file(static_cast<uint32_t>(id), line);
  return "";
}

// A record that follows the grammar but is not kept (an empty range):
// Breakpad's parser reads it without complaint, so it does not make the
// file corrupt.
std::string SymbolTextParser::wellFormed(std::string problem) {
  well_formed_ = true;
  return problem;
}

std::string SymbolTextParser::function(StringRef line) {
  bool multiple = line.consume_front("m ");
  uint64_t address, size, parameters;
  if (!hex(field(line), address) || !hex(field(line), size) || !hex(field(line), parameters) ||
      line.empty())
    return "FUNC without hex address, size, parameter size and a name";
  function_.reset();
  if (size == 0 || address + size < address)
    return wellFormed("FUNC with an empty or wrapping range");
  if (function_ranges_.overlapsOrAdd(address, address + size))
    problem_ = "FUNC overlaps an earlier FUNC (the processor drops it)";
  sink_.function(address, size, parameters, multiple, line);
  function_ = CurrentFunction{{address, address + size}, std::nullopt, std::nullopt};
  return "";
}

std::string SymbolTextParser::inlineCall(StringRef line) {
  if (!function_)
    return "INLINE outside a FUNC";
  llvm::SmallVector<StringRef, 16> tokens;
  line.split(tokens, ' ', -1, false);
  if (tokens.size() < 6 || tokens.size() % 2 != 0)
    return "INLINE without nest level, call line, call file, origin and address/size pairs";
  uint64_t depth, call_line, origin;
  int64_t file;
  if (!decimal(tokens[0], depth) || !decimal(tokens[1], call_line) ||
      !signedDecimal(tokens[2], file) || file < -1 || !decimal(tokens[3], origin))
    return "INLINE with a malformed number";
  uint32_t depth32 = static_cast<uint32_t>(depth);
  uint32_t origin32 = static_cast<uint32_t>(origin);
  std::optional<uint32_t> call_file;
  if (file >= 0)
    call_file = static_cast<uint32_t>(file);
  const AddressRange& within = function_->range;
  llvm::SmallVector<AddressRange, 8> ranges;
  for (size_t i = 4; i + 1 < tokens.size(); i += 2) {
    uint64_t address, size;
    if (!hex(tokens[i], address) || !hex(tokens[i + 1], size) || address + size < address)
      return "INLINE with a malformed range";
    if (address < within.start || address + size > within.end)
      problem_ = "INLINE range outside its FUNC";
    ranges.push_back({address, address + size});
  }
  std::optional<uint32_t>& sibling = function_->last_inline_depth;
  if (depth32 > (sibling ? *sibling + 1 : 0))
    problem_ = "INLINE nest level " + std::to_string(depth32) + " skips a level";
  if (origin32 >= origins_.size() || !origins_[origin32])
    problem_ = "INLINE origin " + std::to_string(origin32) + " has no INLINE_ORIGIN record";
  if (call_file && !knownFile(*call_file))
    problem_ = "INLINE call file " + std::to_string(*call_file) + " has no FILE record";
  sibling = depth32;
  sink_.inlineCall(depth32, static_cast<uint32_t>(call_line), call_file, origin32, ranges);
  return "";
}

std::string SymbolTextParser::sourceLine(StringRef line) {
  uint64_t address, size, number, file;
  StringRef copy = line;
  if (!hex(field(copy), address) || !hex(field(copy), size) || !decimal(field(copy), number) ||
      !decimal(field(copy), file) || !copy.empty())
    return "not a record: '" + line.take_front(60).str() + "'";
  if (!function_)
    return "a line record outside a FUNC";
  if (size == 0 || address + size < address)
    return wellFormed("a line record with an empty or wrapping range");
  const AddressRange& within = function_->range;
  std::optional<AddressRange>& last = function_->last_line;
  if (address < within.start || address + size > within.end)
    problem_ = "line record outside its FUNC";
  else if (last && address < last->end)
    problem_ = "line record overlaps or precedes the one before it";
  if (!knownFile(file))
    problem_ = "line record file " + std::to_string(file) + " has no FILE record";
  last = AddressRange{address, address + size};
  sink_.line({address, size, static_cast<uint32_t>(number), static_cast<uint32_t>(file)});
  return "";
}

std::string SymbolTextParser::publicSymbol(StringRef line) {
  function_.reset();
  bool multiple = line.consume_front("m ");
  uint64_t address, parameters;
  if (!hex(field(line), address) || !hex(field(line), parameters) || line.empty())
    return "PUBLIC without hex address, parameter size and a name";
  if (public_addresses_.containsOrAdd(address))
    problem_ = "PUBLIC address given twice (the processor marks the file corrupt)";
  sink_.publicSymbol(address, parameters, multiple, line);
  return "";
}

bool SymbolTextParser::checkRules(StringRef text) {
  bool any = false;
  StringRef name;
  StackDepth stack;
  auto finishRule = [&] {
    if (any && stack.deepest > limits::kMaxExpressionStack)
      problem_ = limits::overLimit("the stack the rule for " + name.str() + " needs",
                                   limits::kMaxExpressionStack, "values") +
                 ": the stack walk does not use it";
  };
  while (!text.empty()) {
    StringRef token = field(text);
    if (token.empty())
      continue;
    if (token.ends_with(":") && token.size() > 1) {
      finishRule();
      any = true;
      name = token.drop_back();
      stack = StackDepth();
    } else {
      if (!any)
        return false;
      stack.token(token);
    }
  }
  finishRule();
  return any;
}

std::string SymbolTextParser::cfiInit(StringRef line) {
  function_.reset();
  frame_.reset();
  uint64_t address, size;
  if (!hex(field(line), address) || !hex(field(line), size))
    return "STACK CFI INIT without hex address and size";
  if (size == 0 || address + size < address)
    return wellFormed("STACK CFI INIT with an empty or wrapping range");
  if (cfi_ranges_.overlapsOrAdd(address, address + size))
    problem_ = "STACK CFI INIT overlaps an earlier one";
  if (!checkRules(line))
    return "STACK CFI INIT without rules";
  sink_.cfiInit({address, address + size}, line);
  frame_ = CurrentFrame{{address, address + size}, std::nullopt};
  return "";
}

std::string SymbolTextParser::cfiChange(StringRef line) {
  if (!frame_)
    return "STACK CFI outside a STACK CFI INIT";
  uint64_t address;
  if (!hex(field(line), address) || !checkRules(line))
    return "STACK CFI without a hex address and rules";
  if (!frame_->range.contains(address))
    problem_ = "STACK CFI address outside its STACK CFI INIT range";
  else if (frame_->last_change && address <= *frame_->last_change)
    problem_ = "STACK CFI addresses out of order";
  frame_->last_change = address;
  sink_.cfiChange(address, line);
  return "";
}

std::string SymbolTextParser::stackWin(StringRef line) {
  function_.reset();
  frame_.reset();
  StackWinRecord r;
  uint64_t* fields[] = {&r.address,       &r.code_size,      &r.prologue_size,
                        &r.epilogue_size, &r.parameter_size, &r.saved_registers_size,
                        &r.locals_size,   &r.max_stack_size};
  uint64_t type, has_program;
  if (!hex(field(line), type) || type > 4)
    return "STACK WIN with a type other than 0 to 4";
  r.type = static_cast<uint32_t>(type);
  for (uint64_t* value : fields)
    if (!hex(field(line), *value))
      return "STACK WIN with a malformed number";
  if (!hex(field(line), has_program))
    return "STACK WIN without its program flag";
  StringRef program;
  if (has_program) {
    program = line;
    if (program.empty())
      return "STACK WIN without its program string";
    if (postfixStackDepth(program) > limits::kMaxExpressionStack)
      problem_ =
          limits::overLimit("the stack its program needs", limits::kMaxExpressionStack, "values") +
          ": the stack walk does not run it";
  } else {
    uint64_t allocates;
    if (!hex(field(line), allocates))
      return "STACK WIN without its base-pointer flag";
    r.allocates_base_pointer = allocates != 0;
  }
  sink_.stackWin(r, program);
  return "";
}

void ModuleRecordSink::moduleRecord(StringRef os, StringRef cpu, StringRef debug_id,
                                    StringRef name) {
  m_.os = os.str();
  m_.cpu = cpu.str();
  m_.debug_id = DebugId(debug_id.str());
  m_.name = name.str();
}

void ModuleRecordSink::codeId(StringRef code_id, StringRef code_file) {
  m_.code_id = CodeId(code_id.str());
  m_.code_file = code_file.str(); // Windows: the executable's name
}

void ModuleRecordSink::info(StringRef text) {
  m_.extra_info.push_back(text.str());
}

static void setNumbered(std::vector<std::string>& table, uint32_t id, StringRef name) {
  if (table.size() <= id)
    table.resize(size_t(id) + 1);
  table[id] = name.str();
}

void ModuleRecordSink::file(uint32_t id, StringRef name) {
  setNumbered(m_.files, id, name);
}

void ModuleRecordSink::inlineOrigin(uint32_t id, StringRef name) {
  setNumbered(m_.inline_origins, id, name);
}

void ModuleRecordSink::function(uint64_t address, uint64_t size, uint64_t parameter_size,
                                bool multiple, StringRef name) {
  Function f;
  f.name = name.str();
  f.ranges.push_back({address, address + size});
  f.multiple = multiple;
  f.parameter_size = parameter_size;
  m_.functions.push_back(std::move(f));
}

void ModuleRecordSink::line(const SourceLine& line) {
  m_.functions.back().lines.push_back(line);
}

void ModuleRecordSink::inlineCall(uint32_t depth, uint32_t call_line,
                                  std::optional<uint32_t> call_file, uint32_t origin,
                                  llvm::ArrayRef<AddressRange> ranges) {
  m_.functions.back().inlines.push_back({depth, call_line, call_file, origin,
                                         std::vector<AddressRange>(ranges.begin(), ranges.end())});
}

void ModuleRecordSink::publicSymbol(uint64_t address, uint64_t parameter_size, bool multiple,
                                    StringRef name) {
  m_.publics.push_back({address, name.str(), multiple, parameter_size});
}

void ModuleRecordSink::cfiInit(AddressRange range, StringRef rules) {
  CfiFrame frame;
  frame.range = range;
  parseCfiRules(rules, frame.initial);
  m_.cfi_frames.push_back(std::move(frame));
}

void ModuleRecordSink::cfiChange(uint64_t address, StringRef rules) {
  CfiChange change;
  change.address = address;
  parseCfiRules(rules, change.rules);
  m_.cfi_frames.back().changes.push_back(std::move(change));
}

void ModuleRecordSink::stackWin(const StackWinRecord& record, StringRef program) {
  m_.stack_win.push_back(record);
  m_.stack_win.back().program = program.str();
}

ParsedSymbolFile readSymbolFile(StringRef text) {
  ParsedSymbolFile out;
  ModuleRecordSink sink(out.module);
  SymbolTextParser parser(sink, text.size());
  parser.lines(text);
  out.problems = parser.takeProblems();
  return out;
}

} // namespace dumpsyms
