// bitonic._core — the Python package's extension: the public API (bitonic.hpp) on raw pointers,
// and the little DLPack and CUDA glue that pure Python cannot do. Which array a pointer belongs
// to, its stream, dtype and shape checks live in the Python layer (python/bitonic/_arrays.py);
// here every call is one C++ call with the GIL released.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"

namespace nb = nanobind;

namespace {

// The key types by the codes the Python layer uses (bitonic._arrays.DTYPES keeps the same order):
// the 4- and 8-byte ones first (also the types of values, indices and offsets), then the 1- and
// 2-byte ones (keys only).
enum class key_type : int { i32, u32, i64, u64, f32, f64, i8, u8, i16, u16, f16, bf16 };

// Calls f(T{}) for the code of a 4- or 8-byte type; throws for another.
template <class F>
void with_wide_type(int code, F&& f) {
  switch (static_cast<key_type>(code)) {
    case key_type::i32:
      return f(std::int32_t{});
    case key_type::u32:
      return f(std::uint32_t{});
    case key_type::i64:
      return f(std::int64_t{});
    case key_type::u64:
      return f(std::uint64_t{});
    case key_type::f32:
      return f(float{});
    case key_type::f64:
      return f(double{});
    default:
      break;
  }
  throw bitonic::error("bitonic: type code " + std::to_string(code) +
                       " is not one of a 4- or 8-byte type (values, indices and offsets)");
}

// Calls f(Key{}) for the code of any key type.
template <class F>
void with_key_type(int code, F&& f) {
  switch (static_cast<key_type>(code)) {
    case key_type::i8:
      return f(std::int8_t{});
    case key_type::u8:
      return f(std::uint8_t{});
    case key_type::i16:
      return f(std::int16_t{});
    case key_type::u16:
      return f(std::uint16_t{});
    case key_type::f16:
      return f(__half{});
    case key_type::bf16:
      return f(__nv_bfloat16{});
    default:
      return with_wide_type(code, f);
  }
}

// Makes `device` current for the scope of a call and restores the caller's device after it, as
// torch.cuda.device() does: an array on device 1 sorts there whatever device is current.
class device_scope {
 public:
  explicit device_scope(int device) {
    BITONIC_CUDA_CHECK(cudaGetDevice(&previous_));
    if (device >= 0 && device != previous_) {
      BITONIC_CUDA_CHECK(cudaSetDevice(device));
      switched_ = true;
    }
  }
  ~device_scope() {
    if (switched_) cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

cudaStream_t as_stream(std::uintptr_t handle) {
  return reinterpret_cast<cudaStream_t>(handle);
}

bitonic::options make_options(bool descending, bool stable, std::uintptr_t stream,
                              std::uintptr_t workspace, std::size_t workspace_bytes) {
  bitonic::options opt;
  opt.direction = descending ? bitonic::order::descending : bitonic::order::ascending;
  opt.stream = as_stream(stream);
  opt.workspace = reinterpret_cast<void*>(workspace);
  opt.workspace_bytes = workspace_bytes;
  opt.stable = stable;
  return opt;
}

// The entry points, by the codes the Python layer uses (bitonic._arrays.OPS keeps the same order).
// The second array: sort_pairs' values (any key type's code: they move as bits), argsort's and
// sort_indices' indices (u32 or u64) or sort_copy's output (the keys' type); sort has none and
// passes its key type's code. sort_indices is argsort with the sorted keys into a third array.
enum class operation : int { sort, sort_pairs, argsort, sort_copy, sort_indices };

template <class T>
constexpr bool is_index = std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>;

// Whether sort_pairs takes values of T (4 or 8 bytes); a 1- or 2-byte Second only comes with sort
// and sort_copy (the keys' own type), whose record branches are then not compiled.
template <class T>
constexpr bool is_value = sizeof(T) == 4 || sizeof(T) == 8;

// Calls f(Key{}, Second{}, op) for the codes; throws for an argsort into another index type.
template <class F>
void with_types(int op, int key_code, int second_code, F&& f) {
  const auto what = static_cast<operation>(op);
  if (what != operation::sort && what != operation::sort_pairs && what != operation::argsort &&
      what != operation::sort_copy && what != operation::sort_indices) {
    throw bitonic::error("bitonic: unknown operation code " + std::to_string(op));
  }
  if (what == operation::sort_copy && key_code != second_code) {
    throw bitonic::error("bitonic: sort_copy writes keys of the input's type");
  }
  with_key_type(key_code, [&](auto key) {
    if (what == operation::sort || what == operation::sort_copy) return f(key, key, what);
    with_wide_type(second_code, [&](auto second) {
      if constexpr (!is_index<decltype(second)>) {
        if (what == operation::argsort || what == operation::sort_indices) {
          throw bitonic::error("bitonic: argsort writes u32 or u64");
        }
      }
      f(key, second, what);
    });
  });
}

// Whether `rows` rows of `n` keys on the device go to the batched entry points in one call: rows
// of records (and stable float sorts, which run as records) when they are at most 2^32 in all.
bool batched(operation what, std::size_t rows, std::size_t n, bool stable) {
  if (what == operation::sort_copy) return false;  // a row at a time (the Python layer: one row)
  const bool records = what != operation::sort || stable;
  return rows > 1 && (!records || rows * n <= (std::size_t{1} << 32));
}

// `rows` rows of `n` keys back to back from `keys` (and as many values or indices from `second`,
// and sort_indices' sorted keys into `third`). In device memory (on_device) the batched device
// entry points in one call (else one call a row, sharing the workspace), asynchronous on
// `stream`; in host memory the host forms, one call a row, synchronous (the GPU when there is
// one, the CPU otherwise; sort_indices only on the device).
void run(int op, bool on_device, std::uintptr_t keys, std::uintptr_t second, std::size_t rows,
         std::size_t n, int key_code, int second_code, bool descending, bool stable,
         std::uintptr_t stream, std::uintptr_t workspace, std::size_t workspace_bytes, int device,
         std::uintptr_t third) {
  if (static_cast<operation>(op) == operation::sort_indices && !on_device) {
    throw bitonic::error("bitonic: sort_indices sorts device arrays");
  }
  std::optional<device_scope> scope;
  if (on_device) scope.emplace(device);
  const bitonic::options opt = make_options(descending, stable, stream, workspace, workspace_bytes);
  with_types(op, key_code, second_code, [&](auto key, auto second_type, operation what) {
    using Key = decltype(key);
    using Second = decltype(second_type);
    if (on_device && batched(what, rows, n, stable)) {
      Key* k = reinterpret_cast<Key*>(keys);
      Second* s = reinterpret_cast<Second*>(second);
      if (what == operation::sort) {
        bitonic::sort_batched(k, rows, n, opt);
      } else if (what == operation::sort_pairs) {
        if constexpr (is_value<Second>) bitonic::sort_batched_pairs(k, s, rows, n, opt);
      } else if constexpr (is_index<Second>) {
        Key* sorted = what == operation::sort_indices ? reinterpret_cast<Key*>(third) : nullptr;
        bitonic::argsort_batched(k, sorted, s, rows, n, opt);
      }
      return;
    }
    for (std::size_t row = 0; row < rows; ++row) {
      Key* k = reinterpret_cast<Key*>(keys) + row * n;
      Second* s = second != 0 ? reinterpret_cast<Second*>(second) + row * n : nullptr;
      if (what == operation::sort) {
        on_device ? bitonic::sort(k, n, opt) : bitonic::sort_host(k, n, opt);
      } else if (what == operation::sort_copy) {
        if constexpr (std::is_same_v<Key, Second>) {
          if (!on_device) throw bitonic::error("bitonic: sort_copy sorts device arrays");
          bitonic::sort(static_cast<const Key*>(k), s, n, opt);
        }
      } else if (what == operation::sort_pairs) {
        if constexpr (is_value<Second>) {
          on_device ? bitonic::sort_pairs(k, s, n, opt) : bitonic::sort_pairs_host(k, s, n, opt);
        }
      } else if (what == operation::sort_indices) {
        if constexpr (is_index<Second>) {
          bitonic::argsort(k, reinterpret_cast<Key*>(third) + row * n, s, n, opt);
        }
      } else if constexpr (is_index<Second>) {
        on_device ? bitonic::argsort(k, s, n, opt) : bitonic::argsort_host(k, s, n, opt);
      }
    }
  });
}

// Bytes of workspace the device entry point `op` needs for `rows` rows of n keys on `device` (as
// `run` sorts them: batched, or a row at a time).
std::size_t workspace_bytes(int op, std::size_t n, int key_code, int second_code, bool stable,
                            int device, std::size_t rows) {
  device_scope scope(device);
  const bitonic::options opt = make_options(false, stable, 0, 0, 0);
  std::size_t bytes = 0;
  with_types(op, key_code, second_code, [&](auto key, auto second, operation what) {
    using Key = decltype(key);
    using Second = decltype(second);
    if (batched(what, rows, n, stable)) {
      if (what == operation::sort) {
        bytes = bitonic::batched_workspace_bytes<Key>(rows, n, opt);
      } else if (what == operation::sort_pairs) {
        if constexpr (is_value<Second>) {
          bytes = bitonic::batched_pairs_workspace_bytes<Key, Second>(rows, n, opt);
        }
      } else if constexpr (is_index<Second>) {
        bytes = bitonic::batched_argsort_workspace_bytes<Key, Second>(rows, n, opt);
      }
    } else if (what == operation::sort || what == operation::sort_copy) {
      bytes = bitonic::workspace_bytes<Key>(n, opt);
    } else if (what == operation::sort_pairs) {
      if constexpr (is_value<Second>) bytes = bitonic::pairs_workspace_bytes<Key, Second>(n, opt);
    } else if constexpr (is_index<Second>) {
      bytes = bitonic::argsort_workspace_bytes<Key, Second>(n, opt);
    }
  });
  return bytes;
}

// Calls f(Index{}) for the codes of indices and offsets (u32, u64); throws for another.
template <class F>
void with_index_type(int code, F&& f) {
  with_wide_type(code, [&](auto index) {
    if constexpr (is_index<decltype(index)>) {
      f(index);
    } else {
      throw bitonic::error("bitonic: indices and offsets are u32 or u64");
    }
  });
}

// The k first keys of each of `rows` rows of n keys (descending: the largest), sorted, into
// rows of k at out_keys and out_indices: topk on the device (asynchronous on `stream`), topk_host
// for host memory (synchronous).
void topk(bool on_device, std::uintptr_t keys, std::size_t rows, std::size_t n, std::size_t k,
          std::uintptr_t out_keys, std::uintptr_t out_indices, int key_code, int index_code,
          bool descending, std::uintptr_t stream, std::uintptr_t workspace,
          std::size_t workspace_bytes, int device) {
  std::optional<device_scope> scope;
  if (on_device) scope.emplace(device);
  const bitonic::options opt = make_options(descending, false, stream, workspace, workspace_bytes);
  with_key_type(key_code, [&](auto key) {
    with_index_type(index_code, [&](auto index) {
      using Key = decltype(key);
      using Index = decltype(index);
      const auto* in = reinterpret_cast<const Key*>(keys);
      auto* top = reinterpret_cast<Key*>(out_keys);
      auto* ids = reinterpret_cast<Index*>(out_indices);
      on_device ? bitonic::topk(in, rows, n, k, top, ids, opt)
                : bitonic::topk_host(in, rows, n, k, top, ids, opt);
    });
  });
}

std::size_t topk_workspace_bytes(std::size_t rows, std::size_t n, std::size_t k, int key_code,
                                 int index_code, bool descending, int device) {
  device_scope scope(device);
  const bitonic::options opt = make_options(descending, false, 0, 0, 0);
  std::size_t bytes = 0;
  with_key_type(key_code, [&](auto key) {
    with_index_type(index_code, [&](auto index) {
      bytes = bitonic::topk_workspace_bytes<decltype(key), decltype(index)>(rows, n, k, opt);
    });
  });
  return bytes;
}

// Sorts each of `num_segments` segments of the keys (CSR offsets of the offset code's type, u32 or
// u64): sort_segments on the device (which synchronises `stream`), sort_segments_host for host
// memory.
void sort_segments(bool on_device, std::uintptr_t keys, std::uintptr_t offsets,
                   std::size_t num_segments, int key_code, int offset_code, bool descending,
                   bool stable, std::uintptr_t stream, std::uintptr_t workspace,
                   std::size_t workspace_bytes, int device) {
  std::optional<device_scope> scope;
  if (on_device) scope.emplace(device);
  const bitonic::options opt = make_options(descending, stable, stream, workspace, workspace_bytes);
  with_key_type(key_code, [&](auto key) {
    with_index_type(offset_code, [&](auto offset) {
      using Key = decltype(key);
      using Offset = decltype(offset);
      auto* k = reinterpret_cast<Key*>(keys);
      const auto* o = reinterpret_cast<const Offset*>(offsets);
      on_device ? bitonic::sort_segments(k, o, num_segments, opt)
                : bitonic::sort_segments_host(k, o, num_segments, opt);
    });
  });
}

std::size_t segments_workspace_bytes(std::size_t num_keys, std::size_t num_segments, int key_code,
                                     bool stable, int device) {
  device_scope scope(device);
  const bitonic::options opt = make_options(false, stable, 0, 0, 0);
  std::size_t bytes = 0;
  with_key_type(key_code, [&](auto key) {
    bytes = bitonic::segments_workspace_bytes<decltype(key)>(num_keys, num_segments, opt);
  });
  return bytes;
}

// Orders `consumer` after the work enqueued so far on `producer` (CUDA Array Interface's
// "stream" of the data's producer): an event, no host wait.
void stream_wait(std::uintptr_t consumer, std::uintptr_t producer, int device) {
  if (consumer == producer) return;
  device_scope scope(device);
  cudaEvent_t event = nullptr;
  BITONIC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  cudaError_t status = cudaEventRecord(event, as_stream(producer));
  if (status == cudaSuccess) status = cudaStreamWaitEvent(as_stream(consumer), event, 0);
  cudaEventDestroy(event);  // released once the wait has been enqueued
  bitonic::check_cuda(status, "cudaEventRecord/cudaStreamWaitEvent");
}

void stream_synchronize(std::uintptr_t stream, int device) {
  device_scope scope(device);
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
}

// DLPack (https://dmlc.github.io/dlpack/latest/c_api.html): the ABI-stable structs, both the
// legacy capsule ("dltensor") and the versioned one ("dltensor_versioned").
struct dl_device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct dl_data_type {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct dl_tensor {
  void* data;
  dl_device device;
  std::int32_t ndim;
  dl_data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct dl_managed_tensor {
  dl_tensor tensor;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor*);
};
struct dl_managed_tensor_versioned {
  std::uint32_t major, minor;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor_versioned*);
  std::uint64_t flags;
  dl_tensor tensor;
};
constexpr std::uint64_t dl_flag_read_only = 1;

// What a DLPack capsule describes, without consuming it: the capsule keeps ownership, and its
// producer's destructor releases the tensor when the capsule dies (keep it alive while the data
// is used). Returns (data + byte_offset, device_type, device_id, shape, strides or None,
// (type code, bits, lanes), read_only).
nb::tuple dlpack_info(nb::handle capsule) {
  PyObject* object = capsule.ptr();
  const dl_tensor* tensor = nullptr;
  bool read_only = false;
  if (PyCapsule_IsValid(object, "dltensor")) {
    tensor = &static_cast<dl_managed_tensor*>(PyCapsule_GetPointer(object, "dltensor"))->tensor;
  } else if (PyCapsule_IsValid(object, "dltensor_versioned")) {
    auto* managed = static_cast<dl_managed_tensor_versioned*>(
        PyCapsule_GetPointer(object, "dltensor_versioned"));
    if (managed->major != 1) throw nb::value_error("bitonic: DLPack major version is not 1");
    tensor = &managed->tensor;
    read_only = (managed->flags & dl_flag_read_only) != 0;
  } else {
    throw nb::type_error("bitonic: not a live DLPack capsule (already consumed?)");
  }
  nb::list shape, strides;
  for (int i = 0; i < tensor->ndim; ++i) {
    shape.append(tensor->shape[i]);
    if (tensor->strides != nullptr) strides.append(tensor->strides[i]);
  }
  nb::object strides_or_none =
      tensor->strides != nullptr ? nb::object(nb::tuple(strides)) : nb::none();
  const auto data = reinterpret_cast<std::uintptr_t>(tensor->data) + tensor->byte_offset;
  return nb::make_tuple(
      data, tensor->device.device_type, tensor->device.device_id, nb::tuple(shape), strides_or_none,
      nb::make_tuple(tensor->dtype.code, tensor->dtype.bits, tensor->dtype.lanes), read_only);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "bitonic's C++ API on raw pointers; use the functions of the bitonic package instead";
  nb::exception<bitonic::error>(m, "Error", PyExc_RuntimeError);

  using nb::arg;
  const auto no_gil = nb::call_guard<nb::gil_scoped_release>();
  m.def("run", &run, arg("op"), arg("on_device"), arg("keys"), arg("second"), arg("rows"), arg("n"),
        arg("key_type"), arg("second_type"), arg("descending"), arg("stable"), arg("stream"),
        arg("workspace"), arg("workspace_bytes"), arg("device"), arg("third") = 0, no_gil);
  m.def("workspace_bytes", &workspace_bytes, arg("op"), arg("n"), arg("key_type"),
        arg("second_type"), arg("stable"), arg("device"), arg("rows") = 1, no_gil);
  m.def("topk", &topk, arg("on_device"), arg("keys"), arg("rows"), arg("n"), arg("k"),
        arg("out_keys"), arg("out_indices"), arg("key_type"), arg("index_type"), arg("descending"),
        arg("stream"), arg("workspace"), arg("workspace_bytes"), arg("device"), no_gil);
  m.def("topk_workspace_bytes", &topk_workspace_bytes, arg("rows"), arg("n"), arg("k"),
        arg("key_type"), arg("index_type"), arg("descending"), arg("device"), no_gil);
  m.def("sort_segments", &sort_segments, arg("on_device"), arg("keys"), arg("offsets"),
        arg("num_segments"), arg("key_type"), arg("offset_type"), arg("descending"), arg("stable"),
        arg("stream"), arg("workspace"), arg("workspace_bytes"), arg("device"), no_gil);
  m.def("segments_workspace_bytes", &segments_workspace_bytes, arg("num_keys"), arg("num_segments"),
        arg("key_type"), arg("stable"), arg("device"), no_gil);
  m.def("stream_wait", &stream_wait, arg("consumer"), arg("producer"), arg("device"), no_gil);
  m.def("stream_synchronize", &stream_synchronize, arg("stream"), arg("device"), no_gil);
  m.def("dlpack_info", &dlpack_info, arg("capsule"));
  m.def("gpu_available", &bitonic::gpu_available);
  m.def("release_cached_memory", &bitonic::release_cached_memory, no_gil);
  m.def("cached_memory_bytes", &bitonic::cached_memory_bytes);
  m.def("device_count", [] {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
  });
}
