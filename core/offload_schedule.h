#pragma once
// Where a schedule that sends activations to host puts its transfers, the
// rule of `offload-all` (PyTorch's torch.autograd.graph.save_on_cpu):
// - an offloaded a_i is copied to host right after it is computed (after the
//   frees that follow that compute), so the copy overlaps the next computes;
// - its device copy is freed after its last read before the backward pass
//   needs it (insertFrees' rule); that free waits for the copy to finish;
// - it is prefetched "just in time": right before the compute op that
//   precedes the first backward op reading it, so the copy back overlaps
//   that one op (on a chain, a_i comes back while b_{i+1} runs);
// - a node whose device copy would be freed and brought back with no compute
//   op in between stays on the device (on a chain a_{n-1}, read by F_n right
//   before b_n, the op its prefetch would overlap).
// docs/model.md ("Offloading to host") has the timing and a worked example.
#include "core/model.h"
#include "core/schedule.h"

#include <cstdint>
#include <vector>

namespace remat {

// `computes`: compute ops (with their record flags) of a plan in which every
// offloaded node is computed once; `offloaded[i]`: forward node i goes to
// host (never a_0). Returns the ops with offloads, prefetches and frees.
std::vector<Op> withOffloads(const Model &model, const std::vector<Op> &computes,
                             const std::vector<std::uint8_t> &offloaded);

} // namespace remat
