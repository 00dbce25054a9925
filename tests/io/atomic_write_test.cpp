// write_file_atomically and read_file_bytes: refusing to clobber, replacing with --force, and
// no temporary file left behind when a write fails before or after the temporary was created.
#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"

namespace fp4gemm::testing_io {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(AtomicWrite, WritesANewFileAndNothingElse) {
  TempDir dir;
  const Bytes bytes = bytes_of("fresh contents");
  write_file_atomically(dir / "out.bin", bytes, false, "--output");
  EXPECT_EQ(read_file_bytes(dir / "out.bin", "--output"), bytes);
  EXPECT_THAT(dir.entries(), ElementsAre("out.bin"));
}

TEST(AtomicWrite, RefusesAnExistingPathAndLeavesItUnchanged) {
  TempDir dir;
  write_file_atomically(dir / "x.npy", bytes_of("old"), false, "--output");
  const std::string path = (dir / "x.npy").string();
  expect_error<InvalidArgument>(
      [&] { write_file_atomically(dir / "x.npy", bytes_of("new"), false, "--output"); },
      fmt::format("--output '{}' already exists; pass --force to replace it", path));
  EXPECT_EQ(read_file_bytes(dir / "x.npy", "--output"), bytes_of("old"));
  EXPECT_THAT(dir.entries(), ElementsAre("x.npy"));
}

TEST(AtomicWrite, ReplacesAnExistingFileWhenOverwriteIsSet) {
  TempDir dir;
  write_file_atomically(dir / "x.npy", bytes_of("old contents, longer"), false, "--output");
  write_file_atomically(dir / "x.npy", bytes_of("new"), true, "--output");
  EXPECT_EQ(read_file_bytes(dir / "x.npy", "--output"), bytes_of("new"));
  EXPECT_THAT(dir.entries(), ElementsAre("x.npy"));
}

TEST(AtomicWrite, MissingDirectoryIsAnIoErrorNamingThePathAndReason) {
  TempDir dir;
  const auto path = dir / "no-such-dir" / "x.npy";
  expect_error<IoError>([&] { write_file_atomically(path, bytes_of("x"), false, "--output"); },
                        fmt::format("cannot write --output '{}': its directory '{}' does not exist",
                                    path.string(), (dir / "no-such-dir").string()));
  EXPECT_THAT(dir.entries(), IsEmpty());
}

// The checks a command makes before a long computation (require_output_writable): the same
// refusals write_file_atomically makes, without writing anything.
TEST(RequireOutputWritable, TakesANewPathAndRefusesWhatTheWriteWould) {
  TempDir dir;
  require_output_writable(dir / "new.json", false, "--json");  // absent, in a directory: taken
  write_file_atomically(dir / "old.json", bytes_of("keep"), false, "--json");
  expect_error<InvalidArgument>([&] { require_output_writable(dir / "old.json", false, "--json"); },
                                fmt::format("--json '{}' already exists; pass --force to replace it",
                                            (dir / "old.json").string()));
  require_output_writable(dir / "old.json", true, "--json");  // --force
  expect_error<IoError>([&] { require_output_writable(dir / "no-such-dir" / "x.json", true, "--json"); },
                        fmt::format("cannot write --json '{}': its directory '{}' does not exist",
                                    (dir / "no-such-dir" / "x.json").string(),
                                    (dir / "no-such-dir").string()));
  expect_error<IoError>([&] { require_output_writable(dir / "old.json" / "x.json", true, "--json"); },
                        fmt::format("its directory '{}' is not a directory", (dir / "old.json").string()));
  EXPECT_EQ(read_file_bytes(dir / "old.json", "--json"), bytes_of("keep"));
  EXPECT_THAT(dir.entries(), ElementsAre("old.json"));
}

// The temporary file is written and synced, then the rename onto a directory fails (EISDIR):
// the temporary must be removed and the directory left as it was.
TEST(AtomicWrite, FailedRenameRemovesTheTemporaryFile) {
  TempDir dir;
  std::filesystem::create_directory(dir / "target");
  expect_error<IoError>(
      [&] { write_file_atomically(dir / "target", bytes_of("payload"), true, "--output"); },
      "renaming the temporary file over the target");
  EXPECT_THAT(dir.entries(), ElementsAre("target"));
  EXPECT_TRUE(std::filesystem::is_directory(dir / "target"));
}

TEST(AtomicWrite, EmptyContentsGiveAnEmptyFile) {
  TempDir dir;
  write_file_atomically(dir / "empty", {}, false, "--output");
  EXPECT_THAT(read_file_bytes(dir / "empty", "--output"), IsEmpty());
}

TEST(ReadFileBytes, MissingFileNamesArgumentPathAndReason) {
  TempDir dir;
  const auto path = dir / "absent.npy";
  expect_error<IoError>(
      [&] { read_file_bytes(path, "--a"); },
      fmt::format("cannot read --a '{}': open: No such file or directory", path.string()));
}

TEST(ReadFileBytes, DirectoryIsRejected) {
  TempDir dir;
  expect_error<IoError>([&] { read_file_bytes(dir.path(), "--a"); }, "Is a directory");
}

}  // namespace
}  // namespace fp4gemm::testing_io
