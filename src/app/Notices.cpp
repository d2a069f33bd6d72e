#include "Notices.h"

#include <QMainWindow>
#include <QMessageBox>
#include <QStatusBar>

#include <cstdio>

namespace nbody::app {

void Notices::status(const QString& text, int timeoutMs) const
{
    m_window->statusBar()->showMessage(text, timeoutMs);
}

void Notices::clearStatus() const
{
    m_window->statusBar()->clearMessage();
}

void Notices::warn(const QString& title, const QString& text, bool activate)
{
    if (!m_warningBox) {
        m_warningBox = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_window);
        m_warningBox->setAttribute(Qt::WA_DeleteOnClose);
        m_warningBox->setModal(false);
    }
    m_warningBox->setWindowTitle(title);
    m_warningBox->setText(text);
    m_warningBox->setAttribute(Qt::WA_ShowWithoutActivating, !activate);
    m_warningBox->show();
    m_warningBox->raise();
}

void Notices::printError(const QString& text)
{
    std::fprintf(stderr, "nbody-sandbox: %s\n", qPrintable(text));
}

void Notices::report(const QString& title, const QString& text, bool activate)
{
    if (m_scripted)
        printError(text);
    else
        warn(title, text, activate);
}

} // namespace nbody::app
