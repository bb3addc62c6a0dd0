#include <camber/parallel/collectives.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::par {

namespace {

double allreduce(double value, MPI_Op op, MPI_Comm comm) {
  double out = 0.0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, op, comm));
  return out;
}

// Values per cell of a field laid out over `dist`'s local cells.
index_t components(const Tensor& field, const CellDistribution& dist, const char* who) {
  CAMBER_REQUIRE(field.rank() >= 1 && field.dim(0) == dist.n_local(),
                 who << ": field of shape " << shape_string(field.shape()) << " must have n_local = "
                     << dist.n_local() << " rows (owned cells, then ghosts)");
  index_t nc = 1;
  for (int d = 1; d < field.rank(); ++d) nc *= field.dim(d);
  return nc;
}

int mpi_count(std::int64_t n, const char* who) {
  CAMBER_REQUIRE(n >= 0 && n <= std::numeric_limits<int>::max(),
                 who << ": " << n << " values exceed MPI's int count");
  return static_cast<int>(n);
}

template <class T>
std::vector<T> exchange_impl(const std::vector<std::vector<T>>& send, MPI_Datatype type,
                             MPI_Comm comm, std::vector<std::int64_t>* from) {
  const int size = comm_size(comm);
  CAMBER_REQUIRE(static_cast<int>(send.size()) == size,
                 "exchange: " << send.size() << " send lists for " << size << " ranks");
  std::vector<std::int64_t> out_count(static_cast<size_t>(size)), in_count(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    out_count[static_cast<size_t>(r)] = static_cast<std::int64_t>(send[static_cast<size_t>(r)].size());
  CAMBER_CHECK_MPI(MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1,
                                MPI_INT64_T, comm));
  std::vector<int> sc(static_cast<size_t>(size)), sd(static_cast<size_t>(size)),
      rc(static_cast<size_t>(size)), rd(static_cast<size_t>(size));
  std::int64_t s_total = 0, r_total = 0;
  for (int r = 0; r < size; ++r) {
    sd[static_cast<size_t>(r)] = static_cast<int>(std::min<std::int64_t>(s_total, INT32_MAX));
    rd[static_cast<size_t>(r)] = static_cast<int>(std::min<std::int64_t>(r_total, INT32_MAX));
    s_total += out_count[static_cast<size_t>(r)];
    r_total += in_count[static_cast<size_t>(r)];
  }
  collective_guard(comm, [&] {
    CAMBER_REQUIRE(s_total <= std::numeric_limits<int>::max() &&
                       r_total <= std::numeric_limits<int>::max(),
                   "exchange: " << std::max(s_total, r_total)
                                << " values in one all-to-all exceed MPI's int count");
  });
  std::vector<T> sendbuf;
  sendbuf.reserve(static_cast<size_t>(s_total));
  for (int r = 0; r < size; ++r) {
    sc[static_cast<size_t>(r)] = static_cast<int>(out_count[static_cast<size_t>(r)]);
    rc[static_cast<size_t>(r)] = static_cast<int>(in_count[static_cast<size_t>(r)]);
    sendbuf.insert(sendbuf.end(), send[static_cast<size_t>(r)].begin(),
                   send[static_cast<size_t>(r)].end());
  }
  std::vector<T> received(static_cast<size_t>(r_total));
  CAMBER_CHECK_MPI(MPI_Alltoallv(sendbuf.data(), sc.data(), sd.data(), type, received.data(),
                                 rc.data(), rd.data(), type, comm));
  if (from != nullptr) {
    from->assign(1, 0);
    for (int r = 0; r < size; ++r) from->push_back(from->back() + in_count[static_cast<size_t>(r)]);
  }
  return received;
}

}  // namespace

std::vector<std::int64_t> exchange(const std::vector<std::vector<std::int64_t>>& send,
                                   MPI_Comm comm, std::vector<std::int64_t>* from) {
  return exchange_impl(send, MPI_INT64_T, comm, from);
}

std::vector<double> exchange(const std::vector<std::vector<double>>& send, MPI_Comm comm,
                             std::vector<std::int64_t>* from) {
  return exchange_impl(send, MPI_DOUBLE, comm, from);
}

double allreduce_sum(double value, MPI_Comm comm) { return allreduce(value, MPI_SUM, comm); }
double allreduce_max(double value, MPI_Comm comm) { return allreduce(value, MPI_MAX, comm); }
double allreduce_min(double value, MPI_Comm comm) { return allreduce(value, MPI_MIN, comm); }

std::vector<double> gather_on_root(const std::vector<double>& mine, MPI_Comm comm) {
  const int count = mpi_count(static_cast<index_t>(mine.size()), "gather_on_root");
  const int size = comm_size(comm), rank = comm_rank(comm);
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  CAMBER_CHECK_MPI(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(total);
    total += counts[static_cast<size_t>(r)];
  }
  CAMBER_REQUIRE(rank != 0 || total <= std::numeric_limits<int>::max(),
                 "gather_on_root: " << total << " values exceed an MPI count");
  std::vector<double> all(rank == 0 ? static_cast<size_t>(total) : 0);
  CAMBER_CHECK_MPI(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                               displs.data(), MPI_DOUBLE, 0, comm));
  return all;
}

namespace {

template <class T>
std::vector<T> all_gather_of(const std::vector<T>& mine, MPI_Datatype type, MPI_Comm comm) {
  const int count = mpi_count(static_cast<index_t>(mine.size()), "all_gather");
  const int size = comm_size(comm);
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  CAMBER_CHECK_MPI(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(std::min<long long>(total, std::numeric_limits<int>::max()));
    total += counts[static_cast<size_t>(r)];
  }
  // Every rank has every count, so every rank throws alike.
  CAMBER_REQUIRE(total <= std::numeric_limits<int>::max(),
                 "all_gather: " << total << " values exceed an MPI count");
  std::vector<T> all(static_cast<size_t>(total));
  CAMBER_CHECK_MPI(MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(),
                                  displs.data(), type, comm));
  return all;
}

}  // namespace

std::vector<std::int64_t> all_gather(const std::vector<std::int64_t>& mine, MPI_Comm comm) {
  return all_gather_of(mine, MPI_INT64_T, comm);
}

std::vector<double> all_gather(const std::vector<double>& mine, MPI_Comm comm) {
  return all_gather_of(mine, MPI_DOUBLE, comm);
}

void allreduce_sum_in_place(Tensor& values, MPI_Comm comm) {
  auto host = values.host();
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, host.data(),
                                 mpi_count(values.size(), "allreduce_sum_in_place"), MPI_DOUBLE,
                                 MPI_SUM, comm));
  Kokkos::deep_copy(values.view(), host);
}

double sum_owned(const Tensor& field, const CellDistribution& dist) {
  const index_t n = dist.n_owned() * components(field, dist, "sum_owned");
  auto v = field.view();
  double local = 0.0;
  Kokkos::parallel_reduce(
      "camber::par::sum_owned", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(index_t i, double& acc) { acc += v(i); }, local);
  return allreduce_sum(local, dist.comm());
}

double dot_owned(const Tensor& a, const Tensor& b, const CellDistribution& dist) {
  CAMBER_REQUIRE(a.shape() == b.shape(), "dot_owned: shapes " << shape_string(a.shape()) << " and "
                                                              << shape_string(b.shape())
                                                              << " differ");
  const index_t n = dist.n_owned() * components(a, dist, "dot_owned");
  auto va = a.view();
  auto vb = b.view();
  double local = 0.0;
  Kokkos::parallel_reduce(
      "camber::par::dot_owned", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(index_t i, double& acc) { acc += va(i) * vb(i); }, local);
  return allreduce_sum(local, dist.comm());
}

double norm2_owned(const Tensor& field, const CellDistribution& dist) {
  return std::sqrt(dot_owned(field, field, dist));
}

double max_abs_owned(const Tensor& field, const CellDistribution& dist) {
  const index_t n = dist.n_owned() * components(field, dist, "max_abs_owned");
  auto v = field.view();
  double local = 0.0;
  Kokkos::parallel_reduce(
      "camber::par::max_abs_owned", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(index_t i, double& acc) {
        const double x = v(i) < 0.0 ? -v(i) : v(i);
        if (x > acc) acc = x;
      },
      Kokkos::Max<double>(local));
  return allreduce_max(local, dist.comm());
}

Tensor sum_owned_per_component(const Tensor& field, const CellDistribution& dist) {
  const index_t nc = components(field, dist, "sum_owned_per_component");
  Shape shape(field.shape().begin() + 1, field.shape().end());
  Tensor out(shape);
  auto in = field.view();
  auto o = out.view();
  const index_t n_owned = dist.n_owned();
  Kokkos::parallel_for(
      "camber::par::sum_owned_per_component", Kokkos::RangePolicy<>(0, nc),
      KOKKOS_LAMBDA(index_t k) {
        double acc = 0.0;
        for (index_t c = 0; c < n_owned; ++c) acc += in(c * nc + k);
        o(k) = acc;
      });
  Kokkos::fence();
  allreduce_sum_in_place(out, dist.comm());
  return out;
}

Tensor gather_owned(const Tensor& field, const CellDistribution& dist) {
  const index_t nc = components(field, dist, "gather_owned");
  const MPI_Comm comm = dist.comm();
  const int n_ranks = dist.size();
  CAMBER_REQUIRE(dist.n_global_cells() * nc <= std::numeric_limits<int>::max(),
                 "gather_owned: " << dist.n_global_cells() * nc
                                  << " values exceed MPI's int count; gather fewer components");

  std::int64_t mine = dist.n_owned();
  std::vector<std::int64_t> owned(static_cast<size_t>(n_ranks));
  CAMBER_CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, owned.data(), 1, MPI_INT64_T, comm));
  std::vector<int> id_count(static_cast<size_t>(n_ranks)), id_disp(static_cast<size_t>(n_ranks));
  std::vector<int> val_count(static_cast<size_t>(n_ranks)), val_disp(static_cast<size_t>(n_ranks));
  std::int64_t total = 0;
  for (size_t r = 0; r < owned.size(); ++r) {
    id_disp[r] = static_cast<int>(total);
    id_count[r] = static_cast<int>(owned[r]);
    val_disp[r] = static_cast<int>(total * nc);
    val_count[r] = static_cast<int>(owned[r] * nc);
    total += owned[r];
  }
  CAMBER_REQUIRE(total == dist.n_global_cells(),
                 "gather_owned: ranks own " << total << " cells, expected "
                                            << dist.n_global_cells());

  std::vector<std::int64_t> ids(static_cast<size_t>(total));
  CAMBER_CHECK_MPI(MPI_Allgatherv(dist.local_to_global().data(), static_cast<int>(mine),
                                  MPI_INT64_T, ids.data(), id_count.data(), id_disp.data(),
                                  MPI_INT64_T, comm));
  auto host = field.host();
  std::vector<double> values(static_cast<size_t>(total * nc));
  CAMBER_CHECK_MPI(MPI_Allgatherv(host.data(), static_cast<int>(mine * nc), MPI_DOUBLE,
                                  values.data(), val_count.data(), val_disp.data(), MPI_DOUBLE,
                                  comm));
  std::vector<double> ordered(values.size());
  for (size_t i = 0; i < ids.size(); ++i)
    for (index_t k = 0; k < nc; ++k)
      ordered[static_cast<size_t>(ids[i] * nc + k)] = values[i * static_cast<size_t>(nc) + static_cast<size_t>(k)];
  Shape shape = field.shape();
  shape[0] = total;
  return Tensor::from_host(shape, ordered);
}

Tensor scatter_global(const Tensor& global, const CellDistribution& dist) {
  CAMBER_REQUIRE(global.rank() >= 1 && global.dim(0) == dist.n_global_cells(),
                 "scatter_global: field of shape " << shape_string(global.shape())
                                                   << " must have n_global_cells = "
                                                   << dist.n_global_cells() << " rows");
  index_t nc = 1;
  for (int d = 1; d < global.rank(); ++d) nc *= global.dim(d);
  Shape shape = global.shape();
  shape[0] = dist.n_local();
  Tensor out(shape);
  const auto& ids = dist.local_to_global();
  Kokkos::View<std::int64_t*> id_view("camber::par::scatter_global::ids", ids.size());
  auto id_host = Kokkos::create_mirror_view(id_view);
  for (size_t i = 0; i < ids.size(); ++i) id_host(i) = ids[i];
  Kokkos::deep_copy(id_view, id_host);
  auto in = global.view();
  auto o = out.view();
  Kokkos::parallel_for(
      "camber::par::scatter_global", Kokkos::RangePolicy<>(0, dist.n_local() * nc),
      KOKKOS_LAMBDA(index_t i) {
        const index_t l = i / nc;
        o(i) = in(id_view(l) * nc + (i - l * nc));
      });
  Kokkos::fence();
  return out;
}

}  // namespace camber::par
