// The player's keys as a lecturer presses them: right after launch, sent to
// whatever widget the window gave focus (or to the one the user last used),
// they step, jump and play; only a text field being edited keeps them.
#include "app/studio/main_window.h"
#include "app/studio/pane_widget.h"
#include "tests/studio/studio_test_main.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QtTest>

using namespace remat;
using remat::studio::MainWindow;

namespace {

// What a widget shows: keys meant for the player must leave it unchanged.
QString shownBy(QWidget *w) {
    if (auto *spin = qobject_cast<QAbstractSpinBox *>(w))
        return spin->text();
    if (auto *combo = qobject_cast<QComboBox *>(w))
        return combo->currentText();
    if (auto *edit = qobject_cast<QLineEdit *>(w))
        return edit->text();
    return {};
}

void press(Qt::Key key) {
    QWidget *target = QApplication::focusWidget();
    QVERIFY(target);
    QTest::keyClick(target, key);
}

} // namespace

class TestPlayerKeys : public QObject {
    Q_OBJECT
private slots:
    void keysDriveThePlayerWhateverHasFocus_data() {
        QTest::addColumn<QString>("focus"); // object name of the widget to focus; "" where the app puts it
        QTest::newRow("as launched") << QString();
        QTest::newRow("speed box") << QStringLiteral("speed");
        QTest::newRow("layers box") << QStringLiteral("layers");
        QTest::newRow("strategy list") << QStringLiteral("strategy");
        QTest::newRow("k box") << QStringLiteral("every");
    }

    void keysDriveThePlayerWhateverHasFocus() {
        QFETCH(QString, focus);
        MainWindow window(remat::testing::freshWindow());
        window.resize(1280, 800);
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        if (!focus.isEmpty()) {
            QWidget *w = nullptr;
            for (QWidget *candidate : window.findChildren<QWidget *>(focus))
                if (candidate->isVisible())
                    w = candidate;
            QVERIFY(w);
            w->setFocus(Qt::TabFocusReason);
            QTRY_COMPARE(QApplication::focusWidget(), w);
        }
        QWidget *focused = QApplication::focusWidget();
        QVERIFY2(focused, "the window gives no widget focus");
        const QString shown = shownBy(focused);
        studio::Player *player = window.player();
        QCOMPARE(player->position(), 0);

        press(Qt::Key_Right);
        QCOMPARE(player->position(), 1);
        press(Qt::Key_Right);
        QCOMPARE(player->position(), 2);
        press(Qt::Key_Left);
        QCOMPARE(player->position(), 1);
        press(Qt::Key_End);
        QCOMPARE(player->position(), player->lastPosition());
        press(Qt::Key_Home);
        QCOMPARE(player->position(), 0);
        press(Qt::Key_P);
        QCOMPARE(player->stepOf(0), window.session().run(0)->summary.peakStep);
        press(Qt::Key_Space);
        QVERIFY(player->isPlaying());
        press(Qt::Key_Space);
        QVERIFY(!player->isPlaying());
        // The keys went to the player, not into the widget.
        QCOMPARE(QApplication::focusWidget(), focused);
        QCOMPARE(shownBy(focused), shown);
        QCOMPARE(window.session().layers(), 16);
    }

    void aFieldBeingEditedKeepsItsKeysUntilEnter() {
        MainWindow window(remat::testing::freshWindow());
        window.resize(1280, 800);
        window.show();
        QApplication::setActiveWindow(&window);
        QVERIFY(QTest::qWaitForWindowActive(&window));
        studio::Player *player = window.player();

        // Typing n: the digits and Space stay in the box; Enter applies n and hands the keys back.
        auto *layers = window.findChild<QSpinBox *>("layers");
        auto *layersText = layers->findChild<QLineEdit *>();
        QTest::mouseClick(layersText, Qt::LeftButton);
        QTRY_VERIFY(layers->hasFocus());
        QTest::keyClick(layersText, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("20"));
        press(Qt::Key_Space);
        press(Qt::Key_Left);
        QVERIFY(!player->isPlaying());
        QCOMPARE(player->position(), 0);
        press(Qt::Key_Return);
        QCOMPARE(window.session().layers(), 20);
        press(Qt::Key_Right);
        QCOMPARE(player->position(), 1);
        QCOMPARE(window.session().layers(), 20);

        // A checkpoint list: its spaces and commas are text while it is edited.
        studio::PaneConfig config;
        config.strategy = "checkpoints";
        config.params.checkpoints = std::vector<int>{4};
        window.session().setPaneConfig(0, config);
        auto *list = window.pane(0)->findChild<QLineEdit *>("checkpoints");
        QVERIFY(list && list->isVisible());
        QTest::mouseClick(list, Qt::LeftButton);
        QTRY_VERIFY(list->hasFocus());
        press(Qt::Key_End);
        QTest::keyClicks(list, QStringLiteral(", 8 12"));
        QVERIFY(!player->isPlaying());
        press(Qt::Key_Return);
        QCOMPARE(*window.session().paneConfig(0).params.checkpoints, (std::vector<int>{4, 8, 12}));
        press(Qt::Key_Space);
        QVERIFY(player->isPlaying());
        QCOMPARE(list->text(), QStringLiteral("4, 8, 12"));
    }
};

int main(int argc, char **argv) {
    TestPlayerKeys test;
    return remat::testing::runStudioTest(test, "test_player_keys", argc, argv);
}

#include "test_player_keys.moc"
