# Writes a Debian changelog of one entry for VERSION, dated by the commit.
set(date "Thu, 01 Jan 1970 00:00:00 +0000")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" log -1 --format=%cD
                  OUTPUT_VARIABLE committed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(committed)
    set(date "${committed}")
  endif()
endif()
file(WRITE "${OUTPUT}" "${PACKAGE} (${VERSION}) unstable; urgency=medium

  * Release ${VERSION}.

 -- dump_syms maintainers <maintainers@dump-syms.invalid>  ${date}
")
