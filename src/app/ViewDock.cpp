#include "ViewDock.h"
#include "DockScroll.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLinearGradient>
#include <QPainter>

#include <array>
#include <cmath>

namespace nbody::app {

namespace {

QColor toQColor(nbody::gl::ColourRgb c)
{
    return QColor::fromRgbF(c.r, c.g, c.b);
}

QString qstr(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

// ---- legend ---------------------------------------------------------------------------------

LegendOverlay::LegendOverlay(QWidget* parent) : QWidget(parent)
{
    setAttribute(Qt::WA_TransparentForMouseEvents);
    resize(230, 58);
}

void LegendOverlay::setLegend(const nbody::gl::ColourMode* mode, double minimum, double maximum, std::uint8_t groups)
{
    if (mode == m_mode && minimum == m_min && maximum == m_max && groups == m_groups)
        return;
    m_mode = mode;
    m_min = minimum;
    m_max = maximum;
    m_groups = groups;
    update();
}

namespace {
/// The Group values in the legend's order: dark matter, stars, gas, then generic.
constexpr std::array<std::size_t, 4> kLegendOrder{1, 2, 3, 0};
} // namespace

QStringList LegendOverlay::groupNames() const
{
    QStringList names;
    if (m_mode && m_mode->source == nbody::gl::ColourSource::Group)
        for (std::size_t i : kLegendOrder)
            if (m_groups & (1u << i))
                names << qstr(nbody::gl::kGroupNames[i]);
    return names;
}

void LegendOverlay::paintEvent(QPaintEvent*)
{
    if (!m_mode)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0, 0, 0, 150));
    p.drawRoundedRect(rect(), 5, 5);
    p.setPen(Qt::white);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    p.setFont(f);
    const int m = 8;
    using nbody::gl::ColourSource;
    if (m_mode->source == ColourSource::Group) {
        int x = m;
        p.drawText(QRect(m, 4, width() - 2 * m, 16), Qt::AlignLeft | Qt::AlignVCenter, tr("Group"));
        for (std::size_t i : kLegendOrder) {
            if (!(m_groups & (1u << i)))
                continue; // only the groups the system holds (groupNames())
            const QString name = qstr(nbody::gl::kGroupNames[i]);
            p.setBrush(toQColor(nbody::gl::kGroupColours[i]));
            p.setPen(Qt::NoPen);
            p.drawEllipse(QPoint(x + 5, 34), 5, 5);
            p.setPen(Qt::white);
            const int w = p.fontMetrics().horizontalAdvance(name);
            p.drawText(QPoint(x + 13, 38), name);
            x += 13 + w + 10;
        }
        return;
    }
    const QString title = m_mode->source == ColourSource::Mass    ? tr("Mass")
                          : m_mode->source == ColourSource::Level ? tr("Time-step level")
                                                                  : tr("Speed");
    p.drawText(QRect(m, 4, width() - 2 * m, 16), Qt::AlignLeft | Qt::AlignVCenter, title);
    const QRect bar(m, 22, width() - 2 * m, 10);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    g.setColorAt(0, toQColor(m_mode->low));
    g.setColorAt(1, toQColor(m_mode->high));
    p.setPen(Qt::NoPen);
    p.setBrush(g);
    p.drawRect(bar);
    p.setPen(Qt::white);
    const QRect labels(m, 34, width() - 2 * m, 18);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, QString::number(m_min, 'g', 3));
    p.drawText(labels, Qt::AlignRight | Qt::AlignVCenter, QString::number(m_max, 'g', 3));
}

// ---- dock -----------------------------------------------------------------------------------

ViewDock::ViewDock(QWidget* parent) : QDockWidget(tr("View"), parent)
{
    setObjectName(QStringLiteral("ViewDock"));
    auto* body = new QWidget(this);
    auto* form = new QFormLayout(body);
    addSpriteRows(body, form);
    addLightRows(body, form);
    addOverlayRows(body, form);
    setScrollableWidget(this, body);
    connect(m_mode, &QComboBox::activated, this, [this](int) { m_userChoseMode = true; });
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int) {
        emit colourModeChanged(nbody::gl::findColourMode(m_mode->currentData().toString().toStdString()));
    });
    connect(m_pointSize, &QDoubleSpinBox::valueChanged, this, &ViewDock::pointSizeChanged);
    connect(m_additive, &QCheckBox::toggled, this, &ViewDock::additiveChanged);
    connect(m_legend, &QCheckBox::toggled, this, &ViewDock::legendToggled);
}

void ViewDock::addSpriteRows(QWidget* body, QFormLayout* form)
{
    m_mode = new QComboBox(body);
    for (const nbody::gl::ColourMode& mode : nbody::gl::colourModes()) {
        m_mode->addItem(qstr(mode.name), qstr(mode.id));
        m_mode->setItemData(m_mode->count() - 1, qstr(mode.description), Qt::ToolTipRole);
    }
    m_mode->setObjectName(QString::fromLatin1(kColourModeKey));
    form->addRow(tr("Colour by:"), m_mode);
    m_pointSize = new QDoubleSpinBox(body);
    m_pointSize->setRange(1.0, 32.0);
    m_pointSize->setSingleStep(0.5);
    m_pointSize->setValue(3.0);
    m_pointSize->setSuffix(tr(" px"));
    remember(m_pointSize, "pointSize");
    m_pointSize->setToolTip(tr("Width at half maximum of a body's soft (Gaussian) sprite, in pixels (scaled by the "
                               "screen's device pixel ratio); never below 2 px, so small systems stay visible"));
    form->addRow(tr("Point size:"), m_pointSize);
    auto* byDistance = new QCheckBox(tr("Smaller with distance"), body);
    byDistance->setToolTip(tr("Sprites shrink with their distance from the camera (the point size is that of the "
                              "bodies at the camera's target)"));
    form->addRow(byDistance);
    remember(byDistance, "sizeByDistance");
    m_additive = new QCheckBox(tr("Additive light (glow)"), body);
    m_additive->setChecked(true);
    m_additive->setToolTip(tr("Overlapping bodies add up their light in a floating-point buffer, tone-mapped: dense "
                              "regions glow instead of saturating. Off: each sprite covers those behind it"));
    form->addRow(m_additive);
    remember(m_additive, "additive");
    auto* subsample = new QCheckBox(tr("Thin out large systems when drawing is slow"), body);
    subsample->setChecked(true);
    subsample->setToolTip(tr("Above 100 000 bodies on a software renderer (llvmpipe, softpipe), or when frames "
                             "take longer than 0.1 s, draw an evenly spread subset of at most 16 384 bodies, each "
                             "as bright as those it stands for; the status bar says so. Off: every body, "
                             "however long a frame takes"));
    form->addRow(subsample);
    remember(subsample, "subsample");
    connect(byDistance, &QCheckBox::toggled, this, &ViewDock::sizeByDistanceToggled);
    connect(subsample, &QCheckBox::toggled, this, &ViewDock::subsampleToggled);
}

void ViewDock::addLightRows(QWidget* body, QFormLayout* form)
{
    auto* autoExposure = new QCheckBox(tr("Automatic exposure"), body);
    autoExposure->setChecked(true);
    autoExposure->setToolTip(tr("The exposure follows the scene: the brightest 1 % of the lit view is compressed by "
                                "the tone curve, a lone body shows at 90 % brightness"));
    form->addRow(autoExposure);
    remember(autoExposure, "autoExposure");
    auto* ev = new QDoubleSpinBox(body);
    ev->setRange(-8.0, 8.0);
    ev->setSingleStep(0.5);
    ev->setValue(0.0);
    ev->setSuffix(tr(" EV"));
    ev->setToolTip(tr("Exposure compensation in stops (each doubles the brightness of faint light), over the "
                      "automatic exposure or, without it, over a lone body's brightness"));
    form->addRow(tr("Exposure:"), ev);
    remember(ev, "exposureEv");
    auto* trails = new QCheckBox(tr("Fading trails"), body);
    trails->setToolTip(tr("The light of earlier frames fades out instead of being cleared (on screen only; cleared "
                          "when the system is replaced)"));
    form->addRow(trails);
    remember(trails, "trails");
    auto* trailSeconds = new QDoubleSpinBox(body);
    trailSeconds->setRange(0.05, 10.0);
    trailSeconds->setSingleStep(0.05);
    trailSeconds->setValue(0.3);
    trailSeconds->setSuffix(tr(" s"));
    trailSeconds->setToolTip(tr("Time constant of the fading, wall-clock seconds: the light of t seconds ago is "
                                "kept as exp(-t / this); trails also fade while paused"));
    form->addRow(tr("Trail fade:"), trailSeconds);
    remember(trailSeconds, "trailSeconds");
    auto* labels = new QCheckBox(tr("Labels of named bodies"), body);
    labels->setChecked(true);
    labels->setToolTip(tr("The names of bodies that have one (the Solar System's Sun and planets)"));
    form->addRow(labels);
    remember(labels, "labels");
    connect(autoExposure, &QCheckBox::toggled, this, &ViewDock::autoExposureToggled);
    connect(ev, &QDoubleSpinBox::valueChanged, this, &ViewDock::exposureEvChanged);
    connect(trailSeconds, &QDoubleSpinBox::valueChanged, this, &ViewDock::trailSecondsChanged);
    connect(labels, &QCheckBox::toggled, this, &ViewDock::labelsToggled);
    connect(trails, &QCheckBox::toggled, this, &ViewDock::trailsToggled);
}

void ViewDock::addOverlayRows(QWidget* body, QFormLayout* form)
{
    auto* bounds = new QCheckBox(tr("Bounds box"), body);
    bounds->setToolTip(tr("The bodies' axis-aligned bounding box"));
    form->addRow(bounds);
    remember(bounds, "bounds");
    auto* axes = new QCheckBox(tr("Axes"), body);
    axes->setToolTip(tr("x (red), y (green), z (blue) from the origin"));
    form->addRow(axes);
    remember(axes, "axes");
    m_legend = new QCheckBox(tr("Legend"), body);
    m_legend->setChecked(true);
    form->addRow(m_legend);
    remember(m_legend, "legend");
    connect(bounds, &QCheckBox::toggled, this, &ViewDock::boundsToggled);
    connect(axes, &QCheckBox::toggled, this, &ViewDock::axesToggled);
}

bool ViewDock::selectColourMode(const QString& id)
{
    const int i = m_mode->findData(id);
    if (i < 0)
        return false;
    m_userChoseMode = true;
    m_mode->setCurrentIndex(i);
    return true;
}

void ViewDock::suggestColourMode(const QString& id)
{
    if (m_userChoseMode)
        return;
    if (const int i = m_mode->findData(id); i >= 0)
        m_mode->setCurrentIndex(i);
}

QString ViewDock::colourModeId() const
{
    return m_mode->currentData().toString();
}

void ViewDock::remember(QWidget* field, const char* key)
{
    field->setObjectName(QString::fromLatin1(key));
    m_remembered << field;
}

QVariantMap ViewDock::values() const
{
    QVariantMap v;
    if (m_userChoseMode) // a suggested mode follows the next system instead
        v.insert(QString::fromLatin1(kColourModeKey), colourModeId());
    for (const QWidget* field : m_remembered) {
        if (const auto* box = qobject_cast<const QCheckBox*>(field))
            v.insert(field->objectName(), box->isChecked());
        else if (const auto* number = qobject_cast<const QDoubleSpinBox*>(field))
            v.insert(field->objectName(), number->value());
    }
    return v;
}

void ViewDock::setValues(const QVariantMap& values)
{
    if (const auto mode = values.constFind(QString::fromLatin1(kColourModeKey)); mode != values.constEnd())
        selectColourMode(mode->toString()); // an unknown id changes nothing
    for (QWidget* field : std::as_const(m_remembered)) {
        const auto value = values.constFind(field->objectName());
        if (value == values.constEnd())
            continue;
        if (auto* box = qobject_cast<QCheckBox*>(field)) {
            box->setChecked(value->toBool());
        } else if (auto* number = qobject_cast<QDoubleSpinBox*>(field)) {
            bool ok = false;
            const double x = value->toDouble(&ok);
            if (ok && std::isfinite(x))
                number->setValue(x); // clamped to the field's range
        }
    }
}

} // namespace nbody::app
