#include "ValidationReportDialog.h"
#include "ChartAxes.h"

#include "sim/validate/Validation.h"
#include "sim/validate/ValidationReport.h"

#include <QChart>
#include <QChartView>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace nbody::app {

namespace {

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// Errors and energy changes: "3.14e-05" (as the CLI's table prints them).
QString sci(double v)
{
    if (!std::isfinite(v))
        return QStringLiteral("%1").arg(v); // "nan", "inf"
    return QString::number(v, 'e', 2);
}

QTableWidgetItem* cell(const QString& text, const QString& tip = QString())
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (!tip.isEmpty())
        item->setToolTip(tip);
    return item;
}

QTableWidgetItem* textCell(const QString& text, const QString& tip = QString())
{
    QTableWidgetItem* item = cell(text, tip);
    item->setTextAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return item;
}

/// The verdict as a coloured badge: PASS green, FAIL red, ERROR grey.
QTableWidgetItem* badge(nbody::Verdict v)
{
    auto* item = new QTableWidgetItem(qstr(nbody::toString(v)).toUpper());
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setTextAlignment(Qt::AlignCenter);
    const QColor colour = v == nbody::Verdict::Pass   ? QColor(0x2e, 0x7d, 0x32)
                          : v == nbody::Verdict::Fail ? QColor(0xc6, 0x28, 0x28)
                                                      : QColor(0x75, 0x75, 0x75);
    item->setBackground(colour);
    item->setForeground(Qt::white);
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
    return item;
}

void setHeaders(QTableWidget* table, const QList<std::pair<QString, QString>>& headers)
{
    table->setColumnCount(int(headers.size()));
    for (int c = 0; c < int(headers.size()); ++c) {
        auto* h = new QTableWidgetItem(headers[c].first);
        h->setToolTip(headers[c].second);
        table->setHorizontalHeaderItem(c, h);
    }
}

QTableWidget* makeTable(QWidget* parent, const QString& objectName)
{
    auto* t = new QTableWidget(parent);
    t->setObjectName(objectName);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->setVisible(false);
    t->horizontalHeader()->setHighlightSections(false);
    return t;
}

QChartView* chartView(QChart* chart, QWidget* parent)
{
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(360, 240);
    return view;
}

/// Kernel `i`'s line colour, as the HTML page's.
QColor kernelColour(int i)
{
    return QColor(QString::fromStdString(nbody::validationKernelColour(std::size_t(i))));
}

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
}

} // namespace

ValidationReportDialog::ValidationReportDialog(QWidget* parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("validationReportDialog"));
    setWindowTitle(tr("Validation report"));
    setModal(false);
    setSizeGripEnabled(true);

    createHeading();
    createSummary();
    createNotes();
    createFieldTable();
    createTabs();
    QDialogButtonBox* buttons = createButtons();

    // Everything but the buttons scrolls where the screen is too short for it (a 768-px laptop
    // with a long list of reasons): the buttons stay at the bottom, always reachable.
    auto* body = new QWidget;
    auto* column = new QVBoxLayout(body);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_verdict);
    column->addWidget(m_parameters);
    column->addWidget(m_environment);
    column->addWidget(m_summary);
    column->addWidget(m_reference);
    column->addWidget(m_reasons);
    column->addWidget(m_warnings);
    column->addWidget(m_tabs, 1);
    auto* area = new QScrollArea(this);
    area->setObjectName(QStringLiteral("reportBody"));
    area->setWidget(body);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(area, 1);
    layout->addWidget(buttons);
    resize(kPreferredSize);
}

void ValidationReportDialog::placeWithin(const QRect& available)
{
    m_placed = true;
    // The frame the window manager adds: known once shown, else room for a title bar.
    const QRect frame = frameGeometry(), inner = geometry();
    const bool framed = isVisible() && frame.height() > inner.height();
    const QMargins margins = framed ? QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                                               frame.right() - inner.right(), frame.bottom() - inner.bottom())
                                    : QMargins(4, kTitleBarAllowance, 4, 4);
    const QSize room = available.size().shrunkBy(margins);
    const QSize size(std::max(std::min(kPreferredSize.width(), room.width()), minimumSizeHint().width()),
                     std::max(std::min(kPreferredSize.height(), room.height()), minimumSizeHint().height()));
    resize(size);
    // Centred in the available area, the frame inside it.
    const QSize outer = size.grownBy(margins);
    const QPoint topLeft(available.left() + std::max(0, (available.width() - outer.width()) / 2) + margins.left(),
                         available.top() + std::max(0, (available.height() - outer.height()) / 2) + margins.top());
    move(topLeft - QPoint(margins.left(), margins.top()));
}

void ValidationReportDialog::showEvent(QShowEvent* event)
{
    if (!m_placed && screen())
        placeWithin(screen()->availableGeometry());
    QDialog::showEvent(event);
}

void ValidationReportDialog::createHeading()
{
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("reportVerdict"));
    QFont big = m_verdict->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    big.setBold(true);
    m_verdict->setFont(big);
    m_parameters = new QLabel(this);
    m_parameters->setObjectName(QStringLiteral("reportParameters"));
    m_environment = new QLabel(this);
    m_environment->setObjectName(QStringLiteral("reportEnvironment"));
    m_reference = new QLabel(this);
    m_reference->setObjectName(QStringLiteral("reportReference"));
    for (QLabel* l : {m_parameters, m_environment, m_reference}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_environment->setStyleSheet(QStringLiteral("color: #4a4a4a;"));
}

void ValidationReportDialog::createSummary()
{
    m_summary = makeTable(this, QStringLiteral("reportSummary"));
    setHeaders(m_summary,
               {{tr("Kernel"), tr("Registry id (hover for the name, backend and launch parameters)")},
                {tr("Precision"), QString()},
                {tr("Force err. max"), tr("Step 0: max over bodies of |a − a_ref| / max(|a_ref|, floor)")},
                {tr("p99"), tr("Step 0: 99th percentile of the per-body relative force error")},
                {tr("median"), tr("Step 0: median of the per-body relative force error")},
                {tr("Position rel. max"), tr("After K steps: max per-body relative position error")},
                {tr("Velocity rel. max"), tr("After K steps: max per-body relative velocity error")},
                {tr("Accel. rel. max"), tr("After K steps: max per-body relative acceleration error")},
                {tr("ΔE/E₀"), tr("Relative energy change of the kernel's run after K steps")},
                {tr("Verdict"), tr("PASS, FAIL (reasons below) or ERROR (the run could not be done)")}});
    m_summary->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summary->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

void ValidationReportDialog::createNotes()
{
    m_reasons = new QLabel(this);
    m_reasons->setObjectName(QStringLiteral("reportReasons"));
    m_reasons->setWordWrap(true);
    m_reasons->setTextFormat(Qt::RichText);
    m_reasons->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("reportWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setStyleSheet(QStringLiteral("color: #8a5a00;"));
}

void ValidationReportDialog::createFieldTable()
{
    m_fields = makeTable(this, QStringLiteral("reportFields"));
    setHeaders(m_fields,
               {{tr("Kernel"), QString()},
                {tr("Field"), QString()},
                {tr("|Δ| max"), tr("Max per-body |u − u_ref| after K steps, the field's unit")},
                {tr("|Δ| median"), QString()},
                {tr("|Δ| RMS"), QString()},
                {tr("rel. max"), tr("Max per-body |u − u_ref| / max(|u_ref|, floor)")},
                {tr("rel. median"), QString()},
                {tr("rel. RMS"), QString()},
                {tr("> 1 % rel."), tr("The predecessor's criterion: components with |Δ| > 1 % of min(|u|, |u_ref|)")},
                {tr("> 0.01 abs."), tr("The predecessor's criterion: components with |Δ| > 0.01")}});
    m_fields->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_fields->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
}

void ValidationReportDialog::createTabs()
{
    m_growthChart = new QChart;
    m_growthChart->setTitle(tr("Error growth: max position error against the reference"));
    m_growthChart->legend()->setAlignment(Qt::AlignRight);
    m_energyChart = new QChart;
    m_energyChart->setTitle(tr("Relative energy change ΔE/E₀"));
    m_energyChart->legend()->setAlignment(Qt::AlignRight);
    for (QChart* c : {m_growthChart, m_energyChart})
        c->setMargins(QMargins(4, 4, 4, 4));

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("reportTabs"));
    m_tabs->addTab(chartView(m_growthChart, m_tabs), tr("&Error growth"));
    m_tabs->addTab(chartView(m_energyChart, m_tabs), tr("E&nergy change"));
    m_tabs->addTab(m_fields, tr("&Per-field statistics"));
    m_tabs->setTabToolTip(0, tr("N-body systems are chaotic: trajectory errors of every kernel grow; a bug shows "
                                "as a large error from the first steps"));
}

QDialogButtonBox* ValidationReportDialog::createButtons()
{
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto* json = buttons->addButton(tr("Export &JSON…"), QDialogButtonBox::ActionRole);
    json->setObjectName(QStringLiteral("exportJson"));
    json->setToolTip(tr("Write the report as JSON (schema nbody-validation/1, see docs/validation.md)"));
    auto* html = buttons->addButton(tr("Export &HTML…"), QDialogButtonBox::ActionRole);
    html->setObjectName(QStringLiteral("exportHtml"));
    html->setToolTip(tr("Write the report as a self-contained HTML page (no network or script needed)"));
    connect(json, &QPushButton::clicked, this, [this] { chooseExport(QStringLiteral("json")); });
    connect(html, &QPushButton::clicked, this, [this] { chooseExport(QStringLiteral("html")); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    return buttons;
}

void ValidationReportDialog::setReport(std::shared_ptr<const nbody::ValidationReport> report)
{
    m_report = std::move(report);
    if (!m_report)
        return;
    const nbody::ValidationReport& r = *m_report;
    m_verdict->setText(QString::fromStdString(nbody::validationVerdictLine(r)));
    m_verdict->setStyleSheet(r.allPass() ? QStringLiteral("color: #2e7d32;") : QStringLiteral("color: #c62828;"));
    const nbody::SimParams& p = r.params;
    m_parameters->setText(tr("N = %1 · K = %2 steps · dt = %3 · ε² = %4 · G = %5 · %6 — %7")
                              .arg(QLocale().toString(qulonglong(r.bodies)), QLocale().toString(qulonglong(r.steps)))
                              .arg(double(p.dt), 0, 'g', 6)
                              .arg(double(p.eps2), 0, 'g', 6)
                              .arg(p.G, 0, 'g', 6)
                              .arg(QString::fromStdString(p.integrator), QString::fromStdString(r.system)));
    const nbody::ValidationEnvironment& e = r.environment;
    m_environment->setText(tr("%1 · %2 · %3 · host %4 · %5 OpenMP threads · started %6")
                               .arg(QString::fromStdString(e.device), QString::fromStdString(e.cuda),
                                    QString::fromStdString(e.build), QString::fromStdString(e.host))
                               .arg(e.openmpThreads)
                               .arg(QString::fromStdString(e.startedUtc)));
    const nbody::ValidationThresholds& t = r.thresholds;
    m_reference->setText(tr("Reference (fp64, OpenMP): ΔE/E₀ = %1, momentum change %2, %3 s.  "
                            "Pass: finite; every body's step-0 force error ≤ %4 (fp32) / %5 (fp64) relative, or "
                            "|Δa| ≤ %7·u·√N·S (all pairs: the rounding bound of its sum); "
                            "|ΔE/E₀ − reference's| ≤ max(%6, |reference's|).")
                             .arg(sci(r.referenceEnergyChange), sci(r.referenceMomentumChange))
                             .arg(r.referenceSeconds, 0, 'f', 2)
                             .arg(t.forceFp32, 0, 'g', 3)
                             .arg(t.forceFp64, 0, 'g', 3)
                             .arg(t.energy, 0, 'g', 3)
                             .arg(t.roundingK, 0, 'g', 3));
    QStringList reasons;
    for (const auto& k : r.kernels)
        for (const std::string& why : k.reasons)
            reasons << QStringLiteral("<b>%1</b>: %2").arg(QString::fromStdString(k.id).toHtmlEscaped(),
                                                           QString::fromStdString(why).toHtmlEscaped());
    m_reasons->setVisible(!reasons.isEmpty());
    m_reasons->setText(QStringLiteral("<span style=\"color:#c62828\">%1</span>")
                           .arg(tr("Why not passed:") + QStringLiteral("<br>") + reasons.join(QStringLiteral("<br>"))));
    QStringList warnings;
    for (const std::string& w : r.warnings)
        warnings << tr("⚠ %1").arg(QString::fromStdString(w));
    m_warnings->setVisible(!warnings.isEmpty());
    m_warnings->setText(warnings.join(QLatin1Char('\n')));
    fillSummary();
    fillFields();
    fillGrowthChart();
    fillEnergyChart();
}

void ValidationReportDialog::fillSummary()
{
    const auto& kernels = m_report->kernels;
    m_summary->setRowCount(int(kernels.size()));
    for (int row = 0; row < int(kernels.size()); ++row) {
        const nbody::KernelValidation& k = kernels[std::size_t(row)];
        QString tip = QStringLiteral("%1\n%2, %3").arg(QString::fromStdString(k.name), qstr(nbody::toString(k.backend)),
                                                       qstr(nbody::toString(k.layout)));
        if (!k.launch.empty())
            tip += QStringLiteral(", ") + QString::fromStdString(k.launch);
        tip += tr("\n%1 s for the K steps").arg(k.seconds, 0, 'f', 2);
        m_summary->setItem(row, 0, textCell(QString::fromStdString(k.id), tip));
        m_summary->setItem(row, 1, textCell(qstr(nbody::toString(k.precision))));
        m_summary->setItem(row, 2, cell(sci(k.force0.max), tr("worst body %1").arg(k.force0.worstBody)));
        m_summary->setItem(row, 3, cell(sci(k.force0.p99)));
        m_summary->setItem(row, 4, cell(sci(k.force0.median)));
        m_summary->setItem(row, 5, cell(sci(k.position.relative.max), tr("worst body %1").arg(k.position.relative.worstBody)));
        m_summary->setItem(row, 6, cell(sci(k.velocity.relative.max), tr("worst body %1").arg(k.velocity.relative.worstBody)));
        m_summary->setItem(row, 7,
                           cell(sci(k.acceleration.relative.max), tr("worst body %1").arg(k.acceleration.relative.worstBody)));
        m_summary->setItem(row, 8, cell(sci(k.energyChange), tr("momentum change %1").arg(sci(k.momentumChange))));
        QTableWidgetItem* b = badge(k.verdict);
        if (!k.reasons.empty())
            b->setToolTip(QString::fromStdString(k.reasons.front()));
        m_summary->setItem(row, 9, b);
    }
    m_summary->setCurrentItem(nullptr); // no focus frame on the first cell in a fresh report
    // Tall enough for every row (no inner scrolling for the usual handful of kernels).
    int h = m_summary->horizontalHeader()->height() + 2 * m_summary->frameWidth();
    for (int row = 0; row < m_summary->rowCount(); ++row)
        h += m_summary->rowHeight(row);
    m_summary->setMinimumHeight(std::min(h, 300));
    m_summary->setMaximumHeight(std::max(h, 60));
}

void ValidationReportDialog::fillFields()
{
    const auto& kernels = m_report->kernels;
    m_fields->setRowCount(int(kernels.size() * 3));
    int row = 0;
    for (const nbody::KernelValidation& k : kernels) {
        const std::pair<QString, const nbody::FieldErrors*> fields[] = {
            {tr("position"), &k.position}, {tr("velocity"), &k.velocity}, {tr("acceleration"), &k.acceleration}};
        for (const auto& [name, f] : fields) {
            const QString misses = QStringLiteral("%1 / %2");
            m_fields->setItem(row, 0, textCell(QString::fromStdString(k.id)));
            m_fields->setItem(row, 1, textCell(name, tr("relative floor %1").arg(sci(f->floor))));
            m_fields->setItem(row, 2, cell(sci(f->absolute.max), tr("worst body %1").arg(f->absolute.worstBody)));
            m_fields->setItem(row, 3, cell(sci(f->absolute.median)));
            m_fields->setItem(row, 4, cell(sci(f->absolute.rms)));
            m_fields->setItem(row, 5, cell(sci(f->relative.max), tr("worst body %1").arg(f->relative.worstBody)));
            m_fields->setItem(row, 6, cell(sci(f->relative.median)));
            m_fields->setItem(row, 7, cell(sci(f->relative.rms)));
            m_fields->setItem(row, 8, cell(misses.arg(f->predecessorRelativeMisses).arg(f->components)));
            m_fields->setItem(row, 9, cell(misses.arg(f->predecessorAbsoluteMisses).arg(f->components)));
            ++row;
        }
    }
}

void ValidationReportDialog::fillGrowthChart()
{
    clearChart(m_growthChart);
    auto* x = new QValueAxis;
    x->setTitleText(tr("step"));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setRange(0, double(std::max<std::uint64_t>(1, m_report->steps)));
    auto* y = new QLogValueAxis;
    y->setBase(10);
    y->setTitleText(tr("max |x − x_ref| (length)"));
    y->setLabelFormat(QStringLiteral("%.0e"));
    m_growthChart->addAxis(x, Qt::AlignBottom);
    m_growthChart->addAxis(y, Qt::AlignLeft);
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (const nbody::KernelValidation& k : m_report->kernels) {
        auto* s = new QLineSeries(m_growthChart);
        QList<QPointF> points;
        for (const nbody::GrowthPoint& g : k.growth) {
            // A log axis cannot show 0 (the initial state, or a kernel identical to the reference).
            if (g.maxPositionError > 0 && std::isfinite(g.maxPositionError)) {
                points.append({double(g.step), g.maxPositionError});
                lo = std::min(lo, g.maxPositionError);
                hi = std::max(hi, g.maxPositionError);
            }
        }
        s->setName(points.isEmpty() ? tr("%1 (0: identical)").arg(QString::fromStdString(k.id))
                                    : QString::fromStdString(k.id));
        s->append(points);
        m_growthChart->addSeries(s);
        QPen pen(kernelColour(int(&k - m_report->kernels.data())));
        pen.setWidthF(2.0);
        s->setPen(pen);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    if (hi > 0) {
        const double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
        y->setRange(std::pow(10.0, a), std::pow(10.0, b > a ? b : a + 1));
    } else {
        y->setRange(1e-12, 1.0);
    }
}

void ValidationReportDialog::fillEnergyChart()
{
    clearChart(m_energyChart);
    auto* x = new QValueAxis;
    x->setTitleText(tr("step"));
    x->setLabelFormat(QStringLiteral("%d"));
    x->setRange(0, double(std::max<std::uint64_t>(1, m_report->steps)));
    auto* y = new QValueAxis;
    m_energyChart->addAxis(x, Qt::AlignBottom);
    m_energyChart->addAxis(y, Qt::AlignLeft);
    const std::vector<nbody::EnergyCurve> curves = nbody::energyCurves(*m_report);
    // The y axis through a shared exponent (ΔE/E₀ of an fp64 run is ~1e-14: Qt Charts alone
    // would show an empty range), as the Diagnostics dock's (ChartAxes.h).
    double lo = 0, hi = 0;
    for (const nbody::EnergyCurve& c : curves)
        for (const auto& [step, v] : c.points) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    m_energyLayout = layoutAxis(lo, hi, 7);
    applyAxisLayout(y, m_energyLayout, tr("ΔE/E₀"), false);
    // The reference's run first, wide and light; each kernel on top in its colour. A kernel on
    // the reference's curve (the `reference` kernel itself) or on an earlier kernel's is dashed,
    // with markers, so the curve beneath shows through, and the legend names it once
    // (nbody::energyCurves, as the HTML page).
    static const Qt::PenStyle dashes[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    int overlaid = 0;
    for (const nbody::EnergyCurve& c : curves) {
        auto* s = new QLineSeries(m_energyChart);
        s->setName(QString::fromStdString(c.label));
        QList<QPointF> points;
        for (const auto& [step, v] : c.points)
            points.append({step, m_energyLayout.scale.toPlot(v)});
        s->append(points);
        m_energyChart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        if (c.kernel < 0) {
            QPen pen(QColor(QString::fromStdString(nbody::validationReferenceColour())));
            pen.setWidthF(6.0);
            pen.setCapStyle(Qt::RoundCap);
            s->setPen(pen);
        } else {
            QPen pen(kernelColour(c.kernel));
            pen.setWidthF(2.0);
            if (c.sameAs != -2) {
                // Each curve drawn over another a different dash and smaller markers than the
                // one before, so every one of them shows.
                pen.setStyle(dashes[overlaid % 4]);
                s->setPointsVisible(true);
                s->setMarkerSize(std::max(4.0, 10.0 - 2.5 * overlaid));
                ++overlaid;
            }
            s->setPen(pen);
        }
        if (!c.inLegend)
            for (QLegendMarker* m : m_energyChart->legend()->markers(s))
                m->setVisible(false);
    }
}

bool ValidationReportDialog::exportTo(const QString& path)
{
    if (!m_report)
        return false;
    try {
        nbody::writeValidationReport(QFile::encodeName(path).toStdString(), *m_report);
        return true;
    } catch (const std::exception& e) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Export validation report"),
                                    tr("The report was not written to %1; an existing file there was kept as it "
                                       "was.\n\n%2")
                                        .arg(QDir::toNativeSeparators(path), QString::fromUtf8(e.what())),
                                    QMessageBox::Ok, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return false;
    }
}

void ValidationReportDialog::chooseExport(const QString& suffix)
{
    const QString dir = m_lastDir.isEmpty() ? QDir::currentPath() : m_lastDir;
    const QString filter = suffix == QLatin1String("json") ? tr("JSON files (*.json)") : tr("HTML files (*.html *.htm)");
    QString path = QFileDialog::getSaveFileName(this, tr("Export validation report"),
                                                QDir(dir).filePath(QStringLiteral("validation.") + suffix), filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    m_lastDir = QFileInfo(path).absolutePath();
    exportTo(path);
}

} // namespace nbody::app
