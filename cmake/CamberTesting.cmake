# Test helpers.
#
# camber_add_test(NAME <exe> SOURCES ... LINK ... [MPI_RANKS 1 2 4] [LABELS ...])
#
# Builds one GoogleTest executable. Without MPI_RANKS it is registered once;
# with MPI_RANKS it is registered once per rank count through mpiexec
# (label "mpi"), so one test source runs on every rank count. Tests link
# camber_test_main, which starts the Camber runtime (MPI, Kokkos) around
# RUN_ALL_TESTS and reduces the result over ranks.
find_package(GTest REQUIRED)

set(CAMBER_MPIEXEC_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  OMPI_MCA_rmaps_base_oversubscribe=1
  # Containers without a usable shared-memory transport still run.
  OMPI_MCA_btl_vader_single_copy_mechanism=none
  # PT-Scotch's sequential stages on one thread per rank (parallel/partition.cpp).
  SCOTCH_PTHREAD_NUMBER=1)

# On a threaded Kokkos backend (OpenMP) each test gets the threads it can use
# without oversubscribing: CAMBER_TEST_THREADS (default: the machine's
# logical cores) shared by its ranks, at least one thread per rank. A one-rank
# test then runs 2 threads on a 2-core machine and waits on its threads with
# the OpenMP runtime's default spin-then-sleep; 4 ranks get one thread each.
# (4 ranks of 2 threads on 2 cores either spin each other off the cores, or,
# with passive waiting, pay a thread wake-up per kernel: a test of many small
# kernels went from 26 s to over 300 s either way.)
cmake_host_system_information(RESULT _camber_cores QUERY NUMBER_OF_LOGICAL_CORES)
set(CAMBER_TEST_THREADS ${_camber_cores} CACHE STRING
    "Threads of a one-rank test on a threaded Kokkos backend; MPI tests share them")
string(TOUPPER "${Kokkos_DEVICES}" _camber_test_devices)
if(_camber_test_devices MATCHES "OPENMP")
  set(CAMBER_TEST_THREADED ON)
else()
  set(CAMBER_TEST_THREADED OFF)
endif()

# The test environment for RANKS ranks and a TIMEOUT in seconds (0: none
# set) into OUT.
# CAMBER_TEST_WATCHDOG_S, 20 s before the timeout, has a GoogleTest
# executable still running then print each rank's stack (tests/test_main.cpp).
function(camber_test_environment ranks timeout out)
  set(env ${CAMBER_MPIEXEC_ENV})
  math(EXPR watchdog "${timeout} - 20")
  if(watchdog GREATER 0)
    list(APPEND env CAMBER_TEST_WATCHDOG_S=${watchdog})
  endif()
  if(CAMBER_TEST_THREADED)
    math(EXPR threads "${CAMBER_TEST_THREADS} / ${ranks}")
    if(threads LESS 1)
      set(threads 1)
    endif()
    list(APPEND env OMP_NUM_THREADS=${threads} OMP_PROC_BIND=false)
  endif()
  set(${out} "${env}" PARENT_SCOPE)
endfunction()

function(camber_add_mpi_command)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   --oversubscribe ${MPIEXEC_PREFLAGS} ${T_COMMAND})
  camber_test_environment(${T_RANKS} ${T_TIMEOUT} env)
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "mpi;${T_LABELS}" PROCESSORS ${T_RANKS} TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${env}")
endfunction()

function(camber_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;LINK;MPI_RANKS;LABELS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LINK} camber_test_main camber_warnings)
  # Test-only helpers ("tests/mpi_test_utils.hpp") and the tests of a
  # module's private detail/ headers; Camber's public headers come through
  # the targets as <camber/...>.
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  if(T_MPI_RANKS)
    foreach(n ${T_MPI_RANKS})
      camber_add_mpi_command(NAME ${T_NAME}_np${n} RANKS ${n} TIMEOUT ${T_TIMEOUT}
                             COMMAND $<TARGET_FILE:${T_NAME}> LABELS ${T_LABELS})
    endforeach()
  else()
    add_test(NAME ${T_NAME} COMMAND ${T_NAME})
    camber_test_environment(1 ${T_TIMEOUT} env)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                         ENVIRONMENT "${env}")
  endif()
endfunction()
