#include "RunDock.h"

#include <QCheckBox>
#include "DockScroll.h"
#include "ElidedLabel.h"
#include "FieldRange.h"
#include "ParamWidgets.h"

#include "sim/core/KernelRegistry.h"
#include "sim/core/ParamTable.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

namespace nbody::app {

// ---- ScientificSpinBox ----------------------------------------------------------------------

ScientificSpinBox::ScientificSpinBox(QWidget* parent) : QDoubleSpinBox(parent)
{
    setDecimals(30); // QDoubleSpinBox rounds to `decimals`; keep tiny values intact
    // Wide enough for every value a parameter-table row takes (G up to the fp32 maximum): the
    // rows, not the box, say which values are allowed (FieldRange).
    setRange(-1.0e300, 1.0e300);
    setKeyboardTracking(false); // apply on Enter / focus loss / arrows, not per keystroke
    setAccelerated(true);
}

QString ScientificSpinBox::textFromValue(double value) const
{
    return QString::number(value, 'g', 7);
}

double ScientificSpinBox::valueFromText(const QString& text) const
{
    return text.trimmed().toDouble();
}

QValidator::State ScientificSpinBox::validate(QString& text, int&) const
{
    static const QRegularExpression partial(
        QStringLiteral(R"(^\s*[+-]?(\d+\.?\d*|\.\d*)?([eE][+-]?\d*)?\s*$)"));
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok);
    if (ok && std::isfinite(v) && v >= minimum() && v <= maximum())
        return QValidator::Acceptable;
    return partial.match(text).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

void ScientificSpinBox::fixup(QString& input) const
{
    bool ok = false;
    input.trimmed().toDouble(&ok);
    if (!ok)
        input = textFromValue(value());
}

void ScientificSpinBox::stepBy(int steps)
{
    const double v = value();
    if (v == 0.0)
        setValue(steps > 0 ? 1e-6 : -1e-6);
    else
        setValue(v * std::pow(2.0, steps));
    selectAll();
}

// ---- RunDock --------------------------------------------------------------------------------

namespace {

QLabel* valueLabel(QWidget* parent)
{
    auto* l = new QLabel(parent);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setWordWrap(true);
    return l;
}

} // namespace

RunDock::RunDock(QWidget* parent) : QDockWidget(tr("Run"), parent)
{
    setObjectName(QStringLiteral("RunDock"));
    auto* body = new QWidget(this);
    auto* column = new QVBoxLayout(body);
    column->addWidget(createRunBox(body));    // run control
    column->addWidget(createSystemBox(body)); // what is running
    column->addWidget(createParamBox(body));  // parameters
    column->addStretch(1);
    setScrollableWidget(this, body);

    m_stepsToRun->setObjectName(QStringLiteral("stepsToRun"));
    m_stepsPerFrame->setObjectName(QStringLiteral("stepsPerFrame"));
    m_dt->setObjectName(QStringLiteral("dt"));
    m_eps2->setObjectName(QStringLiteral("eps2"));
    // Their allowed values are the parameter table's rows (FieldRange refuses the others).
    m_dt->setProperty(FieldRange::kParamKey, QStringLiteral("dt"));
    m_eps2->setProperty(FieldRange::kParamKey, QStringLiteral("eps2"));
    m_G->setProperty(FieldRange::kParamKey, QStringLiteral("G"));
    connect(m_stepsToRun, &QSpinBox::valueChanged, this, &RunDock::stepsToRunEdited);
    connect(m_stepsPerFrame, &QSpinBox::valueChanged, this, &RunDock::stepsPerFrameEdited);
    connect(m_dt, &QDoubleSpinBox::valueChanged, this, &RunDock::dtEdited);
    connect(m_eps2, &QDoubleSpinBox::valueChanged, this, &RunDock::eps2Edited);
    connect(m_G, &QDoubleSpinBox::valueChanged, this, &RunDock::gravitationalConstantEdited);
    connect(m_collisions, &QCheckBox::toggled, this, &RunDock::collisionsEdited);

    setKernel(nullptr);
    setParams(nbody::SimParams{});
}

QGroupBox* RunDock::createRunBox(QWidget* parent)
{
    auto* runBox = new QGroupBox(tr("Run"), parent);
    auto* runForm = new QFormLayout(runBox);
    m_stepsToRun = new QSpinBox(runBox);
    m_stepsToRun->setRange(0, std::numeric_limits<int>::max());
    m_stepsToRun->setSpecialValueText(tr("until paused"));
    m_stepsToRun->setKeyboardTracking(false);
    m_stepsToRun->setToolTip(tr("0: run until paused; otherwise Start runs this many steps, then pauses"));
    m_stepsPerFrame = new QSpinBox(runBox);
    m_stepsPerFrame->setRange(1, 1000);
    m_stepsPerFrame->setValue(1);
    m_stepsPerFrame->setKeyboardTracking(false);
    m_stepsPerFrame->setToolTip(tr("Simulation steps between two drawn frames"));
    runForm->addRow(tr("Steps to run:"), m_stepsToRun);
    runForm->addRow(tr("Steps per frame:"), m_stepsPerFrame);
    m_timeScale = valueLabel(runBox);
    m_timeScale->setObjectName(QStringLiteral("timeScaleLabel"));
    m_timeScale->setToolTip(tr("Simulated time per second of wall-clock time, over the last second of frames; "
                               "negative while time runs backwards (Simulation → Reverse time)"));
    m_timeScale->setText(tr("– (paused)"));
    runForm->addRow(tr("Time scale:"), m_timeScale);
    m_previewTimes = new QDoubleSpinBox(runBox);
    m_previewTimes->setObjectName(QStringLiteral("launchPreviewTimes"));
    m_previewTimes->setRange(0.1, 100.0);
    m_previewTimes->setDecimals(1);
    m_previewTimes->setSingleStep(0.5);
    m_previewTimes->setValue(3.0);
    m_previewTimes->setSuffix(tr(" t_dyn"));
    m_previewTimes->setKeyboardTracking(false);
    m_previewTimes->setToolTip(tr("The Add body tool shows, while dragging, the path of the new body over this many "
                                  "dynamical times sqrt(R³ / (G M)) of the system, the others held fixed"));
    connect(m_previewTimes, &QDoubleSpinBox::valueChanged, this, &RunDock::launchPreviewTimesEdited);
    runForm->addRow(tr("Launch preview:"), m_previewTimes);
    return runBox;
}

QGroupBox* RunDock::createSystemBox(QWidget* parent)
{
    auto* infoBox = new QGroupBox(tr("System"), parent);
    auto* infoForm = new QFormLayout(infoBox);
    // One line, whole in its tooltip and the window's title: wrapped, the galaxy collision's
    // sentence on how N was sized took six lines and pushed the rows below it out of the
    // column's sight on a 1366 × 768 screen.
    m_source = new ElidedLabel(infoBox);
    m_source->setObjectName(QStringLiteral("sourceLabel"));
    m_bodies = valueLabel(infoBox);
    m_kernel = valueLabel(infoBox);
    m_interop = valueLabel(infoBox);
    infoForm->addRow(tr("Source:"), m_source);
    infoForm->addRow(tr("Bodies (N):"), m_bodies);
    infoForm->addRow(tr("Kernel:"), m_kernel);
    infoForm->addRow(tr("Positions:"), m_interop);
    return infoBox;
}

QGroupBox* RunDock::createParamBox(QWidget* parent)
{
    auto* paramBox = new QGroupBox(tr("Parameters"), parent);
    auto* paramForm = new QFormLayout(paramBox);
    m_dt = new ScientificSpinBox(paramBox);
    m_dt->setToolTip(tr("Time step of the kick-drift-kick leapfrog, time units (arrows: ×2 / ÷2)"));
    m_eps2 = new ScientificSpinBox(paramBox);
    m_eps2->setToolTip(tr("Softening ε², length² (arrows: ×2 / ÷2)"));
    m_G = new ScientificSpinBox(paramBox);
    m_G->setObjectName(QStringLiteral("gravitationalConstant"));
    m_G->setToolTip(tr("Gravitational constant G, length³ mass⁻¹ time⁻² in the system's units (1 in N-body "
                       "units; 2.959e-4 AU³ M☉⁻¹ day⁻² for the Solar System). Arrows: ×2 / ÷2"));
    m_GUnits = new QLabel(paramBox);
    m_GUnits->setObjectName(QStringLiteral("unitsOfG"));
    m_GUnits->setWordWrap(true);
    m_GUnits->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* gRow = new QHBoxLayout;
    gRow->addWidget(m_G, 1);
    gRow->addWidget(m_GUnits);
    paramForm->addRow(tr("dt:"), m_dt);
    paramForm->addRow(tr("ε² (eps2):"), m_eps2);
    paramForm->addRow(tr("G:"), gRow);
    m_collisions = new QCheckBox(tr("Collisions (merge on contact)"), paramBox);
    m_collisions->setObjectName(QStringLiteral("collisions"));
    m_collisions->setToolTip(tr("Bodies closer than the sum of their radii merge into one, conserving mass, "
                                "momentum and centre of mass; the energy lost is shown in the diagnostics. "
                                "Bodies need radii (a scenario's, or a file's)."));
    paramForm->addRow(m_collisions);
    // Fixed or block time steps, η and the deepest level: the parameter table's rows.
    m_timeSteps = new ParamForm([](const nbody::ParamInfo& r) { return r.group == nbody::ParamGroup::TimeSteps; },
                                paramBox);
    m_timeSteps->setObjectName(QStringLiteral("timeSteps"));
    paramForm->addRow(m_timeSteps);
    connect(m_timeSteps, &ParamForm::edited, this, &RunDock::paramEdited);
    return paramBox;
}

void RunDock::setStepsToRun(int steps)
{
    const QSignalBlocker block(m_stepsToRun);
    m_stepsToRun->setValue(steps);
}

void RunDock::setStepsPerFrame(int steps)
{
    const QSignalBlocker block(m_stepsPerFrame);
    m_stepsPerFrame->setValue(steps);
}

void RunDock::setParams(const nbody::SimParams& p)
{
    {
        const QSignalBlocker b(m_dt);
        m_dt->setValue(static_cast<double>(p.dt));
    }
    {
        const QSignalBlocker b(m_eps2);
        m_eps2->setValue(static_cast<double>(p.eps2));
    }
    {
        const QSignalBlocker b(m_G);
        m_G->setValue(p.G);
    }
    {
        const QSignalBlocker b(m_collisions);
        m_collisions->setChecked(p.collisions);
    }
    m_timeSteps->setParams(p);
    m_shownG = p.G;
    showUnitsOfG();
}

void RunDock::setUnitsOfG(const QString& units)
{
    m_unitsOfG = units;
    showUnitsOfG();
}

QString RunDock::unitsOfGText() const
{
    return m_GUnits->text();
}

void RunDock::showUnitsOfG()
{
    // The system's unit of G when it has one (the Solar System's AU³ M☉⁻¹ day⁻²); else N-body
    // units, where G is 1; a G of another value in a system without stated units is in that
    // system's own length, mass and time.
    const QString text = !m_unitsOfG.isEmpty() ? m_unitsOfG
                         : m_shownG == 1.0     ? tr("N-body units")
                                               : tr("length³ mass⁻¹ time⁻²");
    m_GUnits->setText(text);
    m_GUnits->setToolTip(m_unitsOfG.isEmpty() && m_shownG == 1.0
                             ? tr("N-body units: G = 1, lengths, masses and times in the system's own units")
                             : tr("G in %1").arg(text));
}

void RunDock::setTimeScale(double simulatedPerSecond, bool reverse, bool running, const QString& units)
{
    const QString unit = units.isEmpty() ? tr("time units") : units;
    if (!running) {
        m_timeScale->setText(reverse ? tr("– (paused; reverse)") : tr("– (paused)"));
        return;
    }
    // The sign shows the direction: "+0.52", "−0.52" (a true minus sign).
    const double v = reverse ? -std::abs(simulatedPerSecond) : std::abs(simulatedPerSecond);
    QString number = QLocale().toString(std::abs(v), 'g', 3);
    number.prepend(v < 0 ? QStringLiteral("\u2212") : QStringLiteral("+"));
    m_timeScale->setText(reverse ? tr("%1 %2 / s (reverse)").arg(number, unit) : tr("%1 %2 / s").arg(number, unit));
}

QString RunDock::timeScaleText() const
{
    return m_timeScale->text();
}

void RunDock::setLaunchPreviewTimes(double times)
{
    const QSignalBlocker block(m_previewTimes);
    m_previewTimes->setValue(times);
}

double RunDock::launchPreviewTimes() const
{
    return m_previewTimes->value();
}

void RunDock::setBodies(qulonglong n)
{
    m_bodies->setText(QLocale().toString(n));
}

void RunDock::setKernel(const nbody::KernelInfo* k)
{
    if (!k) {
        m_kernel->setText(QStringLiteral("–"));
        return;
    }
    const auto sv = [](std::string_view s) {
        return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
    };
    // The precision once: after the name unless the name says it ("CPU fp64 reference (OpenMP)").
    const QString name = sv(k->name), precision = sv(nbody::toString(k->precision));
    m_kernel->setText(name.contains(precision) ? name : QStringLiteral("%1, %2").arg(name, precision));
    m_kernel->setToolTip(sv(k->description));
}

void RunDock::setInteropState(const QString& state)
{
    m_interop->setText(state);
}

void RunDock::setSource(const QString& source)
{
    m_source->setFullText(source);
}

} // namespace nbody::app
