# API reference from the header comments, with Doxygen.
#
#   include(CamberDocs)    # top level, after the modules and camber.hpp
#
# Configures docs/Doxyfile.in into ${PROJECT_BINARY_DIR}/docs/Doxyfile and
# adds the target `docs` (HTML in ${PROJECT_BINARY_DIR}/docs/api/html) and,
# with CAMBER_ENABLE_TESTS, the CTest test docs_api_reference (label docs).
# Both run this file as a script (cmake -P), which runs Doxygen, prints every
# warning with the header's source path, and fails if there was any: a doc
# comment that does not parse breaks the build like a compile error.
#
# The input is every public header as users include it: the links that
# camber_add_module() makes under ${CAMBER_HEADER_ROOT}/camber/ (one per
# header in a HEADERS list; detail/ folders left out), the generated
# camber/core/config.hpp and version.hpp, and <camber.hpp>; each must open
# with "/// @file".

if(CMAKE_SCRIPT_MODE_FILE)
  # Script mode: -DDOXYGEN_EXECUTABLE=... -DCAMBER_DOXYFILE=...
  # -DCAMBER_DOCS_WARN_LOG=... -DCAMBER_HEADER_ROOT=...
  cmake_policy(VERSION 3.20)
  file(REMOVE ${CAMBER_DOCS_WARN_LOG})
  execute_process(COMMAND ${DOXYGEN_EXECUTABLE} ${CAMBER_DOXYFILE}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(log "")
  if(EXISTS ${CAMBER_DOCS_WARN_LOG})
    file(READ ${CAMBER_DOCS_WARN_LOG} log)
  endif()
  # Warnings name the <camber/...> links; show the files to edit instead.
  file(GLOB_RECURSE links LIST_DIRECTORIES false ${CAMBER_HEADER_ROOT}/*.hpp)
  foreach(link IN LISTS links)
    if(IS_SYMLINK ${link})
      file(READ_SYMLINK ${link} target)
      string(REPLACE "${link}:" "${target}:" log "${log}")
      string(REPLACE "${link}:" "${target}:" err "${err}")
    endif()
  endforeach()
  # Every public header has a page in the reference: it opens with
  # "/// @file" (a header whose opening comment is // is silently left out).
  foreach(link IN LISTS links)
    file(RELATIVE_PATH rel ${CAMBER_HEADER_ROOT} ${link})
    if(EXISTS ${link} AND NOT rel MATCHES "(^|/)detail/")
      set(target ${link})
      if(IS_SYMLINK ${link})
        file(READ_SYMLINK ${link} target)
      endif()
      file(STRINGS ${target} first LIMIT_COUNT 1)
      if(NOT first STREQUAL "/// @file")
        string(APPEND log "\n${target}:1: the header does not open with '/// @file', so the "
               "API reference leaves it out")
      endif()
    endif()
  endforeach()
  string(STRIP "${log}" log)
  string(STRIP "${err}" err)
  string(STRIP "${out}" out)
  if(NOT rc EQUAL 0 OR NOT log STREQUAL "" OR NOT err STREQUAL "")
    foreach(text IN ITEMS out err log)
      if(NOT "${${text}}" STREQUAL "")
        message("${${text}}")
      endif()
    endforeach()
    message(FATAL_ERROR "Doxygen reported problems in the API reference (exit code ${rc}); "
            "fix the header comments above (Doxygen commands, HTML-like <tags>, unmatched "
            "@code/@endcode).")
  endif()
  message(STATUS "API reference without warnings")
  return()
endif()

set(CAMBER_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs/api)
set(CAMBER_DOCS_WARN_LOG ${PROJECT_BINARY_DIR}/docs/doxygen-warnings.log)
set(CAMBER_DOCS_MAINPAGE ${PROJECT_SOURCE_DIR}/docs/api-mainpage.md)
set(CAMBER_DOXYFILE ${PROJECT_BINARY_DIR}/docs/Doxyfile)

# The public headers. A link whose header was deleted is skipped.
file(GLOB_RECURSE camber_docs_links LIST_DIRECTORIES false
     ${CAMBER_HEADER_ROOT}/camber/*.hpp)
set(camber_docs_headers ${CAMBER_HEADER_ROOT}/camber.hpp)
foreach(link IN LISTS camber_docs_links)
  file(RELATIVE_PATH rel ${CAMBER_HEADER_ROOT} ${link})
  # The links to the sources, and the headers CMake generates (config.hpp,
  # version.hpp): every installed header.
  if(EXISTS ${link} AND NOT rel MATCHES "(^|/)detail/")
    list(APPEND camber_docs_headers ${link})
  endif()
endforeach()
list(SORT camber_docs_headers)
set(CAMBER_DOCS_INPUT "")
foreach(h IN LISTS camber_docs_headers)
  string(APPEND CAMBER_DOCS_INPUT " \\\n                         \"${h}\"")
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${CAMBER_DOXYFILE} @ONLY)

set(camber_docs_check ${CMAKE_COMMAND}
    -DDOXYGEN_EXECUTABLE=${DOXYGEN_EXECUTABLE}
    -DCAMBER_DOXYFILE=${CAMBER_DOXYFILE}
    -DCAMBER_DOCS_WARN_LOG=${CAMBER_DOCS_WARN_LOG}
    -DCAMBER_HEADER_ROOT=${CAMBER_HEADER_ROOT}
    -P ${CMAKE_CURRENT_LIST_DIR}/CamberDocs.cmake)

add_custom_target(docs
  COMMAND ${camber_docs_check}
  COMMAND ${CMAKE_COMMAND} -E echo "API reference: ${CAMBER_DOCS_OUTPUT_DIR}/html/index.html"
  COMMENT "Generating the API reference (Doxygen)"
  VERBATIM)

if(CAMBER_ENABLE_TESTS)
  add_test(NAME docs_api_reference COMMAND ${camber_docs_check})
  set_tests_properties(docs_api_reference PROPERTIES LABELS docs TIMEOUT 300)
endif()
