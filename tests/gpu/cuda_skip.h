#pragma once
// Skips the current test with the runtime's own reason when no CUDA device is
// usable (these machines: "CUDA driver version is insufficient ...").
#include "core/errors.h"
#include "gpu/cuda_backend.h"

#include <QtTest>

#define REMAT_REQUIRE_CUDA()                                                                                           \
    do {                                                                                                               \
        try {                                                                                                          \
            remat::gpu::queryDevice();                                                                                 \
        } catch (const remat::DeviceUnavailable &e) {                                                                  \
            QSKIP(e.what());                                                                                           \
        }                                                                                                              \
    } while (false)
