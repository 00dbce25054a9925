// Reading .npy: the file np.save writes for a small fp32 matrix, versions 1.0 / 2.0 / 3.0,
// fp16 and fp64 data, and the header spellings a Python literal allows.
#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"
#include "io/numpy_arange_npy.hpp"

namespace fp4gemm::testing_io {
namespace {

using ::testing::ElementsAre;

TEST(NpyRead, ParsesTheFileNumpySavesForArange6Reshaped2x3) {
  const HostMatrix m = parse_npy_matrix(kNumpyArange2x3, "--a");
  EXPECT_EQ(m.dtype, DType::f32);
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_THAT(m.f32, ElementsAre(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f));
}

TEST(NpyRead, AcceptsVersions2And3WithTheirU32HeaderLength) {
  const Bytes data = raw_bytes(std::vector<float>{1.5f, -2.0f});
  for (const int major : {2, 3}) {
    const HostMatrix m = parse_npy_matrix(
        npy_file(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }", data),
        "--a");
    EXPECT_EQ(m.rows, 1);
    EXPECT_THAT(m.f32, ElementsAre(1.5f, -2.0f)) << "version " << major;
  }
}

TEST(NpyRead, Float16KeepsTheCodes) {
  const std::vector<std::uint16_t> codes = {0x3C00, 0xC000, 0x0001, 0x7BFF};  // 1, -2, min, max
  const HostMatrix m = parse_npy_matrix(
      npy_file(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 2), }", raw_bytes(codes)),
      "--a");
  EXPECT_EQ(m.dtype, DType::f16);
  EXPECT_EQ(m.half, codes);
}

TEST(NpyRead, Float64IsRoundedToTheNearestFloat32) {
  const std::vector<double> values = {0.1, -3.0, 1e-50, 3.4028234663852886e38};
  const HostMatrix m = parse_npy_matrix(
      npy_file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 4), }", raw_bytes(values)),
      "--a");
  EXPECT_EQ(m.dtype, DType::f32);
  EXPECT_THAT(m.f32, ElementsAre(0.1f, -3.0f, 0.0f, 3.4028234663852886e38f));
}

// Each header is a Python dict literal NumPy's reader accepts for a (1, 2) '<f4' C-order array.
TEST(NpyRead, AcceptsEveryPythonSpellingOfTheHeader) {
  const Bytes data = raw_bytes(std::vector<float>{7.0f, 8.0f});
  for (const std::string_view dict : {
           "{'shape': (1, 2), 'fortran_order': False, 'descr': '<f4'}",          // any key order
           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (1, 2)}",  // double quotes
           "{ 'descr' : '<f4' ,\n 'fortran_order' : False ,\t'shape' : ( 1 , 2 , ) , }",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (1L, 2L), }",  // Python 2
       }) {
    const HostMatrix m = parse_npy_matrix(npy_file(1, dict, data), "--a");
    EXPECT_THAT(m.f32, ElementsAre(7.0f, 8.0f)) << dict;
  }
  // Unpadded header (older writers aligned to 16 or not at all): alignment is not required.
  const HostMatrix m = parse_npy_matrix(
      npy_file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)}", data, false), "--a");
  EXPECT_THAT(m.f32, ElementsAre(7.0f, 8.0f));
}

TEST(NpyRead, ReadsAFileAndNamesItInErrors) {
  TempDir dir;
  const auto path = dir / "a.npy";
  write_file_atomically(path, kNumpyArange2x3, false, "--output");
  EXPECT_EQ(read_npy_matrix(path, "--a").cols, 3);
  Bytes truncated = kNumpyArange2x3;
  truncated.pop_back();
  write_file_atomically(path, truncated, true, "--output");
  expect_error<IoError>([&] { read_npy_matrix(path, "--a"); },
                        fmt::format("--a '{}': truncated .npy data", path.string()));
}

}  // namespace
}  // namespace fp4gemm::testing_io
