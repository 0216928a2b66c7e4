#include "openblas_probe.h"

#include <algorithm>
#include <dlfcn.h>

namespace remat::bench {

OpenBlas::OpenBlas() {
    for (const char *name : {"libopenblas.so.0", "libopenblas.so"}) {
        library_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (library_) {
            name_ = name;
            break;
        }
    }
    if (!library_) {
        missing_ = "OpenBLAS not found (libopenblas.so.0: install libopenblas0-pthread, scripts/deps.sh)";
        return;
    }
    sgemm_ = reinterpret_cast<Sgemm>(dlsym(library_, "cblas_sgemm"));
    setThreads_ = reinterpret_cast<void (*)(int)>(dlsym(library_, "openblas_set_num_threads"));
    getThreads_ = reinterpret_cast<int (*)()>(dlsym(library_, "openblas_get_num_threads"));
    config_ = reinterpret_cast<char *(*)()>(dlsym(library_, "openblas_get_config"));
    if (!sgemm_ || !setThreads_ || !getThreads_)
        missing_ = name_ + " lacks cblas_sgemm or openblas_set_num_threads";
    if (!missing_.empty())
        sgemm_ = nullptr;
}

OpenBlas::~OpenBlas() {
    if (library_)
        dlclose(library_);
}

std::string OpenBlas::describe() const {
    if (!loaded())
        return missing_;
    const std::string config = config_ ? config_() : "OpenBLAS";
    return config + ", " + std::to_string(threads()) + " thread(s) (" + name_ + ")";
}

void OpenBlas::setThreads(int threads) {
    if (setThreads_)
        setThreads_(threads);
}

int OpenBlas::threads() const {
    return getThreads_ ? getThreads_() : 0;
}

void OpenBlas::sgemm(exec::cpu::Transpose transA, exec::cpu::Transpose transB, std::int64_t m, std::int64_t n,
                     std::int64_t k, float alpha, const float *A, std::int64_t lda, const float *B, std::int64_t ldb,
                     float beta, float *C, std::int64_t ldc) const {
    constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112; // CBLAS_ORDER, CBLAS_TRANSPOSE
    const auto op = [](exec::cpu::Transpose t) { return t == exec::cpu::Transpose::Yes ? kTrans : kNoTrans; };
    sgemm_(kColMajor, op(transA), op(transB), static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, A,
           static_cast<int>(lda), B, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

double medianRatio(const std::vector<double> &a, const std::vector<double> &b) {
    std::vector<double> ratios;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (b[i] > 0)
            ratios.push_back(a[i] / b[i]);
    if (ratios.empty())
        return 0;
    std::sort(ratios.begin(), ratios.end());
    const std::size_t mid = ratios.size() / 2;
    return ratios.size() % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
}

} // namespace remat::bench
