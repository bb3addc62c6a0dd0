#include "hdf5_check.hpp"

#include <sstream>

#include <camber/core/error.hpp>

namespace camber::io::detail {

void silence_hdf5_errors() {
  // HDF5 keeps the setting per error stack (per thread in thread-safe
  // builds), so it is set again at each entry point rather than once.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

namespace {

std::string error_message_text(hid_t message_id) {
  if (message_id < 0) return {};
  H5E_type_t type{};
  const ssize_t length = H5Eget_msg(message_id, &type, nullptr, 0);
  if (length <= 0) return {};
  std::string text(static_cast<size_t>(length) + 1, '\0');
  H5Eget_msg(message_id, &type, text.data(), text.size());
  text.resize(static_cast<size_t>(length));
  return text;
}

herr_t collect_entry(unsigned n, const H5E_error2_t* entry, void* client) {
  auto& out = *static_cast<std::ostringstream*>(client);
  if (n > 0) out << "; ";
  out << (entry->func_name != nullptr ? entry->func_name : "?") << "(): "
      << (entry->desc != nullptr ? entry->desc : "");
  const std::string minor = error_message_text(entry->min_num);
  if (!minor.empty()) out << " (" << minor << ")";
  return 0;
}

}  // namespace

std::string hdf5_error_stack() {
  std::ostringstream out;
  // Downward: from the API function the caller used to the innermost cause.
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_entry, &out);
  H5Eclear2(H5E_DEFAULT);
  std::string text = out.str();
  return text.empty() ? "no HDF5 error stack" : text;
}

void throw_hdf5_error(const char* call, const char* file, int line) {
  ::camber::detail::throw_error(ErrorKind::failure,
                      std::string("HDF5 call failed: ") + call + ": " +
                          hdf5_error_stack(),
                      file, line);
}

void Hid::close() {
  if (id_ < 0) return;
  const hid_t id = id_;
  id_ = H5I_INVALID_HID;
  if (closer_ != nullptr) CAMBER_CHECK_HDF5(closer_(id));
}

}  // namespace camber::io::detail
