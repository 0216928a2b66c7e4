// remat: compare gradient-checkpointing schedules from the command line.
// Exit status: 0 success, 2 bad input (one line on stderr, nothing on stdout),
// 1 an unexpected internal error.
#include "commands.h"

#include "core/errors.h"
#include "core/planners/op_exact.h"
#include "core/strategy_registry.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

using namespace remat::cli;

namespace {

void addOutputFlags(CLI::App *cmd, Format &format, bool csvAllowed = true) {
    auto *json = cmd->add_flag_callback(
        "--json", [&format] { format = Format::Json; }, "Print one JSON document (schema in docs/cli.md)");
    if (csvAllowed) {
        auto *csv = cmd->add_flag_callback(
            "--csv", [&format] { format = Format::Csv; }, "Print CSV with a header line");
        json->excludes(csv);
    }
}

// The link, the device's rate and the budgets (docs/model.md, offloading).
void addHeuristicFlag(CLI::App *cmd, StrategyOptionTexts &texts) {
    cmd->add_option("--heuristic", texts.heuristic,
                    "dtr: which node to evict when memory is full: dtr (h = c/(m*s), the cost counting the evicted "
                    "neighbourhood; default) or cost-per-byte (h = c/m). Example: --heuristic cost-per-byte");
}

void addMachineFlags(CLI::App *cmd, MachineOptions &m) {
    cmd->add_option("--link", m.link,
                    "Bandwidth of the device-host link: rows are timed on a compute and a copy stream, offload "
                    "strategies may run; 0B/s means no offloading. Example: --link 16GB/s");
    cmd->add_option("--latency", m.latency,
                    "With --link: time every transfer pays first (default 0). Example: "
                    "--latency 10us");
    cmd->add_option("--device-rate", m.deviceRate,
                    "With --link, for costs in FLOP (model files so sized, and measure's networks): the device's "
                    "rate. Example: "
                    "--device-rate 100TFLOP/s");
    cmd->add_option("--device-budget", m.deviceBudget,
                    "Device memory the planners may use, as --budget in bytes. Example: --device-budget 1GiB");
    cmd->add_option("--host-budget", m.hostBudget,
                    "With --link: host memory offload-budget may fill. Example: --host-budget 64GiB");
}

// A chain's bytes and times (docs/model.md), which a model file gives instead.
void addChainFlags(CLI::App *cmd, CLI::Option *nOption, CLI::Option *modelOption, ModelOptions &m) {
    auto *nodeBytes = cmd->add_option("--node-bytes", m.nodeBytes,
                                      "Bytes of every node (default 1, i.e. memory in units of one activation). "
                                      "Example: --node-bytes 4MiB");
    auto *savedBytes = cmd->add_option(
        "--saved-bytes", m.savedBytes,
        "Internals every layer saves for its backward when it runs recording, besides its output (default 0; "
        "docs/model.md). Example: --saved-bytes 17MiB");
    auto *forwardTime = cmd->add_option(
        "--forward-time", m.forwardTime,
        "Time of one layer's forward on the device: costs become seconds, as timing transfers needs. Example: "
        "--forward-time 2ms");
    auto *backwardTime = cmd->add_option(
        "--backward-time", m.backwardTime,
        "With --forward-time: time of one layer's backward (default twice the forward). Example: --backward-time 5ms");
    for (CLI::Option *chainOption : {nOption, nodeBytes, savedBytes, forwardTime, backwardTime})
        modelOption->excludes(chainOption);
}

std::string strategyHelp() {
    std::string text = "Strategies to compare: all, or a comma-separated list of:";
    for (const auto *s : remat::StrategyRegistry::builtin().all())
        text += "\n  " + std::string(s->name()) + ": " + std::string(s->summary());
    return text;
}

} // namespace

int main(int argc, char **argv) {
    CLI::App app{"remat: gradient checkpointing (activation rematerialization) schedules, simulated and compared.\n"
                 "The model is a chain a_0..a_n with gradients b_n..b_0 (docs/model.md)."};
    app.require_subcommand(1);
    app.footer("Examples:\n  remat simulate --n 16\n  remat simulate --n 100 --strategy periodic --every 10 --json\n"
               "  remat sweep --n 4..4096 --csv\nRun 'remat SUBCOMMAND --help' for the options of each.");

    SimulateOptions sim;
    auto *simulate = app.add_subcommand("simulate", "Simulate strategies on a chain of n layers and compare them");
    auto *nOption =
        simulate->add_option("--n", sim.n, "Number of layers n, 1 to 1000000 (default 16). Example: --n 64");
    simulate->add_option("--strategy", sim.strategy, strategyHelp() + "\n(default all). Example: --strategy periodic");
    simulate->add_option(
        "--every", sim.params.every,
        "periodic: checkpoint every K-th node, 1 <= K <= n (default round(sqrt n)). Example: --every 4");
    simulate->add_option_function<std::string>(
        "--checkpoints",
        [&sim](const std::string &v) {
            sim.params.checkpoints = v;
            sim.params.checkpointsGiven = true;
        },
        "checkpoints: forward nodes to keep, increasing, each in 1..n-1. Example: --checkpoints 3,7,11");
    auto *modelOption =
        simulate->add_option("--model", sim.modelFile,
                             "A model file (docs/model-format.md) instead of a chain of --n layers. Example: --model "
                             "resources/models/vgg16-batch32.json");
    simulate->add_option("--slots", sim.params.slots,
                         "revolve, budget: checkpoint slots C >= 1, a_0 included (revolve's default round(sqrt n)). "
                         "Example: --slots 8");
    simulate->add_option("--budget", sim.params.budget,
                         "budget, offload-budget, dtr: peak memory, bytes with a unit (2GiB) or a plain number of "
                         "nodes (12; budget and dtr). Example: --budget 2GiB");
    addHeuristicFlag(simulate, sim.params);
    addChainFlags(simulate, nOption, modelOption, sim.model);
    addMachineFlags(simulate, sim.machine);
    addOutputFlags(simulate, sim.format);
    simulate->add_flag("--timeline", sim.timeline,
                       "With --csv: one line per op (strategy, step, op, node, resident nodes, bytes)");
    simulate->footer("Example:\n  remat simulate --n 16 --json\n  remat simulate --n 8 --strategy recompute-all --csv "
                     "--timeline\n  remat simulate --n 16 --node-bytes 64MiB --forward-time 2ms --link 16GB/s "
                     "--strategy store-all,offload-all");

    SweepOptions sweep;
    auto *sweepCmd = app.add_subcommand("sweep", "Simulate strategies for a geometric range of n (growth laws)");
    sweepCmd->add_option("--n", sweep.n, "Range FIRST..LAST, 1 to 1000000 (default 4..4096). Example: --n 4..4096");
    sweepCmd->add_option("--factor", sweep.factor,
                         "Ratio between successive n, 2 to 1000 (default 2). Example: --factor 4");
    sweepCmd->add_option("--strategy", sweep.strategy,
                         "all (default), or a comma-separated list of store-all, recompute-all, periodic");
    sweepCmd->add_option("--node-bytes", sweep.model.nodeBytes,
                         "Bytes of every node (default 1). Example: --node-bytes 1MiB");
    sweepCmd->add_option("--saved-bytes", sweep.model.savedBytes,
                         "Internals every layer saves for its backward when recording (default 0). Example: "
                         "--saved-bytes 17MiB");
    addOutputFlags(sweepCmd, sweep.format);
    sweepCmd->footer("Example:\n  remat sweep --n 4..4096 --strategy periodic,store-all --csv");

    MeasureCommandOptions measure;
    auto *measureCmd = app.add_subcommand(
        "measure", "Run strategies for real on a network (CPU or CUDA): measured vs predicted peak, time, gradients");
    measureCmd->add_option("--backend", measure.backend, "cpu (Eigen, default) or cuda. Example: --backend cuda");
    measureCmd->add_option("--network", measure.network,
                           "mlp (the tanh chain, default) or transformer (pre-LN GPT-2 layers; docs/executor.md)");
    measureCmd->add_option("--strategy", measure.strategy, "all (default) or a comma-separated list, as for simulate");
    measureCmd->add_option("--n", measure.n, "mlp: layers, 1 to 1000000 (default 64). Example: --n 16");
    measureCmd->add_option("--width", measure.width, "mlp: width w of every layer, 1 to 65536 (default 1024)");
    measureCmd->add_option("--batch", measure.batch,
                           "Batch size b, 1 to 1048576 (mlp: columns, default 256; transformer: sequences, default 4)");
    measureCmd->add_option("--layers", measure.layers, "transformer: layers L, 1 to 1000000 (default 4)");
    measureCmd->add_option("--hidden", measure.hidden, "transformer: hidden size h, 1 to 65536 (default 256)");
    measureCmd->add_option("--heads", measure.heads, "transformer: attention heads, dividing h (default 4)");
    measureCmd->add_option("--seq", measure.seq, "transformer: sequence length, 1 to 1048576 (default 128)");
    measureCmd->add_option("--repeat", measure.repeat,
                           "Timed steps per strategy, 1 to 1000; the median is shown (default 5)");
    measureCmd->add_option("--threads", measure.threads,
                           "cpu: threads, 1 to 256 (default: every core); the same gradients for any count");
    measureCmd->add_option("--every", measure.params.every, "periodic: checkpoint every K-th node");
    measureCmd->add_option_function<std::string>(
        "--checkpoints",
        [&measure](const std::string &v) {
            measure.params.checkpoints = v;
            measure.params.checkpointsGiven = true;
        },
        "checkpoints: forward nodes to keep. Example: --checkpoints 8,16,24");
    measureCmd->add_option("--slots", measure.params.slots,
                           "revolve, budget: checkpoint slots, a_0 included. Example: --slots 8");
    measureCmd->add_option("--budget", measure.params.budget,
                           "budget, dtr: peak memory, bytes with a unit (64MiB) or a plain number of nodes (12)");
    addHeuristicFlag(measureCmd, measure.params);
    measureCmd->add_flag("--verify", measure.verify,
                         "Fail unless every measured peak equals the prediction (on CUDA also the pool's high-water "
                         "mark: equal when nodes are whole 2 MiB pages, never below) and every gradient equals "
                         "store-all's bit for bit");
    addMachineFlags(measureCmd, measure.machine);
    addOutputFlags(measureCmd, measure.format, false);
    measureCmd->footer("Example:\n  remat measure --n 16 --width 256 --batch 64 --verify\n"
                       "  remat measure --n 16 --width 256 --batch 64 --strategy store-all,offload-all --verify\n"
                       "  remat measure --network transformer --layers 4 --hidden 256 --heads 4 --seq 128 --batch 4\n"
                       "  remat measure --backend cuda --strategy store-all,periodic --json");

    PlanOptions plan;
    auto *planCmd =
        app.add_subcommand("plan", "The least-cost schedule of a model file or a chain within a memory budget");
    auto *planModelOption = planCmd->add_option("--model", plan.modelFile, "Model file (docs/model-format.md)");
    auto *planNOption = planCmd->add_option(
        "--n", plan.n, "Instead of --model: a chain of n layers, 1 to 1000000, as simulate's. Example: --n 16");
    addChainFlags(planCmd, planNOption, planModelOption, plan.model);
    planCmd->add_option("--budget", plan.budget,
                        "Peak memory: bytes with a unit (2GiB) or a plain number of nodes (12); required unless "
                        "--frontier");
    planCmd->add_flag("--frontier", plan.frontier,
                      "The trade-off curve: least compute for every peak from the minimum to store-all's, with "
                      "store-all, periodic, revolve, per-layer checkpointing (and selective recomputation on "
                      "op-level transformer blocks) as points; --csv or --json for the data");
    planCmd->add_option("--samples", plan.samples, "--frontier: budgets tried, 2 to 1000 (default 48)");
    planCmd->add_option("--granularity", plan.granularity,
                        "block (default) or op: keep or re-run each tensor of an op-level model "
                        "(remat_torch trace --granularity op), planned exactly");
    planCmd->add_option("--effort", plan.effort,
                        "on a graph: branch-and-bound nodes of the graph planner's MILP, 0 to 1e8 (default 1000 "
                        "up to 12 layers, 50 up to 24, 10 beyond); "
                        "--granularity op: simulator ops the search may replay, 1 to 1e12 (default " +
                            remat::effortText(remat::kDefaultOpEffort) +
                            "); a function of the model, so the same plan on every machine; beyond, an exact MILP "
                            "plans (branch-and-bound nodes bounded too) and the plan says optimal or its proven gap");
    planCmd->add_option("--search-work", plan.searchWork,
                        "on a graph: stage layouts the graph planner's exact stage search may evaluate, 0 to 1e11 "
                        "(default 1e7: half before the MILP, from the cheapest known plan, the rest after it, from "
                        "its plan and bound); a search that ends proves its plan optimal, one that stops keeps the "
                        "lower bound it raised; 0: the MILP alone");
    planCmd->add_option("--solver-nodes", plan.solverNodes,
                        "--granularity op: branch-and-bound nodes the MILP may take where the enumeration stops "
                        "(default " +
                            remat::effortText(remat::kDefaultOpSolverEffort) +
                            ", and as many again in a second search, with CBC's preprocessing, where the first "
                            "leaves a gap, and four times as many in a third where more than 1 % is still open; 0: "
                            "the enumeration's plan, its gap not bounded)");
    planCmd->add_option("--time-limit", plan.timeLimit,
                        "--granularity op: a wall-clock limit in seconds, off by default; a plan it cuts is marked "
                        "not reproducible (it depends on the machine's speed)");
    planCmd->add_option("--strategy", plan.strategy,
                        "budget (default) or any strategy of simulate, e.g. periodic, revolve (one name)");
    planCmd->add_option("--every", plan.params.every, "periodic: checkpoint every K-th node");
    planCmd->add_option_function<std::string>(
        "--checkpoints",
        [&plan](const std::string &v) {
            plan.params.checkpoints = v;
            plan.params.checkpointsGiven = true;
        },
        "checkpoints: forward nodes to keep, increasing. Example: --checkpoints 3,7,11");
    planCmd->add_option("--slots", plan.params.slots, "revolve, budget: checkpoint slots, a_0 included");
    addHeuristicFlag(planCmd, plan.params);
    planCmd->add_option("--memory-steps", plan.memorySteps,
                        "Steps the byte budget is cut into by the planner (default 512; docs/planners.md)");
    addMachineFlags(planCmd, plan.machine);
    addOutputFlags(planCmd, plan.format);
    planCmd->footer("Example:\n  remat plan --model resources/models/vgg16-batch32.json --budget 2GiB\n"
                    "  remat plan --model resources/models/gpt2-small.json --frontier --csv\n"
                    "  remat plan --model resources/models/gpt2-small.json --device-rate 100TFLOP/s --link 16GB/s "
                    "--device-budget 4GiB\n"
                    "  remat plan --n 16 --node-bytes 64MiB --forward-time 2ms --link 16GB/s --device-budget 512MiB");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        std::cerr << "remat: " << e.what() << " (see remat --help)\n";
        return 2;
    }

    std::ostringstream out;
    try {
        if (simulate->parsed())
            runSimulate(sim, out);
        else if (planCmd->parsed())
            runPlan(plan, out);
        else if (measureCmd->parsed())
            runMeasure(measure, out);
        else
            runSweep(sweep, out);
    } catch (const remat::Error &e) {
        std::cerr << "remat: " << e.what() << '\n';
        return 2;
    } catch (const std::bad_alloc &) {
        std::cerr << "remat: out of memory; try a smaller n\n";
        return 2;
    } catch (const std::exception &e) {
        std::cerr << "remat: internal error: " << e.what() << '\n';
        return 1;
    }
    std::cout << out.str();
    return std::cout.good() ? 0 : 1;
}
