#pragma once
/// \file ElidedLabel.h
/// A one-line label that shows as much of its text as its width holds, ending in "…", with the
/// whole text in its tooltip: for a long value in a narrow dock whose wrapped lines would push
/// the rows below it out of sight.

#include <QFontMetrics>
#include <QLabel>
#include <QResizeEvent>

namespace nbody::app {

class ElidedLabel : public QLabel {
public:
    explicit ElidedLabel(QWidget* parent = nullptr) : QLabel(parent)
    {
        setWordWrap(false);
        setTextFormat(Qt::PlainText);
        setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // the layout gives the width
    }

    /// The whole text; the label shows it elided to its width, and its tooltip has it whole.
    void setFullText(const QString& text)
    {
        m_full = text;
        setToolTip(text);
        elide();
    }
    const QString& fullText() const { return m_full; }

    QSize sizeHint() const override
    {
        const QMargins m = contentsMargins();
        return {fontMetrics().horizontalAdvance(m_full) + m.left() + m.right() + 2 * margin(),
                QLabel::sizeHint().height()};
    }
    QSize minimumSizeHint() const override { return {0, QLabel::minimumSizeHint().height()}; }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QLabel::resizeEvent(event);
        elide();
    }
    void changeEvent(QEvent* event) override
    {
        QLabel::changeEvent(event);
        if (event->type() == QEvent::FontChange)
            elide();
    }

private:
    void elide()
    {
        const QString shown = fontMetrics().elidedText(m_full, Qt::ElideRight, contentsRect().width() - 2 * margin());
        if (shown != text())
            setText(shown);
    }

    QString m_full;
};

} // namespace nbody::app
