#pragma once
// Two of GPT-2 small's blocks at op granularity: the op nodes of
// resources/models/gpt2-block-ops.json, named by their PyTorch ops, stacked
// as blocks "0" and "1". Small enough (11 nodes a block to keep or re-run)
// for the exact op-level search to take a moment under the sanitizers too,
// where the traced layers' (gpt2-2layers-seq1024-ops.json, 23 nodes a block)
// takes 2.4e8 replayed ops (docs/planners.md, "Op level").
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace remat::test {

// The model file's text; empty when the source file cannot be read.
inline QByteArray twoGpt2BlocksAtOpLevel() {
    QFile file(qEnvironmentVariable("REMAT_SOURCE_DIR") + "/resources/models/gpt2-block-ops.json");
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
    const QHash<QString, QString> ops{{"ln1", "aten::native_layer_norm"},
                                      {"qkv", "aten::addmm"},
                                      {"scores", "aten::bmm"},
                                      {"softmax", "aten::_softmax"},
                                      {"context", "aten::bmm"},
                                      {"proj", "aten::addmm"},
                                      {"residual1", "aten::add"},
                                      {"ln2", "aten::native_layer_norm"},
                                      {"fc1", "aten::addmm"},
                                      {"gelu", "aten::gelu"},
                                      {"fc2", "aten::addmm"},
                                      {"residual2", "aten::add"}};
    const QJsonArray block = doc["nodes"].toArray(), blockEdges = doc["edges"].toArray();
    QJsonArray nodes{block.first()}, edges;
    QString input = block.first().toObject()["name"].toString();
    for (const QString &layer : {QStringLiteral("0"), QStringLiteral("1")}) {
        const auto named = [&](const QString &name) { return name == "x" ? input : layer + "#" + name; };
        for (int k = 1; k < block.size(); ++k) {
            QJsonObject node = block[k].toObject();
            const QString name = node["name"].toString();
            node["name"] = named(name);
            node["module"] = layer;
            node["op"] = ops.value(name);
            nodes.append(node);
        }
        for (const auto &edge : blockEdges)
            edges.append(QJsonArray{named(edge.toArray()[0].toString()), named(edge.toArray()[1].toString())});
        input = named("residual2");
    }
    doc["name"] = "GPT-2 small, two blocks at op granularity, seq 1024, batch 8, fp16";
    doc["nodes"] = nodes;
    doc["edges"] = edges;
    return QJsonDocument(doc).toJson();
}

} // namespace remat::test
