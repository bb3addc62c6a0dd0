#include <camber/solvers/euler/shape_derivative.hpp>

#include <algorithm>

#include <camber/core/error.hpp>

#include "detail/global_cells.hpp"

namespace camber::solvers::euler {

namespace {
constexpr int nv = Discretization::n_vars;
}  // namespace

ShapeDerivative::ShapeDerivative(const Discretization& disc) : disc_(&disc) {
  const detail::GlobalCells g = detail::gather_global_cells(disc);
  std::vector<std::int64_t> s_off, s;
  detail::distance_two_stencils(g, s_off, s);
  const std::int64_t n_cells = static_cast<std::int64_t>(g.block.size());
  n_global_nodes_ = g.n_nodes;

  // NS(c): the nodes of the cells of S(c), on which R_c depends.
  std::vector<std::int64_t> ns_off(static_cast<size_t>(n_cells) + 1, 0), ns;
  std::vector<std::int64_t> buf;
  for (std::int64_t c = 0; c < n_cells; ++c) {
    buf.clear();
    for (std::int64_t a = s_off[c]; a < s_off[c + 1]; ++a) {
      const std::int64_t e = s[static_cast<size_t>(a)];
      buf.insert(buf.end(), g.node.begin() + g.node_offset[e], g.node.begin() + g.node_offset[e + 1]);
    }
    std::sort(buf.begin(), buf.end());
    buf.erase(std::unique(buf.begin(), buf.end()), buf.end());
    ns.insert(ns.end(), buf.begin(), buf.end());
    ns_off[static_cast<size_t>(c) + 1] = static_cast<std::int64_t>(ns.size());
  }
  // Cells of every node.
  std::vector<std::int64_t> nc_off, nc;
  detail::node_cells(g, nc_off, nc);
  // Greedy colouring in global node order: node a's rows are the c with e
  // in S(c), for the cells e of a; it may not share a colour with any node
  // of those rows' NS.
  std::vector<std::int64_t> t_off, t;
  detail::transpose_stencils(s_off, s, t_off, t);
  std::vector<int> color(static_cast<size_t>(n_global_nodes_), -1);
  std::vector<std::int64_t> stamp;
  for (std::int64_t a = 0; a < n_global_nodes_; ++a) {
    for (std::int64_t i = nc_off[a]; i < nc_off[a + 1]; ++i) {
      const std::int64_t e = nc[static_cast<size_t>(i)];
      for (std::int64_t j = t_off[e]; j < t_off[e + 1]; ++j) {
        const std::int64_t c = t[static_cast<size_t>(j)];
        for (std::int64_t b = ns_off[c]; b < ns_off[c + 1]; ++b) {
          const int k = color[static_cast<size_t>(ns[static_cast<size_t>(b)])];
          if (k < 0) continue;
          if (static_cast<size_t>(k) >= stamp.size()) stamp.resize(static_cast<size_t>(k) + 1, -1);
          stamp[static_cast<size_t>(k)] = a;
        }
      }
    }
    int k = 0;
    while (static_cast<size_t>(k) < stamp.size() && stamp[static_cast<size_t>(k)] == a) ++k;
    color[static_cast<size_t>(a)] = k;
    n_colors_ = std::max(n_colors_, k + 1);
  }

  const mesh::DistributedMesh& dm = disc.mesh();
  const auto& node_gid = dm.node_global_ids();
  const index_t n_local_nodes = dm.local().n_nodes();
  color_ = Kokkos::View<int*>("euler::shape_color", static_cast<size_t>(n_local_nodes));
  auto ch = Kokkos::create_mirror_view(color_);
  for (index_t n = 0; n < n_local_nodes; ++n)
    ch(n) = color[static_cast<size_t>(node_gid[static_cast<size_t>(n)])];
  Kokkos::deep_copy(color_, ch);

  entries_.assign(static_cast<size_t>(n_colors_), {});
  const auto& gid = dm.cell_global_ids();
  for (index_t c = 0; c < disc.n_owned(); ++c) {
    const std::int64_t id = gid[static_cast<size_t>(c)];
    for (std::int64_t b = ns_off[id]; b < ns_off[id + 1]; ++b) {
      const std::int64_t a = ns[static_cast<size_t>(b)];
      entries_[static_cast<size_t>(color[static_cast<size_t>(a)])].push_back({c, a});
    }
  }
}

void ShapeDerivative::linearize(Tensor& U) {
  Kokkos::View<int*> seeded("euler::shape_seeded", color_.extent(0));
  const auto color = color_;
  dr_.clear();
  force_entries_.clear();
  df_.clear();
  Tensor DR, DF;
  for (int k = 0; k < n_colors_; ++k) {
    Kokkos::parallel_for(
        "euler::shape_seed", Kokkos::RangePolicy<>(0, static_cast<index_t>(color.extent(0))),
        KOKKOS_LAMBDA(const index_t n) { seeded(n) = color(n) == k ? 1 : 0; });
    disc_->shape_block_columns(U, seeded, DR, DF);
    const auto rh = DR.host();
    const auto fh = DF.host();
    for (const auto& [c, a] : entries_[static_cast<size_t>(k)]) {
      for (int i = 0; i < nv; ++i)
        for (int d = 0; d < 2; ++d) dr_.push_back(rh((c * nv + i) * 2 + d));
      bool force = false;
      for (int q = 0; q < 6; ++q) force = force || fh(c * 6 + q) != 0.0;
      if (!force) continue;
      force_entries_.push_back({c, a});
      for (int q = 0; q < 6; ++q) df_.push_back(fh(c * 6 + q));
    }
  }
  linearized_ = true;
}

Tensor ShapeDerivative::total_derivative(Tensor& U, const AdjointSolution& adjoint) {
  return total_derivative(U, adjoint.psi, adjoint.weights);
}

Tensor ShapeDerivative::total_derivative(Tensor& U, const Tensor& psi,
                                         const std::array<double, 3>& weights) {
  const Discretization& disc = *disc_;
  CAMBER_REQUIRE(psi.shape() == (Shape{disc.n_local(), nv}),
                 "ShapeDerivative::total_derivative: psi has shape "
                     << shape_string(psi.shape()) << ", expected "
                     << shape_string({disc.n_local(), nv}));
  if (!linearized_) linearize(U);
  std::vector<double> out(static_cast<size_t>(n_global_nodes_) * 2, 0.0);
  const auto ph = psi.host();
  // dr_ holds the blocks in entries_' order, colour after colour.
  const double* r = dr_.data();
  for (const auto& entries : entries_)
    for (const auto& [c, a] : entries) {
      for (int d = 0; d < 2; ++d) {
        double v = 0.0;
        for (int i = 0; i < nv; ++i) v -= ph(c * nv + i) * r[i * 2 + d];
        out[static_cast<size_t>(a * 2 + d)] += v;
      }
      r += nv * 2;
    }
  for (size_t e = 0; e < force_entries_.size(); ++e) {
    const std::int64_t a = force_entries_[e].second;
    const double* f = &df_[e * 6];
    for (int d = 0; d < 2; ++d)
      for (int m = 0; m < 3; ++m)
        out[static_cast<size_t>(a * 2 + d)] += weights[static_cast<size_t>(m)] * f[m * 2 + d];
  }
  std::vector<double> sum(out.size());
  CAMBER_CHECK_MPI(MPI_Allreduce(out.data(), sum.data(), static_cast<int>(out.size()), MPI_DOUBLE,
                                 MPI_SUM, disc.mesh().comm()));
  return Tensor::from_host({static_cast<index_t>(n_global_nodes_), 2}, sum);
}

Tensor ShapeDerivative::residual_directional(Tensor& U, const Tensor& V) {
  std::array<double, 3> dG;
  return directional(U, V, dG);
}

Tensor ShapeDerivative::directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG) {
  const Discretization& disc = *disc_;
  CAMBER_REQUIRE(V.shape() == (Shape{static_cast<index_t>(n_global_nodes_), 2}),
                 "ShapeDerivative::residual_directional: V has shape "
                     << shape_string(V.shape()) << ", expected {" << n_global_nodes_ << ", 2}");
  if (!linearized_) linearize(U);
  const auto vh = V.host();
  std::vector<double> out(static_cast<size_t>(disc.n_local() * nv), 0.0);
  const double* r = dr_.data();
  for (const auto& entries : entries_)
    for (const auto& [c, a] : entries) {
      for (int i = 0; i < nv; ++i)
        out[static_cast<size_t>(c * nv + i)] += r[i * 2] * vh(a * 2) + r[i * 2 + 1] * vh(a * 2 + 1);
      r += nv * 2;
    }
  double g[3] = {0.0, 0.0, 0.0};
  for (size_t e = 0; e < force_entries_.size(); ++e) {
    const std::int64_t a = force_entries_[e].second;
    const double* f = &df_[e * 6];
    for (int m = 0; m < 3; ++m) g[m] += f[m * 2] * vh(a * 2) + f[m * 2 + 1] * vh(a * 2 + 1);
  }
  CAMBER_CHECK_MPI(MPI_Allreduce(g, dG.data(), 3, MPI_DOUBLE, MPI_SUM, disc.mesh().comm()));
  return Tensor::from_host({disc.n_local(), nv}, out);
}

}  // namespace camber::solvers::euler
