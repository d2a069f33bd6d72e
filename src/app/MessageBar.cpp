#include "MessageBar.h"

#include <QHelpEvent>
#include <QPainter>
#include <QSizeGrip>
#include <QStyle>
#include <QStyleOption>
#include <QToolTip>

#include <algorithm>

namespace nbody::app {

MessageBar::MessageBar(QWidget* parent) : QStatusBar(parent)
{
    connect(this, &QStatusBar::messageChanged, this, [this] { update(); });
}

QRect MessageBar::messageArea() const
{
    // As QStatusBar lays out its message: 6 px from the left, up to 2 px before the first
    // permanent widget shown (while a message is up only permanent widgets are shown), else
    // before the size grip or 12 px from the right edge.
    int left = 6;
    int right = width() - 12;
    const bool rtl = layoutDirection() == Qt::RightToLeft;
    for (const QWidget* w : findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
        if (!w->isVisible() || w->isWindow())
            continue;
        const int gap = qobject_cast<const QSizeGrip*>(w) ? 0 : 2;
        if (rtl)
            left = std::max(left, w->x() + w->width() + gap);
        else
            right = std::min(right, w->x() - gap);
    }
    return {left, 0, std::max(0, right - left), height()};
}

QString MessageBar::shownMessage() const
{
    return fontMetrics().elidedText(currentMessage(), Qt::ElideRight, messageArea().width());
}

bool MessageBar::messageElided() const
{
    const QString message = currentMessage();
    return !message.isEmpty() && fontMetrics().horizontalAdvance(message) > messageArea().width();
}

void MessageBar::paintEvent(QPaintEvent* event)
{
    QStatusBar::paintEvent(event);
    if (!messageElided())
        return;
    // The base drew the message cut at the area's edge: the area painted over as the bar's
    // panel, and the message again, elided.
    const QRect area = messageArea();
    QPainter p(this);
    p.setClipRect(area);
    p.fillRect(area, palette().window());
    QStyleOption opt;
    opt.initFrom(this);
    style()->drawPrimitive(QStyle::PE_PanelStatusBar, &opt, &p, this);
    p.setPen(palette().windowText().color());
    p.drawText(area, Qt::AlignLeading | Qt::AlignVCenter | Qt::TextSingleLine, shownMessage());
}

bool MessageBar::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        if (messageElided() && messageArea().contains(help->pos())) {
            // Rich text, so that the tooltip wraps instead of running off the screen.
            QToolTip::showText(help->globalPos(),
                               QStringLiteral("<p>%1</p>").arg(currentMessage().toHtmlEscaped()), this,
                               messageArea());
            return true;
        }
    }
    return QStatusBar::event(event);
}

} // namespace nbody::app
