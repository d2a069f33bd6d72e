#include "BenchPlot.h"

#include "sim/base/AtomicFile.h"

#include <QApplication>
#include <QBuffer>
#include <QByteArray>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

namespace nbody::plot {

namespace {

QString qstr(const std::string& s)
{
    return QString::fromStdString(s);
}

/// The process's QApplication, or one made for this call (Qt Charts draws with Qt Widgets'
/// graphics view). QT_QPA_PLATFORM is set to offscreen for it when the user set no platform,
/// and put back afterwards.
class ScopedApplication {
public:
    ScopedApplication()
    {
        if (QCoreApplication* existing = QCoreApplication::instance()) {
            if (!qobject_cast<QApplication*>(existing))
                throw std::runtime_error("plotting needs a QApplication; this process has a plain "
                                         "QCoreApplication");
            return;
        }
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            m_setPlatform = true;
        }
        // A command-line tool has no session: Qt's note that XDG_RUNTIME_DIR is not set says
        // nothing to its user.
        s_previous = qInstallMessageHandler(&ScopedApplication::filter);
        m_app = std::make_unique<QApplication>(m_argc, m_argv);
    }
    ~ScopedApplication()
    {
        if (m_app) {
            m_app.reset();
            qInstallMessageHandler(s_previous);
        }
        if (m_setPlatform)
            qunsetenv("QT_QPA_PLATFORM");
    }
    ScopedApplication(const ScopedApplication&) = delete;
    ScopedApplication& operator=(const ScopedApplication&) = delete;

private:
    static void filter(QtMsgType type, const QMessageLogContext& context, const QString& message)
    {
        if (type == QtWarningMsg && message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR")))
            return;
        if (s_previous)
            s_previous(type, context, message);
        else
            std::fprintf(stderr, "%s\n", qPrintable(message));
    }
    static inline QtMessageHandler s_previous = nullptr;

    int m_argc = 1;
    char m_name[6] = "nbody";
    char* m_argv[2] = {m_name, nullptr};
    bool m_setPlatform = false;
    std::unique_ptr<QApplication> m_app;
};

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0;
    void add(double v)
    {
        if (v > 0 && std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    bool valid() const { return hi > 0; }
};

QFont font(int pixels, bool bold = false)
{
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setPixelSize(pixels);
    f.setBold(bold);
    return f;
}

/// Colours that stay apart for a dozen kernels (Tableau 10, then darker variants).
QColor seriesColour(std::size_t i)
{
    static const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                     "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    const QColor c(QLatin1String(kColours[i % 10]));
    return i < 10 ? c : c.darker(100 + 40 * int(i / 10));
}

/// Builds the chart (owned by the caller's scene). Throws std::invalid_argument when nothing
/// can be drawn.
QChart* buildChart(const BenchChart& in)
{
    Range x, y;
    for (const auto* group : {&in.kernels, &in.references})
        for (const Series& s : *group)
            for (const Point& p : s.points)
                if (p.bodies > 0 && p.interactionsPerSecond > 0) {
                    x.add(p.bodies);
                    y.add(p.interactionsPerSecond);
                }
    if (!x.valid() || !y.valid())
        throw std::invalid_argument("nothing to plot: no measured rate (every case skipped or failed?)");
    for (const Level& l : in.ceilings)
        y.add(l.interactionsPerSecond);
    const double xLo = x.lo / 1.5, xHi = x.hi * 1.5;

    auto* chart = new QChart;
    chart->setTitle(qstr(in.title));
    chart->setTitleFont(font(26, true));
    chart->setBackgroundBrush(Qt::white);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->legend()->setFont(font(17));
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);

    auto* xAxis = new QLogValueAxis;
    xAxis->setBase(2);
    xAxis->setLabelFormat(QStringLiteral("%.0f"));
    xAxis->setTitleText(QStringLiteral("N (bodies)"));
    xAxis->setRange(xLo, xHi);
    auto* yAxis = new QLogValueAxis;
    yAxis->setBase(10);
    yAxis->setLabelFormat(QStringLiteral("%.0e"));
    yAxis->setTitleText(QStringLiteral("interactions per second (N² per force evaluation)"));
    yAxis->setMinorTickCount(8);
    yAxis->setRange(std::pow(10.0, std::floor(std::log10(y.lo))), std::pow(10.0, std::ceil(std::log10(y.hi * 1.2))));
    for (QLogValueAxis* a : {xAxis, yAxis}) {
        a->setLabelsFont(font(16));
        a->setTitleFont(font(18, true));
    }
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);

    std::size_t colour = 0;
    const auto add = [&](const Series& s, Qt::PenStyle style) {
        auto* line = new QLineSeries;
        line->setName(qstr(s.label));
        for (const Point& p : s.points)
            if (p.bodies > 0 && p.interactionsPerSecond > 0)
                line->append(p.bodies, p.interactionsPerSecond);
        QPen pen(seriesColour(colour++));
        pen.setWidthF(3);
        pen.setStyle(style);
        line->setPen(pen);
        line->setPointsVisible(true);
        line->setMarkerSize(9);
        chart->addSeries(line);
        line->attachAxis(xAxis);
        line->attachAxis(yAxis);
    };
    for (const Series& s : in.kernels)
        add(s, Qt::SolidLine);
    for (const Series& s : in.references)
        add(s, Qt::DashLine);
    for (const Level& l : in.ceilings) {
        if (!(l.interactionsPerSecond > 0))
            continue;
        auto* line = new QLineSeries;
        line->setName(qstr(l.label));
        line->append(xLo, l.interactionsPerSecond);
        line->append(xHi, l.interactionsPerSecond);
        QPen pen(QColor(QStringLiteral("#444444")));
        pen.setWidthF(2.5);
        pen.setStyle(colour % 2 ? Qt::DotLine : Qt::DashDotLine);
        ++colour;
        line->setPen(pen);
        chart->addSeries(line);
        line->attachAxis(xAxis);
        line->attachAxis(yAxis);
    }
    return chart;
}

/// Lays the chart out at the chart size and paints it with `painter`.
void paint(QGraphicsScene& scene, QChart* chart, QPainter& painter)
{
    const QRectF rect(0, 0, kChartWidth, kChartHeight);
    chart->setGeometry(rect);
    scene.setSceneRect(rect);
    QCoreApplication::processEvents(); // the chart's layout requests
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    scene.render(&painter, rect, rect);
}

} // namespace

void writeBenchChart(const BenchChart& in, const std::string& path)
{
    const std::string ext = lowerExtension(path);
    if (ext != ".png" && ext != ".svg")
        throw std::invalid_argument("--plot '" + path + "': the name must end in .png or .svg");
    const ScopedApplication app;
    QGraphicsScene scene;
    QChart* chart = buildChart(in);
    scene.addItem(chart); // the scene owns it

    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (ext == ".png") {
        QImage image(kChartWidth, kChartHeight, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            paint(scene, chart, painter);
        }
        if (!image.save(&buffer, "PNG"))
            throw std::runtime_error("cannot encode the chart as PNG for '" + path + "'");
    } else {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(kChartWidth, kChartHeight));
        svg.setViewBox(QRect(0, 0, kChartWidth, kChartHeight));
        svg.setTitle(qstr(in.title));
        svg.setDescription(QStringLiteral("nbody bench: interactions per second against N"));
        QPainter painter;
        if (!painter.begin(&svg))
            throw std::runtime_error("cannot start the SVG for '" + path + "'");
        paint(scene, chart, painter);
        painter.end();
    }
    buffer.close();
    writeBytesAtomically(path, {reinterpret_cast<const unsigned char*>(bytes.constData()), std::size_t(bytes.size())});

    // Verify what is on disk.
    QFile f(qstr(path));
    if (!f.open(QIODevice::ReadOnly) || f.readAll() != bytes)
        throw std::runtime_error("'" + path + "' does not read back as written");
    if (ext == ".png") {
        const QImage back(qstr(path), "PNG");
        if (back.width() != kChartWidth || back.height() != kChartHeight)
            throw std::runtime_error("'" + path + "' does not decode as a " + std::to_string(kChartWidth) + "x" +
                                     std::to_string(kChartHeight) + " PNG");
    } else if (!bytes.contains("<svg") || !bytes.trimmed().endsWith("</svg>")) {
        throw std::runtime_error("'" + path + "' is not a complete SVG document");
    }
}

} // namespace nbody::plot
