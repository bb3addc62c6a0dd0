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
  OMPI_MCA_btl_vader_single_copy_mechanism=none)

function(camber_add_mpi_command)
  cmake_parse_arguments(T "" "NAME;RANKS;TIMEOUT" "COMMAND;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_test(NAME ${T_NAME}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS}
                   --oversubscribe ${MPIEXEC_PREFLAGS} ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "mpi;${T_LABELS}" PROCESSORS ${T_RANKS} TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${CAMBER_MPIEXEC_ENV}")
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
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                         ENVIRONMENT "${CAMBER_MPIEXEC_ENV}")
  endif()
endfunction()
