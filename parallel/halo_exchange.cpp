#include <camber/parallel/halo_exchange.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <camber/core/error.hpp>

namespace camber::par {

namespace {

// One tag for the data and one for the headers suffice: the communicator is
// private to Camber's parallel module and every exchange completes before
// the call returns, so messages between two ranks cannot overtake one
// another.
constexpr int halo_tag = 7301;
constexpr int header_tag = 7302;

// The header each rank sends every neighbour before an exchange.
enum Header : size_t { h_op, h_components, h_send_cells, h_ghost_cells, header_size };
constexpr std::int64_t op_forward = 0, op_reverse_add = 1;
constexpr std::int64_t refused_field = -1;  // in place of components

const char* op_name(std::int64_t op) { return op == op_forward ? "forward" : "reverse_add"; }

// "48 values (12 cells x 4 components)"
std::string values_text(std::int64_t cells, std::int64_t nc) {
  return std::to_string(cells * nc) + " values (" + std::to_string(cells) + " cells x " +
         std::to_string(nc) + " components)";
}

Kokkos::View<index_t*> to_view(const std::vector<index_t>& values, const char* label) {
  Kokkos::View<index_t*> v(std::string(label), values.size());
  auto h = Kokkos::create_mirror_view(v);
  for (size_t i = 0; i < values.size(); ++i) h(i) = values[i];
  Kokkos::deep_copy(v, h);
  return v;
}

int mpi_count(index_t n) {
  CAMBER_REQUIRE(n <= std::numeric_limits<int>::max(),
                 "HaloExchange: a message of " << n << " values exceeds MPI's int count");
  return static_cast<int>(n);
}

}  // namespace

HaloExchange::HaloExchange(const CellDistribution& dist)
    : comm_(dist.communicator()), n_owned_(dist.n_owned()), n_local_(dist.n_local()) {
  std::vector<index_t> cells;
  for (const auto& nr : dist.neighbours()) {
    ranks_.push_back(nr.rank);
    send_offset_.push_back(static_cast<index_t>(cells.size()));
    ghost_offset_.push_back(nr.ghost_begin - n_owned_);
    ghost_count_.push_back(nr.n_ghosts);
    cells.insert(cells.end(), nr.send_cells.begin(), nr.send_cells.end());
  }
  send_offset_.push_back(static_cast<index_t>(cells.size()));
  n_send_ = static_cast<index_t>(cells.size());
  n_ghosts_ = dist.n_ghosts();
  send_cells_ = to_view(cells, "camber::par::HaloExchange::send_cells");

  // Group the send slots by cell; slots were appended in ascending
  // neighbour-rank order and a stable sort keeps that order within a cell.
  std::vector<std::pair<index_t, index_t>> by_cell;  // (cell, slot)
  for (index_t s = 0; s < n_send_; ++s) by_cell.emplace_back(cells[static_cast<size_t>(s)], s);
  std::stable_sort(by_cell.begin(), by_cell.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<index_t> acc_cell, acc_ptr{0}, acc_slot;
  for (size_t i = 0; i < by_cell.size(); ++i) {
    if (i == 0 || by_cell[i].first != by_cell[i - 1].first) {
      if (i != 0) acc_ptr.push_back(static_cast<index_t>(i));
      acc_cell.push_back(by_cell[i].first);
    }
    acc_slot.push_back(by_cell[i].second);
  }
  if (!by_cell.empty()) acc_ptr.push_back(static_cast<index_t>(by_cell.size()));
  acc_cell_ = to_view(acc_cell, "camber::par::HaloExchange::acc_cell");
  acc_ptr_ = to_view(acc_ptr, "camber::par::HaloExchange::acc_ptr");
  acc_slot_ = to_view(acc_slot, "camber::par::HaloExchange::acc_slot");
}

index_t HaloExchange::components(const Tensor& field) const {
  if (field.rank() < 1 || field.dim(0) != n_local_) return refused_field;
  index_t nc = 1;
  for (int d = 1; d < field.rank(); ++d) nc *= field.dim(d);
  return nc;
}

index_t HaloExchange::agree(const Tensor& field, bool reverse) {
  const char* who = reverse ? "reverse_add" : "forward";
  const index_t nc = components(field);
  const std::int64_t my_op = reverse ? op_reverse_add : op_forward;
  const size_t n_nb = ranks_.size();
  header_out_.assign(n_nb * header_size, 0);
  header_in_.assign(n_nb * header_size, 0);
  skip_.assign(n_nb, 0);
  if (n_nb > 0) {
    const MPI_Comm c = comm_.get();
    std::vector<MPI_Request> requests(2 * n_nb);
    for (size_t i = 0; i < n_nb; ++i) {
      std::int64_t* h = header_out_.data() + i * header_size;
      h[h_op] = my_op;
      h[h_components] = nc;
      h[h_send_cells] = send_offset_[i + 1] - send_offset_[i];
      h[h_ghost_cells] = ghost_count_[i];
      CAMBER_CHECK_MPI(MPI_Irecv(header_in_.data() + i * header_size, static_cast<int>(header_size),
                                 MPI_INT64_T, ranks_[i], header_tag, c, &requests[i]));
    }
    for (size_t i = 0; i < n_nb; ++i)
      CAMBER_CHECK_MPI(MPI_Isend(header_out_.data() + i * header_size, static_cast<int>(header_size),
                                 MPI_INT64_T, ranks_[i], header_tag, c, &requests[n_nb + i]));
    CAMBER_CHECK_MPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                                 MPI_STATUSES_IGNORE));
  }
  // Both sides of a pair see the same two headers and so make the same
  // decision: exchange, or skip the pair's messages and raise.
  const int me = comm_.rank();
  std::ostringstream why;
  for (size_t i = 0; i < n_nb; ++i) {
    const std::int64_t* mine = header_out_.data() + i * header_size;
    const std::int64_t* theirs = header_in_.data() + i * header_size;
    const int r = ranks_[i];
    if (nc == refused_field) {
      skip_[i] = 1;
      continue;  // this rank's own error below says why
    }
    if (theirs[h_components] == refused_field) {
      skip_[i] = 1;
      why << "\n  rank " << r << " refused its field (wrong number of rows; see the error there)";
      continue;
    }
    // Cells each side sends and expects in its own operation: forward sends
    // the send list and fills the ghosts, reverse_add the other way round.
    auto out_cells = [](const std::int64_t* h) {
      return h[h_op] == op_forward ? h[h_send_cells] : h[h_ghost_cells];
    };
    auto in_cells = [](const std::int64_t* h) {
      return h[h_op] == op_forward ? h[h_ghost_cells] : h[h_send_cells];
    };
    const bool same = theirs[h_op] == mine[h_op] && theirs[h_components] == mine[h_components] &&
                      out_cells(theirs) == in_cells(mine) && out_cells(mine) == in_cells(theirs);
    if (same) continue;
    skip_[i] = 1;
    why << "\n  with rank " << r << ": ";
    if (theirs[h_op] != mine[h_op])
      why << "rank " << r << " called " << op_name(theirs[h_op]) << ", rank " << me << " called "
          << op_name(mine[h_op]) << "; ";
    why << "rank " << r << " sends " << values_text(out_cells(theirs), theirs[h_components])
        << " where rank " << me << " expects " << values_text(in_cells(mine), mine[h_components])
        << ", and rank " << me << " sends " << values_text(out_cells(mine), mine[h_components])
        << " where rank " << r << " expects " << values_text(in_cells(theirs), theirs[h_components]);
  }
  error_ = why.str();
  if (nc == refused_field) {
    // The exchanges with the other neighbours are skipped too (they skip
    // this rank), so nothing is left waiting.
    CAMBER_REQUIRE(false, "HaloExchange::" << who << ": field of shape "
                                           << shape_string(field.shape()) << " must have n_local = "
                                           << n_local_ << " rows (owned cells, then ghosts)");
  }
  return nc;
}

void HaloExchange::raise_if_skipped(const char* who) const {
  CAMBER_REQUIRE(error_.empty(),
                 "HaloExchange::" << who << " on rank " << comm_.rank()
                                  << ": the two sides of an exchange disagree (every rank must call "
                                     "the same operation, in the same order, with fields of the "
                                     "same number of components per cell); no data was exchanged "
                                     "with these ranks and the field is unchanged here:"
                                  << error_);
}

void HaloExchange::reserve(index_t nc) {
  if (nc <= capacity_) return;
  send_buf_ = Buffer("camber::par::HaloExchange::send", static_cast<size_t>(n_send_ * nc));
  recv_buf_ = Buffer("camber::par::HaloExchange::recv", static_cast<size_t>(n_ghosts_ * nc));
  send_host_ = Kokkos::create_mirror_view(send_buf_);
  recv_host_ = Kokkos::create_mirror_view(recv_buf_);
  capacity_ = nc;
}

void HaloExchange::exchange(index_t nc, bool reverse) {
  const MPI_Comm c = comm_.get();
  std::vector<MPI_Request> requests;
  requests.reserve(2 * ranks_.size());
  // Forward: owners' values travel send_host_ -> recv_host_ (ghost slots).
  // Reverse: ghost values travel recv_host_ -> send_host_ (owners' slots).
  for (size_t i = 0; i < ranks_.size(); ++i) {
    double* owner_side = send_host_.data() + send_offset_[i] * nc;
    double* ghost_side = recv_host_.data() + ghost_offset_[i] * nc;
    const index_t n_send = send_offset_[i + 1] - send_offset_[i];
    const index_t n_in = reverse ? n_send : ghost_count_[i];
    if (n_in == 0 || skip_[i]) continue;
    requests.emplace_back();
    CAMBER_CHECK_MPI(MPI_Irecv(reverse ? owner_side : ghost_side, mpi_count(n_in * nc), MPI_DOUBLE,
                               ranks_[i], halo_tag, c, &requests.back()));
  }
  for (size_t i = 0; i < ranks_.size(); ++i) {
    double* owner_side = send_host_.data() + send_offset_[i] * nc;
    double* ghost_side = recv_host_.data() + ghost_offset_[i] * nc;
    const index_t n_send = send_offset_[i + 1] - send_offset_[i];
    const index_t n_out = reverse ? ghost_count_[i] : n_send;
    if (n_out == 0 || skip_[i]) continue;
    requests.emplace_back();
    CAMBER_CHECK_MPI(MPI_Isend(reverse ? ghost_side : owner_side, mpi_count(n_out * nc),
                               MPI_DOUBLE, ranks_[i], halo_tag, c, &requests.back()));
  }
  CAMBER_CHECK_MPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                               MPI_STATUSES_IGNORE));
}

void HaloExchange::forward(Tensor& field) {
  const index_t nc = agree(field, false);
  field.mark_modified();
  reserve(nc);
  auto data = field.view();
  auto cells = send_cells_;
  auto send = send_buf_;
  auto recv = recv_buf_;
  const auto n_out = n_send_ * nc;
  const auto n_in = n_ghosts_ * nc;
  const auto ghost_start = n_owned_ * nc;
  Kokkos::parallel_for(
      "camber::par::HaloExchange::pack", Kokkos::RangePolicy<>(0, n_out), KOKKOS_LAMBDA(index_t i) {
        const index_t s = i / nc;
        send(i) = data(cells(s) * nc + (i - s * nc));
      });
  Kokkos::fence();
  const auto out_range = std::make_pair(index_t{0}, n_out);
  const auto in_range = std::make_pair(index_t{0}, n_in);
  Kokkos::deep_copy(Kokkos::subview(send_host_, out_range), Kokkos::subview(send, out_range));
  exchange(nc, false);
  raise_if_skipped("forward");  // before the ghost rows are touched
  Kokkos::deep_copy(Kokkos::subview(recv, in_range), Kokkos::subview(recv_host_, in_range));
  Kokkos::parallel_for(
      "camber::par::HaloExchange::unpack", Kokkos::RangePolicy<>(0, n_in),
      KOKKOS_LAMBDA(index_t i) { data(ghost_start + i) = recv(i); });
  Kokkos::fence();
}

void HaloExchange::reverse_add(Tensor& field) {
  const index_t nc = agree(field, true);
  field.mark_modified();
  reserve(nc);
  // On disagreement the ghost rows still go to the agreeing neighbours, but
  // are kept here: the field is left unchanged on a rank that raises.
  const bool zero_ghosts = error_.empty();
  auto data = field.view();
  auto send = send_buf_;
  auto recv = recv_buf_;
  auto acc_cell = acc_cell_;
  auto acc_ptr = acc_ptr_;
  auto acc_slot = acc_slot_;
  const auto n_out = n_ghosts_ * nc;
  const auto n_in = n_send_ * nc;
  const auto ghost_start = n_owned_ * nc;
  Kokkos::parallel_for(
      "camber::par::HaloExchange::pack_ghosts", Kokkos::RangePolicy<>(0, n_out),
      KOKKOS_LAMBDA(index_t i) {
        recv(i) = data(ghost_start + i);
        if (zero_ghosts) data(ghost_start + i) = 0.0;
      });
  Kokkos::fence();
  const auto out_range = std::make_pair(index_t{0}, n_out);
  const auto in_range = std::make_pair(index_t{0}, n_in);
  Kokkos::deep_copy(Kokkos::subview(recv_host_, out_range), Kokkos::subview(recv, out_range));
  exchange(nc, true);
  raise_if_skipped("reverse_add");
  Kokkos::deep_copy(Kokkos::subview(send, in_range), Kokkos::subview(send_host_, in_range));
  const index_t n_boundary = static_cast<index_t>(acc_cell.extent(0));
  Kokkos::parallel_for(
      "camber::par::HaloExchange::accumulate", Kokkos::RangePolicy<>(0, n_boundary * nc),
      KOKKOS_LAMBDA(index_t i) {
        const index_t b = i / nc;
        const index_t k = i - b * nc;
        const index_t at = acc_cell(b) * nc + k;
        double v = data(at);
        for (index_t s = acc_ptr(b); s < acc_ptr(b + 1); ++s) v += send(acc_slot(s) * nc + k);
        data(at) = v;
      });
  Kokkos::fence();
}

}  // namespace camber::par
