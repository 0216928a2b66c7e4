// Chooses among the kernel variants compiled into this binary (CMake defines
// REMAT_ISA_HAVE_<NAME> for each) by asking the CPU what it runs.
#include "core/executor/cpu_kernels.h"

#include "core/errors.h"

#include <array>
#include <cstdlib>

namespace remat::exec::cpu {

// Each variant's table, defined by cpu_kernels_isa.cpp in its namespace.
#define REMAT_DECLARE_ISA_TABLE(ns)                                                                                    \
    namespace ns {                                                                                                     \
    const Kernels &kernelTable();                                                                                      \
    }
#ifdef REMAT_ISA_HAVE_BASELINE
REMAT_DECLARE_ISA_TABLE(isa_baseline)
#endif
#ifdef REMAT_ISA_HAVE_AVX2
REMAT_DECLARE_ISA_TABLE(isa_avx2)
#endif
#ifdef REMAT_ISA_HAVE_AVX512
REMAT_DECLARE_ISA_TABLE(isa_avx512)
#endif
#undef REMAT_DECLARE_ISA_TABLE

namespace {

constexpr std::array<Isa, 3> kAll{Isa::Baseline, Isa::Avx2, Isa::Avx512};

const Kernels *builtTable(Isa isa) {
    switch (isa) {
#ifdef REMAT_ISA_HAVE_BASELINE
    case Isa::Baseline:
        return &isa_baseline::kernelTable();
#endif
#ifdef REMAT_ISA_HAVE_AVX2
    case Isa::Avx2:
        return &isa_avx2::kernelTable();
#endif
#ifdef REMAT_ISA_HAVE_AVX512
    case Isa::Avx512:
        return &isa_avx512::kernelTable();
#endif
    default:
        return nullptr;
    }
}

// What the CPU and the OS (saved register state) allow; the feature lists
// match the compiler flags of cmake/RematIsaVariants.cmake.
bool cpuRuns(Isa isa) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    switch (isa) {
    case Isa::Baseline:
        return true;
    case Isa::Avx2:
        return avx2;
    case Isa::Avx512:
        return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl");
    }
    return false;
#else
    return isa == Isa::Baseline;
#endif
}

std::string allowedNames() {
    std::string out;
    for (Isa isa : kAll)
        out += (out.empty() ? "" : ", ") + std::string(isaName(isa));
    return out;
}

std::string supportedNames() {
    std::string out;
    for (Isa isa : supportedIsas())
        out += (out.empty() ? "" : ", ") + std::string(isaName(isa));
    return out;
}

} // namespace

std::string_view isaName(Isa isa) {
    switch (isa) {
    case Isa::Baseline:
        return "baseline";
    case Isa::Avx2:
        return "avx2";
    case Isa::Avx512:
        return "avx512";
    }
    return "?";
}

std::string_view isaLabel(Isa isa) {
    switch (isa) {
    case Isa::Baseline:
#if defined(__x86_64__)
        return "x86-64 baseline";
#else
        return "baseline";
#endif
    case Isa::Avx2:
        return "AVX2+FMA";
    case Isa::Avx512:
        return "AVX-512";
    }
    return "?";
}

Isa parseIsa(std::string_view name) {
    for (Isa isa : kAll)
        if (name == isaName(isa))
            return isa;
    throw InvalidArgument("REMAT_CPU_ISA must be one of " + allowedNames() + ", got '" + std::string(name) + "'");
}

bool isSupported(Isa isa) {
    return builtTable(isa) != nullptr && cpuRuns(isa);
}

std::vector<Isa> supportedIsas() {
    std::vector<Isa> out;
    for (Isa isa : kAll)
        if (isSupported(isa))
            out.push_back(isa);
    return out;
}

const Kernels &kernels(Isa isa) {
    const Kernels *table = builtTable(isa);
    if (!table)
        throw DeviceUnavailable("CPU kernels for " + std::string(isaName(isa)) +
                                " are not built into this binary; it has " + supportedNames());
    if (!cpuRuns(isa))
        throw DeviceUnavailable("this CPU cannot run the " + std::string(isaName(isa)) + " kernels; it runs " +
                                supportedNames());
    return *table;
}

Isa selectedIsa() {
    const char *requested = std::getenv("REMAT_CPU_ISA");
    if (requested && *requested) {
        const Isa isa = parseIsa(requested);
        kernels(isa); // throws when this CPU cannot run it
        return isa;
    }
    const std::vector<Isa> supported = supportedIsas();
    if (supported.empty()) // cannot happen while the baseline variant is built
        throw DeviceUnavailable("no CPU kernels are built into this binary");
    return supported.back();
}

} // namespace remat::exec::cpu
