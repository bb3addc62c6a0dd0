# camber_add_module(NAME <target> SOURCES ... HEADERS ... LINK ... PRIVATE_LINK ...)
#
# One library per module. Every public header is included as
# <camber/...>: core's src/tensor.hpp is <camber/tensor.hpp>, src/io/ and
# src/deck/ are <camber/io/...> and <camber/deck/...>, the other modules keep
# their folder (<camber/autodiff/ops.hpp>, <camber/mesh/mesh.hpp>).
#
# The build tree gets the same view as an installation: a symbolic link per
# declared header under ${PROJECT_BINARY_DIR}/include/camber/, and that
# include/ folder is the only Camber include root the targets export. A
# header that is not declared in HEADERS is therefore not includable from
# tests, apps or other modules, just as it would be missing after
# installation. Module-private headers (a module's detail/ files not in
# HEADERS) are included by relative path from the module's own sources.
set(CAMBER_HEADER_ROOT ${PROJECT_BINARY_DIR}/include)

# The include path under camber/ of a source folder: src -> "", src/io -> io,
# autodiff -> autodiff.
function(camber_include_subdir source_dir out_var)
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${source_dir})
  if(rel STREQUAL "src")
    set(rel "")
  elseif(rel MATCHES "^src/")
    string(REGEX REPLACE "^src/" "" rel "${rel}")
  endif()
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

function(camber_add_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;HEADERS;LINK;PRIVATE_LINK" ${ARGN})
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
