# Writes a tool's man page and bash completion from the tool itself (its
# --man and --bash-completion, made from the same source as its --help):
# OUT/man/man1/NAME.1.gz (gzip -n: no name or time inside, so that two
# builds agree) and OUT/bash-completion/completions/NAME.
foreach(kind man bash-completion)
  execute_process(COMMAND "${TOOL}" --${kind} OUTPUT_VARIABLE text RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "${TOOL} --${kind} failed: ${failed}")
  endif()
  if(kind STREQUAL "man")
    file(WRITE "${OUT}/man/man1/${NAME}.1" "${text}")
    execute_process(COMMAND gzip -9nf "${OUT}/man/man1/${NAME}.1" RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "gzip of ${NAME}.1 failed")
    endif()
  else()
    file(WRITE "${OUT}/bash-completion/completions/${NAME}" "${text}")
  endif()
endforeach()
