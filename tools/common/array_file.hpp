// Key arrays in files, as the CLI reads and writes them: NumPy .npy (the key type is in the header)
// or raw little-endian keys (the key type comes from the user). Every failure throws file_error
// naming the file. Inputs must be regular files (their size is read up front). Output goes to a
// temporary file beside the destination (beside its target, for a symbolic link) that is renamed
// over it only once complete, so that no failure or interruption leaves a partial file behind.
// Files of 64 MiB or more show a progress bar while they are read or written, when stderr is a
// terminal. Not part of the library.
#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bench/keys.hpp"

namespace bitonic::tools {

//! A file that cannot be read or written as asked; the message begins with the file's name.
class file_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! A raw file inspected without a key type: the caller must ask for one.
class key_type_missing : public file_error {
 public:
  using file_error::file_error;
};

enum class file_format { raw, npy };

//! .npy (any case) by the extension, raw otherwise: the format of an output file.
file_format format_of(std::string_view path);

//! A readable array file, checked: where its keys are and what they are.
struct array_file {
  std::string path;
  file_format format = file_format::raw;
  std::string_view key_type;  //!< "i32", ...
  std::uint64_t count = 0;
  std::uint64_t data_offset = 0;  //!< bytes before the first key (the .npy header)
  //! A 2-D .npy array (rows of keys, row-major): the keys of a row; empty for 1-D and raw files.
  std::optional<std::uint64_t> row_length;
};

//! Opens `path` and checks it: a .npy header (whose dtype must be `key_type` unless that is
//! empty), or a raw file's size (a whole number of `key_type` keys; key_type_missing without one).
//! A file is .npy when it begins with numpy's magic string, whatever its name (read as raw keys,
//! its header would be sorted in), or when its name ends in .npy (then a missing magic string is
//! an error); raw otherwise.
array_file inspect_array_file(const std::string& path, std::string_view key_type);

//! Keys in host memory, left uninitialised until the file's bytes are read straight into them.
template <class Key>
struct key_array {
  std::unique_ptr<Key[]> keys;
  std::size_t count = 0;

  std::span<Key> span() const { return {keys.get(), count}; }
};

//! Reads `bytes` bytes of the keys of `file` into `dst`.
void read_key_bytes(const array_file& file, void* dst, std::uint64_t bytes);

//! The keys of `file`, whose key type must be Key's. Throws file_error when the memory for them
//! cannot be had.
template <class Key>
key_array<Key> read_keys(const array_file& file) {
  if (file.key_type != type_name<Key>()) {
    throw std::logic_error("read_keys: " + file.path + " holds " + std::string(file.key_type) +
                           " keys, not " + std::string(type_name<Key>()));
  }
  key_array<Key> array;
  try {
    array.keys = std::make_unique_for_overwrite<Key[]>(file.count);
  } catch (const std::bad_alloc&) {
    throw file_error(file.path + ": not enough host memory for its " + std::to_string(file.count) +
                     " keys (" + std::to_string(file.count * sizeof(Key)) + " bytes)");
  }
  array.count = file.count;
  read_key_bytes(file, array.keys.get(), file.count * sizeof(Key));
  return array;
}

//! A file written in full or not at all. The bytes go to a temporary file beside `path`; commit()
//! flushes it to disk and renames it over `path`. Destroyed without commit (on an error) it removes
//! the temporary file; so do SIGINT, SIGTERM, SIGHUP and SIGXFSZ while it is open.
//!
//! A `path` that is a symbolic link (or a chain of them) is written through: the temporary file
//! goes beside the link's final target, which the rename replaces; the links stay. A file with
//! other hard links is replaced under `path` alone (the other names keep the old contents).
//!
//! The temporary file is ".NAME.tmp-PID-XXXXXX" (NAME the destination's name, PID the writing
//! process), locked (flock) while written. Only SIGKILL, a crash or a power cut leave it behind;
//! the next output_file of the same destination removes those left by processes that no longer
//! run (no such PID, and the lock free), with a note on stderr.
class output_file {
 public:
  //! Throws file_error when `path` cannot be written: a missing or read-only directory, a
  //! destination that exists and is not a regular file (never replaced), a loop of links.
  explicit output_file(std::string path);
  ~output_file();
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;

  const std::string& path() const { return path_; }
  //! Allocates `size` bytes on disk up front, so that a full disk fails the run before the long
  //! part rather than at the end (where the file system supports it; elsewhere writes report it).
  void reserve(std::uint64_t size);
  void write(const void* bytes, std::size_t size);
  void commit();

 private:
  std::string path_;    //!< as given, for messages
  std::string target_;  //!< path_ with its symbolic links followed: what commit() replaces
  std::string temp_path_;
  int fd_ = -1;
  mode_t mode_ = 0;  //!< the destination's permissions: an existing file's, or 0666 less the umask
  bool committed_ = false;
  bool tracked_ = false;  //!< the signal handlers know the temporary file
};

//! The size of a file of `count` keys of `key_type` ("i32", ...) of `key_bytes` bytes each (.npy:
//! 2-D in rows of `row_length` keys when that is given).
std::uint64_t array_file_size(file_format format, std::string_view key_type, std::uint64_t count,
                              std::size_t key_bytes,
                              std::optional<std::uint64_t> row_length = std::nullopt);

template <class Key>
std::uint64_t array_file_size(file_format format, std::uint64_t count,
                              std::optional<std::uint64_t> row_length = std::nullopt) {
  return array_file_size(format, type_name<Key>(), count, sizeof(Key), row_length);
}

//! Writes `count` keys of `key_type` ("i32", ...) of `key_bytes` bytes each from `keys` to `out`
//! as `format` (a header first for .npy: 2-D in rows of `row_length` keys when that is given), in
//! chunks, with a progress bar for large arrays.
void write_key_bytes(output_file& out, file_format format, std::string_view key_type,
                     const void* keys, std::uint64_t count, std::size_t key_bytes,
                     std::optional<std::uint64_t> row_length = std::nullopt);

template <class Key>
void write_keys(output_file& out, file_format format, std::span<const Key> keys,
                std::optional<std::uint64_t> row_length = std::nullopt) {
  write_key_bytes(out, format, type_name<Key>(), keys.data(), keys.size(), sizeof(Key), row_length);
}

}  // namespace bitonic::tools
