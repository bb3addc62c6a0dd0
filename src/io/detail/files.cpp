#include "files.hpp"

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::io::detail {

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

void on_rank0(MPI_Comm comm, const std::function<void()>& body) {
  const int rank = comm_rank(comm);
  collective_guard(comm, [&] {
    if (rank == 0) body();
  });
}

}  // namespace camber::io::detail
