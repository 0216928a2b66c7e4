#pragma once
// OpenBLAS, loaded at run time (dlopen), as the yardstick of the CPU
// benchmarks: the sgemm that Debian's PyTorch calls once libopenblas0-pthread
// is installed (scripts/deps.sh). No build dependency: a machine without it
// runs the benchmarks without that column and says so.
#include "core/executor/cpu_kernels.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::bench {

class OpenBlas {
public:
    OpenBlas(); // tries libopenblas.so.0, then libopenblas.so
    ~OpenBlas();
    OpenBlas(const OpenBlas &) = delete;
    OpenBlas &operator=(const OpenBlas &) = delete;

    bool loaded() const { return sgemm_ != nullptr; }
    // "OpenBLAS 0.3.21 ... Cooperlake, 2 threads (libopenblas.so.0)", or why it is missing.
    std::string describe() const;
    void setThreads(int threads);
    int threads() const;
    // Column-major C = alpha op(A) op(B) + beta C (cblas_sgemm).
    void sgemm(exec::cpu::Transpose transA, exec::cpu::Transpose transB, std::int64_t m, std::int64_t n,
               std::int64_t k, float alpha, const float *A, std::int64_t lda, const float *B, std::int64_t ldb,
               float beta, float *C, std::int64_t ldc) const;

private:
    using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *,
                           int);
    void *library_ = nullptr;
    std::string name_, missing_;
    Sgemm sgemm_ = nullptr;
    void (*setThreads_)(int) = nullptr;
    int (*getThreads_)() = nullptr;
    char *(*config_)() = nullptr;
};

// The median over rounds of a[i] / b[i]: a ratio of two contenders that
// took turns, each round's pair measured moments apart, so that a burst of
// other work on the machine spoils a round rather than one side's median.
double medianRatio(const std::vector<double> &a, const std::vector<double> &b);

} // namespace remat::bench
