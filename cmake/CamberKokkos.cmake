# Kokkos: Debian's Trilinos Kokkos 3.4.1 (Serial) by default, or any
# standalone Kokkos >= 3.4 given with -DKokkos_ROOT=.
#
# Debian's exported Kokkos::kokkos target carries the include directory
# /usr/lib/include, which does not exist and makes CMake fail at generate
# time; its libraries are the plain trilinos_kokkos* targets. We wrap
# whichever we find in one INTERFACE target, camber_kokkos, and include its
# headers as SYSTEM (Kokkos 3.4 warns under -Wpedantic and C++20).
find_package(Kokkos REQUIRED)

add_library(camber_kokkos INTERFACE)
if(TARGET trilinos_kokkoscore)
  set(CAMBER_KOKKOS_FLAVOR "trilinos")
  target_include_directories(camber_kokkos SYSTEM INTERFACE ${Kokkos_INCLUDE_DIRS})
  target_link_libraries(camber_kokkos INTERFACE trilinos_kokkoscore trilinos_kokkoscontainers)
else()
  set(CAMBER_KOKKOS_FLAVOR "standalone")
  target_link_libraries(camber_kokkos INTERFACE Kokkos::kokkos)
endif()
message(STATUS "Camber: Kokkos ${Kokkos_VERSION} (${CAMBER_KOKKOS_FLAVOR})")
install(TARGETS camber_kokkos EXPORT CamberTargets)
