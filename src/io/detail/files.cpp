#include "files.hpp"

#include <fstream>
#include <system_error>

#include <camber/error.hpp>
#include <camber/runtime.hpp>

namespace camber::io::detail {

namespace fs = std::filesystem;

fs::path temporary_path(const fs::path& path) {
  fs::path tmp = path;
  tmp += ".tmp";
  return tmp;
}

void create_parent_directories(const fs::path& file) {
  const fs::path parent = file.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  CAMBER_REQUIRE(!ec, "cannot create directory '" << parent.string()
                          << "' for '" << file.string() << "': " << ec.message());
}

void replace_file(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  CAMBER_REQUIRE(!ec, "cannot rename '" << from.string() << "' to '"
                          << to.string() << "': " << ec.message());
}

void write_text_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = temporary_path(path);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    CAMBER_REQUIRE(out, "cannot open '" << tmp.string() << "' for writing");
    out << text;
    out.flush();
    CAMBER_REQUIRE(out, "writing '" << tmp.string()
                            << "' failed (disk full or quota exceeded?)");
  }
  replace_file(tmp, path);
}

void on_rank0(MPI_Comm comm, const std::function<void()>& body) {
  const int rank = comm_rank(comm);
  collective_guard(comm, [&] {
    if (rank == 0) body();
  });
}

}  // namespace camber::io::detail
