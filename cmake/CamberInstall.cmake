# Installs CamberConfig.cmake and one targets file per module, so that
#   find_package(Camber REQUIRED)                         # every module built
#   find_package(Camber REQUIRED COMPONENTS autodiff)     # autodiff and below
# works from any CMake project, each component finding only the
# dependencies its own targets need.
include(CMakePackageConfigHelpers)

# The Camber modules each module links publicly (from the targets
# themselves, so the config cannot drift from the build), and the external
# packages each one needs in a consumer.
get_property(_camber_modules GLOBAL PROPERTY CAMBER_MODULES)
set(CAMBER_CONFIG_MODULE_DEPS "")
foreach(m ${_camber_modules})
  get_target_property(_libs ${m} INTERFACE_LINK_LIBRARIES)
  set(_deps "")
  foreach(l ${_libs})
    if(l MATCHES "^Camber::(.+)$" AND NOT CMAKE_MATCH_1 STREQUAL m)
      list(APPEND _deps ${CMAKE_MATCH_1})
    endif()
  endforeach()
  string(REPLACE ";" " " _deps "${_deps}")
  string(APPEND CAMBER_CONFIG_MODULE_DEPS "set(_camber_deps_${m} ${_deps})\n")
endforeach()
string(REPLACE ";" " " CAMBER_CONFIG_MODULES "${_camber_modules}")
get_target_property(_camber_libtype core TYPE)
if(_camber_libtype STREQUAL "STATIC_LIBRARY")
  set(CAMBER_CONFIG_STATIC TRUE)
else()
  set(CAMBER_CONFIG_STATIC FALSE)
endif()

set(CAMBER_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Camber)
configure_package_config_file(cmake/CamberConfig.cmake.in
  ${PROJECT_BINARY_DIR}/CamberConfig.cmake
  INSTALL_DESTINATION ${CAMBER_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CamberConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CamberConfig.cmake
              ${PROJECT_BINARY_DIR}/CamberConfigVersion.cmake
        DESTINATION ${CAMBER_CMAKE_INSTALL_DIR})
