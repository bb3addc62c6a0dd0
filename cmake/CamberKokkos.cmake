# Kokkos: Debian's Trilinos Kokkos 3.4.1 (Serial) by default, or any
# standalone Kokkos >= 3.4 given with -DKokkos_ROOT= (scripts/build-kokkos.sh
# builds one for OpenMP or CUDA; see docs/backends.md).
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
  # Kokkos::kokkos carries the backend's flags (-fopenmp; for CUDA
  # -extended-lambda and -arch=sm_XX, which need nvcc_wrapper or Clang as the
  # C++ compiler) and its C++ standard.
  target_link_libraries(camber_kokkos INTERFACE Kokkos::kokkos)
  # (Headers of imported targets are SYSTEM headers already.)

  # Kokkos 3.4 exports its libdl dependency, Kokkos::LIBDL, with /usr/include
  # as include directory. Combined with any -I/usr/include elsewhere, CMake
  # then emits `-isystem /usr/include`, which puts /usr/include ahead of
  # libstdc++'s headers and breaks their `#include_next <stdlib.h>`.
  if(TARGET Kokkos::LIBDL)
    get_target_property(_camber_libdl_inc Kokkos::LIBDL INTERFACE_INCLUDE_DIRECTORIES)
    if(_camber_libdl_inc)
      list(REMOVE_ITEM _camber_libdl_inc ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES} /usr/include)
      set_target_properties(Kokkos::LIBDL PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "${_camber_libdl_inc}")
    endif()
  endif()

  # With CUDA, configure with -DCMAKE_CXX_COMPILER=<kokkos prefix>/bin/nvcc_wrapper
  # (what scripts/test-backends.sh and scripts/gpu-check do); otherwise
  # Kokkos' config redirects compile lines to it (kokkos_launch_compiler).

  # A static Kokkos (what scripts/build-kokkos.sh builds) is linked into every
  # executable. PETSc loads Debian's shared libtrilinos_kokkoscore (PETSc ->
  # ML -> Teuchos); if our executables exported Kokkos' symbols, the two
  # Kokkos would interpose and double-free at exit. --exclude-libs keeps the
  # symbols of static archives out of the executable's dynamic table. With
  # shared Camber libraries the Kokkos symbols are exported by libcamber_core
  # itself (hiding them there would give each Camber library its own Kokkos),
  # so that combination must keep PETSc out.
  get_target_property(_camber_kokkos_type Kokkos::kokkoscore TYPE)
  if(_camber_kokkos_type STREQUAL "STATIC_LIBRARY")
    if(NOT BUILD_SHARED_LIBS)
      target_link_options(camber_kokkos INTERFACE
        "$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:LINKER:--exclude-libs,ALL>")
    elseif(CAMBER_ENABLE_PETSC)
      message(WARNING
        "Camber: a static standalone Kokkos in shared Camber libraries, with "
        "PETSc (which loads Debian's Kokkos): configure with "
        "-DBUILD_SHARED_LIBS=OFF, or -DCAMBER_ENABLE_PETSC=OFF (docs/backends.md).")
    endif()
  endif()
endif()

string(REPLACE ";" ", " _camber_kokkos_devices "${Kokkos_DEVICES}")
message(STATUS "Camber: Kokkos ${Kokkos_VERSION} (${CAMBER_KOKKOS_FLAVOR}; ${_camber_kokkos_devices})")
install(TARGETS camber_kokkos EXPORT Camber_core_targets)
