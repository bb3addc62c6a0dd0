#include <camber/solvers/petsc/block_ilu.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>

#include <camber/core/error.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>

namespace camber::solvers::petsc {
namespace {

using i64 = std::int64_t;
using HostRange = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;

// ---------------------------------------------------------------------------
// PETSc's reverse Cuthill-McKee order (MatGetOrdering, SPARSPAK's genrcm on
// the pattern made symmetric) of one block: the order PETSc's own ILU takes
// for the block's matrix, so that one block is PETSc's factor. Returns
// position -> number in the block. Not thread-safe (PETSc): called for the
// blocks one after the other.
// ---------------------------------------------------------------------------
std::vector<i64> petsc_rcm_order(const i64* ia, const i64* ja, i64 n_rows, int p,
                                 const std::vector<int>& owner, const std::vector<i64>& index,
                                 i64 n) {
  std::vector<PetscInt> ptr(1, 0), cols;
  for (i64 r = 0; r < n_rows; ++r) {
    if (owner[static_cast<size_t>(r)] != p) continue;
    for (i64 e = ia[r]; e < ia[r + 1]; ++e)
      if (owner[static_cast<size_t>(ja[e])] == p)
        cols.push_back(static_cast<PetscInt>(index[static_cast<size_t>(ja[e])]));
    ptr.push_back(static_cast<PetscInt>(cols.size()));
  }
  std::vector<PetscScalar> ones(cols.size(), 1.0);
  Mat graph = nullptr;
  CAMBER_CHECK_PETSC(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, static_cast<PetscInt>(n),
                                               static_cast<PetscInt>(n), ptr.data(), cols.data(),
                                               ones.data(), &graph));
  IS rows = nullptr, columns = nullptr;
  const PetscErrorCode ordered = MatGetOrdering(graph, MATORDERINGRCM, &rows, &columns);
  std::vector<i64> order(static_cast<size_t>(n));
  if (ordered == 0) {
    const PetscInt* indices = nullptr;
    CAMBER_CHECK_PETSC(ISGetIndices(rows, &indices));
    std::copy(indices, indices + n, order.begin());
    CAMBER_CHECK_PETSC(ISRestoreIndices(rows, &indices));
    CAMBER_CHECK_PETSC(ISDestroy(&rows));
    CAMBER_CHECK_PETSC(ISDestroy(&columns));
  }
  CAMBER_CHECK_PETSC(MatDestroy(&graph));
  CAMBER_CHECK_PETSC(ordered);
  return order;
}

// ---------------------------------------------------------------------------
// The graph of A's pattern made symmetric (A + A^T, no diagonal, each edge
// in both directions once), as METIS takes it: a stencil Jacobian's
// pattern need not be symmetric. Only rows r and columns c with keep(r)
// and keep(c); vertex v is index[v].
// ---------------------------------------------------------------------------
struct Graph {
  std::vector<i64> xadj, adjncy;
};

template <class Keep>
Graph symmetric_graph(const i64* ia, const i64* ja, i64 n_rows, i64 n, Keep keep,
                      const std::vector<i64>& index) {
  Graph g;
  std::vector<i64> count(static_cast<size_t>(n) + 1, 0), adj;
  for (i64 r = 0; r < n_rows; ++r) {
    if (!keep(r)) continue;
    for (i64 e = ia[r]; e < ia[r + 1]; ++e)
      if (ja[e] != r && keep(ja[e])) {
        ++count[static_cast<size_t>(index[static_cast<size_t>(r)]) + 1];
        ++count[static_cast<size_t>(index[static_cast<size_t>(ja[e])]) + 1];
      }
  }
  std::partial_sum(count.begin(), count.end(), count.begin());
  adj.resize(static_cast<size_t>(count.back()));
  std::vector<i64> fill(count.begin(), count.end() - 1);
  for (i64 r = 0; r < n_rows; ++r) {
    if (!keep(r)) continue;
    for (i64 e = ia[r]; e < ia[r + 1]; ++e)
      if (ja[e] != r && keep(ja[e])) {
        const i64 u = index[static_cast<size_t>(r)], w = index[static_cast<size_t>(ja[e])];
        adj[static_cast<size_t>(fill[static_cast<size_t>(u)]++)] = w;
        adj[static_cast<size_t>(fill[static_cast<size_t>(w)]++)] = u;
      }
  }
  g.xadj.assign(1, 0);
  g.adjncy.reserve(adj.size());
  for (i64 v = 0; v < n; ++v) {
    auto b = adj.begin() + count[static_cast<size_t>(v)];
    auto e = adj.begin() + count[static_cast<size_t>(v) + 1];
    std::sort(b, e);
    g.adjncy.insert(g.adjncy.end(), b, std::unique(b, e));
    g.xadj.push_back(static_cast<i64>(g.adjncy.size()));
  }
  return g;
}

// ---------------------------------------------------------------------------
// The symbolic factorization of one block (the local rows r with
// owner[r] == p, index[r] their number in the block): ILU(levels) by levels
// of fill (Saad, Iterative Methods for Sparse Linear Systems, 2nd ed.,
// section 10.3.3): fill (i, j) from pivot k gets level lev(i, k) + lev(k,
// j) + 1 and is kept up to `levels`; each row is a sorted linked list grown
// while the pivots are taken in increasing order.
// ---------------------------------------------------------------------------
void analyse_part(BlockIlu::Part& part, const std::vector<i64>& rows, int p,
                  const std::vector<int>& owner, const std::vector<i64>& index, const i64* ia,
                  const i64* ja, std::vector<i64> order, int levels, int bs) {
  const i64 n = static_cast<i64>(rows.size());
  part.n = n;
  const auto in_block = [&](i64 c) { return owner[static_cast<size_t>(c)] == p; };
  if (order.empty()) {  // natural: the rows ascending
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), i64{0});
  }
  part.perm.resize(static_cast<size_t>(n));
  std::vector<i64> iperm(static_cast<size_t>(n));
  for (i64 i = 0; i < n; ++i) {
    part.perm[static_cast<size_t>(i)] = rows[static_cast<size_t>(order[static_cast<size_t>(i)])];
    iperm[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  }

  constexpr i64 unset = std::numeric_limits<i64>::max();
  const i64 end = n;  // the lists' end marker, after every position
  std::vector<i64> next(static_cast<size_t>(n) + 1, end), lev(static_cast<size_t>(n), unset),
      src(static_cast<size_t>(n), -1), initial;
  // The factor's pattern by rows (entry e of row i in [ptr[i], ptr[i + 1]),
  // columns ascending, diagonal at diag[i]), laid out for the sweeps below.
  std::vector<i64> ptr(1, 0), diag, col, source, entry_level;
  for (i64 i = 0; i < n; ++i) {
    const i64 r = part.perm[static_cast<size_t>(i)];
    initial.clear();
    for (i64 e = ia[r]; e < ia[r + 1]; ++e) {
      if (!in_block(ja[e])) continue;
      const i64 j = iperm[static_cast<size_t>(index[static_cast<size_t>(ja[e])])];
      initial.push_back(j);
      lev[static_cast<size_t>(j)] = 0;
      src[static_cast<size_t>(j)] = e;
    }
    if (lev[static_cast<size_t>(i)] == unset) {  // a diagonal the matrix does not store
      initial.push_back(i);
      lev[static_cast<size_t>(i)] = 0;
    }
    std::sort(initial.begin(), initial.end());
    i64 head = initial.front();
    for (size_t q = 0; q + 1 < initial.size(); ++q)
      next[static_cast<size_t>(initial[q])] = initial[q + 1];
    next[static_cast<size_t>(initial.back())] = end;

    for (i64 k = head; k < i; k = next[static_cast<size_t>(k)]) {
      const i64 lk = lev[static_cast<size_t>(k)];
      if (lk >= levels) continue;  // all its fill would be above the level kept
      i64 cursor = k;
      for (i64 f = diag[static_cast<size_t>(k)] + 1; f < ptr[static_cast<size_t>(k) + 1]; ++f) {
        const i64 j = col[static_cast<size_t>(f)];
        const i64 l = lk + entry_level[static_cast<size_t>(f)] + 1;
        if (l > levels) continue;
        if (lev[static_cast<size_t>(j)] == unset) {
          while (next[static_cast<size_t>(cursor)] < j) cursor = next[static_cast<size_t>(cursor)];
          next[static_cast<size_t>(j)] = next[static_cast<size_t>(cursor)];
          next[static_cast<size_t>(cursor)] = j;
          lev[static_cast<size_t>(j)] = l;
        } else {
          lev[static_cast<size_t>(j)] = std::min(lev[static_cast<size_t>(j)], l);
        }
        cursor = j;
      }
    }
    for (i64 j = head; j != end; j = next[static_cast<size_t>(j)]) {
      if (j == i) diag.push_back(static_cast<i64>(col.size()));
      col.push_back(j);
      source.push_back(src[static_cast<size_t>(j)]);
      entry_level.push_back(lev[static_cast<size_t>(j)]);
      lev[static_cast<size_t>(j)] = unset;
      src[static_cast<size_t>(j)] = -1;
    }
    ptr.push_back(static_cast<i64>(col.size()));
  }

  // Storage: every row's strictly lower part in row order, then every row's
  // diagonal and upper part in reverse row order, so that the forward and
  // the backward sweep each read one contiguous stream (PETSc's BAIJ factors
  // are laid out the same way; interleaved rows were 4x slower to apply).
  const size_t entries = col.size();
  part.lptr.assign(static_cast<size_t>(n) + 1, 0);
  for (i64 i = 0; i < n; ++i)
    part.lptr[static_cast<size_t>(i) + 1] =
        part.lptr[static_cast<size_t>(i)] + (diag[static_cast<size_t>(i)] - ptr[static_cast<size_t>(i)]);
  part.ubegin.assign(static_cast<size_t>(n), 0);
  part.uend.assign(static_cast<size_t>(n), 0);
  i64 at = part.lptr.back();
  for (i64 i = n - 1; i >= 0; --i) {
    part.ubegin[static_cast<size_t>(i)] = at;
    at += ptr[static_cast<size_t>(i) + 1] - diag[static_cast<size_t>(i)];
    part.uend[static_cast<size_t>(i)] = at;
  }
  part.col.assign(entries, 0);
  part.source.assign(entries, -1);
  for (i64 i = 0; i < n; ++i)
    for (i64 e = ptr[static_cast<size_t>(i)]; e < ptr[static_cast<size_t>(i) + 1]; ++e) {
      const i64 d = diag[static_cast<size_t>(i)];
      const i64 position = e < d ? part.lptr[static_cast<size_t>(i)] + (e - ptr[static_cast<size_t>(i)])
                                 : part.ubegin[static_cast<size_t>(i)] + (e - d);
      part.col[static_cast<size_t>(position)] = col[static_cast<size_t>(e)];
      part.source[static_cast<size_t>(position)] = source[static_cast<size_t>(e)];
    }
  part.value.assign(entries * static_cast<size_t>(bs * bs), 0.0);
  part.work.assign(static_cast<size_t>(n * bs), 0.0);
  part.marker.assign(static_cast<size_t>(n), -1);
}

// ---------------------------------------------------------------------------
// Dense bs x bs blocks, column-major as PETSc's BAIJ stores them.
// ---------------------------------------------------------------------------

// c = a b
template <int BS>
inline void block_product(const double* a, const double* b, double* c) {
  for (int j = 0; j < BS; ++j)
    for (int i = 0; i < BS; ++i) {
      double s = 0.0;
      for (int k = 0; k < BS; ++k) s += a[i + k * BS] * b[k + j * BS];
      c[i + j * BS] = s;
    }
}

// c -= a b (c is not a or b)
template <int BS>
inline void block_subtract_product(const double* __restrict a, const double* __restrict b,
                                   double* __restrict c) {
  for (int j = 0; j < BS; ++j) {
    double cj[BS];
    for (int i = 0; i < BS; ++i) cj[i] = c[i + j * BS];
    for (int k = 0; k < BS; ++k) {
      const double bkj = b[k + j * BS];
      for (int i = 0; i < BS; ++i) cj[i] -= a[i + k * BS] * bkj;
    }
    for (int i = 0; i < BS; ++i) c[i + j * BS] = cj[i];
  }
}

// a := a^-1 by Gauss-Jordan elimination with partial pivoting; false when a
// pivot is zero or not finite (a is then left as it was).
template <int BS>
bool invert_block(double* a) {
  double m[BS * BS], inv[BS * BS];
  std::copy(a, a + BS * BS, m);
  for (int i = 0; i < BS * BS; ++i) inv[i] = 0.0;
  for (int i = 0; i < BS; ++i) inv[i + i * BS] = 1.0;
  for (int c = 0; c < BS; ++c) {
    int p = c;
    for (int r = c + 1; r < BS; ++r)
      if (std::abs(m[r + c * BS]) > std::abs(m[p + c * BS])) p = r;
    const double pivot = m[p + c * BS];
    if (pivot == 0.0 || !std::isfinite(pivot)) return false;
    if (p != c)
      for (int j = 0; j < BS; ++j) {
        std::swap(m[p + j * BS], m[c + j * BS]);
        std::swap(inv[p + j * BS], inv[c + j * BS]);
      }
    const double s = 1.0 / pivot;
    for (int j = 0; j < BS; ++j) {
      m[c + j * BS] *= s;
      inv[c + j * BS] *= s;
    }
    for (int r = 0; r < BS; ++r) {
      if (r == c) continue;
      const double f = m[r + c * BS];
      if (f == 0.0) continue;
      for (int j = 0; j < BS; ++j) {
        m[r + j * BS] -= f * m[c + j * BS];
        inv[r + j * BS] -= f * inv[c + j * BS];
      }
    }
  }
  std::copy(inv, inv + BS * BS, a);
  return true;
}

// The numeric factorization of one block (row by row, IKJ): L_ik = A_ik
// U_kk^-1 for each pivot k < i in the row, then A_ij -= L_ik U_kj where (i,
// j) is in the pattern; the diagonal block is stored inverted.
template <int BS>
bool factor_part(BlockIlu::Part& part, const double* a) {
  constexpr int B2 = BS * BS;
  double* v = part.value.data();
  const size_t entries = part.col.size();
  for (size_t e = 0; e < entries; ++e) {
    const i64 s = part.source[e];
    if (s >= 0)
      std::copy(a + s * B2, a + (s + 1) * B2, v + e * B2);
    else
      std::fill(v + e * B2, v + (e + 1) * B2, 0.0);
  }
  i64* marker = part.marker.data();
  const i64* col = part.col.data();
  const i64* lptr = part.lptr.data();
  const i64* ubegin = part.ubegin.data();
  const i64* uend = part.uend.data();
  double l[B2];
  bool ok = true;
  for (i64 i = 0; i < part.n && ok; ++i) {
    for (i64 e = lptr[i]; e < lptr[i + 1]; ++e) marker[col[e]] = e;
    for (i64 e = ubegin[i]; e < uend[i]; ++e) marker[col[e]] = e;
    for (i64 e = lptr[i]; e < lptr[i + 1]; ++e) {
      const i64 k = col[e];
      block_product<BS>(v + e * B2, v + ubegin[k] * B2, l);  // U_kk^-1 first in U's row
      std::copy(l, l + B2, v + e * B2);
      for (i64 f = ubegin[k] + 1; f < uend[k]; ++f) {
        const i64 m = marker[col[f]];
        if (m >= 0) block_subtract_product<BS>(l, v + f * B2, v + m * B2);
      }
    }
    ok = invert_block<BS>(v + ubegin[i] * B2);
    for (i64 e = lptr[i]; e < lptr[i + 1]; ++e) marker[col[e]] = -1;
    for (i64 e = ubegin[i]; e < uend[i]; ++e) marker[col[e]] = -1;
  }
  return ok;
}

// What the sweeps over one block's factor read and write.
struct Sweep {
  explicit Sweep(const BlockIlu::Part& part)
      : v(part.value.data()), t(part.work.data()), col(part.col.data()),
        lptr(part.lptr.data()), ubegin(part.ubegin.data()), uend(part.uend.data()),
        perm(part.perm.data()) {}
  const double* v;
  double* t;
  const i64 *col, *lptr, *ubegin, *uend, *perm;
};

// s -= sum over the entries e in [begin, end) of block e times t's
// segment col[e]; each block's dot products first, so that one subtraction
// per block depends on the one before.
template <int BS>
inline void subtract_row(const double* __restrict v, const double* __restrict t,
                         const i64* __restrict col, i64 begin, i64 end, double* __restrict s) {
  constexpr int B2 = BS * BS;
  for (i64 e = begin; e < end; ++e) {
    const double* a = v + e * B2;
    const double* tc = t + col[e] * BS;
    for (int q = 0; q < BS; ++q) {
      double dot = 0.0;
      for (int k = 0; k < BS; ++k) dot += a[q + k * BS] * tc[k];
      s[q] -= dot;
    }
  }
}

// y = (LU)^-1 x on one block: forward sweep with the unit lower factor,
// backward sweep with the upper one (its diagonal blocks inverted). Each
// row's sum is kept in a local array (no stores through pointers that may
// alias the factor) so that the block products vectorize.
template <int BS>
void apply_part(const BlockIlu::Part& part, const double* __restrict x, double* __restrict y) {
  constexpr int B2 = BS * BS;
  const Sweep z(part);
  double s[BS];
  for (i64 i = 0; i < part.n; ++i) {
    const double* xi = x + z.perm[i] * BS;
    for (int q = 0; q < BS; ++q) s[q] = xi[q];
    subtract_row<BS>(z.v, z.t, z.col, z.lptr[i], z.lptr[i + 1], s);
    for (int q = 0; q < BS; ++q) z.t[i * BS + q] = s[q];
  }
  for (i64 i = part.n - 1; i >= 0; --i) {
    for (int q = 0; q < BS; ++q) s[q] = z.t[i * BS + q];
    subtract_row<BS>(z.v, z.t, z.col, z.ubegin[i] + 1, z.uend[i], s);
    const double* d = z.v + z.ubegin[i] * B2;
    double r[BS] = {};
    for (int k = 0; k < BS; ++k)
      for (int q = 0; q < BS; ++q) r[q] += d[q + k * BS] * s[k];
    double* yi = y + z.perm[i] * BS;
    for (int q = 0; q < BS; ++q) {
      z.t[i * BS + q] = r[q];
      yi[q] = r[q];
    }
  }
}

// y = (LU)^-T x on one block: U^T is lower triangular, L^T unit upper;
// both sweeps go by columns of the stored rows (each row's blocks,
// transposed, subtracted from the entries they reach).
template <int BS>
void apply_transpose_part(const BlockIlu::Part& part, const double* __restrict x,
                          double* __restrict y) {
  constexpr int B2 = BS * BS;
  const Sweep z(part);
  const auto subtract_transposed = [&](i64 begin, i64 end, const double* w) {
    for (i64 e = begin; e < end; ++e) {
      const double* a = z.v + e * B2;
      double* tc = z.t + z.col[e] * BS;
      for (int q = 0; q < BS; ++q) {
        double dot = 0.0;
        for (int k = 0; k < BS; ++k) dot += a[k + q * BS] * w[k];
        tc[q] -= dot;
      }
    }
  };
  for (i64 i = 0; i < part.n; ++i)
    for (int q = 0; q < BS; ++q) z.t[i * BS + q] = x[z.perm[i] * BS + q];
  double w[BS];
  for (i64 i = 0; i < part.n; ++i) {  // U^T w = t
    const double* d = z.v + z.ubegin[i] * B2;
    for (int q = 0; q < BS; ++q) {
      double dot = 0.0;
      for (int k = 0; k < BS; ++k) dot += d[k + q * BS] * z.t[i * BS + k];
      w[q] = dot;
    }
    for (int q = 0; q < BS; ++q) z.t[i * BS + q] = w[q];
    subtract_transposed(z.ubegin[i] + 1, z.uend[i], w);
  }
  for (i64 i = part.n - 1; i >= 0; --i) {  // L^T y = w
    for (int q = 0; q < BS; ++q) w[q] = z.t[i * BS + q];
    subtract_transposed(z.lptr[i], z.lptr[i + 1], w);
    for (int q = 0; q < BS; ++q) y[z.perm[i] * BS + q] = w[q];
  }
}

template <template <int> class Op, class... Args>
auto dispatch(int bs, Args&&... args) {
  switch (bs) {
    case 1: return Op<1>::run(std::forward<Args>(args)...);
    case 2: return Op<2>::run(std::forward<Args>(args)...);
    case 3: return Op<3>::run(std::forward<Args>(args)...);
    case 4: return Op<4>::run(std::forward<Args>(args)...);
    default: return Op<5>::run(std::forward<Args>(args)...);
  }
}
template <int BS>
struct FactorOp {
  static bool run(BlockIlu::Part& part, const double* a) { return factor_part<BS>(part, a); }
};
template <int BS>
struct ApplyOp {
  static void run(const BlockIlu::Part& part, const double* x, double* y) {
    apply_part<BS>(part, x, y);
  }
};
template <int BS>
struct ApplyTransposeOp {
  static void run(const BlockIlu::Part& part, const double* x, double* y) {
    apply_transpose_part<BS>(part, x, y);
  }
};

// The rank-local diagonal part of A, which must be block AIJ.
Mat diagonal_part(Mat A) {
  Mat ad = nullptr;
  CAMBER_CHECK_PETSC(MatGetDiagonalBlock(A, &ad));
  PetscBool baij = PETSC_FALSE;
  CAMBER_CHECK_PETSC(
      PetscObjectTypeCompare(reinterpret_cast<PetscObject>(ad), MATSEQBAIJ, &baij));
  CAMBER_REQUIRE(baij, "BlockIlu: the matrix's local part is not MATSEQBAIJ (MATBAIJ matrices only)");
  return ad;
}

PetscErrorCode shell_setup(PC pc) {
  void* context = nullptr;
  PetscCall(PCShellGetContext(pc, &context));
  Mat operator_matrix = nullptr, preconditioning_matrix = nullptr;
  PetscCall(PCGetOperators(pc, &operator_matrix, &preconditioning_matrix));
  try {
    if (!static_cast<BlockIlu*>(context)->factor(preconditioning_matrix))
      PetscCall(PCSetFailedReason(pc, PC_FACTOR_NUMERIC_ZEROPIVOT));
  } catch (const std::exception& e) {
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", e.what());
  }
  return 0;
}

template <bool Transpose>
PetscErrorCode shell_apply(PC pc, Vec x, Vec y) {
  void* context = nullptr;
  PetscCall(PCShellGetContext(pc, &context));
  PCFailedReason reason = PC_NOERROR;
  PetscCall(PCGetFailedReason(pc, &reason));
  if (reason != PC_NOERROR) {  // no usable factor: PETSc's own answer to a failed one
    PetscCall(VecSetInf(y));
    return 0;
  }
  const PetscScalar* xa = nullptr;
  PetscScalar* ya = nullptr;
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
  const auto* ilu = static_cast<const BlockIlu*>(context);
  if (Transpose)
    ilu->apply_transpose(xa, ya);
  else
    ilu->apply(xa, ya);
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  return 0;
}

}  // namespace

BlockIlu::BlockIlu(BlockIluOptions options) : options_(options) {
  CAMBER_REQUIRE(options_.levels >= 0, "BlockIlu: levels must be >= 0, got " << options_.levels);
  CAMBER_REQUIRE(options_.blocks >= 0, "BlockIlu: blocks must be >= 0, got " << options_.blocks);
}

std::size_t BlockIlu::factor_blocks() const {
  std::size_t total = 0;
  for (const Part& p : parts_) total += p.col.size();
  return total;
}

void BlockIlu::analyse(const i64* ia, const i64* ja, i64 n) {
  const i64 wanted = options_.blocks > 0
                         ? options_.blocks
                         : static_cast<i64>(Kokkos::DefaultHostExecutionSpace().concurrency());
  const i64 count = n > 0 ? std::clamp<i64>(wanted, 1, n) : 0;
  // The blocks: a graph partition of the rows (METIS, fixed seed: few
  // couplings cut, so that the blocks' ILU loses little; contiguous ranges
  // of Camber's space-filling-curve order were measured to cut worse:
  // docs/performance.md), rows ascending within each block.
  std::vector<int> owner(static_cast<size_t>(n), 0);
  if (count > 1) {
    std::vector<i64> identity(static_cast<size_t>(n));
    std::iota(identity.begin(), identity.end(), i64{0});
    const Graph g = symmetric_graph(ia, ja, n, n, [](i64) { return true; }, identity);
    owner = par::partition_graph(g.xadj, g.adjncy, static_cast<int>(count));
  }
  std::vector<std::vector<i64>> rows(static_cast<size_t>(count));
  std::vector<i64> index(static_cast<size_t>(n));
  for (i64 r = 0; r < n; ++r) {
    std::vector<i64>& block = rows[static_cast<size_t>(owner[static_cast<size_t>(r)])];
    index[static_cast<size_t>(r)] = static_cast<i64>(block.size());
    block.push_back(r);
  }
  std::vector<std::vector<i64>> orders(static_cast<size_t>(count));
  if (options_.ordering == IluOrdering::rcm)
    for (i64 p = 0; p < count; ++p)
      orders[static_cast<size_t>(p)] =
          petsc_rcm_order(ia, ja, n, static_cast<int>(p), owner, index,
                          static_cast<i64>(rows[static_cast<size_t>(p)].size()));
  parts_.assign(static_cast<size_t>(count), Part{});
  block_of_row_ = owner;
  const int levels = options_.levels, bs = bs_;
  std::vector<Part>& parts = parts_;
  Kokkos::parallel_for("camber::BlockIlu::analyse", HostRange(0, count), [&](i64 p) {
    analyse_part(parts[static_cast<size_t>(p)], rows[static_cast<size_t>(p)], static_cast<int>(p),
                 owner, index, ia, ja, std::move(orders[static_cast<size_t>(p)]), levels, bs);
  });
  Kokkos::DefaultHostExecutionSpace().fence();
}

bool BlockIlu::factor(Mat A) {
  Mat ad = diagonal_part(A);
  PetscInt bs = 0;
  CAMBER_CHECK_PETSC(MatGetBlockSize(ad, &bs));
  CAMBER_REQUIRE(bs >= 1 && bs <= 5, "BlockIlu: block size " << bs << " (1 to 5 supported)");
  PetscObjectId id = 0;
  CAMBER_CHECK_PETSC(PetscObjectGetId(reinterpret_cast<PetscObject>(ad), &id));
  PetscObjectState state = 0;
  CAMBER_CHECK_PETSC(MatGetNonzeroState(ad, &state));
  if (static_cast<i64>(id) != matrix_id_ || static_cast<i64>(state) != nonzero_state_ ||
      bs != bs_) {
    const PetscInt *ia = nullptr, *ja = nullptr;
    PetscInt n = 0;
    PetscBool done = PETSC_FALSE;
    CAMBER_CHECK_PETSC(MatGetRowIJ(ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
    CAMBER_REQUIRE(done, "BlockIlu: PETSc gave no block rows");
    const i64 rows = n;
    std::vector<i64> ia64(ia, ia + rows + 1), ja64(ja, ja + ia[rows]);
    CAMBER_CHECK_PETSC(MatRestoreRowIJ(ad, 0, PETSC_FALSE, PETSC_TRUE, &n, &ia, &ja, &done));
    bs_ = static_cast<int>(bs);
    n_ = rows;
    analyse(ia64.data(), ja64.data(), rows);
    matrix_id_ = static_cast<i64>(id);
    nonzero_state_ = static_cast<i64>(state);
  }
  PetscScalar* a = nullptr;
  CAMBER_CHECK_PETSC(MatSeqBAIJGetArray(ad, &a));
  int failed = 0;
  std::vector<Part>& parts = parts_;
  const int block = bs_;
  Kokkos::parallel_reduce(
      "camber::BlockIlu::factor", HostRange(0, static_cast<i64>(parts.size())),
      [&](i64 p, int& bad) {
        if (!dispatch<FactorOp>(block, parts[static_cast<size_t>(p)], a)) bad += 1;
      },
      failed);
  CAMBER_CHECK_PETSC(MatSeqBAIJRestoreArray(ad, &a));
  return failed == 0;
}

void BlockIlu::apply(const double* x, double* y) const {
  const std::vector<Part>& parts = parts_;
  const int block = bs_;
  Kokkos::parallel_for("camber::BlockIlu::apply", HostRange(0, static_cast<i64>(parts.size())),
                       [&](i64 p) { dispatch<ApplyOp>(block, parts[static_cast<size_t>(p)], x, y); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

void BlockIlu::apply_transpose(const double* x, double* y) const {
  const std::vector<Part>& parts = parts_;
  const int block = bs_;
  Kokkos::parallel_for(
      "camber::BlockIlu::apply_transpose", HostRange(0, static_cast<i64>(parts.size())),
      [&](i64 p) { dispatch<ApplyTransposeOp>(block, parts[static_cast<size_t>(p)], x, y); });
  Kokkos::DefaultHostExecutionSpace().fence();
}

void BlockIlu::attach(PC pc) {
  CAMBER_CHECK_PETSC(PCSetType(pc, PCSHELL));
  CAMBER_CHECK_PETSC(PCShellSetContext(pc, this));
  CAMBER_CHECK_PETSC(PCShellSetSetUp(pc, shell_setup));
  CAMBER_CHECK_PETSC(PCShellSetApply(pc, shell_apply<false>));
  CAMBER_CHECK_PETSC(PCShellSetApplyTranspose(pc, shell_apply<true>));
  CAMBER_CHECK_PETSC(PCShellSetName(pc, "camber::BlockIlu"));
}

std::unique_ptr<BlockIlu> block_ilu_from_options(const std::string& prefix, int blocks) {
  const std::string sub = "-" + prefix + "sub_pc_";
  char text[64] = "";
  PetscBool set = PETSC_FALSE;
  CAMBER_CHECK_PETSC(
      PetscOptionsGetString(nullptr, nullptr, (sub + "type").c_str(), text, sizeof text, &set));
  if (set && std::string(text) != PCILU) return nullptr;
  BlockIluOptions ilu;
  ilu.blocks = blocks;
  PetscInt levels = 0;
  CAMBER_CHECK_PETSC(
      PetscOptionsGetInt(nullptr, nullptr, (sub + "factor_levels").c_str(), &levels, &set));
  ilu.levels = set ? static_cast<int>(levels) : 0;
  CAMBER_CHECK_PETSC(PetscOptionsGetString(nullptr, nullptr,
                                           (sub + "factor_mat_ordering_type").c_str(), text,
                                           sizeof text, &set));
  const std::string ordering = set ? text : MATORDERINGNATURAL;
  if (ordering == MATORDERINGRCM)
    ilu.ordering = IluOrdering::rcm;
  else if (ordering != MATORDERINGNATURAL)
    return nullptr;
  return std::make_unique<BlockIlu>(ilu);
}

}  // namespace camber::solvers::petsc
