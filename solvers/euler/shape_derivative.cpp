#include <camber/solvers/euler/shape_derivative.hpp>

#include <algorithm>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>

#include "detail/discretization_kernels.hpp"
#if CAMBER_WITH_PETSC
#include "detail/owned_stencils.hpp"
#endif
#include "detail/shape_transpose.hpp"

namespace camber::solvers::euler {

std::shared_ptr<const ShapeDerivative::Pattern> ShapeDerivative::pattern(
    const Discretization& disc, ShapeMethod method) {
  auto p = std::make_shared<Pattern>();
  const mesh::DistributedMesh& dm = disc.mesh();
  p->method = method;
  p->n_global_nodes = dm.n_global_nodes();
  p->n_local_nodes = dm.local().n_nodes();
  const auto& node_gid = dm.node_global_ids();
  p->rows.assign(node_gid.begin(), node_gid.end());
  if (method == ShapeMethod::reverse) return p;  // the local nodes only

#if !CAMBER_WITH_PETSC
  CAMBER_REQUIRE(false, "ShapeDerivative: the colouring method colours the nodes with PETSc; "
                        "this build has none (use ShapeMethod::reverse)");
  return p;
#else
  const detail::NodeColouring nodes = detail::colour_nodes(disc, detail::cell_layout(disc));
  p->n_colors = nodes.n_colors;
  p->color = nodes.local;
  // Rows: the local nodes, then the other nodes of the owned cells' NS.
  std::vector<std::int64_t> sorted_local(node_gid.begin(), node_gid.end());
  std::sort(sorted_local.begin(), sorted_local.end());
  std::vector<std::int64_t> extra;
  for (const std::int64_t a : nodes.node)
    if (!std::binary_search(sorted_local.begin(), sorted_local.end(), a)) extra.push_back(a);
  std::sort(extra.begin(), extra.end());
  extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
  p->rows.insert(p->rows.end(), extra.begin(), extra.end());
  // Global id -> row, for the rows only (sorted pairs, binary search).
  std::vector<std::pair<std::int64_t, index_t>> row_of;
  row_of.reserve(p->rows.size());
  for (size_t r = 0; r < p->rows.size(); ++r) row_of.push_back({p->rows[r], static_cast<index_t>(r)});
  std::sort(row_of.begin(), row_of.end());
  const auto find_row = [&](std::int64_t a) {
    return std::lower_bound(row_of.begin(), row_of.end(), std::make_pair(a, index_t{0}))->second;
  };

  p->entries.assign(static_cast<size_t>(p->n_colors), {});
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (std::int64_t b = nodes.offset[static_cast<size_t>(c)];
         b < nodes.offset[static_cast<size_t>(c) + 1]; ++b)
      p->entries[static_cast<size_t>(nodes.column[static_cast<size_t>(b)])].push_back(
          {c, find_row(nodes.node[static_cast<size_t>(b)])});
  return p;
#endif
}

ShapeDerivative::ShapeDerivative(const Discretization& disc, std::shared_ptr<const Pattern> pattern)
    : disc_(&disc), pattern_(pattern ? std::move(pattern) : ShapeDerivative::pattern(disc)) {
  const index_t n_local_nodes = disc.mesh().local().n_nodes();
  CAMBER_REQUIRE(pattern_->n_local_nodes == n_local_nodes &&
                     pattern_->rows.size() >= static_cast<size_t>(n_local_nodes),
                 "ShapeDerivative: the pattern was built for a mesh of "
                     << pattern_->n_local_nodes << " local nodes, this one has " << n_local_nodes);
  if (pattern_->method == ShapeMethod::reverse) return;
  color_ = Kokkos::View<int*>("euler::shape_color", static_cast<size_t>(n_local_nodes));
  auto ch = Kokkos::create_mirror_view(color_);
  for (index_t n = 0; n < n_local_nodes; ++n) ch(n) = pattern_->color[static_cast<size_t>(n)];
  Kokkos::deep_copy(color_, ch);
}

void ShapeDerivative::linearize(Tensor& U) {
  if (pattern_->method == ShapeMethod::reverse) {
    linearized_ = true;
    return;
  }
  const int nv = disc_->n_vars(), dim = disc_->dim();
  Kokkos::View<int*> seeded("euler::shape_seeded", color_.extent(0));
  const auto color = color_;
  dr_.clear();
  force_entries_.clear();
  df_.clear();
  Tensor DR, DF;
  for (int k = 0; k < pattern_->n_colors; ++k) {
    Kokkos::parallel_for(
        "euler::shape_seed", Kokkos::RangePolicy<>(0, static_cast<index_t>(color.extent(0))),
        KOKKOS_LAMBDA(const index_t n) { seeded(n) = color(n) == k ? 1 : 0; });
    detail::DiscretizationKernels::shape_block_columns(*disc_, U, seeded, DR, DF);
    const auto rh = DR.host();
    const auto fh = DF.host();
    for (const auto& [c, a] : pattern_->entries[static_cast<size_t>(k)]) {
      for (int i = 0; i < nv; ++i)
        for (int d = 0; d < dim; ++d) dr_.push_back(rh((c * nv + i) * dim + d));
      bool force = false;
      for (int q = 0; q < 3 * dim; ++q) force = force || fh(c * 3 * dim + q) != 0.0;
      if (!force) continue;
      force_entries_.push_back({c, a});
      for (int q = 0; q < 3 * dim; ++q) df_.push_back(fh(c * 3 * dim + q));
    }
  }
  linearized_ = true;
}

Tensor ShapeDerivative::row_coordinates() const {
  const mesh::DistributedMesh& dm = disc_->mesh();
  const MPI_Comm comm = dm.comm();
  const int size = dm.size();
  const int dim = disc_->dim();
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().coords());
  const auto& gid = dm.node_global_ids();
  const index_t n_local = pattern_->n_local_nodes;
  const index_t n_rows = static_cast<index_t>(pattern_->rows.size());
  std::vector<double> out(static_cast<size_t>(n_rows * dim));
  for (index_t n = 0; n < n_local; ++n)
    for (int d = 0; d < dim; ++d) out[static_cast<size_t>(n * dim + d)] = x(n, d);
  // Every local node is posted at rank (global id mod size), with its
  // coordinates; the further rows are asked of the same rank.
  const auto home = [size](std::int64_t id) { return static_cast<size_t>(id % size); };
  std::vector<std::vector<std::int64_t>> post_ids(static_cast<size_t>(size)),
      ask(static_cast<size_t>(size));
  std::vector<std::vector<double>> post_x(static_cast<size_t>(size));
  for (index_t n = 0; n < n_local; ++n) {
    const std::int64_t id = gid[static_cast<size_t>(n)];
    post_ids[home(id)].push_back(id);
    for (int d = 0; d < dim; ++d) post_x[home(id)].push_back(x(n, d));
  }
  for (index_t r = n_local; r < n_rows; ++r) {
    const std::int64_t id = pattern_->rows[static_cast<size_t>(r)];
    ask[home(id)].push_back(id);
  }
  const std::vector<std::int64_t> posted = par::exchange(post_ids, comm);
  const std::vector<double> posted_x = par::exchange(post_x, comm);
  std::vector<std::pair<std::int64_t, size_t>> at;  // (global id, first posting)
  at.reserve(posted.size());
  for (size_t i = 0; i < posted.size(); ++i) at.push_back({posted[i], i});
  std::sort(at.begin(), at.end());
  std::vector<std::int64_t> from;
  const std::vector<std::int64_t> asked = par::exchange(ask, comm, &from);
  std::vector<std::vector<double>> answer(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    for (std::int64_t i = from[static_cast<size_t>(r)]; i < from[static_cast<size_t>(r) + 1]; ++i) {
      const std::int64_t id = asked[static_cast<size_t>(i)];
      const auto it = std::lower_bound(at.begin(), at.end(), std::make_pair(id, size_t{0}));
      // A row is a node of some rank's local mesh, so it was posted.
      CAMBER_REQUIRE(it != at.end() && it->first == id,
                     "ShapeDerivative::row_coordinates: node " << id << " is on no rank");
      for (int d = 0; d < dim; ++d)
        answer[static_cast<size_t>(r)].push_back(posted_x[it->second * static_cast<size_t>(dim) + d]);
    }
  // The answers come in rank order, each rank's in the order asked.
  const std::vector<double> got = par::exchange(answer, comm);
  std::vector<size_t> next(static_cast<size_t>(size), 0), first(static_cast<size_t>(size) + 1, 0);
  for (int r = 0; r < size; ++r)
    first[static_cast<size_t>(r) + 1] = first[static_cast<size_t>(r)] + ask[static_cast<size_t>(r)].size();
  for (index_t r = n_local; r < n_rows; ++r) {
    const size_t h = home(pattern_->rows[static_cast<size_t>(r)]);
    const size_t k = first[h] + next[h]++;
    for (int d = 0; d < dim; ++d)
      out[static_cast<size_t>(r * dim + d)] = got[k * static_cast<size_t>(dim) + static_cast<size_t>(d)];
  }
  return Tensor::from_host({n_rows, static_cast<index_t>(dim)}, out);
}

Tensor ShapeDerivative::total_derivative(Tensor& U, const AdjointSolution& adjoint) {
  return total_derivative(U, adjoint.psi, adjoint.weights);
}

Tensor ShapeDerivative::rank_derivative(Tensor& U, const Tensor& psi,
                                        const std::array<double, 3>& weights) {
  const Discretization& disc = *disc_;
  const int nv = disc.n_vars(), dim = disc.dim();
  CAMBER_REQUIRE(psi.shape() == (Shape{disc.n_local(), nv}),
                 "ShapeDerivative: psi has shape " << shape_string(psi.shape()) << ", expected "
                                                   << shape_string({disc.n_local(), nv}));
  if (pattern_->method == ShapeMethod::reverse)
    return detail::ShapeTranspose::apply(disc, U, psi, weights);  // rows: the local nodes
  if (!linearized_) linearize(U);
  const index_t n_rows = static_cast<index_t>(pattern_->rows.size());
  std::vector<double> out(static_cast<size_t>(n_rows * dim), 0.0);
  const auto ph = psi.host();
  // dr_ holds the blocks in the entries' order, colour after colour.
  const double* r = dr_.data();
  for (const auto& entries : pattern_->entries)
    for (const auto& [c, a] : entries) {
      for (int d = 0; d < dim; ++d) {
        double v = 0.0;
        for (int i = 0; i < nv; ++i) v -= ph(c * nv + i) * r[i * dim + d];
        out[static_cast<size_t>(a * dim + d)] += v;
      }
      r += nv * dim;
    }
  for (size_t e = 0; e < force_entries_.size(); ++e) {
    const index_t a = force_entries_[e].second;
    const double* f = &df_[e * 3 * static_cast<size_t>(dim)];
    for (int d = 0; d < dim; ++d)
      for (int m = 0; m < 3; ++m)
        out[static_cast<size_t>(a * dim + d)] += weights[static_cast<size_t>(m)] * f[m * dim + d];
  }
  return Tensor::from_host({n_rows, dim}, out);
}

Tensor ShapeDerivative::total_derivative(Tensor& U, const Tensor& psi,
                                         const std::array<double, 3>& weights) {
  const Tensor rank_share = rank_derivative(U, psi, weights);
  const auto share = rank_share.host();
  const size_t dim = static_cast<size_t>(disc_->dim());
  const std::int64_t n = pattern_->n_global_nodes;
  std::vector<double> out(static_cast<size_t>(n) * dim, 0.0);
  for (size_t r = 0; r < pattern_->rows.size(); ++r)
    for (size_t d = 0; d < dim; ++d)
      out[static_cast<size_t>(pattern_->rows[r]) * dim + d] +=
          share(static_cast<index_t>(dim * r + d));
  std::vector<double> sum(out.size());
  CAMBER_CHECK_MPI(MPI_Allreduce(out.data(), sum.data(), static_cast<int>(out.size()), MPI_DOUBLE,
                                 MPI_SUM, disc_->mesh().comm()));
  return Tensor::from_host({static_cast<index_t>(n), static_cast<index_t>(dim)}, sum);
}

Tensor ShapeDerivative::residual_directional(Tensor& U, const Tensor& V) {
  std::array<double, 3> dG;
  return directional(U, V, dG);
}

Tensor ShapeDerivative::directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG) {
  const index_t dim = disc_->dim();
  CAMBER_REQUIRE(V.shape() == (Shape{static_cast<index_t>(pattern_->n_global_nodes), dim}),
                 "ShapeDerivative::directional: V has shape "
                     << shape_string(V.shape()) << ", expected {" << pattern_->n_global_nodes
                     << ", " << dim << "}");
  const auto vh = V.host();
  const index_t n_rows = static_cast<index_t>(pattern_->rows.size());
  std::vector<double> rows(static_cast<size_t>(n_rows * dim));
  for (index_t r = 0; r < n_rows; ++r)
    for (index_t d = 0; d < dim; ++d)
      rows[static_cast<size_t>(dim * r + d)] = vh(pattern_->rows[static_cast<size_t>(r)] * dim + d);
  return rank_directional(U, Tensor::from_host({n_rows, dim}, rows), dG);
}

Tensor ShapeDerivative::rank_directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG) {
  const Discretization& disc = *disc_;
  const int nv = disc.n_vars(), dim = disc.dim();
  const index_t n_rows = static_cast<index_t>(pattern_->rows.size());
  CAMBER_REQUIRE(V.shape() == (Shape{n_rows, dim}),
                 "ShapeDerivative::rank_directional: V has shape "
                     << shape_string(V.shape()) << ", expected {" << n_rows << ", " << dim << "}");
  if (pattern_->method == ShapeMethod::reverse) {
    // One forward sweep along V (rows: the local nodes).
    Tensor DR;
    detail::DiscretizationKernels::shape_directional(disc, U, V, DR, dG);
    return DR;
  }
  if (!linearized_) linearize(U);
  const auto vh = V.host();
  std::vector<double> out(static_cast<size_t>(disc.n_local() * nv), 0.0);
  const double* r = dr_.data();
  for (const auto& entries : pattern_->entries)
    for (const auto& [c, a] : entries) {
      for (int i = 0; i < nv; ++i)
        for (int d = 0; d < dim; ++d)
          out[static_cast<size_t>(c * nv + i)] += r[i * dim + d] * vh(a * dim + d);
      r += nv * dim;
    }
  double g[3] = {0.0, 0.0, 0.0};
  for (size_t e = 0; e < force_entries_.size(); ++e) {
    const index_t a = force_entries_[e].second;
    const double* f = &df_[e * 3 * static_cast<size_t>(dim)];
    for (int m = 0; m < 3; ++m)
      for (int d = 0; d < dim; ++d) g[m] += f[m * dim + d] * vh(a * dim + d);
  }
  CAMBER_CHECK_MPI(MPI_Allreduce(g, dG.data(), 3, MPI_DOUBLE, MPI_SUM, disc.mesh().comm()));
  return Tensor::from_host({disc.n_local(), nv}, out);
}

}  // namespace camber::solvers::euler
