#include "symbol_writer/text_reader.h"

#include "limits/input_limits.h"

#include <algorithm>
#include <llvm/ADT/SmallVector.h>
#include <map>
#include <set>

namespace dumpsyms {

namespace {

using llvm::StringRef;

// Splits off the next space-separated field; the rest stays in `text`.
StringRef field(StringRef& text) {
  auto [head, tail] = text.split(' ');
  text = tail;
  return head;
}

bool hex(StringRef text, uint64_t& value) {
  return !text.empty() && !text.getAsInteger(16, value);
}

bool decimal(StringRef text, uint64_t& value) {
  return !text.empty() && !text.getAsInteger(10, value);
}

// "name: expr name: expr ..." -> rules; false when the first token is not a name.
bool parseRules(StringRef text, std::vector<CfiRule>& rules) {
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

// The deepest stack a postfix expression or STACK WIN program needs: every
// operand pushes, every binary operator and assignment pops two (an
// operator pushes its result back), `^` replaces the top.
size_t postfixStackDepth(StringRef text) {
  llvm::SmallVector<StringRef, 16> tokens;
  text.split(tokens, ' ', -1, /*KeepEmpty=*/false);
  size_t depth = 0, deepest = 0;
  for (StringRef token : tokens) {
    if (token == "^")
      continue;
    if (token == "=" || token == "+" || token == "-" || token == "*" || token == "/" ||
        token == "%" || token == "@") {
      depth -= std::min<size_t>(depth, 2);
      if (token != "=")
        ++depth;
      continue;
    }
    // "=$eip": an assignment glued to the next operand.
    if (token.size() > 1 && token.front() == '=')
      depth -= std::min<size_t>(depth, 2);
    deepest = std::max(deepest, ++depth);
  }
  return deepest;
}

// Whether [start, end) overlaps a range already in `ranges` (start -> end);
// adds it when not.
bool overlapsOrAdd(std::map<uint64_t, uint64_t>& ranges, uint64_t start, uint64_t end) {
  auto next = ranges.lower_bound(start);
  if (next != ranges.end() && next->first < end)
    return true;
  if (next != ranges.begin() && std::prev(next)->second > start)
    return true;
  ranges.emplace(start, end);
  return false;
}

class Reader {
public:
  ParsedSymbolFile read(StringRef text) {
    input_bytes_ = text.size();
    size_t number = 0;
    while (!text.empty()) {
      auto [line, rest] = text.split('\n');
      text = rest;
      ++number;
      line = line.rtrim('\r');
      if (line.empty())
        continue;
      if (line.size() > limits::kMaxSymbolFileLine) {
        out_.problems.push_back(
            {number,
             limits::overLimit("the line", limits::kMaxSymbolFileLine, "bytes") + ": not read",
             true});
        continue;
      }
      problem_.clear();
      well_formed_ = false;
      if (std::string problem = record(line); !problem.empty())
        out_.problems.push_back({number, problem, !well_formed_});
      else if (!problem_.empty())
        out_.problems.push_back({number, problem_});
    }
    return std::move(out_);
  }

private:
  std::string record(StringRef line) {
    Module& m = out_.module;
    if (line.consume_front("MODULE ")) {
      m.os = field(line).str();
      m.cpu = field(line).str();
      m.debug_id = field(line).str();
      m.name = line.str();
      return m.name.empty() ? "MODULE without os, cpu, id and name" : "";
    }
    if (line.consume_front("INFO ")) {
      if (line.consume_front("CODE_ID ")) {
        m.code_id = field(line).str();
        m.code_file = line.str(); // Windows: the executable's name
        return "";
      }
      m.extra_info.push_back(line.str());
      return "";
    }
    if (line.consume_front("FILE "))
      return numbered(line, m.files, "FILE");
    if (line.consume_front("INLINE_ORIGIN "))
      return numbered(line, m.inline_origins, "INLINE_ORIGIN");
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

  std::string numbered(StringRef line, std::vector<std::string>& table, const char* kind) {
    uint64_t id;
    if (!decimal(field(line), id) || line.empty())
      return std::string(kind) + " without a decimal id and a name";
    // The table grows to the largest id, so an id costs what the ids below
    // it cost: bounded by the file's size, no table is longer than the file
    // (real ids count up from 0, at least 9 bytes a record).
    if (id > limits::kMaxSymbolFileId || id >= input_bytes_)
      return std::string(kind) + " id " + std::to_string(id) + " is implausibly large (the file " +
             "holds " + std::to_string(input_bytes_) + " bytes)";
    if (table.size() <= id)
      table.resize(id + 1);
    else if (!table[id].empty())
      return std::string(kind) + " id " + std::to_string(id) + " given twice";
    table[id] = line.str();
    return "";
  }

  // A record that follows the grammar but is not kept (an empty range):
  // Breakpad's parser reads it without complaint, so it does not make the
  // file corrupt.
  std::string wellFormed(std::string problem) {
    well_formed_ = true;
    return problem;
  }

  std::string function(StringRef line) {
    bool multiple = line.consume_front("m ");
    uint64_t address, size, parameters;
    if (!hex(field(line), address) || !hex(field(line), size) || !hex(field(line), parameters) ||
        line.empty())
      return "FUNC without hex address, size, parameter size and a name";
    current_function_ = nullptr;
    if (size == 0 || address + size < address)
      return wellFormed("FUNC with an empty or wrapping range");
    if (overlapsOrAdd(function_ranges_, address, address + size))
      problem_ = "FUNC overlaps an earlier FUNC (the processor drops it)";
    Function f;
    f.name = line.str();
    f.ranges.push_back({address, address + size});
    f.multiple = multiple;
    f.parameter_size = parameters;
    out_.module.functions.push_back(std::move(f));
    current_function_ = &out_.module.functions.back();
    return "";
  }

  std::string inlineCall(StringRef line) {
    if (!current_function_)
      return "INLINE outside a FUNC";
    llvm::SmallVector<StringRef, 16> tokens;
    line.split(tokens, ' ', -1, false);
    if (tokens.size() < 6 || tokens.size() % 2 != 0)
      return "INLINE without nest level, call line, call file, origin and address/size pairs";
    InlineCall call;
    uint64_t depth, call_line, origin;
    int64_t file;
    if (!decimal(tokens[0], depth) || !decimal(tokens[1], call_line) ||
        tokens[2].getAsInteger(10, file) || file < -1 || !decimal(tokens[3], origin))
      return "INLINE with a malformed number";
    call.depth = static_cast<uint32_t>(depth);
    call.call_line = static_cast<uint32_t>(call_line);
    if (file >= 0)
      call.call_file = static_cast<uint32_t>(file);
    call.origin = static_cast<uint32_t>(origin);
    const AddressRange& within = current_function_->ranges.front();
    for (size_t i = 4; i + 1 < tokens.size(); i += 2) {
      uint64_t address, size;
      if (!hex(tokens[i], address) || !hex(tokens[i + 1], size) || address + size < address)
        return "INLINE with a malformed range";
      if (address < within.start || address + size > within.end)
        problem_ = "INLINE range outside its FUNC";
      call.ranges.push_back({address, address + size});
    }
    const auto& siblings = current_function_->inlines;
    if (call.depth > (siblings.empty() ? 0 : siblings.back().depth + 1))
      problem_ = "INLINE nest level " + std::to_string(call.depth) + " skips a level";
    if (call.origin >= out_.module.inline_origins.size() ||
        out_.module.inline_origins[call.origin].empty())
      problem_ = "INLINE origin " + std::to_string(call.origin) + " has no INLINE_ORIGIN record";
    if (call.call_file && !knownFile(*call.call_file))
      problem_ = "INLINE call file " + std::to_string(*call.call_file) + " has no FILE record";
    current_function_->inlines.push_back(std::move(call));
    return "";
  }

  std::string sourceLine(StringRef line) {
    uint64_t address, size, number, file;
    StringRef copy = line;
    if (!hex(field(copy), address) || !hex(field(copy), size) || !decimal(field(copy), number) ||
        !decimal(field(copy), file) || !copy.empty())
      return "not a record: '" + line.take_front(60).str() + "'";
    if (!current_function_)
      return "a line record outside a FUNC";
    if (size == 0 || address + size < address)
      return wellFormed("a line record with an empty or wrapping range");
    const AddressRange& within = current_function_->ranges.front();
    auto& lines = current_function_->lines;
    if (address < within.start || address + size > within.end)
      problem_ = "line record outside its FUNC";
    else if (!lines.empty() && address < lines.back().address + lines.back().size)
      problem_ = "line record overlaps or precedes the one before it";
    if (!knownFile(file))
      problem_ = "line record file " + std::to_string(file) + " has no FILE record";
    lines.push_back({address, size, static_cast<uint32_t>(number), static_cast<uint32_t>(file)});
    return "";
  }

  std::string publicSymbol(StringRef line) {
    current_function_ = nullptr;
    bool multiple = line.consume_front("m ");
    uint64_t address, parameters;
    if (!hex(field(line), address) || !hex(field(line), parameters) || line.empty())
      return "PUBLIC without hex address, parameter size and a name";
    if (!public_addresses_.insert(address).second)
      problem_ = "PUBLIC address given twice (the processor marks the file corrupt)";
    out_.module.publics.push_back({address, line.str(), multiple, parameters});
    return "";
  }

  std::string cfiInit(StringRef line) {
    current_function_ = nullptr;
    current_frame_ = nullptr;
    uint64_t address, size;
    if (!hex(field(line), address) || !hex(field(line), size))
      return "STACK CFI INIT without hex address and size";
    if (size == 0 || address + size < address)
      return wellFormed("STACK CFI INIT with an empty or wrapping range");
    if (overlapsOrAdd(cfi_ranges_, address, address + size))
      problem_ = "STACK CFI INIT overlaps an earlier one";
    CfiFrame frame;
    frame.range = {address, address + size};
    if (!parseRules(line, frame.initial))
      return "STACK CFI INIT without rules";
    checkRuleStacks(frame.initial);
    out_.module.cfi_frames.push_back(std::move(frame));
    current_frame_ = &out_.module.cfi_frames.back();
    return "";
  }

  std::string cfiChange(StringRef line) {
    if (!current_frame_)
      return "STACK CFI outside a STACK CFI INIT";
    uint64_t address;
    CfiChange change;
    if (!hex(field(line), address) || !parseRules(line, change.rules))
      return "STACK CFI without a hex address and rules";
    checkRuleStacks(change.rules);
    change.address = address;
    if (!current_frame_->range.contains(address))
      problem_ = "STACK CFI address outside its STACK CFI INIT range";
    else if (!current_frame_->changes.empty() && address <= current_frame_->changes.back().address)
      problem_ = "STACK CFI addresses out of order";
    current_frame_->changes.push_back(std::move(change));
    return "";
  }

  std::string stackWin(StringRef line) {
    current_function_ = nullptr;
    current_frame_ = nullptr;
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
    if (has_program) {
      r.program = line.str();
      if (r.program.empty())
        return "STACK WIN without its program string";
      if (postfixStackDepth(r.program) > limits::kMaxExpressionStack)
        problem_ = limits::overLimit("the stack its program needs", limits::kMaxExpressionStack,
                                     "values") +
                   ": the stack walk does not run it";
    } else {
      uint64_t allocates;
      if (!hex(field(line), allocates))
        return "STACK WIN without its base-pointer flag";
      r.allocates_base_pointer = allocates != 0;
    }
    out_.module.stack_win.push_back(std::move(r));
    return "";
  }

  // The evaluator refuses an expression that needs a deeper stack.
  void checkRuleStacks(const std::vector<CfiRule>& rules) {
    for (const CfiRule& rule : rules)
      if (postfixStackDepth(rule.expression) > limits::kMaxExpressionStack)
        problem_ = limits::overLimit("the stack the rule for " + rule.name + " needs",
                                     limits::kMaxExpressionStack, "values") +
                   ": the stack walk does not use it";
  }

  bool knownFile(uint64_t id) const {
    return id < out_.module.files.size() && !out_.module.files[id].empty();
  }

  ParsedSymbolFile out_;
  size_t input_bytes_ = 0;
  std::string problem_;      // a structural problem of the record just read
  bool well_formed_ = false; // the record just read was skipped but follows the grammar
  std::map<uint64_t, uint64_t> function_ranges_, cfi_ranges_;
  std::set<uint64_t> public_addresses_;
  // The records that continuation lines attach to. std::vector may move
  // its elements: these are re-pointed at the back after each push.
  Function* current_function_ = nullptr;
  CfiFrame* current_frame_ = nullptr;
};

} // namespace

ParsedSymbolFile readSymbolFile(llvm::StringRef text) {
  return Reader().read(text);
}

} // namespace dumpsyms
