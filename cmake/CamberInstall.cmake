# Installs the exported targets and CamberConfig.cmake so that
#   find_package(Camber REQUIRED)
#   target_link_libraries(app PRIVATE Camber::camber)
# works from any CMake project.
include(CMakePackageConfigHelpers)

set(CAMBER_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Camber)
install(EXPORT CamberTargets NAMESPACE Camber:: DESTINATION ${CAMBER_CMAKE_INSTALL_DIR})
configure_package_config_file(cmake/CamberConfig.cmake.in
  ${PROJECT_BINARY_DIR}/CamberConfig.cmake
  INSTALL_DESTINATION ${CAMBER_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CamberConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CamberConfig.cmake
              ${PROJECT_BINARY_DIR}/CamberConfigVersion.cmake
        DESTINATION ${CAMBER_CMAKE_INSTALL_DIR})
