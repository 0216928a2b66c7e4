// gpu_check [--out DIR] [--filter TEXT] [--list]: runs the checks of this folder
// and prints one line per check, then "N passed, N failed". Exit status: 0 all
// passed, 1 some failed, 2 bad arguments, 77 no CUDA device (CTest's
// SKIP_RETURN_CODE: the host-only checks still ran and passed).
#include "gpu/check/check.h"
#include "gpu/check/device_data.h"
#include "gpu/cuda_backend.h"

#include "core/errors.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace {

using namespace remat::gpu::check;

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoDevice = 77;

CheckList allChecks() {
    CheckList all;
    for (CheckList part :
         {ruleChecks(), kernelChecks(), backendChecks(), transformerKernelChecks(), transformerBackendChecks(),
          offloadChecks()})
        for (Check &c : part)
            all.push_back(std::move(c));
    return all;
}

struct Options {
    std::string out;    // folder for gpu_check.json; none when empty
    std::string filter; // run the checks whose name contains it
    bool list = false;
};

std::optional<Options> parse(int argc, char **argv) {
    Options o;
    for (int k = 1; k < argc; ++k) {
        const std::string arg = argv[k];
        if ((arg == "--out" || arg == "--filter") && k + 1 < argc)
            (arg == "--out" ? o.out : o.filter) = argv[++k];
        else if (arg == "--list")
            o.list = true;
        else {
            std::cerr << "gpu_check: unknown argument '" << arg
                      << "'; usage: gpu_check [--out DIR] [--filter TEXT] [--list]\n";
            return std::nullopt;
        }
    }
    return o;
}

// Write-then-rename: a reader never sees half a file.
void writeJson(const std::string &folder, const nlohmann::ordered_json &doc) {
    namespace fs = std::filesystem;
    fs::create_directories(folder);
    const fs::path path = fs::path(folder) / "gpu_check.json", partial = path.string() + ".partial";
    {
        std::ofstream f(partial);
        f << doc.dump(2) << '\n';
        if (!f)
            throw std::runtime_error("cannot write " + partial.string());
    }
    fs::rename(partial, path);
}

} // namespace

int main(int argc, char **argv) {
    const auto options = parse(argc, argv);
    if (!options)
        return kExitUsage;
    CheckList checks;
    for (Check &c : allChecks())
        if (c.name.find(options->filter) != std::string::npos)
            checks.push_back(std::move(c));
    if (checks.empty()) {
        std::cerr << "gpu_check: no check name contains '" << options->filter << "' (see --list)\n";
        return kExitUsage;
    }
    if (options->list) {
        for (const Check &c : checks)
            std::cout << c.name << '\n';
        return 0;
    }

    nlohmann::ordered_json doc;
    std::optional<std::string> noDevice;
    try {
        const remat::gpu::DeviceInfo info = remat::gpu::queryDevice();
        doc["device"] = {{"name", info.name},
                         {"compute_capability", std::to_string(info.major) + "." + std::to_string(info.minor)},
                         {"total_bytes", info.totalBytes},
                         {"driver_version", info.driverVersion},
                         {"runtime_version", info.runtimeVersion}};
        std::cout << "device: " << info.name << " (sm_" << info.major << info.minor << ", "
                  << info.totalBytes / (1 << 20) << " MiB)\n";
    } catch (const remat::DeviceUnavailable &e) {
        noDevice = e.what();
        doc["device"] = nullptr;
        doc["skipped"] = e.what();
        std::cout << "gpu_check: " << e.what() << "; running the host-only checks, skipping the rest\n";
    }

    int passed = 0, failed = 0, skipped = 0;
    doc["checks"] = nlohmann::ordered_json::array();
    for (const Check &c : checks) {
        if (c.needsDevice && noDevice) {
            ++skipped;
            continue;
        }
        const auto start = std::chrono::steady_clock::now();
        Outcome o;
        try {
            o = c.run();
        } catch (const std::exception &e) {
            o = fail(std::string("threw: ") + e.what());
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        (o.passed ? passed : failed)++;
        std::cout << (o.passed ? "PASS " : "FAIL ") << c.name << ": " << o.message << std::endl;
        doc["checks"].push_back({{"name", c.name}, {"passed", o.passed}, {"message", o.message}, {"seconds", seconds}});
    }
    doc["passed"] = passed;
    doc["failed"] = failed;
    doc["skipped_without_device"] = skipped;
    if (!options->out.empty()) {
        try {
            writeJson(options->out, doc);
        } catch (const std::exception &e) {
            std::cerr << "gpu_check: " << e.what() << '\n';
            ++failed;
        }
    }
    if (noDevice)
        std::cout << skipped << " skipped without a CUDA device\n";
    std::cout << passed << " passed, " << failed << " failed" << std::endl;
    if (failed > 0)
        return kExitFailed;
    return noDevice ? kExitNoDevice : 0;
}
