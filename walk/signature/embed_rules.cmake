# Writes the three rule files as C++ strings (built_in_rules.h declares
# them): the built-in rules need no file beside the tool.
set(text "// Made by walk/signature/embed_rules.cmake from walk/signature/rules/.\n")
string(APPEND text "#include \"walk/signature/built_in_rules.h\"\n\nnamespace dumpsyms {\n")
foreach(list sentinel irrelevant prefix)
  file(READ ${RULES_DIR}/${list}.txt content)
  string(SUBSTRING "${list}" 0 1 first)
  string(TOUPPER "${first}" first)
  string(SUBSTRING "${list}" 1 -1 rest)
  string(APPEND text "const char* const kBuiltIn${first}${rest}Rules = R\"rules(${content})rules\";\n")
endforeach()
string(APPEND text "} // namespace dumpsyms\n")
file(WRITE ${OUTPUT} "${text}")
