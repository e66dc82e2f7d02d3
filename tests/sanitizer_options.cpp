// Linked into every program of a sanitizer build (the top-level
// CMakeLists.txt): the sanitizers' defaults, which ASAN_OPTIONS and
// UBSAN_OPTIONS extend or override.
//
// abort_on_error: a report ends the program with SIGABRT rather than exit
// status 1, which our tools also use for a bad input: a test that expects a
// clean failure would otherwise pass over a memory error. LeakSanitizer,
// part of AddressSanitizer here, takes it from ASan's options.
// print_stacktrace: UBSan names only the source line without it.

extern "C" const char* __asan_default_options() {
  return "abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1";
}

extern "C" const char* __ubsan_default_options() {
  return "abort_on_error=1:halt_on_error=1:print_stacktrace=1";
}
