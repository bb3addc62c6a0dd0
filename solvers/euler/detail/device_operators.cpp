#include "device_operators.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace camber::solvers::euler::detail {

namespace {

namespace lin = camber::solvers::linear;
using Range = Kokkos::RangePolicy<>;

// The first-order matrix's pattern on disc's mesh: owned row i holds i and
// its face neighbours (owned or ghost), ascending.
lin::BlockSparseMatrix first_order_pattern(const Discretization& disc) {
  const index_t n_owned = disc.n_owned();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<index_t>> rows(static_cast<size_t>(n_owned));
  for (index_t i = 0; i < n_owned; ++i) rows[static_cast<size_t>(i)].push_back(i);
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    if (l < n_owned) rows[static_cast<size_t>(l)].push_back(r);
    if (r < n_owned) rows[static_cast<size_t>(r)].push_back(l);
  }
  std::vector<index_t> ptr(1, 0), cols;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    cols.insert(cols.end(), row.begin(), row.end());
    ptr.push_back(static_cast<index_t>(cols.size()));
  }
  return lin::BlockSparseMatrix(disc.mesh().distribution(), disc.n_vars(), ptr, cols);
}

}  // namespace

DeviceFirstOrderMatrix::DeviceFirstOrderMatrix(const Discretization& disc)
    : nv_(disc.n_vars()), A_(first_order_pattern(disc)) {
  const index_t n_owned = disc.n_owned();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<index_t>> faces(static_cast<size_t>(n_owned));
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    if (left(f) < n_owned) faces[static_cast<size_t>(left(f))].push_back(f);
    if (right(f) >= 0 && right(f) < n_owned) faces[static_cast<size_t>(right(f))].push_back(f);
  }
  std::vector<index_t> ptr(1, 0), face, side, other;
  for (index_t i = 0; i < n_owned; ++i) {
    for (const index_t f : faces[static_cast<size_t>(i)]) {
      const bool is_left = left(f) == i;
      const index_t across = is_left ? right(f) : left(f);
      face.push_back(f);
      side.push_back(is_left ? 0 : 1);
      other.push_back(across >= 0 ? A_.block_index(i, across) : -1);
    }
    ptr.push_back(static_cast<index_t>(face.size()));
  }
  const auto to_view = [](const std::vector<index_t>& v, const char* name) {
    Kokkos::View<index_t*> d(std::string(name), v.size());
    const auto h = Kokkos::create_mirror_view(d);
    for (size_t k = 0; k < v.size(); ++k) h(k) = v[k];
    Kokkos::deep_copy(d, h);
    return d;
  };
  row_faces_ptr_ = to_view(ptr, "camber::euler::row_faces_ptr");
  row_face_ = to_view(face, "camber::euler::row_face");
  row_face_side_ = to_view(side, "camber::euler::row_face_side");
  row_face_other_ = to_view(other, "camber::euler::row_face_other");
}

void DeviceFirstOrderMatrix::assemble(const Tensor& face_blocks,
                                      const Kokkos::View<const double*>& shift, bool transpose) {
  const auto ptr = A_.row_ptr();
  const auto diag = A_.diagonal();
  const auto values = A_.values();
  const auto fptr = row_faces_ptr_;
  const auto fface = row_face_;
  const auto fside = row_face_side_;
  const auto fother = row_face_other_;
  const bool shifted = shift.extent(0) > 0;
  const Kokkos::View<double*> J = face_blocks.view();
  const int nv = nv_;
  Kokkos::parallel_for(
      "camber::euler::first_order_matrix", Range(0, A_.n_rows()), KOKKOS_LAMBDA(const index_t i) {
        const int bb = nv * nv;
        for (index_t e = ptr(i) * bb; e < ptr(i + 1) * bb; ++e) values(e) = 0.0;
        double* d = &values(diag(i) * bb);
        if (shifted)
          for (int k = 0; k < nv; ++k) d[k * nv + k] = shift(i);
        for (index_t q = fptr(i); q < fptr(i + 1); ++q) {
          const index_t f = fface(q);
          const index_t o = fother(q);
          // J(f) is nv x 2 nv, row-major: dF/dU_left then dF/dU_right. The
          // flux leaves the left cell and enters the right one: row i gets
          // sign dF/dU_i in its own block and sign dF/dU_o in o's, and row
          // o gets -sign dF/dU_i in i's (whose transpose is row i's of A^T).
          const double sign = fside(q) == 0 ? 1.0 : -1.0;
          const int own_side = fside(q) == 0 ? 0 : nv, other_side = nv - own_side;
          double* across = o >= 0 ? &values(o * bb) : nullptr;
          for (int r = 0; r < nv; ++r)
            for (int c = 0; c < nv; ++c) {
              // Entry (r, c) of the block, column-major.
              if (!transpose) {
                d[c * nv + r] += sign * J((f * nv + r) * 2 * nv + own_side + c);
                if (across != nullptr)
                  across[c * nv + r] += sign * J((f * nv + r) * 2 * nv + other_side + c);
              } else {
                const double own = J((f * nv + c) * 2 * nv + own_side + r);
                d[c * nv + r] += sign * own;
                if (across != nullptr) across[c * nv + r] -= sign * own;
              }
            }
        }
      });
}

MatrixFreeNewton::MatrixFreeNewton(const Discretization& disc, Tensor& state)
    : disc_(&disc), state_(&state), direction_({disc.n_local(), disc.n_vars()}),
      shift_("camber::euler::ptc_shift", static_cast<size_t>(disc.n_owned())) {}

void MatrixFreeNewton::set(const Discretization& active, const Kokkos::View<double*>& shift) {
  disc_ = &active;
  Kokkos::deep_copy(shift_, shift);
}

void MatrixFreeNewton::apply(lin::ConstVector x, lin::Vector y) const {
  const index_t n = local_size();
  Kokkos::deep_copy(Kokkos::subview(direction_.view(), std::make_pair(index_t{0}, n)), x);
  direction_.mark_modified();
  disc_->residual_and_tangent(*state_, direction_, residual_, tangent_);
  const Kokkos::View<double*> t = tangent_.view();
  const Kokkos::View<double*> s = shift_;
  const int nv = disc_->n_vars();
  Kokkos::parallel_for(
      "camber::euler::matrix_free_newton", Range(0, n),
      KOKKOS_LAMBDA(const index_t e) { y(e) = t(e) + s(e / nv) * x(e); });
}

MatrixFreeTranspose::MatrixFreeTranspose(const ResidualTranspose& transpose,
                                         const Discretization& disc)
    : transpose_(&transpose), n_(disc.n_owned() * disc.n_vars()),
      in_({disc.n_local(), disc.n_vars()}), out_({disc.n_local(), disc.n_vars()}) {}

void MatrixFreeTranspose::apply(lin::ConstVector x, lin::Vector y) const {
  const auto owned = std::make_pair(index_t{0}, n_);
  Kokkos::deep_copy(Kokkos::subview(in_.view(), owned), x);
  in_.mark_modified();
  transpose_->apply(in_, out_);
  Kokkos::deep_copy(y, Kokkos::subview(out_.view(), owned));
}

}  // namespace camber::solvers::euler::detail
