# camber_add_module(NAME <target> SOURCES ... HEADERS ... LINK ... PRIVATE_LINK ...)
#
# One library per module, one module per folder (docs/architecture.md, "The
# layout rule"). A header's include path is its folder with a leading src/
# left out: src/core/tensor.hpp is <camber/core/tensor.hpp>, src/io/ is
# <camber/io/...>, solvers/euler/flux.hpp is <camber/solvers/euler/flux.hpp>.
# The target is that path with / read as _ (Camber::core, Camber::nn_io,
# Camber::solvers_euler).
#
# The build tree gets the same view as an installation: a symbolic link per
# declared header under ${PROJECT_BINARY_DIR}/include/camber/, and that
# include/ folder is the only Camber include root the targets export. A
# header that is not declared in HEADERS is therefore not includable from
# tests, apps or other modules, just as it would be missing after
# installation. Module-private headers (a module's detail/ files not in
# HEADERS) are included by relative path from the module's own sources
# (and, for io's HDF5 check that nn_io shares, from nn_io's); no detail/
# header is installed.
set(CAMBER_HEADER_ROOT ${PROJECT_BINARY_DIR}/include)

# The include path under camber/ of a source folder: src/core -> core,
# src/io -> io, autodiff -> autodiff, solvers/euler -> solvers/euler.
function(camber_include_subdir source_dir out_var)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${source_dir})
  string(REGEX REPLACE "^src/" "" rel "${rel}")
  set(${out_var} "${rel}" PARENT_SCOPE)
endfunction()

# Links `header` (a path relative to the current source folder) into the
# build tree's include/camber/ and installs it at the same place.
function(camber_add_public_header header)
  camber_include_subdir(${CMAKE_CURRENT_SOURCE_DIR} sub)
  get_filename_component(dir "${header}" DIRECTORY)
  get_filename_component(name "${header}" NAME)
  set(dest "camber")
  if(sub)
    string(APPEND dest "/${sub}")
  endif()
  if(dir)
    string(APPEND dest "/${dir}")
  endif()
  file(MAKE_DIRECTORY ${CAMBER_HEADER_ROOT}/${dest})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${header} ${CAMBER_HEADER_ROOT}/${dest}/${name}
       SYMBOLIC)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${dest})
endfunction()

# camber_add_module(NAME <folder_name> [DECK_KEYS] SOURCES ... HEADERS ...
#                   LINK ... PRIVATE_LINK ...)
#
# DECK_KEYS: the module has the deck key tables of its settings in
# deck_keys.cpp and deck_keys.hpp, built (and Camber::deck linked) when
# CAMBER_ENABLE_DECK is on.
function(camber_add_module)
  cmake_parse_arguments(M "DECK_KEYS" "NAME" "SOURCES;HEADERS;LINK;PRIVATE_LINK" ${ARGN})
  if(M_DECK_KEYS AND CAMBER_ENABLE_DECK)
    list(APPEND M_SOURCES deck_keys.cpp)
    list(APPEND M_HEADERS deck_keys.hpp)
    list(APPEND M_LINK Camber::deck)
  endif()
  # The layout rule, enforced: the target is named after its folder.
  camber_include_subdir(${CMAKE_CURRENT_SOURCE_DIR} sub)
  string(REPLACE "/" "_" expected "${sub}")
  if(NOT M_NAME STREQUAL expected)
    message(FATAL_ERROR "camber_add_module(NAME ${M_NAME}) in ${CMAKE_CURRENT_SOURCE_DIR}: "
            "a module is named after its folder; this one must be '${expected}'")
  endif()
  add_library(${M_NAME} ${M_SOURCES})
  add_library(Camber::${M_NAME} ALIAS ${M_NAME})
  set_target_properties(${M_NAME} PROPERTIES OUTPUT_NAME camber_${M_NAME}
                        EXPORT_NAME ${M_NAME})
  target_include_directories(${M_NAME} PUBLIC
    $<BUILD_INTERFACE:${CAMBER_HEADER_ROOT}>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # Consumers compile Camber's headers, which need C++17.
  target_compile_features(${M_NAME} PUBLIC cxx_std_17)
  target_link_libraries(${M_NAME} PUBLIC ${M_LINK} PRIVATE camber_warnings ${M_PRIVATE_LINK})
  foreach(h ${M_HEADERS})
    camber_add_public_header(${h})
  endforeach()
  # One export set per module, so that find_package(Camber COMPONENTS ...)
  # loads only the targets (and finds only the dependencies) asked for.
  install(TARGETS ${M_NAME} EXPORT Camber_${M_NAME}_targets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT Camber_${M_NAME}_targets NAMESPACE Camber::
          FILE Camber_${M_NAME}_targets.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Camber)
  set_property(GLOBAL APPEND PROPERTY CAMBER_MODULES ${M_NAME})
endfunction()

# camber_find_plain_library(<PREFIX> HEADER <h> LIBRARY <name> FOR <who> PACKAGE <deb>)
#
# A dependency that ships neither a CMake config nor a .pc file (Debian's
# libmetis-dev, libcgns-dev): found by its header and library, or under
# -D<PREFIX>_ROOT=<prefix>; sets <PREFIX>_INCLUDE_DIR and <PREFIX>_LIBRARY,
# or stops with what to install.
function(camber_find_plain_library prefix)
  cmake_parse_arguments(F "" "HEADER;LIBRARY;FOR;PACKAGE" "" ${ARGN})
  find_path(${prefix}_INCLUDE_DIR ${F_HEADER} HINTS ${${prefix}_ROOT} ENV ${prefix}_ROOT
            PATH_SUFFIXES include)
  find_library(${prefix}_LIBRARY ${F_LIBRARY} HINTS ${${prefix}_ROOT} ENV ${prefix}_ROOT
               PATH_SUFFIXES lib lib64)
  if(NOT ${prefix}_INCLUDE_DIR OR NOT ${prefix}_LIBRARY)
    message(FATAL_ERROR "${F_FOR} needs ${F_HEADER} and lib${F_LIBRARY}: apt-get install "
                        "${F_PACKAGE}, or set -D${prefix}_ROOT=<prefix>")
  endif()
  message(STATUS "Camber: ${prefix} ${${prefix}_LIBRARY}")
endfunction()
