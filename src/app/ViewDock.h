#pragma once
/// \file ViewDock.h
/// The View dock (colour mode from nbody::gl::colourModes(), sprite size and its scaling with
/// distance, additive accumulation, exposure, trails, labels, overlays) and the legend drawn over
/// the viewport's corner.

#include "gl/ColourModes.h"

#include <QDockWidget>
#include <QList>
#include <QStringList>
#include <QVariantMap>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;

namespace nbody::app {

/// A small translucent box over the view: the colour gradient with its range, or the group swatches.
class LegendOverlay : public QWidget {
    Q_OBJECT
public:
    explicit LegendOverlay(QWidget* parent);
    /// What the colours mean now: the mode and the value range of its gradient (mass or speed),
    /// and for the Group mode the groups the system holds (gl::bodyScalars' groupsPresent bits).
    void setLegend(const nbody::gl::ColourMode* mode, double minimum, double maximum, std::uint8_t groups = 0);
    /// The group swatches drawn (Group mode), in the order drawn: dark matter, stars, gas, generic,
    /// those the system holds; empty in the other modes.
    QStringList groupNames() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    const nbody::gl::ColourMode* m_mode = nullptr;
    double m_min = 0, m_max = 1;
    std::uint8_t m_groups = 0;
};

class ViewDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ViewDock(QWidget* parent = nullptr);

    /// Selects the colour mode `id` (emits colourModeChanged); false for an unknown id. The
    /// choice is the user's from then on: suggestColourMode() no longer changes it.
    bool selectColourMode(const QString& id);
    /// A new system's default colour mode (gl::defaultColourMode: group or mass): selected unless
    /// the user chose a mode (in the list or with --colour).
    void suggestColourMode(const QString& id);
    /// The id of the selected colour mode.
    QString colourModeId() const;
    /// The dock's values by name, for the settings (AppSettings.h): "pointSize", "exposureEv",
    /// "trailSeconds" (numbers), "sizeByDistance", "additive", "subsample", "autoExposure", "trails",
    /// "labels", "bounds", "axes", "legend" (switches) and "colourMode" (a row id of
    /// gl::colourModes(), only once the user chose one). Each is also its field's objectName.
    QVariantMap values() const;
    /// Sets the fields named in `values` (the others stay): numbers are clamped to their field's
    /// range, an unknown colour mode or a value of the wrong type is ignored. The fields emit
    /// their signals as if edited.
    void setValues(const QVariantMap& values);

signals:
    void colourModeChanged(const nbody::gl::ColourMode* mode);
    void pointSizeChanged(double pixels);
    void additiveChanged(bool additive);
    void legendToggled(bool visible);
    void boundsToggled(bool visible);
    void axesToggled(bool visible);
    void trailsToggled(bool on);
    void trailSecondsChanged(double seconds);
    void autoExposureToggled(bool on);
    void exposureEvChanged(double ev);
    void sizeByDistanceToggled(bool on);
    /// "Thin out large systems when drawing is slow" (Viewport::setSubsampling).
    void subsampleToggled(bool on);
    void labelsToggled(bool on);

private:
    /// Colour by, point size, smaller with distance, additive light.
    void addSpriteRows(QWidget* body, QFormLayout* form);
    /// Exposure (automatic and compensation), fading trails, labels.
    void addLightRows(QWidget* body, QFormLayout* form);
    /// Bounds box, axes, legend.
    void addOverlayRows(QWidget* body, QFormLayout* form);

    static constexpr const char* kColourModeKey = "colourMode";
    /// Names `field` `key` and lists it among values().
    void remember(QWidget* field, const char* key);

    bool m_userChoseMode = false;
    QList<QWidget*> m_remembered;
    QComboBox* m_mode;
    QDoubleSpinBox* m_pointSize;
    QCheckBox* m_additive;
    QCheckBox* m_legend;
};

} // namespace nbody::app
