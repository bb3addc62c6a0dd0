# camber_add_module(NAME <target> SOURCES ... HEADERS ... LINK ...)
#
# One library per module. Headers are installed under
# include/camber/<their path in the repository>, and consumers see
# include/camber/ as the include root, so the same #include lines work in the
# tree and after installation.
function(camber_add_module)
  cmake_parse_arguments(M "" "NAME" "SOURCES;HEADERS;LINK;PRIVATE_LINK" ${ARGN})
  add_library(${M_NAME} ${M_SOURCES})
  add_library(Camber::${M_NAME} ALIAS ${M_NAME})
  set_target_properties(${M_NAME} PROPERTIES OUTPUT_NAME camber_${M_NAME})
  target_include_directories(${M_NAME} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CAMBER_INCLUDE_INSTALL_DIR}>)
  target_link_libraries(${M_NAME} PUBLIC ${M_LINK} PRIVATE camber_warnings ${M_PRIVATE_LINK})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  foreach(h ${M_HEADERS})
    get_filename_component(sub ${h} DIRECTORY)
    install(FILES ${h} DESTINATION ${CAMBER_INCLUDE_INSTALL_DIR}/${rel}/${sub})
  endforeach()
  install(TARGETS ${M_NAME} EXPORT CamberTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY CAMBER_MODULES ${M_NAME})
endfunction()
