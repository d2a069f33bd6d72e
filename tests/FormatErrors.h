#pragma once
// Shared by the reader tests: a file that must be refused with a FormatError.
#include "contracts/Errors.h"

#include <QString>
#include <QStringList>
#include <QTest>

#include <exception>

/// Calls `read(path)` (which returns something with size()) and expects a FormatError whose
/// message names the file and contains each of `words`.
template <typename Read>
void expectFormatError(const QString& path, const QStringList& words, Read read)
{
    try {
        const auto result = read(path.toStdString());
        QFAIL(qPrintable(QStringLiteral("accepted, %1 bodies").arg(result.size())));
    } catch (const nbody::FormatError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains(path), qPrintable("message does not name the file: " + what));
        for (const QString& word : words)
            QVERIFY2(what.contains(word), qPrintable("'" + word + "' missing from: " + what));
    } catch (const std::exception& e) {
        QFAIL(qPrintable(QStringLiteral("not a FormatError: ") + e.what()));
    }
}
