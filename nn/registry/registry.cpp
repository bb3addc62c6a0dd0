#include <camber/nn/registry/registry.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/trust/signature.hpp>

namespace camber::nn::registry {

namespace fs = std::filesystem;

namespace {

constexpr const char* schema =
    "CREATE TABLE IF NOT EXISTS registry(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS models("
    " name TEXT NOT NULL, version INTEGER NOT NULL, stage TEXT NOT NULL,"
    " sha256 TEXT NOT NULL, registered TEXT NOT NULL, source TEXT NOT NULL,"
    " signed_by TEXT NOT NULL, data_path TEXT NOT NULL, data_sha256 TEXT NOT NULL,"
    " data_rows INTEGER NOT NULL, epochs INTEGER NOT NULL, training_deck TEXT NOT NULL,"
    " git_revision TEXT NOT NULL, camber_version TEXT NOT NULL, created TEXT NOT NULL,"
    " outputs TEXT NOT NULL, validation_rmse TEXT NOT NULL, sample_deck TEXT NOT NULL,"
    " PRIMARY KEY(name, version));"
    "CREATE TABLE IF NOT EXISTS events(at TEXT NOT NULL, name TEXT NOT NULL,"
    " version INTEGER NOT NULL, what TEXT NOT NULL);";

constexpr const char* columns =
    "name, version, stage, sha256, registered, source, signed_by, data_path, data_sha256, "
    "data_rows, epochs, training_deck, git_revision, camber_version, created, outputs, "
    "validation_rmse, sample_deck";

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : "\n") + x;
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) v.push_back(line);
  return v;
}

std::string join_reals(const std::vector<double>& v) {
  std::ostringstream s;
  s.precision(17);
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

std::vector<double> split_reals(const std::string& s) {
  std::vector<double> v;
  std::istringstream in(s);
  double x = 0.0;
  while (in >> x) v.push_back(x);
  return v;
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

void require_name(const std::string& name, const std::string& what) {
  CAMBER_INPUT_REQUIRE(valid_name(name), what << " '" << name
                                               << "' is not a model name (1 to 64 letters, digits, "
                                                  "'_', '-' or '.', not starting with '.')");
}

// What the store holds is read-only (0444).
constexpr fs::perms read_only = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "registry: cannot read '" << path << "'");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A blob into the store: by a temporary name in the same folder, flushed
// to disk, made read-only, then renamed (a kill leaves a stray temporary
// at worst, never a partial `to`).
void copy_atomically(const std::string& from, const std::string& to) {
  CAMBER_INPUT_REQUIRE(std::ifstream(from, std::ios::binary).good(),
                       "registry: cannot read '" << from << "'");
  copy_file_atomically(from, to, read_only);
}

// Stores a blob's signature, `verified` (by key `key_id`, over `bytes`,
// the blob's content), unless the one stored already verifies with
// `trusted`; returns the key id of the signature stored. A stored one
// that does not verify (forged, or by a key no longer trusted) is
// replaced.
std::string store_signature(const fs::path& blob_sig, const std::string& verified,
                            const std::string& key_id, const std::string& bytes,
                            const std::string& path, const trust::TrustedKeys& trusted) {
  std::error_code ec;
  if (fs::is_regular_file(blob_sig, ec)) {
    try {
      return trust::verify_bytes(bytes, read_file(blob_sig.string()), path, "model file", trusted).key_id;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
    }
  }
  write_file_atomically(blob_sig, verified, read_only);
  return key_id;
}

}  // namespace

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::dev: return "dev";
    case Stage::staging: return "staging";
    case Stage::prod: return "prod";
    case Stage::archived: return "archived";
  }
  return "?";
}

Stage stage_from_name(const std::string& name) {
  for (Stage s : {Stage::dev, Stage::staging, Stage::prod, Stage::archived})
    if (name == stage_name(s)) return s;
  throw_bad_input("'" + name + "' is not a stage (dev, staging, prod, archived)");
}

Reference parse_reference(const std::string& text) {
  Reference r;
  const size_t at = text.find('@');
  r.name = text.substr(0, at);
  require_name(r.name, "model reference '" + text + "':");
  if (at == std::string::npos) return r;
  const std::string what = text.substr(at + 1);
  CAMBER_INPUT_REQUIRE(!what.empty(), "model reference '" << text
                                                          << "': nothing after '@' (a version or "
                                                             "a stage: dev, staging, prod, archived)");
  if (std::all_of(what.begin(), what.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    CAMBER_INPUT_REQUIRE(what.size() <= 9 && what[0] != '0',
                         "model reference '" << text << "': version " << what
                                             << " is not a version (1, 2, ...)");
    r.version = std::stoll(what);
    return r;
  }
  try {
    r.stage = stage_from_name(what);
  } catch (const Error&) {
    throw_bad_input("model reference '" + text + "': '" + what +
                    "' is neither a version nor a stage (dev, staging, prod, archived)");
  }
  r.has_stage = true;
  return r;
}

// ---- the SQLite index -----------------------------------------------------

struct Registry::Db {
  sqlite3* db = nullptr;
  std::string path;
  ~Db() {
    if (db) sqlite3_close(db);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw_bad_input("registry index '" + path + "': " + what + ": " +
                    (db ? sqlite3_errmsg(db) : "cannot open"));
  }
  void exec(const char* sql) const {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string m = message ? message : "?";
      sqlite3_free(message);
      throw_bad_input("registry index '" + path + "': " + m);
    }
  }
};

namespace {

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK)
      throw_bad_input("registry index '" + path + "': " + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw_bad_input(std::string("registry index: ") + sqlite3_errmsg(db_));
  }
  std::string text(int i) const {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  std::int64_t integer(int i) const { return sqlite3_column_int64(s_, i); }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* s_ = nullptr;
};

// One transaction (BEGIN IMMEDIATE: the write lock from the start), rolled
// back unless committed.
class Transaction {
 public:
  explicit Transaction(const Registry::Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_.db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    db_.exec("COMMIT");
    done_ = true;
  }

 private:
  const Registry::Db& db_;
  bool done_ = false;
};

Entry entry_of(const Statement& q, const std::string& root) {
  Entry e;
  e.name = q.text(0);
  e.version = q.integer(1);
  e.stage = stage_from_name(q.text(2));
  e.sha256 = q.text(3);
  e.blob = (fs::path(root) / "blobs" / (e.sha256 + ".h5")).string();
  e.registered = q.text(4);
  e.source = q.text(5);
  e.signed_by = q.text(6);
  e.data_path = q.text(7);
  e.data_sha256 = q.text(8);
  e.data_rows = q.integer(9);
  e.epochs = q.integer(10);
  e.training_deck = q.text(11);
  e.git_revision = q.text(12);
  e.camber_version = q.text(13);
  e.created = q.text(14);
  e.outputs = split(q.text(15));
  e.validation_rmse = split_reals(q.text(16));
  e.sample_deck = q.text(17);
  return e;
}

void log_event(const Registry::Db& db, const std::string& name, std::int64_t version,
               const std::string& what) {
  Statement(db.db, "INSERT INTO events VALUES(?, ?, ?, ?)", db.path)
      .bind(1, utc_now())
      .bind(2, name)
      .bind(3, version)
      .bind(4, what)
      .step();
}

// A new version of `name` (the next number), holding `stage` (archiving
// the version there before, for staging and prod); returns its number.
std::int64_t insert_version(const Registry::Db& db, const std::string& path, const std::string& name,
                            Stage stage, const std::string& sha, const std::string& signed_by,
                            const io::Model& model, const std::string& sample_deck) {
  std::int64_t version = 1;
  {
    Statement last(db.db, "SELECT MAX(version) FROM models WHERE name = ?", db.path);
    last.bind(1, name);
    if (last.step()) version = last.integer(0) + 1;
  }
  if (stage == Stage::staging || stage == Stage::prod)
    Statement(db.db, "UPDATE models SET stage = 'archived' WHERE name = ? AND stage = ?", db.path)
        .bind(1, name)
        .bind(2, std::string(stage_name(stage)))
        .step();
  std::vector<std::string> outputs = model.surrogate.outputs().names;
  const io::ModelCard& c = model.card;
  Statement insert(db.db,
                   std::string("INSERT INTO models(") + columns +
                       ") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   db.path);
  insert.bind(1, name)
      .bind(2, version)
      .bind(3, std::string(stage_name(stage)))
      .bind(4, sha)
      .bind(5, utc_now())
      .bind(6, fs::absolute(path).string())
      .bind(7, signed_by)
      .bind(8, c.data_path)
      .bind(9, c.data_sha256)
      .bind(10, c.data_rows)
      .bind(11, c.epochs)
      .bind(12, c.training_deck)
      .bind(13, c.git_revision)
      .bind(14, c.camber_version)
      .bind(15, c.created)
      .bind(16, join(outputs))
      .bind(17, join_reals(c.validation_rmse))
      .bind(18, sample_deck)
      .step();
  log_event(db, name, version, std::string("register ") + stage_name(stage) + " " + sha);
  return version;
}

}  // namespace

Registry::Registry(const std::string& root) : root_(root), db_(std::make_unique<Db>()) {
  std::error_code ec;
  CAMBER_INPUT_REQUIRE(!fs::exists(root, ec) || fs::is_directory(root, ec),
                       "registry '" << root << "' is a file, not a registry folder");
  fs::create_directories(fs::path(root) / "blobs", ec);
  CAMBER_INPUT_REQUIRE(!ec, "registry '" << root << "': cannot create it: " << ec.message());
  db_->path = (fs::path(root) / "index.sqlite").string();
  if (sqlite3_open_v2(db_->path.c_str(), &db_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK)
    db_->fail("cannot open");
  sqlite3_busy_timeout(db_->db, 10000);
  db_->exec("PRAGMA journal_mode=WAL");
  db_->exec("PRAGMA synchronous=FULL");
  // An existing registry is only read here (no write lock: servers that
  // follow a stage open it often); a new one gets its tables.
  sqlite3_stmt* probe = nullptr;
  const bool exists = sqlite3_prepare_v2(db_->db, "SELECT value FROM registry WHERE key = 'format'",
                                         -1, &probe, nullptr) == SQLITE_OK &&
                      sqlite3_step(probe) == SQLITE_ROW;
  sqlite3_finalize(probe);
  if (!exists) {
    Transaction t(*db_);
    db_->exec(schema);
    Statement q(db_->db, "SELECT value FROM registry WHERE key = 'format'", db_->path);
    if (q.step()) {
      CAMBER_INPUT_REQUIRE(q.text(0) == "camber-model-registry 1",
                           "registry index '" << db_->path << "' has format '" << q.text(0)
                                              << "', this build reads 'camber-model-registry 1'");
    } else {
      db_->exec("INSERT INTO registry VALUES('format', 'camber-model-registry 1')");
    }
    t.commit();
  }
  Statement q(db_->db, "SELECT value FROM registry WHERE key = 'format'", db_->path);
  CAMBER_INPUT_REQUIRE(q.step() && q.text(0) == "camber-model-registry 1",
                       "registry index '" << db_->path << "' is not a Camber model registry "
                                                          "(format 'camber-model-registry 1')");
}

Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

std::string Registry::default_root() {
  if (const char* r = std::getenv("CAMBER_REGISTRY"); r && *r) return r;
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".camber" / "registry").string();
}

Entry Registry::register_model(const std::string& path, const std::string& name, Stage stage) {
  return register_model(path, name, stage, trust::TrustedKeys::environment());
}

Entry Registry::register_model(const std::string& path, const std::string& name, Stage stage,
                               const trust::TrustedKeys& trusted) {
  require_name(name, "register: name");
  CAMBER_INPUT_REQUIRE(stage != Stage::archived, "register: a new version cannot be archived");
  // Whatever can refuse the file is checked before the store changes.
  // Loading checks the file (and, with CAMBER_TRUSTED_KEYS, its signature).
  const io::Model model = io::load_model(path);
  const std::string sha = io::sha256_file(path);
  const fs::path blob = fs::path(root_) / "blobs" / (sha + ".h5");
  std::error_code ec;
  // The signature is kept as the text verified here (reading the .sig
  // again later could read a replaced one), and only when verified.
  std::string signature, signed_by, bytes, unverified;
  if (fs::exists(path + ".sig", ec)) {
    signature = read_file(path + ".sig");
    const trust::Signature sig = trust::parse_signature(signature, path + ".sig");
    CAMBER_INPUT_REQUIRE(sig.sha256 == sha, "register: '" << path << ".sig' signs another file (SHA-256 "
                                                          << sig.sha256 << ", the file's " << sha << ")");
    if (trusted.empty()) {
      unverified = path + ".sig";
    } else {
      bytes = read_file(path);
      signed_by = trust::verify_bytes(bytes, signature, path, "model file", trusted).key_id;
    }
  }
  // The data set's deck, when the data set is where the card says.
  std::string sample_deck;
  if (!model.card.data_path.empty() && fs::is_regular_file(model.card.data_path, ec) &&
      io::sha256_file(model.card.data_path) == model.card.data_sha256)
    sample_deck = io::dataset_deck(model.card.data_path);

  // The blob is copied under the index's write lock: until the commit no
  // entry names it and no other registration sees it, so a failure here
  // removes it.
  Transaction t(*db_);
  bool copied = false;
  try {
    if (!fs::exists(blob, ec)) {
      copy_atomically(path, blob.string());
      copied = true;
    }
    if (!signed_by.empty()) {
      signed_by = store_signature(blob.string() + ".sig", signature, signed_by, bytes, path, trusted);
      Statement(db_->db, "UPDATE models SET signed_by = ? WHERE sha256 = ?", db_->path)
          .bind(1, signed_by)
          .bind(2, sha)
          .step();
    }
    std::int64_t version = 0;
    {
      Statement same(db_->db, "SELECT version FROM models WHERE name = ? AND sha256 = ?", db_->path);
      same.bind(1, name).bind(2, sha);
      if (same.step()) version = same.integer(0);  // registered before: that version
    }
    if (version == 0) version = insert_version(*db_, path, name, stage, sha, signed_by, model, sample_deck);
    t.commit();
    copied = false;
    Entry e = resolve({name, version, false, Stage::dev});
    e.unverified_signature = unverified;
    return e;
  } catch (...) {
    if (copied) {
      std::error_code ignored;
      fs::remove(blob, ignored);
    }
    throw;
  }
}

std::vector<Entry> Registry::list(const std::string& name) const {
  Statement q(db_->db,
              std::string("SELECT ") + columns + " FROM models" +
                  (name.empty() ? "" : " WHERE name = ?") + " ORDER BY name, version",
              db_->path);
  if (!name.empty()) q.bind(1, name);
  std::vector<Entry> out;
  while (q.step()) out.push_back(entry_of(q, root_));
  return out;
}

Entry Registry::resolve(const Reference& ref) const {
  require_name(ref.name, "model");
  std::string where = "name = ?";
  if (ref.version > 0) where += " AND version = ?";
  if (ref.has_stage) where += " AND stage = ?";
  Statement q(db_->db,
              std::string("SELECT ") + columns + " FROM models WHERE " + where +
                  " ORDER BY version DESC LIMIT 1",
              db_->path);
  q.bind(1, ref.name);
  if (ref.version > 0) q.bind(2, ref.version);
  if (ref.has_stage) q.bind(2, std::string(stage_name(ref.stage)));
  if (q.step()) return entry_of(q, root_);
  const std::vector<Entry> versions = list(ref.name);
  std::string have;
  for (const Entry& e : versions)
    have += (have.empty() ? "" : ", ") + e.reference() + " (" + stage_name(e.stage) + ")";
  const std::string asked = ref.name + (ref.version > 0 ? "@" + std::to_string(ref.version)
                                        : ref.has_stage ? std::string("@") + stage_name(ref.stage)
                                                        : "");
  throw_bad_input("registry '" + root_ + "' has no " + asked +
                  (have.empty() ? "; it has no model of that name" : "; it has " + have));
}

Entry Registry::promote(const std::string& name, std::int64_t version, Stage stage) {
  Transaction t(*db_);
  const Entry e = resolve({name, version, false, Stage::dev});
  if (stage == Stage::staging || stage == Stage::prod)
    Statement(db_->db,
              "UPDATE models SET stage = 'archived' WHERE name = ? AND stage = ? AND version != ?",
              db_->path)
        .bind(1, name)
        .bind(2, std::string(stage_name(stage)))
        .bind(3, version)
        .step();
  Statement(db_->db, "UPDATE models SET stage = ? WHERE name = ? AND version = ?", db_->path)
      .bind(1, std::string(stage_name(stage)))
      .bind(2, name)
      .bind(3, version)
      .step();
  log_event(*db_, name, version,
            std::string("promote ") + stage_name(e.stage) + " -> " + stage_name(stage));
  t.commit();
  return resolve({name, version, false, Stage::dev});
}

void Registry::remove(const std::string& name, std::int64_t version) {
  std::string blob;
  {
    Transaction t(*db_);
    const Entry e = resolve({name, version, false, Stage::dev});
    CAMBER_INPUT_REQUIRE(e.stage != Stage::prod, "remove: " << e.reference()
                                                            << " is in prod; promote another "
                                                               "version to prod first");
    Statement(db_->db, "DELETE FROM models WHERE name = ? AND version = ?", db_->path)
        .bind(1, name)
        .bind(2, version)
        .step();
    log_event(*db_, name, version, "remove " + e.sha256);
    Statement users(db_->db, "SELECT COUNT(*) FROM models WHERE sha256 = ?", db_->path);
    users.bind(1, e.sha256);
    if (users.step() && users.integer(0) == 0) blob = e.blob;
    t.commit();
  }
  // After the commit: a kill here leaves an unreferenced file, no entry
  // without one.
  if (!blob.empty()) {
    std::error_code ec;
    fs::remove(blob + ".sig", ec);
    fs::remove(blob, ec);
  }
}

std::string resolve_model_path(const std::string& model, const std::string& registry) {
  return resolve_model(model, registry).path;
}

ResolvedModel resolve_model(const std::string& model, const std::string& registry) {
  std::error_code ec;
  if (fs::is_regular_file(model, ec)) return {model, "", 0};
  CAMBER_INPUT_REQUIRE(model.find('@') != std::string::npos || !fs::path(model).has_extension(),
                       "cannot open model file '" << model << "': no such file");
  const Reference ref = parse_reference(model);
  const std::string root = registry.empty() ? Registry::default_root() : registry;
  CAMBER_INPUT_REQUIRE(fs::is_directory(root, ec),
                       "'" << model << "' is no file, and no registry is at '" << root
                           << "' (CAMBER_REGISTRY) to look it up in");
  const Entry e = Registry(root).resolve(ref);
  return {e.blob, e.name, e.version};
}

}  // namespace camber::nn::registry
