# Warnings for Camber's own targets (dependencies are included as SYSTEM).
add_library(camber_warnings INTERFACE)
target_compile_options(camber_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter>)
install(TARGETS camber_warnings EXPORT Camber_core_targets)
