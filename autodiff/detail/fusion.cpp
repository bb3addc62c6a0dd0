#include "fusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>

// No two of an instruction's registers overlap (see compile()).
#if defined(__GNUC__) || defined(__clang__) || defined(__CUDACC__)
#define CAMBER_RESTRICT __restrict__
#else
#define CAMBER_RESTRICT
#endif

namespace camber::ad::detail {

// Defined with the shape ops: the adjoint of a slice as a differentiable op.
Var pad_var(const Var& g, const Shape& shape, int axis, index_t start);

const char* expr_op_name(ExprOp op) {
  switch (op) {
    case ExprOp::Leaf: return "leaf";
    case ExprOp::Const: return "const";
    case ExprOp::Add: return "add";
    case ExprOp::Sub: return "sub";
    case ExprOp::Mul: return "mul";
    case ExprOp::Div: return "div";
    case ExprOp::Pow: return "pow";
    case ExprOp::Ge: return "ge";
    case ExprOp::Select: return "where";
    case ExprOp::Neg: return "neg";
    case ExprOp::AddC: return "add_scalar";
    case ExprOp::MulC: return "mul_scalar";
    case ExprOp::PowC: return "pow_scalar";
    case ExprOp::Exp: return "exp";
    case ExprOp::Log: return "log";
    case ExprOp::Sqrt: return "sqrt";
    case ExprOp::Sin: return "sin";
    case ExprOp::Cos: return "cos";
    case ExprOp::SinCos: return "sincos";
    case ExprOp::Tanh: return "tanh";
    case ExprOp::Sigmoid: return "sigmoid";
    case ExprOp::Softplus: return "softplus";
    case ExprOp::Relu: return "relu";
    case ExprOp::Abs: return "abs";
    case ExprOp::Step: return "heaviside";
    case ExprOp::Sign: return "sign";
    case ExprOp::IsZero: return "is_zero";
  }
  return "?";
}

int expr_arity(ExprOp op) {
  switch (op) {
    case ExprOp::Leaf:
    case ExprOp::Const: return 0;
    case ExprOp::Add:
    case ExprOp::Sub:
    case ExprOp::Mul:
    case ExprOp::Div:
    case ExprOp::Pow:
    case ExprOp::Ge: return 2;
    case ExprOp::Select: return 3;
    default: return 1;
  }
}

bool expr_is_mask(ExprOp op) {
  return op == ExprOp::Ge || op == ExprOp::Step || op == ExprOp::Sign || op == ExprOp::IsZero;
}

namespace {

Shape row_major(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// Distinct nodes of the DAG under `args` plus one (iterative, no recursion).
std::int64_t count_nodes(const std::vector<ExprPtr>& args) {
  std::unordered_set<const Expr*> seen;
  std::vector<const Expr*> work;
  for (const ExprPtr& a : args)
    if (a) work.push_back(a.get());
  while (!work.empty()) {
    const Expr* e = work.back();
    work.pop_back();
    if (!seen.insert(e).second) continue;
    for (const ExprPtr& a : e->args)
      if (a) work.push_back(a.get());
  }
  return static_cast<std::int64_t>(seen.size()) + 1;
}

}  // namespace

std::vector<const Expr*> expr_topological(const std::vector<ExprPtr>& roots) {
  std::vector<const Expr*> order;
  std::unordered_set<const Expr*> done;
  struct Frame {
    const Expr* e;
    int next;
  };
  std::vector<Frame> stack;
  for (const ExprPtr& r : roots) {
    if (done.count(r.get())) continue;
    stack.push_back({r.get(), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < 3) {
        const Expr* a = f.e->args[f.next++].get();
        if (a && !done.count(a)) stack.push_back({a, 0});
        continue;
      }
      if (done.insert(f.e).second) order.push_back(f.e);
      stack.pop_back();
    }
  }
  return order;
}

// True when strides (one per axis of `shape`) address element i (row-major
// flat index) at i * step for one step: every axis of extent > 1 has stride
// step times its row-major stride.
bool affine_step(const Shape& shape, const Shape& strides, index_t& step) {
  const Shape os = row_major(shape);
  bool have = false;
  step = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (os[d] == 0) return false;  // an empty shape: nothing is addressed
    if (!have) {
      if (strides[d] % os[d] != 0) return false;
      step = strides[d] / os[d];
      have = true;
    }
    if (strides[d] != step * os[d]) return false;
  }
  return true;
}

namespace {
std::vector<const Expr*> topological(const std::vector<ExprPtr>& roots) {
  return expr_topological(roots);
}
}  // namespace

ExprPtr leaf_expr(const Var& v) {
  auto e = std::make_shared<Expr>();
  e->op = ExprOp::Leaf;
  e->value = v.value();
  CAMBER_REQUIRE(e->value.dtype() != DType::int64,
                 "an element-wise expression reads an int64 tensor of shape "
                     << shape_string(e->value.shape()) << "; convert it with Tensor::to()");
  e->dtype = e->value.dtype();
  e->shape = e->value.shape();
  e->strides = row_major(e->shape);
  e->version = e->value.version();
  return e;
}

ExprPtr const_expr(const Shape& shape, double c, DType dtype) {
  auto e = std::make_shared<Expr>();
  e->op = ExprOp::Const;
  e->dtype = dtype;
  e->c = c;
  e->shape = shape;
  return e;
}

ExprPtr op_expr(ExprOp op, const std::vector<ExprPtr>& args, double c) {
  CAMBER_REQUIRE(static_cast<int>(args.size()) == expr_arity(op),
                 "fused op " << expr_op_name(op) << ": " << args.size() << " arguments");
  auto e = std::make_shared<Expr>();
  e->op = op;
  e->c = c;
  e->shape = args.at(0)->shape;
  e->dtype = args[0]->dtype;
  for (size_t k = 0; k < args.size(); ++k) {
    CAMBER_REQUIRE(args[k]->dtype == e->dtype, "fused op " << expr_op_name(op) << ": dtypes "
                                                           << dtype_name(args[k]->dtype) << " and "
                                                           << dtype_name(e->dtype));
    CAMBER_REQUIRE(args[k]->shape == e->shape, "fused op " << expr_op_name(op) << ": shapes "
                                                           << shape_string(args[k]->shape)
                                                           << " and "
                                                           << shape_string(e->shape));
    e->args[k] = args[k];
  }
  std::int64_t size = 1;
  for (size_t k = 0; k < args.size(); ++k) {
    bool repeat = false;
    for (size_t j = 0; j < k; ++j) repeat = repeat || args[j] == args[k];
    if (!repeat) size += args[k]->size;
  }
  e->size = size > max_expr_size ? count_nodes(args) : size;
  return e;
}

namespace {

// Rebuilds the DAG with every node's shape replaced and each leaf's view
// changed by `leaf_view` (new offset/strides/adjoint in place).
template <class LeafView>
ExprPtr transform(const ExprPtr& root, const Shape& shape, const ExprLeaves& leaves,
                  ExprLeaves& out_leaves, LeafView leaf_view) {
  std::unordered_map<const Expr*, ExprPtr> done;
  std::unordered_map<const Expr*, size_t> leaf_index;
  for (size_t k = 0; k < leaves.exprs.size(); ++k) leaf_index.emplace(leaves.exprs[k].get(), k);
  out_leaves = {};
  for (const Expr* e : topological({root})) {
    auto n = std::make_shared<Expr>(*e);
    n->shape = shape;
    for (ExprPtr& a : n->args)
      if (a) a = done.at(a.get());
    if (e->op == ExprOp::Leaf) {
      leaf_view(*n);
      auto it = leaf_index.find(e);
      CAMBER_REQUIRE(it != leaf_index.end(), "fused expression: a leaf without its Var");
      out_leaves.exprs.push_back(n);
      out_leaves.vars.push_back(leaves.vars[it->second]);
    }
    done.emplace(e, std::move(n));
  }
  return done.at(root.get());
}

}  // namespace

ExprPtr broadcast_expr(const ExprPtr& e, const Shape& shape, const ExprLeaves& leaves,
                       ExprLeaves& out_leaves) {
  const Shape from = e->shape;
  const size_t shift = shape.size() - from.size();
  return transform(e, shape, leaves, out_leaves, [&](Expr& leaf) {
    Shape strides(shape.size(), 0);
    for (size_t d = 0; d < from.size(); ++d)
      strides[d + shift] = from[d] == 1 && shape[d + shift] != 1 ? 0 : leaf.strides[d];
    leaf.strides = std::move(strides);
    auto inner_view = leaf.view;
    leaf.view = [shape, inner_view](const Var& v) {
      return broadcast_to(inner_view ? inner_view(v) : v, shape);
    };
    auto inner = leaf.adjoint;
    leaf.adjoint = [from, inner](const Var& g) {
      Var r = sum_to_shape(g, from);
      return inner ? inner(r) : r;
    };
  });
}

ExprPtr slice_expr(const ExprPtr& e, int axis, index_t start, index_t stop,
                   const ExprLeaves& leaves, ExprLeaves& out_leaves) {
  const Shape from = e->shape;
  Shape shape = from;
  shape[static_cast<size_t>(axis)] = stop - start;
  return transform(e, shape, leaves, out_leaves, [&](Expr& leaf) {
    leaf.offset += start * leaf.strides[static_cast<size_t>(axis)];
    auto inner_view = leaf.view;
    leaf.view = [axis, start, stop, inner_view](const Var& v) {
      return slice(inner_view ? inner_view(v) : v, axis, start, stop);
    };
    auto inner = leaf.adjoint;
    leaf.adjoint = [from, axis, start, inner](const Var& g) {
      Var r = pad_var(g, from, axis, start);
      return inner ? inner(r) : r;
    };
  });
}

// ---- the register program -----------------------------------------------------

namespace {

struct Instr {
  std::uint8_t op;
  std::int32_t dst, a, b, c;  // registers; for Leaf, a is the leaf's index
  double imm;
};

struct LeafDesc {
  const void* data;
  int f32;  // float32 storage (else float64)
  index_t offset;
  index_t step;  // element i at offset + i * step, when affine
  int affine;
  index_t strides[max_tensor_rank];
};

struct ShapeInfo {
  int rank = 0;
  index_t extent[max_tensor_rank] = {};
  index_t stride[max_tensor_rank] = {};  // row-major strides of the DAG's shape
};

using InstrView = Kokkos::View<Instr*>;
using LeafView = Kokkos::View<LeafDesc*>;

struct Program {
  std::vector<Instr> code;
  std::vector<LeafDesc> leaves;
  std::vector<int> outputs;  // register of each root
  int n_regs = 0;
  ShapeInfo shape;
  index_t n = 0;
  std::vector<Tensor> keep;  // leaf storage, alive while the kernel runs
};

Program compile(const std::vector<ExprPtr>& roots) {
  Program p;
  const Shape& shape = roots.at(0)->shape;
  CAMBER_REQUIRE(shape.size() <= static_cast<size_t>(max_tensor_rank),
                 "fused expression of rank " << shape.size());
  p.shape.rank = static_cast<int>(shape.size());
  const Shape os = row_major(shape);
  for (size_t d = 0; d < shape.size(); ++d) {
    p.shape.extent[d] = shape[d];
    p.shape.stride[d] = os[d];
  }
  p.n = shape_size(shape);

  // Common subexpressions become one instruction: nodes with the same op,
  // constant and (representatives of) arguments, and leaves reading the same
  // elements. A derivative rebuilds its forward values as new nodes, and
  // tangent and cotangent rules repeat products, so a backward program has
  // many.
  std::vector<const Expr*> order;
  std::unordered_map<const Expr*, const Expr*> rep;
  {
    std::unordered_map<std::string, const Expr*> seen;
    for (const Expr* e : topological(roots)) {
      std::string key(1, static_cast<char>(e->op));
      auto put = [&key](const void* bytes, size_t n) {
        key.append(static_cast<const char*>(bytes), n);
      };
      put(&e->c, sizeof(double));
      const Expr* a[3] = {nullptr, nullptr, nullptr};
      for (int j = 0; j < 3; ++j)
        if (e->args[j]) a[j] = rep.at(e->args[j].get());
      if ((e->op == ExprOp::Add || e->op == ExprOp::Mul) && std::less<const Expr*>()(a[1], a[0]))
        std::swap(a[0], a[1]);
      put(a, sizeof(a));
      if (e->op == ExprOp::Leaf) {
        const void* data = e->value.raw_data();
        put(&data, sizeof(data));
        put(&e->offset, sizeof(index_t));
        put(e->strides.data(), e->strides.size() * sizeof(index_t));
      }
      auto it = seen.emplace(std::move(key), e).first;
      rep.emplace(e, it->second);
      if (it->second == e) order.push_back(e);
    }
  }
  auto arg = [&rep](const ExprPtr& a) { return rep.at(a.get()); };
  std::unordered_map<const Expr*, int> position;
  for (size_t k = 0; k < order.size(); ++k) position.emplace(order[k], static_cast<int>(k));
  std::vector<int> last_use(order.size(), -1);
  for (size_t k = 0; k < order.size(); ++k)
    for (const ExprPtr& a : order[k]->args)
      if (a) last_use[static_cast<size_t>(position.at(arg(a)))] = static_cast<int>(k);
  for (const ExprPtr& r : roots) last_use[static_cast<size_t>(position.at(arg(r)))] = INT32_MAX;

  // sin and cos of one argument (a sin and its derivative) are one sincos
  // call, which costs about one of them: partner[k] is the position of the
  // other half of node k's pair, or -1.
  std::vector<int> partner(order.size(), -1);
  {
    std::unordered_map<const Expr*, int> sin_of, cos_of;
    for (size_t k = 0; k < order.size(); ++k) {
      const Expr* e = order[k];
      if (e->op != ExprOp::Sin && e->op != ExprOp::Cos) continue;
      auto& mine = e->op == ExprOp::Sin ? sin_of : cos_of;
      auto& other = e->op == ExprOp::Sin ? cos_of : sin_of;
      const Expr* x = arg(e->args[0]);
      mine.emplace(x, static_cast<int>(k));
      auto it = other.find(x);
      if (it != other.end() && partner[static_cast<size_t>(it->second)] < 0) {
        partner[k] = it->second;
        partner[static_cast<size_t>(it->second)] = static_cast<int>(k);
      }
    }
  }

  std::vector<int> reg(order.size(), -1);
  std::vector<int> free_regs;
  std::unordered_map<const Expr*, int> leaf_slot;
  auto new_reg = [&]() {
    if (free_regs.empty()) return p.n_regs++;
    const int r = free_regs.back();
    free_regs.pop_back();
    return r;
  };
  for (size_t k = 0; k < order.size(); ++k) {
    const Expr* e = order[k];
    if (partner[k] >= 0 && reg[k] >= 0) {
      // Computed with its partner's sincos; its arguments may be free now.
      for (const ExprPtr& a : e->args) {
        if (!a) continue;
        const size_t q = static_cast<size_t>(position.at(arg(a)));
        if (last_use[q] == static_cast<int>(k) &&
            std::find(free_regs.begin(), free_regs.end(), reg[q]) == free_regs.end())
          free_regs.push_back(reg[q]);
      }
      continue;
    }
    Instr in{static_cast<std::uint8_t>(e->op), -1, -1, -1, -1, e->c};
    int* operand[3] = {&in.a, &in.b, &in.c};
    for (int j = 0; j < 3; ++j)
      if (e->args[j]) *operand[j] = reg[static_cast<size_t>(position.at(arg(e->args[j])))];
    if (e->op == ExprOp::Leaf) {
      CAMBER_REQUIRE(e->value.version() == e->version,
                     "a fused expression reads a tensor of shape "
                         << shape_string(e->value.shape())
                         << " that was changed in place after the expression was built (version "
                         << e->version << ", now " << e->value.version()
                         << "); ad::materialize() the result before changing its inputs, or "
                            "clone() them");
      auto it = leaf_slot.find(e);
      if (it == leaf_slot.end()) {
        LeafDesc L{};
        L.data = e->value.raw_data();
        L.f32 = e->value.dtype() == DType::float32 ? 1 : 0;
        L.offset = e->offset;
        for (size_t d = 0; d < shape.size(); ++d) L.strides[d] = e->strides[d];
        L.affine = affine_step(shape, e->strides, L.step) ? 1 : 0;
        it = leaf_slot.emplace(e, static_cast<int>(p.leaves.size())).first;
        p.leaves.push_back(L);
        p.keep.push_back(e->value);
      }
      in.a = it->second;
      in.b = in.c = -1;
    }
    // The result never shares a register with an argument, so the kernel's
    // loops see no aliasing and vectorize.
    in.dst = new_reg();
    reg[k] = in.dst;
    if (partner[k] >= 0) {
      // SinCos: sin into dst, cos into b (the partner's register).
      const int other = new_reg();
      reg[static_cast<size_t>(partner[k])] = other;
      const bool is_sin = e->op == ExprOp::Sin;
      in.op = static_cast<std::uint8_t>(ExprOp::SinCos);
      in.b = is_sin ? other : in.dst;
      in.dst = is_sin ? in.dst : other;
    }
    p.code.push_back(in);
    // Registers whose value this instruction read for the last time are free
    // for later results.
    for (int j = 0; j < 3; ++j) {
      if (!e->args[j]) continue;
      const size_t q = static_cast<size_t>(position.at(arg(e->args[j])));
      if (last_use[q] == static_cast<int>(k) &&
          std::find(free_regs.begin(), free_regs.end(), reg[q]) == free_regs.end())
        free_regs.push_back(reg[q]);
    }
  }
  for (const ExprPtr& r : roots) p.outputs.push_back(reg[static_cast<size_t>(position.at(arg(r)))]);
  return p;
}

// sin and cos of x in one call (glibc's and CUDA's sincos).
KOKKOS_INLINE_FUNCTION void sin_cos(double x, double* s, double* c) {
#if defined(__CUDA_ARCH__)
  sincos(x, s, c);
#else
  ::sincos(x, s, c);
#endif
}

KOKKOS_INLINE_FUNCTION double sigmoid_of(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + kmath::exp(-x));
  const double e = kmath::exp(x);
  return e / (1.0 + e);
}

// A leaf's elements into a register (float32 storage is widened: programs
// compute in double and round once when they store).
template <class T>
KOKKOS_INLINE_FUNCTION void load(const T* p, const LeafDesc& L, const ShapeInfo& shape,
                                 double* CAMBER_RESTRICT d, index_t i0, const index_t* flat,
                                 int cnt) {
  if (L.affine) {
    const index_t st = L.step;
    if (flat) {
      for (int j = 0; j < cnt; ++j) d[j] = static_cast<double>(p[flat[j] * st]);
    } else if (st == 1) {
      for (int j = 0; j < cnt; ++j) d[j] = static_cast<double>(p[i0 + j]);
    } else if (st == 0) {
      const double v = static_cast<double>(p[0]);
      for (int j = 0; j < cnt; ++j) d[j] = v;
    } else if (st == 2) {  // one component of pairs: a constant stride vectorizes
      const T* q = p + 2 * i0;
      for (int j = 0; j < cnt; ++j) d[j] = static_cast<double>(q[2 * j]);
    } else {
      for (int j = 0; j < cnt; ++j) d[j] = static_cast<double>(p[(i0 + j) * st]);
    }
  } else {
    for (int j = 0; j < cnt; ++j) {
      index_t rem = flat ? flat[j] : i0 + j, off = 0;
      for (int q = 0; q < shape.rank; ++q) {
        const index_t i = rem / shape.stride[q];
        rem -= i * shape.stride[q];
        off += i * L.strides[q];
      }
      d[j] = static_cast<double>(p[off]);
    }
  }
}

// Runs the program for `cnt` elements: element j has flat index
// flat ? flat[j] : i0 + j; register r of element j is regs[r * rs + j].
KOKKOS_INLINE_FUNCTION void run(const Instr* code, int n_code, const LeafDesc* leaves,
                                const ShapeInfo& shape, double* regs, index_t rs, index_t i0,
                                const index_t* flat, int cnt) {
  for (int k = 0; k < n_code; ++k) {
    const Instr in = code[k];
    double* CAMBER_RESTRICT d = regs + in.dst * rs;
    const bool leaf = static_cast<ExprOp>(in.op) == ExprOp::Leaf;
    const double* CAMBER_RESTRICT a = regs + (leaf || in.a < 0 ? 0 : in.a) * rs;
    const double* CAMBER_RESTRICT b = regs + (in.b < 0 ? 0 : in.b) * rs;
    const double* CAMBER_RESTRICT c = regs + (in.c < 0 ? 0 : in.c) * rs;
    const double s = in.imm;
    switch (static_cast<ExprOp>(in.op)) {
      case ExprOp::Leaf: {
        const LeafDesc& L = leaves[in.a];
        if (L.f32) {
          load(static_cast<const float*>(L.data) + L.offset, L, shape, d, i0, flat, cnt);
        } else {
          load(static_cast<const double*>(L.data) + L.offset, L, shape, d, i0, flat, cnt);
        }
        break;
      }
      case ExprOp::Const:
        for (int j = 0; j < cnt; ++j) d[j] = s;
        break;
      case ExprOp::Add:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] + b[j];
        break;
      case ExprOp::Sub:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] - b[j];
        break;
      case ExprOp::Mul:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] * b[j];
        break;
      case ExprOp::Div:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] / b[j];
        break;
      case ExprOp::Pow:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::pow(a[j], b[j]);
        break;
      case ExprOp::Ge:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] >= b[j] ? 1.0 : 0.0;
        break;
      case ExprOp::Select:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] != 0.0 ? b[j] : c[j];
        break;
      case ExprOp::Neg:
        for (int j = 0; j < cnt; ++j) d[j] = -a[j];
        break;
      case ExprOp::AddC:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] + s;
        break;
      case ExprOp::MulC:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] * s;
        break;
      case ExprOp::PowC:
        if (s == 2.0) {
          for (int j = 0; j < cnt; ++j) d[j] = a[j] * a[j];
        } else if (s == -1.0) {
          for (int j = 0; j < cnt; ++j) d[j] = 1.0 / a[j];
        } else {
          for (int j = 0; j < cnt; ++j) d[j] = kmath::pow(a[j], s);
        }
        break;
      case ExprOp::Exp:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::exp(a[j]);
        break;
      case ExprOp::Log:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::log(a[j]);
        break;
      case ExprOp::Sqrt:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::sqrt(a[j]);
        break;
      case ExprOp::Sin:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::sin(a[j]);
        break;
      case ExprOp::Cos:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::cos(a[j]);
        break;
      case ExprOp::SinCos: {
        double* CAMBER_RESTRICT e = regs + in.b * rs;
        for (int j = 0; j < cnt; ++j) sin_cos(a[j], d + j, e + j);
        break;
      }
      case ExprOp::Tanh:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::tanh(a[j]);
        break;
      case ExprOp::Sigmoid:
        for (int j = 0; j < cnt; ++j) d[j] = sigmoid_of(a[j]);
        break;
      case ExprOp::Softplus:
        for (int j = 0; j < cnt; ++j) {
          const double x = a[j];
          d[j] = (x > 0.0 ? x : 0.0) + kmath::log(1.0 + kmath::exp(-kmath::fabs(x)));
        }
        break;
      case ExprOp::Relu:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] > 0.0 ? a[j] : 0.0;
        break;
      case ExprOp::Abs:
        for (int j = 0; j < cnt; ++j) d[j] = kmath::fabs(a[j]);
        break;
      case ExprOp::Step:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] > 0.0 ? 1.0 : 0.0;
        break;
      case ExprOp::Sign:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] > 0.0 ? 1.0 : (a[j] < 0.0 ? -1.0 : 0.0);
        break;
      case ExprOp::IsZero:
        for (int j = 0; j < cnt; ++j) d[j] = a[j] == 0.0 ? 1.0 : 0.0;
        break;
    }
  }
}

constexpr bool host_backend =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                               Kokkos::DefaultExecutionSpace::memory_space>::accessible;
// Registers a GPU thread keeps in local memory; larger programs keep them in
// a global scratch array.
constexpr int device_regs = 64;
constexpr int max_outputs = 8;

using Token = Kokkos::Experimental::UniqueToken<Kokkos::DefaultExecutionSpace,
                                                Kokkos::Experimental::UniqueTokenScope::Global>;

// Elements per tile on the host: registers of one tile stay within 256 KiB.
int host_tile(int n_regs) {
  const int t = 32768 / std::max(n_regs, 1);
  return std::max(8, std::min(256, t / 8 * 8));
}

struct DeviceProgram {
  InstrView code;
  LeafView leaves;
  int n_code = 0;
  int n_regs = 0;
  ShapeInfo shape;
  int outputs[max_outputs] = {};
  int n_outputs = 0;

  explicit DeviceProgram(const Program& p) {
    n_code = static_cast<int>(p.code.size());
    n_regs = p.n_regs;
    shape = p.shape;
    CAMBER_REQUIRE(p.outputs.size() <= static_cast<size_t>(max_outputs),
                   "fused evaluation of " << p.outputs.size() << " outputs");
    n_outputs = static_cast<int>(p.outputs.size());
    for (int k = 0; k < n_outputs; ++k) outputs[k] = p.outputs[static_cast<size_t>(k)];
    code = InstrView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::code"),
                     p.code.size());
    leaves = LeafView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::leaves"),
                      std::max<size_t>(p.leaves.size(), 1));
    // Straight from the host vectors: no mirror allocation (on a GPU a
    // mirror would be a host allocation and an initialization pass).
    using HostCode = Kokkos::View<const Instr*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    using HostLeaves = Kokkos::View<const LeafDesc*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    Kokkos::deep_copy(code, HostCode(p.code.data(), p.code.size()));
    if (!p.leaves.empty())
      Kokkos::deep_copy(Kokkos::subview(leaves, std::make_pair<size_t, size_t>(0, p.leaves.size())),
                        HostLeaves(p.leaves.data(), p.leaves.size()));
  }
};

// Where a kernel writes root k's element i: data[offset + i * step] when
// affine, else data[offset + sum i_d strides[d]]; added to what is there
// when accumulate is set.
struct OutDesc {
  void* data = nullptr;
  int f32 = 0;  // float32 storage (else float64)
  index_t offset = 0;
  index_t step = 1;
  int affine = 1;
  int accumulate = 0;
  index_t strides[max_tensor_rank] = {};
};

struct OutPtrs {
  OutDesc p[max_outputs];
};

KOKKOS_INLINE_FUNCTION index_t out_position(const OutDesc& o, const ShapeInfo& shape, index_t i) {
  if (o.affine) return o.offset + i * o.step;
  index_t rem = i, off = o.offset;
  for (int q = 0; q < shape.rank; ++q) {
    const index_t c = rem / shape.stride[q];
    rem -= c * shape.stride[q];
    off += c * o.strides[q];
  }
  return off;
}

template <class T>
KOKKOS_INLINE_FUNCTION void store_as(T* base, const OutDesc& o, const ShapeInfo& shape,
                                     index_t i0, const double* r, int cnt) {
  if (o.affine && !o.accumulate) {
    T* d = base + o.offset + i0 * o.step;
    if (o.step == 1) {
      for (int j = 0; j < cnt; ++j) d[j] = static_cast<T>(r[j]);
    } else if (o.step == 2) {  // one component of pairs: a constant stride vectorizes
      for (int j = 0; j < cnt; ++j) d[2 * j] = static_cast<T>(r[j]);
    } else {
      const index_t st = o.step;
      for (int j = 0; j < cnt; ++j) d[j * st] = static_cast<T>(r[j]);
    }
  } else if (o.accumulate) {
    for (int j = 0; j < cnt; ++j) base[out_position(o, shape, i0 + j)] += static_cast<T>(r[j]);
  } else {
    for (int j = 0; j < cnt; ++j) base[out_position(o, shape, i0 + j)] = static_cast<T>(r[j]);
  }
}

KOKKOS_INLINE_FUNCTION void store(const OutDesc& o, const ShapeInfo& shape, index_t i0,
                                  const double* r, int cnt) {
  if (o.f32) {
    store_as(static_cast<float*>(o.data), o, shape, i0, r, cnt);
  } else {
    store_as(static_cast<double*>(o.data), o, shape, i0, r, cnt);
  }
}

// Host: tiles of `tile` elements, registers in per-thread scratch.
struct TiledEval {
  DeviceProgram prog;
  OutPtrs out;
  Kokkos::View<double*> scratch;
  Token token;
  int tile;
  index_t n;
  KOKKOS_INLINE_FUNCTION void operator()(index_t t) const {
    const int id = token.acquire();
    double* regs = scratch.data() + static_cast<index_t>(id) * prog.n_regs * tile;
    const index_t i0 = t * tile;
    const int cnt = static_cast<int>(n - i0 < tile ? n - i0 : tile);
    run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, tile, i0, nullptr,
        cnt);
    for (int k = 0; k < prog.n_outputs; ++k)
      store(out.p[k], prog.shape, i0, regs + prog.outputs[k] * tile, cnt);
    token.release(id);
  }
};

// GPU: one element per thread, registers local (or in global scratch, with
// stride n, when the program needs more than device_regs).
struct ElementEval {
  DeviceProgram prog;
  OutPtrs out;
  Kokkos::View<double*> scratch;  // empty unless n_regs > device_regs
  index_t n;
  KOKKOS_INLINE_FUNCTION void operator()(index_t i) const {
    double local[device_regs];
    double* regs = scratch.extent(0) > 0 ? scratch.data() + i : local;
    const index_t rs = scratch.extent(0) > 0 ? n : 1;
    run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, rs, i, nullptr, 1);
    for (int k = 0; k < prog.n_outputs; ++k)
      store(out.p[k], prog.shape, i, regs + prog.outputs[k] * rs, 1);
  }
};

// Sum of r[0, cnt) with eight partial sums: one running sum is a chain of
// dependent additions, four cycles each, that would dominate the kernel.
KOKKOS_INLINE_FUNCTION double tile_sum(const double* r, int cnt) {
  double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int j = 0;
  for (; j + 8 <= cnt; j += 8)
    for (int q = 0; q < 8; ++q) p[q] += r[j + q];
  double s = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
  for (; j < cnt; ++j) s += r[j];
  return s;
}

constexpr int max_sums = 4;
struct Sums {
  double v[max_sums];
};

struct TiledSum {
  using value_type = Sums;
  DeviceProgram prog;
  Kokkos::View<double*> scratch;
  Token token;
  int tile;
  index_t n;
  KOKKOS_INLINE_FUNCTION void init(Sums& a) const {
    for (int k = 0; k < max_sums; ++k) a.v[k] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile Sums& a, const volatile Sums& b) const {
    for (int k = 0; k < max_sums; ++k) a.v[k] += b.v[k];
  }
  KOKKOS_INLINE_FUNCTION void operator()(index_t t, Sums& acc) const {
    const int id = token.acquire();
    double* regs = scratch.data() + static_cast<index_t>(id) * prog.n_regs * tile;
    const index_t i0 = t * tile;
    const int cnt = static_cast<int>(n - i0 < tile ? n - i0 : tile);
    run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, tile, i0, nullptr,
        cnt);
    for (int k = 0; k < prog.n_outputs; ++k)
      acc.v[k] += tile_sum(regs + prog.outputs[k] * tile, cnt);
    token.release(id);
  }
};

struct ElementSum {
  using value_type = Sums;
  DeviceProgram prog;
  Kokkos::View<double*> scratch;
  index_t n;
  KOKKOS_INLINE_FUNCTION void init(Sums& a) const {
    for (int k = 0; k < max_sums; ++k) a.v[k] = 0.0;
  }
  KOKKOS_INLINE_FUNCTION void join(volatile Sums& a, const volatile Sums& b) const {
    for (int k = 0; k < max_sums; ++k) a.v[k] += b.v[k];
  }
  KOKKOS_INLINE_FUNCTION void operator()(index_t i, Sums& acc) const {
    double local[device_regs];
    double* regs = scratch.extent(0) > 0 ? scratch.data() + i : local;
    const index_t rs = scratch.extent(0) > 0 ? n : 1;
    run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, rs, i, nullptr, 1);
    for (int k = 0; k < prog.n_outputs; ++k) acc.v[k] += regs[prog.outputs[k] * rs];
  }
};

// Sum over some axes: one output element per work item, its reduced
// elements in chunks of `chunk`, their flat indices listed.
constexpr int reduce_chunk_max = 64;

// Kept axes (of the output) and reduced axes of a sum: extents and the
// DAG's row-major strides. Output element o reads the DAG's elements
// base(o) + offset(r) for r in [0, red_count).
struct AxisLayout {
  int n_kept = 0, n_red = 0;
  index_t kept_extent[max_tensor_rank] = {}, kept_stride[max_tensor_rank] = {};
  index_t red_extent[max_tensor_rank] = {}, red_stride[max_tensor_rank] = {};
  index_t red_count = 1;

  AxisLayout() = default;
  AxisLayout(const Shape& shape, const std::vector<char>& reduced) {
    const Shape os = row_major(shape);
    for (size_t d = 0; d < shape.size(); ++d) {
      if (reduced[d]) {
        red_extent[n_red] = shape[d];
        red_stride[n_red++] = os[d];
        red_count *= shape[d];
      } else {
        kept_extent[n_kept] = shape[d];
        kept_stride[n_kept++] = os[d];
      }
    }
  }
  KOKKOS_INLINE_FUNCTION index_t base(index_t o) const {
    index_t b = 0, rem = o;
    for (int q = n_kept; q-- > 0;) {
      const index_t i = rem % kept_extent[q];
      rem /= kept_extent[q];
      b += i * kept_stride[q];
    }
    return b;
  }
  KOKKOS_INLINE_FUNCTION index_t offset(index_t r) const {
    index_t f = 0;
    for (int q = n_red; q-- > 0;) {
      const index_t i = r % red_extent[q];
      r /= red_extent[q];
      f += i * red_stride[q];
    }
    return f;
  }
};

struct AxisSum {
  DeviceProgram prog;
  void* out[max_sums] = {};
  int f32 = 0;  // the outputs' storage is float32
  Kokkos::View<double*> scratch;
  Token token;
  int chunk;
  AxisLayout axes;
  KOKKOS_INLINE_FUNCTION void operator()(index_t o) const {
    const int id = token.acquire();
    double* regs = scratch.data() + static_cast<index_t>(id) * prog.n_regs * chunk;
    const index_t base = axes.base(o), red_count = axes.red_count;
    index_t flat[reduce_chunk_max];
    double s[max_sums] = {};
    for (index_t r0 = 0; r0 < red_count; r0 += chunk) {
      const int cnt = static_cast<int>(red_count - r0 < chunk ? red_count - r0 : chunk);
      for (int j = 0; j < cnt; ++j) flat[j] = base + axes.offset(r0 + j);
      run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, chunk, 0, flat,
          cnt);
      for (int k = 0; k < prog.n_outputs; ++k) s[k] += tile_sum(regs + prog.outputs[k] * chunk, cnt);
    }
    for (int k = 0; k < prog.n_outputs; ++k) {
      if (f32) {
        static_cast<float*>(out[k])[o] = static_cast<float>(s[k]);
      } else {
        static_cast<double*>(out[k])[o] = s[k];
      }
    }
    token.release(id);
  }
};

// Sum over some axes on a GPU: one team per output element, its threads
// striding over the reduced elements (registers local), partial sums added
// in team scratch in a fixed order. One thread per output would leave most
// of the device idle when few outputs each sum many elements (a bias
// gradient: 256 outputs of 4096 terms).
using TeamMember = Kokkos::TeamPolicy<>::member_type;
using TeamScratch = Kokkos::View<double*, Kokkos::DefaultExecutionSpace::scratch_memory_space,
                                 Kokkos::MemoryUnmanaged>;
struct AxisSumTeams {
  DeviceProgram prog;
  void* out[max_sums] = {};
  int f32 = 0;
  AxisLayout axes;
  KOKKOS_INLINE_FUNCTION void operator()(const TeamMember& team) const {
    const index_t o = team.league_rank();
    const index_t base = axes.base(o);
    double s[max_sums] = {};
    double regs[device_regs];
    for (index_t r = team.team_rank(); r < axes.red_count; r += team.team_size()) {
      const index_t f = base + axes.offset(r);
      run(prog.code.data(), prog.n_code, prog.leaves.data(), prog.shape, regs, 1, f, nullptr, 1);
      for (int k = 0; k < prog.n_outputs; ++k) s[k] += regs[prog.outputs[k]];
    }
    TeamScratch part(team.team_scratch(0), static_cast<size_t>(team.team_size()) * max_sums);
    for (int k = 0; k < max_sums; ++k) part(team.team_rank() * max_sums + k) = s[k];
    team.team_barrier();
    if (team.team_rank() == 0) {
      for (int k = 0; k < prog.n_outputs; ++k) {
        double t = 0.0;
        for (int j = 0; j < team.team_size(); ++j) t += part(j * max_sums + k);
        if (f32) {
          static_cast<float*>(out[k])[o] = static_cast<float>(t);
        } else {
          static_cast<double*>(out[k])[o] = t;
        }
      }
    }
  }
};

// Which kernel sums over axes: CAMBER_FUSED_AXIS_SUM=teams or =threads
// forces one (for tests and measurements); unset, teams on a GPU when each
// output sums at least 32 elements and the program fits in local registers.
bool axis_sum_by_teams(index_t red_count, int n_regs) {
  if (n_regs > device_regs) return false;
  if (const char* e = std::getenv("CAMBER_FUSED_AXIS_SUM")) {
    const std::string v(e);
    if (v == "teams") return true;
    if (v == "threads") return false;
    CAMBER_REQUIRE(v.empty(), "CAMBER_FUSED_AXIS_SUM=" << v << ": expected teams or threads");
  }
  return !host_backend && red_count >= 32;
}

}  // namespace

namespace {

void launch(const std::vector<ExprPtr>& roots, const OutPtrs& ptrs) {
  const Program p = compile(roots);
  if (p.n == 0) return;
  DeviceProgram prog(p);
  if constexpr (host_backend) {
    Token token;
    const int tile = host_tile(p.n_regs);
    Kokkos::View<double*> scratch(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::registers"),
        static_cast<size_t>(token.size()) * static_cast<size_t>(p.n_regs) *
            static_cast<size_t>(tile));
    const index_t tiles = (p.n + tile - 1) / tile;
    Kokkos::parallel_for("camber::fused", Kokkos::RangePolicy<>(0, tiles),
                         TiledEval{prog, ptrs, scratch, token, tile, p.n});
  } else {
    Kokkos::View<double*> scratch;
    if (p.n_regs > device_regs)
      scratch = Kokkos::View<double*>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::registers"),
          static_cast<size_t>(p.n_regs) * static_cast<size_t>(p.n));
    Kokkos::parallel_for("camber::fused", Kokkos::RangePolicy<>(0, p.n),
                         ElementEval{prog, ptrs, scratch, p.n});
  }
}

void check_roots(const std::vector<ExprPtr>& roots) {
  CAMBER_REQUIRE(!roots.empty() && roots.size() <= static_cast<size_t>(max_outputs),
                 "fused evaluation of " << roots.size() << " roots (1 to " << max_outputs << ")");
  for (const ExprPtr& r : roots)
    CAMBER_REQUIRE(r->shape == roots[0]->shape && r->dtype == roots[0]->dtype,
                   "fused evaluation: roots of different shapes or dtypes");
}

}  // namespace

std::vector<Tensor> evaluate(const std::vector<ExprPtr>& roots) {
  check_roots(roots);
  std::vector<Tensor> out;
  OutPtrs ptrs;
  for (size_t k = 0; k < roots.size(); ++k) {
    out.push_back(Tensor::uninitialized(roots[0]->shape, roots[0]->dtype));
    ptrs.p[k].data = out.back().raw_data();
    ptrs.p[k].f32 = roots[0]->dtype == DType::float32 ? 1 : 0;
  }
  launch(roots, ptrs);
  return out;
}

void scatter(const std::vector<ExprPtr>& roots, const std::vector<ScatterTarget>& targets,
             bool accumulate) {
  check_roots(roots);
  CAMBER_REQUIRE(targets.size() == roots.size(), "fused scatter: one target per root");
  const Shape& shape = roots[0]->shape;
  OutPtrs ptrs;
  for (size_t k = 0; k < roots.size(); ++k) {
    OutDesc& o = ptrs.p[k];
    CAMBER_REQUIRE(targets[k].out.dtype() == roots[k]->dtype,
                   "fused scatter: a " << dtype_name(roots[k]->dtype) << " expression into a "
                                       << dtype_name(targets[k].out.dtype()) << " tensor");
    o.data = targets[k].out.raw_data();
    o.f32 = targets[k].out.dtype() == DType::float32 ? 1 : 0;
    o.offset = targets[k].offset;
    o.accumulate = accumulate ? 1 : 0;
    for (size_t d = 0; d < shape.size(); ++d) o.strides[d] = targets[k].strides[d];
    o.affine = affine_step(shape, targets[k].strides, o.step) ? 1 : 0;
  }
  launch(roots, ptrs);
  for (const ScatterTarget& t : targets) {
    Tensor written = t.out;
    written.mark_modified();
  }
}

std::vector<Tensor> reduce_sums(const std::vector<ExprPtr>& roots, const std::vector<int>& axes) {
  CAMBER_REQUIRE(!roots.empty() && roots.size() <= static_cast<size_t>(max_sums),
                 "fused sum of " << roots.size() << " roots (1 to " << max_sums << ")");
  const Shape& shape = roots[0]->shape;
  for (const ExprPtr& r : roots)
    CAMBER_REQUIRE(r->shape == shape && r->dtype == roots[0]->dtype,
                   "fused sum: roots of different shapes or dtypes");
  Shape out_shape = shape;
  std::vector<char> reduced(shape.size(), 0);
  for (int a : axes) {
    CAMBER_REQUIRE(a >= 0 && a < static_cast<int>(shape.size()),
                   "fused sum: axis " << a << " of shape " << shape_string(shape));
    reduced[static_cast<size_t>(a)] = 1;
    out_shape[static_cast<size_t>(a)] = 1;
  }
  const Program p = compile(roots);
  const index_t n_out = shape_size(out_shape);
  std::vector<Tensor> out;
  if (p.n == 0) {
    for (size_t k = 0; k < roots.size(); ++k) out.push_back(Tensor(out_shape));
    return out;
  }
  DeviceProgram prog(p);
  if (n_out == 1) {
    Sums total{};
    if constexpr (host_backend) {
      Token token;
      const int tile = host_tile(p.n_regs);
      Kokkos::View<double*> scratch(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::registers"),
          static_cast<size_t>(token.size()) * static_cast<size_t>(p.n_regs) *
              static_cast<size_t>(tile));
      const index_t tiles = (p.n + tile - 1) / tile;
      Kokkos::parallel_reduce("camber::fused_sum", Kokkos::RangePolicy<>(0, tiles),
                              TiledSum{prog, scratch, token, tile, p.n}, total);
    } else {
      Kokkos::View<double*> scratch;
      if (p.n_regs > device_regs)
        scratch = Kokkos::View<double*>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::registers"),
            static_cast<size_t>(p.n_regs) * static_cast<size_t>(p.n));
      Kokkos::parallel_reduce("camber::fused_sum", Kokkos::RangePolicy<>(0, p.n),
                              ElementSum{prog, scratch, p.n}, total);
    }
    for (size_t k = 0; k < roots.size(); ++k)
      out.push_back(roots[0]->dtype == DType::float32
                        ? Tensor::from_host_float32(out_shape, {static_cast<float>(total.v[k])})
                        : Tensor::from_host(out_shape, {total.v[k]}));
    return out;
  }
  for (size_t k = 0; k < roots.size(); ++k)
    out.push_back(Tensor::uninitialized(out_shape, roots[0]->dtype));
  const AxisLayout layout(shape, reduced);
  const int f32 = roots[0]->dtype == DType::float32 ? 1 : 0;
  if (axis_sum_by_teams(layout.red_count, p.n_regs)) {
    AxisSumTeams f{prog, {}, f32, layout};
    for (size_t k = 0; k < roots.size(); ++k) f.out[k] = out[k].raw_data();
    const size_t shmem_per_thread = TeamScratch::shmem_size(max_sums);
    const int limit = Kokkos::TeamPolicy<>(n_out, 1)
                          .set_scratch_size(0, Kokkos::PerThread(shmem_per_thread))
                          .team_size_max(f, Kokkos::ParallelForTag());
    // Up to 256 threads, no more than the terms (in warps of 32).
    int ts = static_cast<int>(std::min<index_t>(256, (layout.red_count + 31) / 32 * 32));
    ts = std::max(1, std::min(ts, limit));
    Kokkos::parallel_for(
        "camber::fused_axis_sum",
        Kokkos::TeamPolicy<>(n_out, ts).set_scratch_size(
            0, Kokkos::PerTeam(TeamScratch::shmem_size(static_cast<size_t>(ts) * max_sums))),
        f);
    return out;
  }
  Token token;
  AxisSum f{prog, {}, f32, {}, token, 1, layout};
  for (size_t k = 0; k < roots.size(); ++k) f.out[k] = out[k].raw_data();
  f.chunk = host_backend ? static_cast<int>(std::min<index_t>(
                               std::min(host_tile(p.n_regs), reduce_chunk_max),
                               std::max<index_t>(layout.red_count, 1)))
                         : 1;
  f.scratch = Kokkos::View<double*>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::fused::registers"),
      static_cast<size_t>(token.size()) * static_cast<size_t>(p.n_regs) *
          static_cast<size_t>(f.chunk));
  Kokkos::parallel_for("camber::fused_axis_sum", Kokkos::RangePolicy<>(0, n_out), f);
  return out;
}

Tensor reduce_sum(const ExprPtr& root, const std::vector<int>& axes) {
  return reduce_sums({root}, axes)[0];
}

}  // namespace camber::ad::detail
