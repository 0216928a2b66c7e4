#pragma once
// Typed exceptions of the core library. Libraries throw; only the CLI and the
// studio turn these into messages (and exit codes).
#include <cstdint>
#include <stdexcept>
#include <string>

namespace remat {

// Base of every error the core reports on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A parameter given by the user is out of range or malformed. The message names
// the value and what is allowed.
class InvalidArgument : public Error {
public:
    using Error::Error;
};

// A schedule breaks the rules of docs/model.md. `opIndex()` is the offending
// op, or -1 when the schedule as a whole is wrong (for example incomplete).
class InvalidSchedule : public Error {
public:
    InvalidSchedule(std::int64_t opIndex, const std::string &message) : Error(message), opIndex_(opIndex) {}
    std::int64_t opIndex() const { return opIndex_; }

private:
    std::int64_t opIndex_;
};

// A request would exceed a documented limit (op count, model size); thrown
// before anything big is allocated.
class LimitExceeded : public Error {
public:
    using Error::Error;
};

// A backend (CPU memory, a CUDA device) failed. The message names the call,
// file:line and the device's own message.
class DeviceError : public Error {
public:
    using Error::Error;
};

// No usable device or driver: "CUDA not available: <the runtime's reason>".
class DeviceUnavailable : public DeviceError {
public:
    using DeviceError::DeviceError;
};

// An allocation did not fit; the message names the bytes asked and the bytes free.
class OutOfMemory : public DeviceError {
public:
    using DeviceError::DeviceError;
};

// Something valid that this part of remat does not do yet (the executor and
// offload ops, for example); the message says what and where instead.
class NotSupported : public Error {
public:
    using Error::Error;
};

// The MILP solver behind an exact planner failed, or remat was built without
// one; the message names the solver and what it reported.
class SolverError : public Error {
public:
    using Error::Error;
};

// The user asked to stop long work (planners, sweeps) through a callback.
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

} // namespace remat
