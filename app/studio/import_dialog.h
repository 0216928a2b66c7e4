#pragma once
// File > Import PyTorch model: runs `python3 -m remat_torch trace`
// (python/remat_torch, docs/pytorch.md) in a QProcess, so the GUI thread never
// waits on PyTorch. The dialog asks for the model SPEC, its inputs (tensor
// specs such as 8x512:int64:0..50257, or a function FILE.py:callable that
// returns them), the dtype, the blocks and the file to write; a progress bar follows trace's own
// "step K of N" lines; Cancel kills the process (trace writes its file only
// at the very end, renamed into place, so nothing half-written is left).
// Which Python runs it is found in the background (REMAT_PYTHON, python3 on
// PATH, /usr/bin/python3: the first that imports torch) and can be edited; a
// missing python3 or PyTorch is said in the dialog, in trace's own words when
// it ran. On success `imported(path)` is emitted (the main window opens it).
#include <QDialog>
#include <QStringList>

#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QProcess;
class QProgressBar;
class QPushButton;

namespace remat::studio {

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(QWidget *parent = nullptr);
    ~ImportDialog() override;

    void setSpec(const QString &spec);
    void setShape(const QString &shape);   // input tensors, space-separated: "8x512:int64:0..50257 8x512:bool"
    void setInputs(const QString &inputs); // an inputs function FILE.py:callable; "" for the tensors above
    void setOutputPath(const QString &path);
    void setPython(const QString &program); // stops looking for one
    QString python() const;
    QString outputPath() const;

    bool start(); // the Import button; false (and statusText() says why) when it cannot start
    bool isRunning() const;
    bool isProbing() const;
    QString torchVersion() const { return torchVersion_; } // of the Python found; "" when none (yet)
    QString statusText() const;
    int progressValue() const;

    // Where the remat_torch package is: beside an installed remat-studio
    // (share/remat/python), else the source tree's python/.
    static QString packageDirectory();
    // Programs to try, in order: $REMAT_PYTHON alone when set, else python3
    // on PATH and /usr/bin/python3.
    static QStringList pythonCandidates();

signals:
    void imported(const QString &path);
    void finishedRun(bool ok);
    void probed(); // the search for a Python with PyTorch is over

public slots:
    void reject() override; // Cancel while tracing, else close

private:
    // A "Python file…" button: an open dialog titled `title`, `chosen(path)` when a file is picked.
    QPushButton *pythonFileButton(const QString &title, std::function<void(const QString &)> chosen);
    void probeNext();
    void onOutput();
    void onFinished(int exitCode, bool crashed);
    void setStatus(const QString &text, bool error);
    void setRunning(bool running);

    QComboBox *spec_;
    QLineEdit *shape_;
    QLineEdit *inputs_;
    QPushButton *inputsFile_;
    QComboBox *dtype_;
    QLineEdit *blocks_;
    QLineEdit *output_;
    QLineEdit *python_;
    QLabel *pythonInfo_;
    QLabel *status_;
    QProgressBar *progress_;
    QPushButton *pythonFile_;
    QPushButton *browse_;
    QPushButton *import_;
    QPushButton *close_;
    QProcess *process_ = nullptr;
    QProcess *probe_ = nullptr;
    QStringList candidates_;
    int probeIndex_ = 0;
    QString stderrTail_;
    QString lastLine_;
    QString runningOutput_;
    QString torchVersion_;
    bool cancelled_ = false;
    bool outputEdited_ = false;
};

} // namespace remat::studio
