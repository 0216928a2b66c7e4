#include "app/studio/import_dialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QProcessEnvironment>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace remat::studio {

namespace {

// What trace prints on stderr before each of its steps (--progress).
const QRegularExpression kStep(QStringLiteral(R"(step (\d+) of (\d+): (.*)$)"));
const QString kPrefix = QStringLiteral("remat_torch: ");

QString defaultOutputFor(const QString &spec) {
    QString base = spec.section(QLatin1Char(':'), spec.startsWith(QLatin1String("torch:")) ? 1 : -1, -1);
    if (spec.contains(QLatin1String(".py:")))
        base = QFileInfo(spec.section(QLatin1Char(':'), 0, -2)).completeBaseName();
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("-"));
    base = base.left(60);
    if (base.isEmpty())
        base = QStringLiteral("model");
    return QDir(QDir::homePath()).filePath(base + QStringLiteral("-traced.json"));
}

} // namespace

QString ImportDialog::packageDirectory() {
    const QString installed =
        QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/remat/python"));
    if (QFileInfo(installed + QStringLiteral("/remat_torch")).isDir())
        return QDir::cleanPath(installed);
#ifdef REMAT_SOURCE_DIR
    return QStringLiteral(REMAT_SOURCE_DIR "/python");
#else
    return {};
#endif
}

QStringList ImportDialog::pythonCandidates() {
    const QString chosen = qEnvironmentVariable("REMAT_PYTHON");
    if (!chosen.isEmpty())
        return {chosen};
    QStringList candidates;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (!onPath.isEmpty())
        candidates << onPath;
    // Debian's, where scripts/deps.sh installs python3-torch, even when
    // another python3 (a pyenv, a venv without torch) comes first on PATH.
    if (QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable() &&
        QFileInfo(onPath).canonicalFilePath() != QFileInfo(QStringLiteral("/usr/bin/python3")).canonicalFilePath())
        candidates << QStringLiteral("/usr/bin/python3");
    if (candidates.isEmpty())
        candidates << QStringLiteral("python3"); // reported as missing when run
    return candidates;
}

QPushButton *ImportDialog::pythonFileButton(const QString &title, std::function<void(const QString &)> chosen) {
    auto *button = new QPushButton(tr("Python file\u2026"));
    connect(button, &QPushButton::clicked, this, [this, title, chosen] {
        const QString path =
            QFileDialog::getOpenFileName(this, title, QDir::homePath(), tr("Python files (*.py);;All files (*)"));
        if (!path.isEmpty())
            chosen(path);
    });
    return button;
}

ImportDialog::ImportDialog(QWidget *parent) : QDialog(parent) {
    setWindowTitle(tr("Import PyTorch model"));
    setObjectName("importDialog");

    spec_ = new QComboBox;
    spec_->setEditable(true);
    spec_->setObjectName("importSpec");
    spec_->setInsertPolicy(QComboBox::NoInsert);
    spec_->addItems({QStringLiteral("torchvision:resnet50"), QStringLiteral("torchvision:vit_b_16"),
                     QStringLiteral("torch:transformer-encoder:d_model=768,nhead=12,layers=12")});
    spec_->setToolTip(tr("torchvision:NAME, torch:transformer-encoder:d_model=…,nhead=…,layers=…, or "
                         "path/to/file.py:callable (a function returning your torch.nn.Module)"));
    auto *pythonFile = pythonFile_ =
        pythonFileButton(tr("A Python file that builds the model"),
                         [this](const QString &path) { spec_->setEditText(path + ":model"); });
    auto *specRow = new QHBoxLayout;
    specRow->addWidget(spec_, 1);
    specRow->addWidget(pythonFile);

    shape_ = new QLineEdit(QStringLiteral("32x3x224x224"));
    shape_->setObjectName("importShape");
    shape_->setToolTip(tr("The model's positional inputs, space-separated, each SHAPE[:DTYPE[:LOW..HIGH]]: "
                          "32x3x224x224 (random normal images), 8x512:int64:0..50257 (token ids), 8x512:bool"));
    inputs_ = new QLineEdit;
    inputs_->setObjectName("importInputs");
    inputs_->setPlaceholderText(tr("optional: FILE.py:callable returning a tensor, a tuple or a dict"));
    inputs_->setToolTip(tr("A function returning the inputs: a tensor, a tuple (positional arguments) or a dict "
                           "(keyword arguments: input_ids, attention_mask, labels, \u2026). When given, the input "
                           "tensors above are not used; a model that returns a loss is differentiated from it."));
    connect(inputs_, &QLineEdit::textChanged, this,
            [this](const QString &text) { shape_->setEnabled(text.trimmed().isEmpty() && !process_); });
    auto *inputsFile = inputsFile_ = pythonFileButton(
        tr("A Python file that makes the inputs"), [this](const QString &path) { inputs_->setText(path + ":inputs"); });
    auto *inputsRow = new QHBoxLayout;
    inputsRow->addWidget(inputs_, 1);
    inputsRow->addWidget(inputsFile);
    dtype_ = new QComboBox;
    dtype_->addItems({QStringLiteral("float32"), QStringLiteral("float64"), QStringLiteral("bfloat16")});
    blocks_ = new QLineEdit(QStringLiteral("auto"));
    blocks_->setToolTip(tr("auto, or module-name patterns such as layer3.*,layer4.*"));

    output_ = new QLineEdit(defaultOutputFor(spec_->currentText()));
    output_->setObjectName("importOutput");
    connect(output_, &QLineEdit::textEdited, this, [this] { outputEdited_ = true; });
    connect(spec_, &QComboBox::currentTextChanged, this, [this](const QString &spec) {
        if (!outputEdited_)
            output_->setText(defaultOutputFor(spec));
    });
    auto *browse = browse_ = new QPushButton(tr("Browse\u2026"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path =
            QFileDialog::getSaveFileName(this, tr("Write the model file"), output_->text(), tr("Model files (*.json)"));
        if (!path.isEmpty()) {
            output_->setText(path);
            outputEdited_ = true;
        }
    });
    auto *outputRow = new QHBoxLayout;
    outputRow->addWidget(output_, 1);
    outputRow->addWidget(browse);

    python_ = new QLineEdit;
    python_->setObjectName("importPython");
    pythonInfo_ = new QLabel(tr("looking for a Python with PyTorch\u2026"));
    pythonInfo_->setWordWrap(true);

    auto *form = new QFormLayout;
    form->addRow(tr("Model:"), specRow);
    form->addRow(tr("Input tensors:"), shape_);
    form->addRow(tr("Inputs function:"), inputsRow);
    form->addRow(tr("Data type:"), dtype_);
    form->addRow(tr("Blocks:"), blocks_);
    form->addRow(tr("Write to:"), outputRow);
    form->addRow(tr("Python:"), python_);
    form->addRow(QString(), pythonInfo_);

    auto *explain = new QLabel(tr("remat runs training steps on your inputs (one finds the nodes, five time them, "
                                  "one counts what each saves for its backward) and writes a model file with the "
                                  "sizes PyTorch reports and each node's median time. Large models at full batch "
                                  "take minutes on a CPU."));
    explain->setWordWrap(true);
    status_ = new QLabel;
    status_->setObjectName("importStatus");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_ = new QProgressBar;
    progress_->setRange(0, 3);
    progress_->setValue(0);
    progress_->setFormat(tr("%v of %m steps done"));
    progress_->setVisible(false);

    import_ = new QPushButton(tr("&Import"));
    import_->setObjectName("importButton");
    import_->setDefault(true);
    close_ = new QPushButton(tr("Close"));
    auto *buttons = new QDialogButtonBox;
    buttons->addButton(import_, QDialogButtonBox::AcceptRole);
    buttons->addButton(close_, QDialogButtonBox::RejectRole);
    connect(import_, &QPushButton::clicked, this, [this] { start(); });
    connect(close_, &QPushButton::clicked, this, &ImportDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(explain);
    layout->addLayout(form);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());

    // Return imports from any field; the other buttons take only clicks and Space.
    for (QPushButton *b : {pythonFile, inputsFile, browse, close_})
        b->setAutoDefault(false);
    spec_->setFocus();
    connect(spec_->lineEdit(), &QLineEdit::returnPressed, this, [this] { start(); });

    candidates_ = pythonCandidates();
    python_->setText(candidates_.front());
    probeNext();
}

ImportDialog::~ImportDialog() {
    for (QProcess *p : {process_, probe_})
        if (p) {
            p->disconnect(this);
            p->kill();
            p->waitForFinished(3000);
        }
}

void ImportDialog::probeNext() {
    if (probeIndex_ >= candidates_.size()) {
        pythonInfo_->setText(tr("No Python here imports torch (tried %1). On Debian 12: apt install python3-torch "
                                "python3-torchvision (scripts/deps.sh), or name a Python that has it.")
                                 .arg(candidates_.join(QStringLiteral(", "))));
        python_->setText(candidates_.front());
        emit probed();
        return;
    }
    probe_ = new QProcess(this);
    const QString program = candidates_[probeIndex_];
    connect(probe_, &QProcess::finished, this, [this, program](int code, QProcess::ExitStatus status) {
        const QString version = QString::fromUtf8(probe_->readAllStandardOutput()).trimmed();
        probe_->deleteLater();
        probe_ = nullptr;
        if (status == QProcess::NormalExit && code == 0 && !version.isEmpty()) {
            python_->setText(program);
            torchVersion_ = version;
            pythonInfo_->setText(tr("PyTorch %1").arg(version));
            emit probed();
            return;
        }
        ++probeIndex_;
        probeNext();
    });
    connect(probe_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart || !probe_)
            return;
        probe_->deleteLater();
        probe_ = nullptr;
        ++probeIndex_;
        probeNext();
    });
    probe_->start(program, {QStringLiteral("-c"), QStringLiteral("import torch; print(torch.__version__)")});
}

void ImportDialog::setSpec(const QString &spec) {
    spec_->setEditText(spec);
}
void ImportDialog::setShape(const QString &shape) {
    shape_->setText(shape);
}
void ImportDialog::setInputs(const QString &inputs) {
    inputs_->setText(inputs);
}
void ImportDialog::setOutputPath(const QString &path) {
    output_->setText(path);
    outputEdited_ = true;
}
void ImportDialog::setPython(const QString &program) {
    if (probe_) {
        probe_->disconnect(this);
        probe_->kill();
        probe_->waitForFinished(3000);
        probe_->deleteLater();
        probe_ = nullptr;
    }
    probeIndex_ = static_cast<int>(candidates_.size());
    python_->setText(program);
    pythonInfo_->clear();
}
QString ImportDialog::python() const {
    return python_->text();
}
QString ImportDialog::outputPath() const {
    return output_->text();
}
bool ImportDialog::isRunning() const {
    return process_ != nullptr;
}
bool ImportDialog::isProbing() const {
    return probe_ != nullptr;
}
QString ImportDialog::statusText() const {
    return status_->text();
}
int ImportDialog::progressValue() const {
    return progress_->value();
}

void ImportDialog::setStatus(const QString &text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? QStringLiteral("color: #d0454c;") : QString());
}

void ImportDialog::setRunning(bool running) {
    import_->setEnabled(!running);
    close_->setText(running ? tr("Cancel") : tr("Close"));
    progress_->setVisible(running);
    for (QWidget *w : std::initializer_list<QWidget *>{spec_, inputs_, inputsFile_, dtype_, blocks_, output_, python_,
                                                       pythonFile_, browse_})
        w->setEnabled(!running);
    shape_->setEnabled(!running && inputs_->text().trimmed().isEmpty());
}

bool ImportDialog::start() {
    if (process_)
        return false;
    const QString spec = spec_->currentText().trimmed(), output = output_->text().trimmed();
    if (spec.isEmpty() || output.isEmpty() || python_->text().trimmed().isEmpty()) {
        setStatus(tr("Give a model, a file to write and a Python."), true);
        return false;
    }
    const QString package = packageDirectory();
    if (package.isEmpty() || !QFileInfo(package + QStringLiteral("/remat_torch/__main__.py")).exists()) {
        setStatus(tr("The remat_torch package is not installed beside remat-studio (looked in %1).").arg(package),
                  true);
        return false;
    }
    process_ = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString existing = env.value(QStringLiteral("PYTHONPATH"));
    env.insert(QStringLiteral("PYTHONPATH"), existing.isEmpty() ? package : package + QDir::listSeparator() + existing);
    process_->setProcessEnvironment(env);
    connect(process_, &QProcess::readyReadStandardError, this, &ImportDialog::onOutput);
    connect(process_, &QProcess::finished, this,
            [this](int code, QProcess::ExitStatus status) { onFinished(code, status == QProcess::CrashExit); });
    connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onFinished(-1, false);
    });
    cancelled_ = false;
    stderrTail_.clear();
    lastLine_.clear();
    runningOutput_ = output;
    progress_->setValue(0);
    setRunning(true);
    setStatus(tr("Starting %1\u2026").arg(python_->text()), false);
    QStringList arguments{QStringLiteral("-m"), QStringLiteral("remat_torch"), QStringLiteral("trace"),
                          QStringLiteral("--model"), spec};
    // trace says in one line what is wrong with an input (its shape, dtype or range).
    if (const QString function = inputs_->text().trimmed(); !function.isEmpty()) {
        arguments << QStringLiteral("--inputs") << function;
    } else {
        const QStringList tensors = shape_->text().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        for (const QString &tensor : tensors)
            arguments << QStringLiteral("--input") << tensor;
        if (tensors.isEmpty())
            arguments << QStringLiteral("--input") << QString(); // trace names the empty shape
    }
    arguments << QStringLiteral("--dtype") << dtype_->currentText() << QStringLiteral("--blocks")
              << blocks_->text().trimmed() << QStringLiteral("-o") << output << QStringLiteral("--progress");
    process_->start(python_->text().trimmed(), arguments);
    return true;
}

void ImportDialog::onOutput() {
    stderrTail_ += QString::fromUtf8(process_->readAllStandardError());
    int newline;
    while ((newline = static_cast<int>(stderrTail_.indexOf(QLatin1Char('\n')))) >= 0) {
        const QString line = stderrTail_.left(newline).trimmed();
        stderrTail_.remove(0, newline + 1);
        if (line.isEmpty())
            continue;
        lastLine_ = line;
        const auto step = kStep.match(line);
        if (step.hasMatch()) {
            progress_->setRange(0, step.captured(2).toInt());
            progress_->setValue(step.captured(1).toInt() - 1);
            setStatus(tr("Step %1 of %2: %3").arg(step.captured(1), step.captured(2), step.captured(3)), false);
        }
    }
}

void ImportDialog::onFinished(int exitCode, bool crashed) {
    if (!process_)
        return;
    const bool failedToStart = exitCode == -1 && process_->error() == QProcess::FailedToStart;
    if (!failedToStart)
        onOutput();
    if (!stderrTail_.trimmed().isEmpty())
        lastLine_ = stderrTail_.trimmed();
    const QString program = process_->program();
    process_->disconnect(this);
    process_->deleteLater();
    process_ = nullptr;
    setRunning(false);
    QString message = lastLine_.startsWith(kPrefix) ? lastLine_.mid(kPrefix.size()) : lastLine_;
    bool ok = false;
    if (cancelled_) {
        setStatus(tr("Cancelled; no file was written."), false);
    } else if (failedToStart) {
        setStatus(tr("Cannot run %1: no such program. Install Python 3 (apt install python3 python3-torch) or name "
                     "another Python above.")
                      .arg(program),
                  true);
    } else if (crashed || exitCode != 0) {
        setStatus(message.isEmpty() ? tr("trace stopped (exit status %1).").arg(exitCode) : message, true);
    } else if (!QFileInfo(runningOutput_).isFile()) {
        setStatus(tr("trace ended but wrote no file at %1.").arg(runningOutput_), true);
    } else {
        progress_->setValue(progress_->maximum());
        setStatus(tr("Wrote %1.").arg(runningOutput_), false);
        ok = true;
    }
    emit finishedRun(ok);
    if (ok) {
        emit imported(runningOutput_);
        accept();
    }
}

void ImportDialog::reject() {
    if (process_) {
        cancelled_ = true;
        process_->kill(); // onFinished says "Cancelled"
        return;
    }
    QDialog::reject();
}

} // namespace remat::studio
