/// @file
/// camber::nn::registry — versions and stages of trained models.
///
/// A registry is a folder:
/// @code
///   index.sqlite             names, versions, stages, cards, lineage, events
///   blobs/<sha256>.h5        each model file once, by its SHA-256 (read-only)
///   blobs/<sha256>.h5.sig    its signature, once a trusted key verified it
/// @endcode
/// A model is addressed as `name@version` (`naca@3`), `name@stage`
/// (`naca@prod`) or `name` (the latest version). Stages: dev, staging,
/// prod, archived; staging and prod hold one version each (promoting one
/// archives the one before), dev any number.
///
/// Writes are atomic against a kill at any instant: the file is copied
/// under a temporary name, flushed and renamed into blobs/ before the
/// index names it, and the index changes in one SQLite transaction (WAL
/// journal). A kill leaves at most an unreferenced blob, never an entry
/// without its file or a stage held by two versions. A registration
/// refused (a bad file, card or data set) leaves no blob.
///
/// Signatures: the registry stores and reports only a signature it has
/// verified. A `.sig` beside a file registered with trusted keys
/// (CAMBER_TRUSTED_KEYS, or the keys given) is verified, stored with the
/// blob and recorded as `signed_by`; it replaces a stored one that those
/// keys do not verify, and names every version of that content. Without
/// trusted keys a `.sig` cannot be verified: the version is registered
/// unsigned (Entry::unverified_signature says so) and the `.sig` is not
/// stored, so a forged one never reaches the store.
///
/// @code
///   namespace reg = camber::nn::registry;
///   reg::Registry r("models");                            // created if missing
///   reg::Entry e = r.register_model("out/naca_model.h5", "naca");   // naca@1, stage dev
///   r.promote("naca", e.version, reg::Stage::prod);
///   std::string path = r.resolve(reg::parse_reference("naca@prod")).blob;
///   camber::nn::io::Model m = camber::nn::io::load_model(path);
/// @endcode
///
/// Not collective: the index is a file; concurrent writers (processes)
/// wait for each other (SQLite's lock, 10 s).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <camber/trust/signature.hpp>

namespace camber::nn::registry {

enum class Stage { dev, staging, prod, archived };
const char* stage_name(Stage s);
/// bad_input for a name that is no stage.
Stage stage_from_name(const std::string& name);

/// A parsed `name[@version|@stage]`.
struct Reference {
  std::string name;
  std::int64_t version = 0;  ///< > 0: that version
  bool has_stage = false;
  Stage stage = Stage::dev;
};
/// bad_input (naming the text) for an invalid name (letters, digits, '_',
/// '-', '.'; 1 to 64 characters, not starting with '.'), version or stage.
Reference parse_reference(const std::string& text);

struct Entry {
  std::string name;
  std::int64_t version = 0;
  Stage stage = Stage::dev;
  std::string sha256;      ///< of the whole model file
  std::string blob;        ///< its path in the store
  std::string registered;  ///< UTC, ISO 8601
  std::string source;      ///< the path it was registered from
  std::string signed_by;   ///< the key id of its signature ("" if unsigned)
  // From the model card: what trained it, on what.
  std::string data_path, data_sha256, training_deck, git_revision, camber_version, created;
  std::int64_t data_rows = 0, epochs = 0;
  std::vector<std::string> outputs;      ///< output names
  std::vector<double> validation_rmse;   ///< per output
  /// Lineage: the sample deck that made the data set, when the data set
  /// was found at registration and records one ("" otherwise).
  std::string sample_deck;
  /// Set by register_model only: the `.sig` beside the registered file
  /// when no trusted key could verify it (neither stored nor recorded).
  std::string unverified_signature;
  std::string reference() const { return name + "@" + std::to_string(version); }
};

class Registry {
 public:
  /// Opens (creating it if missing) the registry at `root`; bad_input when
  /// `root` is a file, or its index is not a registry's.
  explicit Registry(const std::string& root);
  ~Registry();
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  /// CAMBER_REGISTRY, else $HOME/.camber/registry.
  static std::string default_root();
  const std::string& root() const noexcept { return root_; }

  /// Adds the model file at `path` as the next version of `name` (loading
  /// it first: a bad file, or one the signature gate refuses, is never
  /// registered). The same file registered again under the same name is
  /// that version again, unchanged but for a signature verified now. Its
  /// `.sig` is checked against CAMBER_TRUSTED_KEYS (see the file comment).
  Entry register_model(const std::string& path, const std::string& name, Stage stage = Stage::dev);
  /// The same, with `.sig` checked against `trusted` (bad_input naming the
  /// file when it does not verify).
  Entry register_model(const std::string& path, const std::string& name, Stage stage,
                       const trust::TrustedKeys& trusted);
  /// Every version (of `name`, or of all models), by name and version.
  std::vector<Entry> list(const std::string& name = "") const;
  /// bad_input naming what is missing (and what there is).
  Entry resolve(const Reference& ref) const;
  /// Moves a version to `stage`; for staging and prod the version there
  /// before is archived, in the same transaction.
  Entry promote(const std::string& name, std::int64_t version, Stage stage);
  /// Removes a version (bad_input for one in prod: promote another first);
  /// its file goes when no other version uses it.
  void remove(const std::string& name, std::int64_t version);

  struct Db;  ///< the SQLite index (opaque)

 private:
  std::string root_;
  std::unique_ptr<Db> db_;
};

/// What a command given MODEL loads: MODEL itself when it is a file, else
/// the registry entry it names (in `registry`, or default_root() when
/// empty). bad_input when it is neither.
std::string resolve_model_path(const std::string& model, const std::string& registry = "");

/// The same, with the name and version found when MODEL is a reference.
struct ResolvedModel {
  std::string path;
  std::string name;          ///< "" for a file
  std::int64_t version = 0;  ///< 0 for a file
};
ResolvedModel resolve_model(const std::string& model, const std::string& registry = "");

}  // namespace camber::nn::registry
