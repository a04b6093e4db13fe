#include "array_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "npy.hpp"

namespace bitonic::tools {
namespace {

constexpr std::uint64_t io_chunk_bytes = std::uint64_t{8} << 20;  // progress steps, bounded writes
constexpr std::uint64_t progress_min_bytes = std::uint64_t{64} << 20;

std::string system_error(std::string_view what) {
  return std::string(what) + ": " + std::strerror(errno);
}

//! A bar on stderr, for arrays large enough to take a while, when stderr is a terminal.
class progress_bar {
 public:
  progress_bar(std::string label, std::uint64_t total)
      : label_(std::move(label)),
        total_(total),
        enabled_(total >= progress_min_bytes && ::isatty(STDERR_FILENO)) {}
  ~progress_bar() {
    if (shown_ >= 0) std::fputc('\n', stderr);  // an error message after it starts a new line
  }
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  void show(std::uint64_t done) {
    if (!enabled_) return;
    const int percent = static_cast<int>(done * 100 / total_);
    if (percent == shown_) return;
    shown_ = percent;
    constexpr int width = 30;
    const int filled = percent * width / 100;
    std::fprintf(stderr, "\r%s [%s%s] %3d%%", label_.c_str(), std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), percent);
  }

 private:
  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  int shown_ = -1;
};

//! What a file that is not a regular file is, for the message that refuses it.
std::string_view kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

//! A file descriptor open for reading, closed on scope exit.
class input_fd {
 public:
  //! Opens `path` and checks that it is a regular file whose size tells its contents: the reads
  //! are sized (and .npy headers checked) by it up front, so streams are refused, not guessed at.
  explicit input_fd(const std::string& path)
      // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
      : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)) {
    if (fd_ < 0) throw file_error(system_error(path + ": cannot open it"));
    const auto refuse = [&](const std::string& message) {
      ::close(fd_);
      throw file_error(message);
    };
    struct stat st {};
    if (::fstat(fd_, &st) != 0) refuse(system_error(path + ": cannot stat it"));
    if (S_ISDIR(st.st_mode)) refuse(path + ": is a directory");
    if (!S_ISREG(st.st_mode)) {
      refuse(path + ": is " + std::string(kind_of(st.st_mode)) +
             ": only regular files can be read (copy it to one first)");
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    size_ = static_cast<std::uint64_t>(st.st_size);
    char probe = 0;
    if (size_ == 0 && ::pread(fd_, &probe, 1, 0) > 0) {
      refuse(path + ": reports a size of 0 bytes but has contents (a pseudo-file, as in /proc): " +
             "copy it to a regular file first");
    }
  }
  ~input_fd() { ::close(fd_); }
  input_fd(const input_fd&) = delete;
  input_fd& operator=(const input_fd&) = delete;

  std::uint64_t size() const { return size_; }

  //! Reads exactly `bytes` bytes from `offset` into `dst`, showing them on `bar` if given.
  void read_at(void* dst, std::uint64_t bytes, std::uint64_t offset, progress_bar* bar = nullptr) {
    char* out = static_cast<char*>(dst);
    for (std::uint64_t done = 0; done < bytes;) {
      const ssize_t got = ::pread(fd_, out + done, std::min(io_chunk_bytes, bytes - done),
                                  static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw file_error(system_error(path_ + ": read failed"));
      if (got == 0) throw file_error(path_ + ": the file ended early (did it change while read?)");
      done += static_cast<std::uint64_t>(got);
      if (bar) bar->show(done);
    }
  }

 private:
  std::string path_;
  int fd_;
  std::uint64_t size_ = 0;
};

// The temporary file being written, for the signal handler to remove. One at a time: the CLI
// writes one file at a time, and a second one simply goes untracked.
char pending_temp_path[4096];
volatile std::sig_atomic_t has_pending_temp = 0;

extern "C" void remove_temp_and_reraise(int signal) {
  if (has_pending_temp) ::unlink(pending_temp_path);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

bool track_temp_file(const std::string& path) {
  static const bool handlers_installed = [] {
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) {
      struct sigaction current {};
      if (::sigaction(signal, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) {
        continue;  // nohup and background jobs keep ignoring it
      }
      struct sigaction action {};
      action.sa_handler = remove_temp_and_reraise;
      ::sigaction(signal, &action, nullptr);
    }
    return true;
  }();
  if (!handlers_installed || has_pending_temp || path.size() >= sizeof pending_temp_path) {
    return false;
  }
  std::memcpy(pending_temp_path, path.c_str(), path.size() + 1);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is complete before it counts
  has_pending_temp = 1;
  return true;
}

//! `path` with the symbolic links of its last component followed, as open() follows them, up to
//! the first name that is not a link (which need not exist: a dangling link's target is created).
std::string follow_links(const std::string& path) {
  std::filesystem::path current(path);
  for (int links = 0; links <= 40; ++links) {  // Linux's limit
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current.string();
    std::error_code error;
    const std::filesystem::path target = std::filesystem::read_symlink(current, error);
    if (error) {
      throw file_error(path + ": cannot read the link " + current.string() + ": " +
                       error.message());
    }
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  errno = ELOOP;
  throw file_error(system_error(path));
}

//! The process that wrote the temporary file `name` (`prefix` PID "-" and mkstemp's six
//! characters), if that process no longer runs; nullopt for other names and for live writers.
std::optional<pid_t> gone_writer(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  const std::size_t dash = name.find('-');
  const std::string_view random = name.substr(dash == name.npos ? name.size() : dash + 1);
  if (random.size() != 6 || !std::all_of(random.begin(), random.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0;
      })) {
    return std::nullopt;
  }
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + dash, pid);
  if (ec != std::errc{} || end != name.data() + dash || pid <= 0) return std::nullopt;
  if (::kill(pid, 0) == 0 || errno != ESRCH) return std::nullopt;  // alive (or another user's)
  return pid;
}

//! Removes the temporary files `prefix`PID-XXXXXX in `directory` whose writers are gone (killed,
//! crashed): no process has their PID and nobody holds their lock. Both, because a PID may live in
//! another PID namespace (a container sharing the directory), and a lock is not yet taken in the
//! instant after mkostemp.
void remove_stale_temp_files(const std::string& directory, const std::string& prefix) {
  DIR* listing = ::opendir(directory.c_str());
  if (listing == nullptr) return;  // creating the temporary file will say what is wrong
  std::vector<std::pair<std::string, pid_t>> stale;
  while (const dirent* entry = ::readdir(listing)) {
    if (const auto pid = gone_writer(entry->d_name, prefix))
      stale.emplace_back(entry->d_name, *pid);
  }
  ::closedir(listing);
  for (const auto& [name, pid] : stale) {
    const std::string path = directory + "/" + name;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        ::unlink(path.c_str()) == 0) {
      std::fprintf(stderr,
                   "bitonic-sort: note: removed %s, left behind by process %d (no longer "
                   "running)\n",
                   path.c_str(), static_cast<int>(pid));
    }
    ::close(fd);
  }
}

}  // namespace

file_format format_of(std::string_view path) {
  constexpr std::string_view extension = ".npy";
  const bool npy =
      path.size() >= extension.size() &&
      std::equal(extension.begin(), extension.end(), path.end() - extension.size(),
                 [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  return npy ? file_format::npy : file_format::raw;
}

array_file inspect_array_file(const std::string& path, std::string_view key_type) {
  array_file file;
  file.path = path;
  input_fd in(path);
  std::string header(std::min<std::uint64_t>(npy::preamble_bytes, in.size()), '\0');
  in.read_at(header.data(), header.size(), 0);
  file.format = npy::has_magic(header) ? file_format::npy : format_of(path);
  if (file.format == file_format::npy) {
    npy::array_header parsed;
    try {
      header.resize(npy::header_length(header, in.size()));
      in.read_at(header.data(), header.size(), 0);
      parsed = npy::parse_header(header, in.size());
    } catch (const npy::format_error& e) {
      throw file_error(path + ": " + e.what());
    }
    if (!key_type.empty() && key_type != parsed.key_type) {
      throw file_error(path + ": holds " + std::string(parsed.key_type) + " keys (dtype '" +
                       npy::descr_of(parsed.key_type) + "'), not " + std::string(key_type));
    }
    file.key_type = parsed.key_type;
    file.count = parsed.count;
    file.data_offset = parsed.data_offset;
    file.row_length = parsed.row_length;
    return file;
  }
  if (key_type.empty()) throw key_type_missing(path + ": a raw file: its key type must be given");
  std::size_t key_bytes = 0;
  if (!with_any_key_type(key_type, [&](auto key) {
        file.key_type = type_name<decltype(key)>();
        key_bytes = sizeof key;
      })) {
    throw std::logic_error("inspect_array_file: a raw file needs a known key type, not '" +
                           std::string(key_type) + "'");
  }
  if (in.size() % key_bytes != 0) {
    throw file_error(path + ": its " + std::to_string(in.size()) +
                     " bytes are not a whole number of " + std::to_string(key_bytes) + "-byte " +
                     std::string(file.key_type) + " keys");
  }
  file.count = in.size() / key_bytes;
  return file;
}

void read_key_bytes(const array_file& file, void* dst, std::uint64_t bytes) {
  input_fd in(file.path);
  if (in.size() != file.data_offset + bytes) {
    throw file_error(file.path + ": its size changed since it was inspected");
  }
  progress_bar bar("reading " + file.path, bytes);
  in.read_at(dst, bytes, file.data_offset, &bar);
}

output_file::output_file(std::string path) : path_(std::move(path)), target_(follow_links(path_)) {
  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      throw file_error(path_ + ": exists and is not a regular file (not replacing it)");
    }
    mode_ = st.st_mode & 07777;
  } else if (errno == ENOENT) {
    const mode_t umask = ::umask(0);
    ::umask(umask);
    mode_ = 0666 & ~umask;
  } else {
    throw file_error(system_error(path_));
  }
  // Beside the destination, so that the final rename stays within one file system.
  const std::filesystem::path destination(target_);
  const std::string directory =
      destination.has_parent_path() ? destination.parent_path().string() : std::string(".");
  const std::string prefix =
      std::string(".").append(destination.filename().string(), 0, 200).append(".tmp-");
  remove_stale_temp_files(directory, prefix);
  temp_path_ = directory + "/" + prefix + std::to_string(::getpid()) + "-XXXXXX";
  fd_ = ::mkostemp(temp_path_.data(), O_CLOEXEC);
  if (fd_ < 0) {
    throw file_error(
        system_error(path_ + ": cannot create a file in directory '" + directory + "'"));
  }
  // Held until the file is closed or its process dies: while held, a later run leaves the file
  // alone, whatever PID namespace the writer is in. Where locks are unsupported the PID tells.
  ::flock(fd_, LOCK_EX | LOCK_NB);
  tracked_ = track_temp_file(temp_path_);
}

output_file::~output_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_path_.c_str());
  if (tracked_) has_pending_temp = 0;
}

void output_file::reserve(std::uint64_t size) {
  if (size == 0) return;  // an empty raw file; fallocate refuses a length of 0
  if (::fallocate(fd_, 0, 0, static_cast<off_t>(size)) != 0 && errno != EOPNOTSUPP &&
      errno != ENOSYS) {
    throw file_error(system_error(path_ + ": cannot reserve " + std::to_string(size) + " bytes"));
  }
}

void output_file::write(const void* bytes, std::size_t size) {
  const char* next = static_cast<const char*>(bytes);
  while (size > 0) {
    const ssize_t written = ::write(fd_, next, std::min<std::size_t>(size, io_chunk_bytes));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) throw file_error(system_error(path_ + ": write failed"));
    next += written;
    size -= static_cast<std::size_t>(written);
  }
}

void output_file::commit() {
  if (::fchmod(fd_, mode_) != 0) throw file_error(system_error(path_ + ": cannot set its mode"));
  // Delayed allocation reports a full disk only here; and the data must be on disk before the
  // rename makes it the file, or a crash could leave an empty or partial file under the name.
  if (::fsync(fd_) != 0) throw file_error(system_error(path_ + ": writing to disk failed"));
  if (::close(std::exchange(fd_, -1)) != 0) {
    throw file_error(system_error(path_ + ": writing to disk failed"));
  }
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0) {
    throw file_error(system_error(path_ + ": cannot rename '" + temp_path_ + "' to it"));
  }
  committed_ = true;
}

std::uint64_t array_file_size(file_format format, std::string_view key_type, std::uint64_t count,
                              std::size_t key_bytes, std::optional<std::uint64_t> row_length) {
  const std::uint64_t header =
      format == file_format::npy ? npy::make_header(key_type, count, row_length).size() : 0;
  return header + count * key_bytes;
}

void write_key_bytes(output_file& out, file_format format, std::string_view key_type,
                     const void* keys, std::uint64_t count, std::size_t key_bytes,
                     std::optional<std::uint64_t> row_length) {
  if (format == file_format::npy) {
    const std::string header = npy::make_header(key_type, count, row_length);
    out.write(header.data(), header.size());
  }
  const std::uint64_t total = count * key_bytes;
  const char* bytes = static_cast<const char*>(keys);
  progress_bar bar("writing " + out.path(), total);
  for (std::uint64_t done = 0; done < total;) {
    const std::uint64_t chunk = std::min(io_chunk_bytes, total - done);
    out.write(bytes + done, chunk);
    done += chunk;
    bar.show(done);
  }
}

}  // namespace bitonic::tools
