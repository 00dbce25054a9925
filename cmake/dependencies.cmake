# Third-party dependencies, all from Debian packages (scripts/setup.sh installs them).
# Header-only where the library allows it, so that the binaries carry no shared library that
# a machine with only the CUDA toolkit (the GPU hosts) lacks.
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt 9 REQUIRED)
find_package(Threads REQUIRED)
find_package(GTest)
# OpenBLAS is used only by the CPU benchmark against sgemm (bench/), never by the library.
set(BLA_VENDOR OpenBLAS)
find_package(BLAS)
