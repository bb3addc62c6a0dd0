# oneDNN, for the float32 and int8 matrix products of Camber::nn's
# inference plan (nn/detail/dnnl_dense.cpp).
#
#   include(CamberDNNL)
#   camber_find_dnnl(found message)   # sets DNNL_INCLUDE_DIR, DNNL_LIBRARY,
#                                     # DNNL_OPENMP_LIBRARY when found
#
# Debian's libdnnl-dev (oneDNN 2.6) ships the header and the library but no
# CMake package file, so this looks for oneapi/dnnl/dnnl.hpp and libdnnl
# directly; -DDNNL_ROOT=<prefix> points elsewhere. Debian builds oneDNN
# with its OpenMP runtime; the plan sets the OpenMP thread count of the
# calling thread around each product (one thread per predict() call), so it
# also links libgomp, found through CMake's FindOpenMP, without compiling
# anything with -fopenmp (which would make Eigen's products multithreaded
# too).

macro(camber_find_dnnl found_var message_var)
  set(${found_var} FALSE)
  set(${message_var} "")
  find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp HINTS ${DNNL_ROOT} ENV DNNL_ROOT
            PATH_SUFFIXES include)
  find_library(DNNL_LIBRARY NAMES dnnl HINTS ${DNNL_ROOT} ENV DNNL_ROOT PATH_SUFFIXES lib lib64)
  set(DNNL_OPENMP_LIBRARY "")
  if(DNNL_INCLUDE_DIR AND EXISTS "${DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_config.h")
    file(STRINGS "${DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_config.h" _camber_dnnl_runtime
         REGEX "^#define DNNL_CPU_RUNTIME ")
    if(_camber_dnnl_runtime MATCHES "DNNL_RUNTIME_OMP")
      find_package(OpenMP QUIET COMPONENTS CXX)
      if(OpenMP_gomp_LIBRARY)
        set(DNNL_OPENMP_LIBRARY ${OpenMP_gomp_LIBRARY})
      elseif(OpenMP_omp_LIBRARY)
        set(DNNL_OPENMP_LIBRARY ${OpenMP_omp_LIBRARY})
      endif()
      if(NOT DNNL_OPENMP_LIBRARY)
        set(${message_var} "oneDNN at ${DNNL_LIBRARY} uses OpenMP, but no OpenMP runtime \
library (libgomp) was found")
      endif()
    endif()
  endif()
  if(NOT DNNL_INCLUDE_DIR OR NOT DNNL_LIBRARY)
    set(${message_var} "CAMBER_ENABLE_DNNL needs oneDNN (oneapi/dnnl/dnnl.hpp and libdnnl, \
2.x): apt-get install libdnnl-dev (Debian 12), or set -DDNNL_ROOT=<prefix>; or pass \
-DCAMBER_ENABLE_DNNL=OFF to multiply with Eigen alone")
  elseif(NOT ${message_var})
    set(${found_var} TRUE)
  endif()
endmacro()
