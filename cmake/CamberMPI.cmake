# MPI first: SUNDIALS' and PETSc's configs expect MPI::MPI_C to exist.
find_package(MPI REQUIRED COMPONENTS C CXX)
