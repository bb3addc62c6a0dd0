#include <camber/solvers/petsc/petsc_numbering.hpp>

#include <camber/core/error.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::petsc {

std::vector<PetscInt> petsc_cell_numbers(const mesh::DistributedMesh& dm) {
  const index_t n_owned = dm.n_owned_cells();
  long long mine = n_owned, offset = 0;
  CAMBER_CHECK_MPI(MPI_Exscan(&mine, &offset, 1, MPI_LONG_LONG, MPI_SUM, dm.comm()));
  if (dm.rank() == 0) offset = 0;  // MPI_Exscan leaves rank 0's result undefined
  std::vector<double> ids(static_cast<size_t>(dm.n_local_cells()), -1.0);
  for (index_t c = 0; c < n_owned; ++c) ids[static_cast<size_t>(c)] = static_cast<double>(offset + c);
  Tensor field = Tensor::from_host({dm.n_local_cells()}, ids);
  par::HaloExchange halo(dm.distribution());
  halo.forward(field);
  const std::vector<double> filled = field.to_vector();
  std::vector<PetscInt> numbers(filled.size());
  for (size_t i = 0; i < filled.size(); ++i) numbers[i] = static_cast<PetscInt>(filled[i]);
  return numbers;
}

}  // namespace camber::solvers::petsc
