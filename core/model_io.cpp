#include "core/model_io.h"

#include "core/errors.h"
#include "core/json_file.h"
#include "core/rates.h"
#include "core/units.h"

#include <algorithm>
#include <map>
#include <set>

namespace remat {

namespace {

using nlohmann::json;

using json_file::Reader;

// "module": a qualified module name or an array of them (docs/model-format.md);
// "chained": a boolean. Sized on the first node that has either.
void readTracedKeys(const Reader &r, const json &node, const std::string &pointer, std::size_t index, std::size_t count,
                    ModelFile &out) {
    if (node.contains("chained") && !node["chained"].is_boolean())
        r.fail(pointer + "/chained", "expected true or false, got " + Reader::shown(node["chained"]));
    if (!node.contains("module") && !node.contains("chained"))
        return;
    if (out.modules.empty()) {
        out.modules.resize(count);
        out.chained.assign(count, false);
    }
    out.chained[index] = node.value("chained", false);
    if (!node.contains("module"))
        return;
    const json &m = node["module"];
    const std::string expected = "expected a module name such as \"layer1.0\" or an array of them, got ";
    if (m.is_string()) {
        out.modules[index].push_back(m.get<std::string>());
    } else if (m.is_array() && !m.empty()) {
        for (const json &name : m) {
            if (!name.is_string())
                r.fail(pointer + "/module", expected + Reader::shown(m));
            out.modules[index].push_back(name.get<std::string>());
        }
    } else {
        r.fail(pointer + "/module", expected + Reader::shown(m));
    }
    for (const std::string &name : out.modules[index])
        if (name.empty())
            r.fail(pointer + "/module", "expected non-empty module names, got " + Reader::shown(m));
}

double byteUnit(const Reader &r, const json &units) {
    if (!units.contains("bytes"))
        return 1;
    const json &v = units["bytes"];
    if (!v.is_string())
        r.fail("/units/bytes", "expected a unit such as \"B\", \"KiB\", \"MiB\" or \"GiB\", got " + Reader::shown(v));
    try {
        return static_cast<double>(parseBytes("1" + v.get<std::string>(), "unit"));
    } catch (const InvalidArgument &) {
        r.fail("/units/bytes", "expected a unit such as \"B\", \"KiB\", \"MiB\" or \"GiB\", got " + Reader::shown(v));
    }
}

// "link", "device" and "host": the machine for offloading (docs/model-format.md).
MachineSpec readMachine(const Reader &r, const json &doc, double byteUnit) {
    MachineSpec m;
    const auto bandwidth = [](const std::string &t) { return parseBandwidth(t, "bandwidth"); };
    const auto seconds = [](const std::string &t) { return parseSeconds(t, "latency"); };
    const auto rate = [](const std::string &t) { return parseFlopRate(t, "rate"); };
    if (doc.contains("link")) {
        const json &link = r.object(doc, "link", {"bandwidth", "latency", "comment"},
                                    "{\"bandwidth\": \"16 GB/s\", \"latency\": \"10 us\"}");
        if (!link.contains("bandwidth"))
            r.fail("/link", "missing \"bandwidth\" (bytes per second: a number or a string such as \"16 GB/s\")");
        m.linkBytesPerSecond =
            r.quantity(link, "bandwidth", "/link",
                       "a bandwidth >= 0 such as \"16 GB/s\" or a number of bytes per second", bandwidth);
        m.linkLatencySeconds =
            r.quantity(link, "latency", "/link", "a time >= 0 such as \"10 us\" or a number of seconds", seconds);
    }
    if (doc.contains("device")) {
        const json &device = r.object(doc, "device", {"rate", "budget", "comment"},
                                      "{\"rate\": \"100 TFLOP/s\", \"budget\": \"1 GiB\"}");
        m.deviceFlopsPerSecond = r.quantity(
            device, "rate", "/device", "a rate above 0 such as \"100 TFLOP/s\" or a number of FLOP per second", rate);
        if (m.deviceFlopsPerSecond && *m.deviceFlopsPerSecond <= 0)
            r.fail("/device/rate", "expected a rate above 0, got " + Reader::shown(device["rate"]));
        if (device.contains("budget"))
            m.deviceBudgetBytes = r.size(device, "budget", "/device", byteUnit, std::nullopt);
        if (m.deviceBudgetBytes && *m.deviceBudgetBytes < 1)
            r.fail("/device/budget", "expected at least 1 byte, got " + Reader::shown(device["budget"]));
    }
    if (doc.contains("host")) {
        const json &host = r.object(doc, "host", {"budget", "comment"}, "{\"budget\": \"64 GiB\"}");
        if (host.contains("budget"))
            m.hostBudgetBytes = r.size(host, "budget", "/host", byteUnit, std::nullopt);
        if (m.hostBudgetBytes && *m.hostBudgetBytes < 1)
            r.fail("/host/budget", "expected at least 1 byte, got " + Reader::shown(host["budget"]));
    }
    return m;
}

} // namespace

ModelFile parseModelJson(std::string_view text, const std::string &origin) {
    const json doc =
        json_file::parse(text, origin, kMaxModelNesting, "a model file needs 3 (object, nodes array, node)");
    const Reader r(origin);
    if (!doc.is_object())
        r.fail("", "expected an object with \"nodes\", got " + Reader::shown(doc));
    r.onlyKeys(doc, "",
               {"format", "version", "name", "source", "comment", "units", "nodes", "edges", "trace", "link", "device",
                "host"});
    if (doc.contains("format") && doc["format"] != "remat-model")
        r.fail("/format", "expected \"remat-model\", got " + Reader::shown(doc["format"]));
    if (doc.contains("version") && doc["version"] != 1)
        r.fail("/version", "this remat reads version 1, got " + Reader::shown(doc["version"]));

    ModelFile out{
        Model::chain(1), r.text(doc, "name", "", false), r.text(doc, "source", "", false), {}, {}, {}, {}, {}};
    if (doc.contains("trace")) {
        if (!doc["trace"].is_object())
            r.fail("/trace", "expected an object (what python/remat_torch traced), got " + Reader::shown(doc["trace"]));
        out.trace = doc["trace"].dump();
    }
    double unit = 1;
    std::string costUnit;
    if (doc.contains("units")) {
        const json &units = doc["units"];
        if (!units.is_object())
            r.fail("/units",
                   "expected an object such as {\"bytes\": \"MiB\", \"cost\": \"GFLOP\"}, got " + Reader::shown(units));
        r.onlyKeys(units, "/units", {"bytes", "cost"});
        unit = byteUnit(r, units);
        costUnit = r.text(units, "cost", "/units", false);
    }

    MachineSpec machine = readMachine(r, doc, unit);

    if (!doc.contains("nodes"))
        r.fail("", "missing \"nodes\" (an array of at least two nodes: the input and one layer)");
    const json &nodes = doc["nodes"];
    if (!nodes.is_array() || nodes.size() < 2)
        r.fail("/nodes",
               "expected an array of at least two nodes (the input and one layer), got " + Reader::shown(nodes));
    if (nodes.size() > static_cast<std::size_t>(Model::kMaxLayers) + 1)
        r.fail("/nodes",
               "at most " + std::to_string(Model::kMaxLayers + 1) + " nodes, got " + std::to_string(nodes.size()));

    std::vector<ForwardSpec> specs(nodes.size());
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const std::string p = "/nodes/" + std::to_string(i);
        const json &node = nodes[i];
        if (!node.is_object())
            r.fail(p, "expected an object with \"name\" and \"bytes\", got " + Reader::shown(node));
        r.onlyKeys(node, p,
                   {"name", "bytes", "saved_bytes", "forward_cost", "backward_cost", "grad_bytes", "workspace",
                    "backward_workspace", "comment", "module", "chained", "flops", "op", "saves"});
        ForwardSpec &s = specs[i];
        s.label = r.text(node, "name", p, true);
        if (s.label.empty())
            r.fail(p + "/name", "expected a non-empty name");
        if (!index.emplace(s.label, static_cast<int>(i)).second)
            r.fail(p + "/name", "name \"" + s.label + "\" is already used by /nodes/" + std::to_string(index[s.label]));
        s.bytes = r.size(node, "bytes", p, unit, std::nullopt);
        if (s.bytes < 1)
            r.fail(p + "/bytes", "expected at least 1 byte, got " + Reader::shown(node["bytes"]));
        s.forwardCost = r.cost(node, "forward_cost", p, 1);
        s.backwardCost = r.cost(node, "backward_cost", p, 2 * s.forwardCost);
        s.gradBytes = r.size(node, "grad_bytes", p, unit, s.bytes);
        s.forwardWorkspace = r.size(node, "workspace", p, unit, 0);
        s.backwardWorkspace = r.size(node, "backward_workspace", p, unit, 0);
        s.savedBytes = r.size(node, "saved_bytes", p, unit, 0);
        if (i == 0 && s.savedBytes != 0)
            r.fail(p + "/saved_bytes", "the input is given, not computed: it saves nothing (expected 0)");
        r.cost(node, "flops", p, 0); // informational: checked, not used
        readTracedKeys(r, node, p, i, nodes.size(), out);
        if (node.contains("op")) {
            if (!node["op"].is_string() || node["op"].get<std::string>().empty())
                r.fail(p + "/op", "expected the name of the op that makes the node, such as \"aten::addmm\", got " +
                                      Reader::shown(node["op"]));
            if (out.ops.empty())
                out.ops.resize(nodes.size());
            out.ops[i] = node["op"].get<std::string>();
        }
    }

    if (doc.contains("edges")) {
        const json &edges = doc["edges"];
        if (!edges.is_array())
            r.fail("/edges", "expected an array of [from, to] name pairs, got " + Reader::shown(edges));
        std::set<std::pair<int, int>> listed; // a set: a node may have a million inputs
        for (std::size_t e = 0; e < edges.size(); ++e) {
            const std::string p = "/edges/" + std::to_string(e);
            const json &edge = edges[e];
            if (!edge.is_array() || edge.size() != 2 || !edge[0].is_string() || !edge[1].is_string())
                r.fail(p, "expected a pair of node names [\"from\", \"to\"], got " + Reader::shown(edge));
            const std::string from = edge[0], to = edge[1];
            if (!index.count(from))
                r.fail(p + "/0", "no node is named \"" + from + "\"");
            if (!index.count(to))
                r.fail(p + "/1", "no node is named \"" + to + "\"");
            const int f = index[from], t = index[to];
            if (f >= t)
                r.fail(p, "edge \"" + from + "\" -> \"" + to +
                              "\" goes backwards; list nodes so that every edge points to a later node");
            if (!listed.emplace(f, t).second)
                r.fail(p, "edge \"" + from + "\" -> \"" + to + "\" is listed twice");
            specs[t].inputs.push_back(f);
        }
    } else {
        for (std::size_t i = 1; i < specs.size(); ++i)
            specs[i].inputs = {static_cast<int>(i) - 1};
    }
    // "saves": names among the node's inputs and "output", what its backward keeps.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (!nodes[i].contains("saves"))
            continue;
        const std::string p = "/nodes/" + std::to_string(i) + "/saves";
        const json &saves = nodes[i]["saves"];
        const std::string expected = "expected an array of the node's input names and \"output\" (what its backward "
                                     "keeps), got ";
        if (!saves.is_array() || i == 0)
            r.fail(p, i == 0 ? std::string("the input is given, not computed: it keeps nothing")
                             : expected + Reader::shown(saves));
        ForwardSpec &s = specs[i];
        s.savesGiven = true;
        for (const json &name : saves) {
            if (!name.is_string())
                r.fail(p, expected + Reader::shown(saves));
            const std::string what = name.get<std::string>();
            if (what == "output") {
                s.savesOutput = true;
                continue;
            }
            const auto at = index.find(what);
            if (at == index.end() || std::find(s.inputs.begin(), s.inputs.end(), at->second) == s.inputs.end())
                r.fail(p,
                       "\"" + what + "\" is not an input of \"" + s.label + "\"; " + expected + Reader::shown(saves));
            s.savedInputs.push_back(at->second);
        }
    }
    // The graph rules of Model::fromForward, checked here to point at the node.
    std::vector<std::uint8_t> feeds(specs.size(), 0);
    for (std::size_t i = 1; i < specs.size(); ++i) {
        if (specs[i].inputs.empty())
            r.fail("/nodes/" + std::to_string(i),
                   "no edge leads into \"" + specs[i].label + "\"; every node after the input needs an input");
        for (int in : specs[i].inputs)
            feeds[static_cast<std::size_t>(in)] = 1;
    }
    for (std::size_t i = 0; i + 1 < specs.size(); ++i)
        if (!feeds[i])
            r.fail("/nodes/" + std::to_string(i),
                   "\"" + specs[i].label + "\" feeds no later node; only the last node may be the output");
    out.machine = machine;
    try {
        out.model = Model::fromForward(std::move(specs));
        out.model.setCostUnit(std::move(costUnit));
        if (!out.ops.empty()) {
            std::vector<std::string> blocks(out.ops.size());
            for (std::size_t i = 0; i < blocks.size() && i < out.modules.size(); ++i)
                if (!out.modules[i].empty())
                    blocks[i] = out.modules[i][0];
            out.model.setOpLevel(out.ops, std::move(blocks));
        }
    } catch (const InvalidArgument &e) {
        throw InvalidArgument(origin + ": /nodes: " + e.what());
    }
    return out;
}

ModelFile loadModelFile(const std::string &path) {
    return parseModelJson(json_file::readText(path, kMaxModelFileBytes, "model file"), path);
}

} // namespace remat
