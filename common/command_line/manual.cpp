#include "common/command_line/manual.h"

#include "common/command_line/build_info.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>

namespace dumpsyms {

namespace {

// Text for roff: backslashes escaped, and a line that would start with a
// control character guarded.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\''))
      out += "\\&";
    if (c == '\\')
      out += "\\e";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// A command or option as typed: hyphens that stay hyphen-minus.
std::string literal(const std::string& text) {
  std::string out;
  for (char c : roff(text)) {
    if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  return out;
}

bool isVisible(const CLI::Option* option) {
  return !option->get_group().empty();
}

bool isFlag(const CLI::Option* option) {
  return option->get_expected_max() == 0;
}

// The name of an option's value: its option text, else the choices it
// takes, else a name made from the option's.
std::string valueName(const CLI::Option* option) {
  if (!option->get_option_text().empty())
    return option->get_option_text();
  std::string type = option->get_type_name();
  if (size_t brace = type.find(":{"); brace != std::string::npos)
    return type.substr(brace + 1);
  if (type == "UINT" || type == "INT")
    return "N";
  if (type == "FLOAT")
    return "X";
  std::string name =
      option->get_lnames().empty() ? option->get_name() : option->get_lnames().front();
  std::string upper;
  for (char c : name)
    upper += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// "-d, --inlines" / "--store DIR".
std::string optionSpelling(const CLI::Option* option) {
  std::string names;
  for (const std::string& s : option->get_snames())
    names += (names.empty() ? "-" : ", -") + s;
  for (const std::string& l : option->get_lnames())
    names += (names.empty() ? "--" : ", --") + l;
  return names;
}

std::vector<const CLI::Option*> visibleOptions(const CLI::App& app, bool positional) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* option : app.get_options())
    if (isVisible(option) && option->get_positional() == positional)
      out.push_back(option);
  return out;
}

std::vector<const CLI::App*> visibleSubcommands(const CLI::App& app) {
  return app.get_subcommands(
      [](const CLI::App* sub) { return !sub->get_group().empty() && !sub->get_name().empty(); });
}

// "[OPTIONS] BINARY [DEBUG_DIR...]".
std::string positionalSynopsis(const CLI::App& app) {
  std::string out = "[\\fIOPTIONS\\fR]";
  for (const CLI::Option* option : visibleOptions(app, true)) {
    std::string name = "\\fI" + roff(option->get_name(true)) + "\\fR";
    if (option->get_expected_max() > 1)
      name += "...";
    out += " " + (option->get_required() ? name : "[" + name + "]");
  }
  return out;
}

void optionEntries(std::ostringstream& out, const CLI::App& app) {
  for (const CLI::Option* option : visibleOptions(app, true))
    out << ".TP\n\\fI" << roff(option->get_name(true)) << "\\fR\n"
        << roff(option->get_description()) << "\n";
  for (const CLI::Option* option : visibleOptions(app, false)) {
    out << ".TP\n\\fB" << literal(optionSpelling(option)) << "\\fR";
    if (!isFlag(option))
      out << " \\fI" << roff(valueName(option)) << "\\fR";
    out << "\n" << roff(option->get_description()) << "\n";
  }
}

// Words that complete after a (sub)command: its options and subcommands.
std::string words(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* option : visibleOptions(app, false)) {
    for (const std::string& s : option->get_snames())
      out += " -" + s;
    for (const std::string& l : option->get_lnames())
      out += " --" + l;
  }
  for (const CLI::App* sub : visibleSubcommands(app))
    out += " " + sub->get_name();
  return out.empty() ? out : out.substr(1);
}

// Options that take a value (completed as files).
std::string valueOptions(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* option : visibleOptions(app, false)) {
    if (isFlag(option))
      continue;
    for (const std::string& s : option->get_snames())
      out += "|-" + s;
    for (const std::string& l : option->get_lnames())
      out += "|--" + l;
  }
  return out.empty() ? out : out.substr(1);
}

std::string functionName(const std::string& tool) {
  std::string out = "_";
  for (char c : tool)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

} // namespace

std::string versionText(const std::string& tool) {
  return tool + " " + DUMP_SYMS_VERSION + " (git " + DUMP_SYMS_GIT_REVISION + ", LLVM " +
         DUMP_SYMS_LLVM_VERSION + ", " + DUMP_SYMS_BUILD_TYPE + ")";
}

void applyManual(CLI::App& app, const ToolManual& manual) {
  std::string footer;
  if (!manual.exit_statuses.empty()) {
    footer += "Exit status:\n";
    for (const auto& [status, meaning] : manual.exit_statuses)
      footer += "  " + status + std::string(status.size() < 6 ? 6 - status.size() : 1, ' ') +
                meaning + "\n";
  }
  if (!manual.examples.empty()) {
    footer += "\nExamples:\n";
    for (const auto& [command, meaning] : manual.examples)
      footer += "  " + command + "\n      " + meaning + "\n";
  }
  footer += "\nman " + manual.name + " has the whole manual.";
  app.footer(footer);
  app.set_version_flag("--version", versionText(manual.name));
}

std::string manPage(const ToolManual& manual, const CLI::App* app) {
  std::ostringstream out;
  std::string upper;
  for (char c : manual.name)
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  out << ".\\\" Generated by " << manual.name << " --man: edit the tool's manual, not this.\n";
  out << ".TH " << upper << " 1 \"" << DUMP_SYMS_COMMIT_DATE << "\" \"" << manual.name << " "
      << DUMP_SYMS_VERSION << "\" \"User Commands\"\n";
  out << ".SH NAME\n" << literal(manual.name) << " \\- " << roff(manual.summary) << "\n";
  out << ".SH SYNOPSIS\n";
  if (app && visibleSubcommands(*app).empty()) {
    out << ".B " << literal(manual.name) << "\n" << positionalSynopsis(*app) << "\n";
  } else if (app) {
    for (const CLI::App* sub : visibleSubcommands(*app))
      out << ".br\n.B " << literal(manual.name) << " " << literal(sub->get_name()) << "\n"
          << positionalSynopsis(*sub) << "\n";
  } else {
    out << ".B " << literal(manual.name) << "\n" << roff(manual.synopsis) << "\n";
  }
  out << ".SH DESCRIPTION\n";
  for (const std::string& paragraph : manual.description)
    out << ".PP\n" << roff(paragraph) << "\n";
  if (app) {
    out << ".SH OPTIONS\n";
    optionEntries(out, *app);
    std::vector<const CLI::App*> subs = visibleSubcommands(*app);
    if (!subs.empty()) {
      out << ".SH COMMANDS\n";
      for (const CLI::App* sub : subs) {
        out << ".SS " << literal(sub->get_name()) << "\n" << roff(sub->get_description()) << "\n";
        optionEntries(out, *sub);
      }
    }
  } else {
    out << ".SH OPTIONS\n";
    for (const ManualOption& option : manual.options) {
      out << ".TP\n\\fB" << literal(option.flag) << "\\fR";
      if (!option.argument.empty())
        out << " \\fI" << roff(option.argument) << "\\fR";
      std::string description = roff(option.description);
      for (size_t at = 0; (at = description.find('\n', at)) != std::string::npos; at += 5)
        description.replace(at, 1, "\n.br\n");
      out << "\n" << description << "\n";
    }
  }
  if (!manual.exit_statuses.empty()) {
    out << ".SH EXIT STATUS\n";
    for (const auto& [status, meaning] : manual.exit_statuses)
      out << ".TP\n.B " << roff(status) << "\n" << roff(meaning) << "\n";
  }
  if (!manual.examples.empty()) {
    out << ".SH EXAMPLES\n";
    for (const auto& [command, meaning] : manual.examples)
      out << ".PP\n" << roff(meaning) << "\n.PP\n.RS\n.nf\n" << literal(command) << "\n.fi\n.RE\n";
  }
  if (!manual.see_also.empty()) {
    out << ".SH SEE ALSO\n";
    for (size_t i = 0; i < manual.see_also.size(); ++i)
      out << ".BR " << literal(manual.see_also[i]) << " (1)"
          << (i + 1 < manual.see_also.size() ? "," : "") << "\n";
  }
  return out.str();
}

std::string bashCompletion(const ToolManual& manual, const CLI::App* app) {
  std::ostringstream out;
  std::string function = functionName(manual.name);
  out << "# bash completion for " << manual.name << " (generated by " << manual.name
      << " --bash-completion)\n";
  out << function << "() {\n";
  out << "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i\n";
  std::string top_words, top_values;
  std::vector<const CLI::App*> subs;
  if (app) {
    top_words = words(*app);
    top_values = valueOptions(*app);
    subs = visibleSubcommands(*app);
  } else {
    for (const ManualOption& option : manual.options) {
      top_words += (top_words.empty() ? "" : " ") + option.flag;
      if (!option.argument.empty())
        top_values += (top_values.empty() ? "" : "|") + option.flag;
    }
  }
  if (!subs.empty()) {
    out << "  for ((i = 1; i < COMP_CWORD; i++)); do\n    case ${COMP_WORDS[i]} in\n";
    for (const CLI::App* sub : subs)
      out << "    " << sub->get_name() << ") sub=" << sub->get_name() << "; break ;;\n";
    out << "    esac\n  done\n";
  }
  out << "  local words values subcommands=" << (subs.empty() ? "" : "yes") << "\n  case $sub in\n";
  for (const CLI::App* sub : subs)
    out << "  " << sub->get_name() << ") words=\"" << words(*sub) << "\" values=\""
        << valueOptions(*sub) << "\" ;;\n";
  out << "  *) words=\"" << top_words << "\" values=\"" << top_values << "\" ;;\n  esac\n";
  out << "  if [[ -n $values && \"|$values|\" == *\"|$prev|\"* ]]; then\n"
      << "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      << "  elif [[ $cur == -* || ( -z $sub && -n $subcommands ) ]]; then\n"
      << "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      << "  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\n";
  out << "complete -o filenames -F " << function << " " << manual.name << "\n";
  return out.str();
}

std::optional<int> printManualIfAsked(const ToolManual& manual, const CLI::App* app, int argc,
                                      char** argv) {
  if (argc != 2)
    return std::nullopt;
  std::string text;
  if (std::strcmp(argv[1], "--man") == 0)
    text = manPage(manual, app);
  else if (std::strcmp(argv[1], "--bash-completion") == 0)
    text = bashCompletion(manual, app);
  else
    return std::nullopt;
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

std::string usageOptionLines(const std::vector<ManualOption>& options) {
  std::string out;
  for (const ManualOption& option : options) {
    std::string spec = option.flag + (option.argument.empty() ? "" : " " + option.argument);
    std::istringstream lines(option.description);
    std::string line;
    bool first = true;
    while (std::getline(lines, line)) {
      if (first)
        out += "  " + spec + std::string(spec.size() < 10 ? 10 - spec.size() : 0, ' ') + " " +
               line + "\n";
      else
        out += std::string(13, ' ') + line + "\n";
      first = false;
    }
  }
  return out;
}

} // namespace dumpsyms
