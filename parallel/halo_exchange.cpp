#include <camber/parallel/halo_exchange.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <camber/error.hpp>

namespace camber::par {

namespace {

// One tag suffices: the communicator is private to Camber's parallel module
// and every exchange completes before the call returns, so messages between
// two ranks cannot overtake one another.
constexpr int halo_tag = 7301;

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

index_t HaloExchange::components(const Tensor& field, const char* who) const {
  CAMBER_REQUIRE(field.rank() >= 1 && field.dim(0) == n_local_,
                 "HaloExchange::" << who << ": field of shape " << shape_string(field.shape())
                                  << " must have n_local = " << n_local_
                                  << " rows (owned cells, then ghosts)");
  index_t nc = 1;
  for (int d = 1; d < field.rank(); ++d) nc *= field.dim(d);
  return nc;
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
    if (n_in == 0) continue;
    requests.emplace_back();
    CAMBER_CHECK_MPI(MPI_Irecv(reverse ? owner_side : ghost_side, mpi_count(n_in * nc), MPI_DOUBLE,
                               ranks_[i], halo_tag, c, &requests.back()));
  }
  for (size_t i = 0; i < ranks_.size(); ++i) {
    double* owner_side = send_host_.data() + send_offset_[i] * nc;
    double* ghost_side = recv_host_.data() + ghost_offset_[i] * nc;
    const index_t n_send = send_offset_[i + 1] - send_offset_[i];
    const index_t n_out = reverse ? ghost_count_[i] : n_send;
    if (n_out == 0) continue;
    requests.emplace_back();
    CAMBER_CHECK_MPI(MPI_Isend(reverse ? ghost_side : owner_side, mpi_count(n_out * nc),
                               MPI_DOUBLE, ranks_[i], halo_tag, c, &requests.back()));
  }
  CAMBER_CHECK_MPI(MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                               MPI_STATUSES_IGNORE));
}

void HaloExchange::forward(Tensor& field) {
  const index_t nc = components(field, "forward");
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
  Kokkos::deep_copy(Kokkos::subview(recv, in_range), Kokkos::subview(recv_host_, in_range));
  Kokkos::parallel_for(
      "camber::par::HaloExchange::unpack", Kokkos::RangePolicy<>(0, n_in),
      KOKKOS_LAMBDA(index_t i) { data(ghost_start + i) = recv(i); });
  Kokkos::fence();
}

void HaloExchange::reverse_add(Tensor& field) {
  const index_t nc = components(field, "reverse_add");
  field.mark_modified();
  reserve(nc);
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
        data(ghost_start + i) = 0.0;
      });
  Kokkos::fence();
  const auto out_range = std::make_pair(index_t{0}, n_out);
  const auto in_range = std::make_pair(index_t{0}, n_in);
  Kokkos::deep_copy(Kokkos::subview(recv_host_, out_range), Kokkos::subview(recv, out_range));
  exchange(nc, true);
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
