// bitonic-sort: the command-line tool of the bitonic library. Exit codes: 0 success, 1 failure (a
// library or CUDA error, a failed check, no GPU where one is needed, output that could not be
// written), 2 bad command line.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "args.hpp"
#include "bench/algorithms.hpp"
#include "bitonic/bitonic.hpp"
#include "commands.hpp"

namespace bitonic::cli {
namespace {

struct command {
  std::string_view name;
  int (*run)(std::span<const std::string_view> args);
};

// New subcommands go here and into the usage text.
constexpr command commands[] = {
    {"demo", demo_command}, {"bench", bench_command},   {"sort", sort_command},
    {"gen", gen_command},   {"verify", verify_command}, {"argsort", argsort_command},
    {"topk", topk_command},
};

std::string usage() {
  std::string variants;  // what sort --algo takes
  for (const bench::algorithm_id& a : bench::variants())
    bench::append_name(variants, a.name);
  std::string algos;  // the variants on one line, the peers on the next
  for (const bench::algorithm_id& a : bench::all_algorithms()) {
    const bool first_peer = !algos.empty() && a.kind != bench::algorithm_kind::variant &&
                            algos.find('\n') == std::string::npos;
    if (!algos.empty()) algos += first_peer ? "\n                            " : " ";
    algos += a.name;
  }
  std::string record_algos;  // the rows of bench --values
  for (const bench::algorithm_id& a : bench::record_algorithms())
    bench::append_name(record_algos, a.name);
  return R"(usage: bitonic-sort COMMAND [OPTIONS]

Sorting on NVIDIA GPUs with bitonic sorting networks.

commands:
  demo    sort random int32 keys with every variant and check each against std::sort
          (on the CPU reference executor when there is no GPU)
            --log2n N       2^N keys (default 24)
            --seed S        seed of the input (default 20261121)
  bench   time the variants and their peers side by side on the GPU; every result is
          checked against std::sort (without a GPU: only std_sort, qsort and sort_host)
            --log2n A[:B]   sizes 2^A .. 2^B (default 20:27)
            --n N[,N...]    these sizes instead (any n, e.g. 100000000)
            --algo NAMES    comma list, may be repeated (default: all of them):
                            )" +
         algos + R"(
            --host          host-to-host mode: sort_host on pageable keys against std::sort
                            (the same as --algo sort_host,std_sort)
            --values V      records mode. u32, u64: (key, value) pairs sorted by
                            sort_pairs, each value its record's index; argsort: uint32
                            indices of the keys' sorted order (keys untouched); argsort64:
                            the same with uint64 indices (as torch returns); none: keys
                            alone (the default). Each result is checked as a permutation of
                            the records. Its rows (--algo):
                            )" +
         record_algos + R"(
            --batched SIZES batched mode: arrays of each of these sizes (comma list), --total
                            keys in all, each sorted on its own by sort_batched and by
                            sort_segments (the arrays as segments), against CUB's
                            DeviceSegmentedSort and DeviceSegmentedRadixSort (its own rows,
                            all unless --algo names some of: bitonic_batched cub_segmented
                            bitonic_segments cub_segmented_radix bitonic_batched_indices
                            bitonic_batched_pairs; no --host or --values)
            --total N       keys in all in the batched mode (default 16777216)
            --topk SHAPES   top-k mode: bitonic::topk, the k largest of each row with uint64
                            indices, for shapes BATCHxN:K (comma list), or `default` for the
                            torch.topk shapes of issue 21 (f32 unless --type; no --algo,
                            --host, --values or --batched); scripts/topk_torch.py times
                            torch.topk on the same shapes
            --type TYPES    key types, comma list: i32 u32 i64 u64 f32 f64 (default i32)
            --runs N        GPU and sort_host runs per time after a warm-up; the median is
                            reported (default 5)
            --cpu-runs N    std_sort and qsort runs (default 1)
            --seed S        seed of the inputs (default 20261121)
            --dist D        the keys' distribution: uniform sorted reverse organ equal few
                            nan unit (default uniform; unit: values in [-1, 1) in steps of
                            2^-23, as rand() * 2 - 1 in numpy and torch; not with --batched
                            or --topk)
            --csv FILE      write one row per size, type and algorithm to FILE
  sort    sort the keys of a file into a file (the same one too) with bitonic::sort_host;
          on the CPU reference executor when there is no GPU
            --in FILE       .npy (1-D, dtype <i4 <u4 <i8 <u8 <f4 <f8 |i1 |u1 <i2 <u2 <f2) or
                            raw little-endian keys
            --out FILE      .npy or raw by its extension; written in full or not at all
            --type T        key type of raw files: i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16
                            bf16 (.npy: must agree; bf16 raw files only)
            --values FILE   values to move with the keys (one a key; .npy or raw, any of the
                            4- and 8-byte types), sorted by bitonic::sort_pairs_host
            --values-out FILE   where the sorted values go (with --values)
            --values-type T type of raw values: i32 u32 i64 u64 f32 f64 (.npy: must agree)
            --desc          descending order (default ascending; NaNs sort as the largest keys)
            --stable        equal keys keep their input order (keys alone: only float keys
                            differ; with values: the values of equal keys keep their order)
            --algo NAME     the variant (default automatic):
                            )" +
         variants + R"(
            --max-device-bytes N   device memory the sort may use: bytes, or with a unit
                            K M G T (powers of 1024), fractions too (1.5G); larger data is
                            sorted out of core, in runs that are merged
            --rows N        sort each row of N keys on its own (bitonic::sort_batched; on
                            the CPU reference executor without a GPU): a 2-D .npy whose rows
                            have N keys (the output keeps its shape), or any file of whole rows
  argsort write the positions of a file's keys in sorted order (stable: equal keys keep
          their input order) with bitonic::argsort_host: on the GPU when the keys and indices
          fit it, else with std::stable_sort on the CPU (the same result)
            --in FILE       .npy or raw keys, as for sort
            --out FILE      .npy or raw indices by its extension; written in full or not at all
            --type T        key type of raw files: i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16
                            bf16 (.npy: must agree; bf16 raw files only)
            --index I       index type: u32 (default, up to 2^32 keys) or u64
            --desc          descending order (default ascending; NaNs sort as the largest keys)
  topk    the k largest keys of a file, or of each row of a 2-D .npy file, sorted, and their
          indices in the row (among equal keys the lower index first), with bitonic::topk_host:
          on the GPU when they fit it, else with std::partial_sort on the CPU (the same result)
            --in FILE       .npy (1-D, or 2-D: rows) or raw keys (one row), as for sort
            --k K           how many keys of each row (0 .. its length)
            --out FILE      the keys, .npy or raw by the extension (2-D input: rows of K)
            --indices FILE  their indices within the row (at least one of --out, --indices)
            --index I       index type: u64 (default, as torch.topk) or u32
            --type T        key type of raw files: i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16
                            bf16 (.npy: must agree; bf16 raw files only)
            --smallest      the k smallest instead (ascending; NaNs are the largest keys)
  gen     write test keys to a file (.npy or raw by its extension)
            --out FILE      the file
            --n N           number of keys
            --type T        key type: i32 u32 i64 u64 f32 f64 i8 u8 i16 u16 f16 bf16
            --dist D        uniform sorted reverse organ equal few nan unit (default uniform)
            --seed S        seed (default 20261121)
  verify  check that a file is sorted and, with --ref, holds the same keys as another file
            --in FILE       the file to check (.npy or raw)
            --ref FILE      must hold the same keys, bit for bit, in any order
            --type T        key type of raw files
            --desc          check descending order
  help    show this text (also --help, -h)
  --version  print the version

Options are given once each (bench --algo may repeat); a value may not begin with '-' unless
written --name=VALUE. An input that begins with the .npy magic string is read as .npy whatever
its name. Outputs go to a hidden temporary file beside them (beside the target of a symbolic
link) that is renamed over them when complete; README says what an interrupted run leaves.

exit status: 0 success, 1 failure (error, bad file, failed check or verify, nothing bench can
run without a GPU, output that could not be written), 2 usage error
)";
}

int dispatch(std::span<const std::string_view> args) {
  if (args.empty()) throw usage_error("no command given");
  const std::string_view name = args.front();
  if (name == "help" || name == "--help" || name == "-h") throw help_requested{};
  if (name == "--version") {
    std::puts("bitonic-sort " BITONIC_SORT_VERSION);
    return 0;
  }
  for (const command& c : commands) {
    if (c.name == name) return c.run(args.subspan(1));
  }
  throw usage_error("unknown command '" + std::string(name) + "'");
}

}  // namespace
}  // namespace bitonic::cli

namespace {

int run(std::span<const std::string_view> args) {
  using namespace bitonic::cli;
  try {
    return dispatch(args);
  } catch (const help_requested&) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "bitonic-sort: %s\n\n%s", e.what(), usage().c_str());
    return 2;
  } catch (const std::bad_alloc&) {  // what the commands do not catch themselves, in words
    std::fprintf(stderr,
                 "bitonic-sort: error: out of host memory (an allocation failed): use fewer keys "
                 "or free memory\n");
    return 1;
  } catch (const std::exception& e) {  // bitonic::error, file errors, CUDA errors of the bench
    std::fprintf(stderr, "bitonic-sort: error: %s\n", e.what());
    return 1;
  }
}

//! `status`, or 1 if what was printed on stdout did not all arrive (a full disk, a closed pipe):
//! a verdict or a table that is lost must not look like success.
int check_stdout(int status) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout)) return status;
  std::fprintf(stderr, "bitonic-sort: error: cannot write to standard output: %s\n",
               !flushed && errno != 0 ? std::strerror(errno) : "a write failed");
  return status == 0 ? 1 : status;
}

}  // namespace

int main(int argc, char** argv) {
  // Output up to this size waits for the final flush, which then reports a failed write with its
  // reason; a smaller buffer (4 KiB for /dev/full) fails inside an earlier write, whose errno is
  // gone by the time check_stdout looks. Commands that print progress (bench) flush themselves. A
  // terminal keeps its line buffering.
  static char stdout_buffer[1 << 16];
  if (isatty(fileno(stdout)) == 0)
    std::setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  return check_stdout(run(args));
}
