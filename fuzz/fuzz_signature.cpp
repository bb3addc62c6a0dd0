// Any bytes as a signature file (<file>.sig) and as a public key file:
// the parsers must return or throw bad_input, never crash, hang or leak;
// and the gate must never accept a signature other than the one genuine
// signature of the signed file (the content "abc" under RFC 8032's first
// key, whose signature text is fixed: any other accepted text is a forgery
// the gate let through).
#include <cstdint>
#include <cstdlib>
#include <string>

#include <camber/core/error.hpp>
#include <camber/trust/signature.hpp>

namespace trust = camber::trust;

namespace {

const std::string rfc_public = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const std::string genuine =
    "camber-signature 1\nbytes 3\n"
    "sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
    "key 21fe31dfa154a261\nsignature "
    "e622d90c995adffbd1815b670b81d918c405b75b9dc23ee4c7ab098c1e5d582b"
    "a8fa01172e457405b843741393c1f2ec801c0fcf9dc3dd78dd9fef779d163f08\n";

const trust::TrustedKeys& keys() {
  static const trust::TrustedKeys k = [] {
    const std::string path = "/tmp/camber_fuzz_signature_rfc.pub";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) std::abort();
    std::fprintf(f, "camber-public-key 1\nid 21fe31dfa154a261\nkey %s\n", rfc_public.c_str());
    std::fclose(f);
    return trust::TrustedKeys::from_paths({path});
  }();
  return k;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const trust::Verdict v = trust::verify_bytes("abc", text, "abc.txt", "file", keys());
    // Accepted: it must be the genuine signature, up to what the parser
    // ignores (nothing: the format is exact).
    if (!v.signed_by_trusted || text != genuine) std::abort();
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input) std::abort();
  }
  try {
    (void)trust::parse_public_key(text, "fuzz.pub");
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input) std::abort();
  }
  return 0;
}
