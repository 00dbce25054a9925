#pragma once
// Files fp4gemm reads and writes: dense matrices as .npy, FP4 tensors as safetensors.
//
// Errors. `argument` names where the bytes came from, and starts every message: the read_* and
// write_* functions pass "<argument> '<path>'" (e.g. "--a 'x.npy'"), the parse_* functions use it
// as given. A file whose structure breaks its format's rules (bad magic, truncation, a header that
// does not parse, offsets out of range) throws IoError; a well-formed file holding something
// fp4gemm does not take (another dtype, Fortran order, not 2-D) throws InvalidArgument. The
// parse_* functions do no I/O and never read outside `bytes`: on any input they return or throw
// one of those two (fuzzed by tests/fuzz).
//
// .npy (NumPy format versions 1.0, 2.0 and 3.0): a 2-D C-order little-endian array of dtype
//   '<f4' (fp32), '<f2' (fp16), or '<f8' (fp64, rounded to the nearest fp32 on reading; a finite
//   value beyond the fp32 range is rejected, naming its position). Written as version 1.0 with
//   '<f4', or '<f2' for an f16 matrix; a bf16 matrix (NumPy has no bf16) is widened exactly to
//   '<f4'. The header is padded so that the data starts at a multiple of 64 bytes.
//
// safetensors, with the tensor names of NVIDIA ModelOpt checkpoints (see DESIGN.md):
//   <prefix>weight          U8       [rows, K/2]       E2M1 codes, element 2i in the low nibble
//   <prefix>weight_scale    F8_E4M3  [rows, K/16]      NVFP4 block scales (linear layout), or
//                           U8       [rows, K/32]      MXFP4 UE8M0 scales (linear layout);
//                           swizzled layout: [round_up(rows, 128), round_up(K/block, 4)]
//   <prefix>weight_scale_2  F32      []                NVFP4 only (shape [1] also read)
//   __metadata__            {"format": "nvfp4"|"mxfp4", "scale_layout": "linear"|"swizzled",
//                            "producer": "fp4gemm"}
//   Reading trusts "format" and "scale_layout" only in files whose "producer" is "fp4gemm"
//   (HuggingFace writers put {"format": "pt"} there). Otherwise, as for a ModelOpt checkpoint:
//   the format comes from the dtype of weight_scale (F8_E4M3: NVFP4; F8_E8M0: MXFP4; U8 is
//   ambiguous and rejected) and the layout from its shape (linear when both layouts give the
//   same shape, i.e. rows % 128 == 0 and K/block % 4 == 0, as ModelOpt stores linear scales).
//   Other tensors in the file are checked for consistency and otherwise ignored.
//   Writing follows the reference implementation: the JSON header is padded with spaces so that
//   the data area starts at a multiple of 8, and tensors are contiguous (its reader rejects
//   holes): weight, weight_scale_2, weight_scale. The weight and the F32 scalar therefore start
//   at multiples of 8 (K/2 is a multiple of 8), the byte-typed weight_scale at a multiple of 4.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "fp4gemm/matrix.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

// ------------------------------------------------------------------ plain files
// The whole file. IoError naming `argument`, the path and the system's reason on failure.
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& path,
                                          std::string_view argument);

// Writes `bytes` to a temporary file in the directory of `path`, flushes and fsyncs it, then
// renames it over `path` (and fsyncs the directory): a reader sees the old file or the complete
// new one, never a partial write. If `path` exists and !overwrite: InvalidArgument
// "<argument> '<path>' already exists; pass --force to replace it" and nothing is written (the
// check precedes the rename, so a file created in between would still be replaced). On any
// failure the temporary file is removed and IoError names the path and the system's reason.
void write_file_atomically(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                           bool overwrite, std::string_view argument);
// The checks of write_file_atomically that need no data, for a command to make before a long
// computation (a benchmark, a measurement) so that a refused output does not waste it: `path`
// may be written (absent, or `overwrite`: else the InvalidArgument above) into a directory that
// exists and that this process may write (else IoError "cannot write <argument> '<path>': its
// directory '<dir>' does not exist" / "is not a directory" / "is not writable: <reason>").
// write_file_atomically makes them again when it writes.
void require_output_writable(const std::filesystem::path& path, bool overwrite, std::string_view argument);
// The same for text (reports: JSON, CSV, Markdown, SVG).
inline void write_text_atomically(const std::filesystem::path& path, std::string_view text, bool overwrite,
                                  std::string_view argument) {
  write_file_atomically(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
                        overwrite, argument);
}

// ------------------------------------------------------------------ .npy
HostMatrix parse_npy_matrix(std::span<const std::uint8_t> bytes, std::string_view argument);
HostMatrix read_npy_matrix(const std::filesystem::path& path, std::string_view argument);
// InvalidArgument if the matrix's sizes disagree with its values.
std::vector<std::uint8_t> serialize_npy(const HostMatrix& m);
void write_npy(const std::filesystem::path& path, const HostMatrix& m, bool overwrite,
               std::string_view argument);

// ------------------------------------------------------------------ safetensors
// The result passes Fp4Tensor::validate(); `t` must too (InvalidArgument otherwise).
std::vector<std::uint8_t> serialize_fp4_safetensors(const Fp4Tensor& t);
void write_fp4_safetensors(const std::filesystem::path& path, const Fp4Tensor& t, bool overwrite,
                           std::string_view argument);
Fp4Tensor parse_fp4_safetensors(std::span<const std::uint8_t> bytes, std::string_view argument,
                                std::string_view prefix = "");
Fp4Tensor read_fp4_safetensors(const std::filesystem::path& path, std::string_view argument,
                               std::string_view prefix = "");

}  // namespace fp4gemm
