// Internal to Camber (not part of its API; nn_io's serial model files use it
// too): the HDF5 return-code wrapper and an owning handle for hid_t.
//
// Every HDF5 call goes through CAMBER_CHECK_HDF5. A negative result (failure
// for herr_t, hid_t, htri_t and hssize_t alike) throws camber::Error whose
// message holds the call and HDF5's error stack; otherwise the macro yields
// the call's value:
//
//   Hid space(CAMBER_CHECK_HDF5(H5Dget_space(dataset.get())), H5Sclose);
//   CAMBER_CHECK_HDF5(H5Sselect_none(space.get()));
//
// HDF5 prints its error stack to stderr by default; silence_hdf5_errors()
// turns that off so the stack reaches the user once, inside the exception.
#pragma once

#include <hdf5.h>

#include <string>

namespace camber::io::detail {

// Turns off HDF5's automatic error printing. Idempotent and cheap: call it
// before the first HDF5 call of every entry point.
void silence_hdf5_errors();

// The current HDF5 error stack as text (innermost cause last), then clears it.
std::string hdf5_error_stack();

[[noreturn]] void throw_hdf5_error(const char* call, const char* file, int line);

template <class T>
T check_hdf5(T result, const char* call, const char* file, int line) {
  if (result < 0) throw_hdf5_error(call, file, line);
  return result;
}

// Owns one HDF5 identifier and releases it with the matching close function
// (H5Dclose, H5Sclose, ...). Move-only. The destructor ignores the close
// status (destructors do not throw); close() reports it.
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);

  Hid() = default;
  Hid(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  ~Hid() { reset(); }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& other) noexcept : id_(other.id_), closer_(other.closer_) {
    other.id_ = H5I_INVALID_HID;
  }
  Hid& operator=(Hid&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      closer_ = other.closer_;
      other.id_ = H5I_INVALID_HID;
    }
    return *this;
  }

  hid_t get() const noexcept { return id_; }
  bool valid() const noexcept { return id_ >= 0; }
  // Closes now and reports a failure as camber::Error.
  void close();

 private:
  void reset() noexcept {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = H5I_INVALID_HID;
  }

  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

}  // namespace camber::io::detail

#define CAMBER_CHECK_HDF5(call) \
  ::camber::io::detail::check_hdf5((call), #call, __FILE__, __LINE__)
