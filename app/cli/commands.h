#pragma once
// The `remat` subcommands. Each writes its whole output to `out` only when it
// succeeds, and throws remat::Error (message for the user) otherwise.
#include "core/comparison.h"
#include "core/machine.h"
#include "core/machine_flags.h"
#include "core/model_io.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace remat::cli {

enum class Format { Table, Json, Csv };

struct ModelOptions {
    std::string nodeBytes = "1";
    std::string savedBytes = "0"; // internals every layer saves for its backward when recording
    // The time of a layer's forward and backward (costs in seconds); empty:
    // the abstract costs 1 and 2. The backward defaults to twice the forward.
    std::string forwardTime;
    std::string backwardTime;
};

// The machine for offloading (docs/model.md), as typed; empty: not given
// (a model file may give them). `deviceBudget` is the planners' budget, the
// same as --budget in bytes. Read by core/machine_flags.h, as remat-studio's are.
using MachineOptions = MachineFlags;

// The strategy options as typed on the command line.
struct StrategyOptionTexts {
    std::string every;
    std::string checkpoints;
    bool checkpointsGiven = false;
    std::string slots;
    std::string budget;
    std::string heuristic; // dtr: which node to evict
};
struct SimulateOptions {
    std::string n = "16";
    std::string strategy = "all";
    std::string modelFile; // --model FILE instead of a chain of --n layers
    StrategyOptionTexts params;
    ModelOptions model;
    MachineOptions machine;
    Format format = Format::Table;
    bool timeline = false;
};

struct SweepOptions {
    std::string n = "4..4096";
    std::string factor = "2";
    std::string strategy = "all";
    ModelOptions model;
    Format format = Format::Table;
};

struct PlanOptions {
    std::string modelFile;
    std::string n;                   // a chain of n layers instead of a model file
    ModelOptions model;              // the chain's bytes and times
    std::string strategy = "budget"; // any registered strategy; budget needs --budget
    StrategyOptionTexts params;      // --every, --checkpoints, --slots, --heuristic (--budget is `budget`)
    std::string budget;
    std::string memorySteps;
    bool frontier = false;             // the trade-off curve instead of one budget
    std::string samples;               // --frontier: budgets tried
    std::string granularity = "block"; // "op": selective checkpointing of an op-level file
    std::string effort;                // --granularity op: replayed ops the exact search may take
    std::string timeLimit;             // --granularity op: a wall-clock limit, off by default
    std::string solverNodes;           // --granularity op: the MILP's branch-and-bound nodes
    std::string searchWork;            // graphs: stage layouts the exact stage search may evaluate
    MachineOptions machine;
    Format format = Format::Table;
};

void runSimulate(const SimulateOptions &options, std::ostream &out);
void runPlan(const PlanOptions &options, std::ostream &out);
// What plan and plan --frontier work on: the model file, or the chain of --n
// layers. `title` names it in tables ("VGG-16 (file.json)", "a chain of 16 layers").
struct PlanModel {
    ModelFile file;
    std::string title;
};
PlanModel planModel(const PlanOptions &options);
// `remat plan --frontier` (app/cli/frontier_command.cpp).
void runFrontier(const PlanOptions &options, std::ostream &out);
// `remat plan --granularity op` (app/cli/op_plan_command.cpp).
void runOpPlan(const PlanOptions &options, std::ostream &out);
void runSweep(const SweepOptions &options, std::ostream &out);

// Parses them for a model of `layers` layers.
StrategyParams parseStrategyParams(const StrategyOptionTexts &texts, const Model &model);

// `remat measure` (docs/executor.md): runs schedules on a real network.
struct MeasureCommandOptions {
    std::string backend = "cpu";
    std::string network = "mlp"; // or "transformer"
    std::string strategy = "all";
    // Sizes as typed; empty: the network's default. mlp: --n 64, --width
    // 1024, --batch 256; transformer: --layers 4, --hidden 256, --heads 4,
    // --seq 128, --batch 4.
    std::string n;
    std::string width;
    std::string batch;
    std::string layers;
    std::string hidden;
    std::string heads;
    std::string seq;
    std::string repeat = "5";
    std::string threads; // CPU threads as typed; empty: every core this process may use
    StrategyOptionTexts params;
    MachineOptions machine; // the link offload strategies are planned and predicted on
    bool verify = false;
    Format format = Format::Table;
};
void runMeasure(const MeasureCommandOptions &options, std::ostream &out);

// Shared by the commands.
Model buildChain(const std::string &nText, const ModelOptions &options);
// The machine of the file's keys overridden by the flags (app/cli/machine_options.cpp):
// nothing when neither gives a link (then no other machine flag but
// --device-budget may be given). Throws InvalidArgument naming the flag.
std::optional<Machine> machineFor(const Model &model, const MachineSpec &fromFile, const MachineOptions &flags);
// --device-budget into params.budgetBytes (refused beside --budget); without
// either, a model file's "device": {"budget"}.
void applyDeviceBudget(const MachineOptions &flags, const std::string &budgetText, const MachineSpec &fromFile,
                       StrategyParams &params);
// One line that says what the rows are timed on, for table headers.
std::string machineLine(const Machine &machine, const Model &model);
// --budget: a size with a unit ("2GiB", "512B") is bytes; a plain number is
// nodes, on models whose sizes are nodes (unit chains), and refused on others.
void parseBudget(const std::string &text, StrategyParams &params, const Model &model);
// `withSaved`: add what the peak holds of saved internals beside layer outputs
// (only for models with saved internals, so other tables stay as they were).
// `costUnit`: the model's (Model::costUnit); costs that are times print as times ("100 ms").
void printComparisonTable(std::ostream &out, const std::vector<ComparisonRow> &rows, bool withN, int n, bool withSaved,
                          const std::string &costUnit = {});

} // namespace remat::cli
