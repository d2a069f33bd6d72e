#include "CaptureDialogs.h"

#include "gl/Renderer.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace nbody::app {

std::optional<QSize> parseFrameSize(const QString& text)
{
    static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d{1,5})\\s*[xX×]\\s*(\\d{1,5})\\s*$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
    if (w < 16 || h < 16 || w > 16384 || h > 16384)
        return std::nullopt;
    return QSize(w, h);
}

// ---- the size choice ---------------------------------------------------------------------------

class FrameSizeBox : public QWidget {
public:
    FrameSizeBox(QSize viewSize, QWidget* parent) : QWidget(parent), m_viewSize(viewSize)
    {
        m_view = new QRadioButton(tr("View size (%1 × %2 pixels)").arg(viewSize.width()).arg(viewSize.height()), this);
        m_custom = new QRadioButton(tr("Custom:"), this);
        m_width = new QSpinBox(this);
        m_height = new QSpinBox(this);
        for (QSpinBox* s : {m_width, m_height}) {
            s->setRange(16, 16384);
            s->setSuffix(tr(" px"));
        }
        m_width->setValue(1920);
        m_height->setValue(1080);
        m_view->setChecked(true);
        auto* custom = new QHBoxLayout;
        custom->addWidget(m_custom);
        custom->addWidget(m_width);
        custom->addWidget(new QLabel(QStringLiteral("×"), this));
        custom->addWidget(m_height);
        custom->addStretch();
        auto* layout = new QVBoxLayout(this);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(m_view);
        layout->addLayout(custom);
        auto enable = [this] {
            m_width->setEnabled(m_custom->isChecked());
            m_height->setEnabled(m_custom->isChecked());
        };
        connect(m_custom, &QRadioButton::toggled, this, enable);
        enable();
        setToolTip(tr("Frames are rendered offscreen, so any size works whatever the window's size; "
                      "sprites keep their size relative to the picture's height."));
    }
    QSize size() const { return m_custom->isChecked() ? QSize(m_width->value(), m_height->value()) : m_viewSize; }

private:
    QSize m_viewSize;
    QRadioButton* m_view;
    QRadioButton* m_custom;
    QSpinBox* m_width;
    QSpinBox* m_height;
};

namespace {

QLabel* problemLabel(QWidget* parent)
{
    auto* l = new QLabel(parent);
    l->setStyleSheet(QStringLiteral("color: #c02020"));
    l->setWordWrap(true);
    return l;
}

QLineEdit* pathRow(QWidget* parent, QFormLayout* form, const QString& label, const std::function<void()>& browse)
{
    auto* edit = new QLineEdit(parent);
    auto* button = new QPushButton(QObject::tr("Browse…"), parent);
    QObject::connect(button, &QPushButton::clicked, parent, browse);
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(button);
    form->addRow(label, row);
    return edit;
}

} // namespace

// ---- Export frame ------------------------------------------------------------------------------

ExportFrameDialog::ExportFrameDialog(QSize viewSize, const QString& lastPath, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export frame"));
    auto* form = new QFormLayout;
    m_path = pathRow(this, form, tr("File:"), [this] { browse(); });
    m_path->setText(lastPath.isEmpty() ? QDir::home().filePath(QStringLiteral("nbody-frame.png")) : lastPath);
    m_size = new FrameSizeBox(viewSize, this);
    form->addRow(tr("Size:"), m_size);
    m_quality = new QSpinBox(this);
    m_quality->setRange(1, 100);
    m_quality->setValue(92);
    m_quality->setToolTip(tr("JPEG only (PNG is lossless)"));
    form->addRow(tr("JPEG quality:"), m_quality);
    m_problem = problemLabel(this);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportFrameDialog::validate);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
}

QString ExportFrameDialog::path() const { return m_path->text().trimmed(); }
QSize ExportFrameDialog::frameSize() const { return m_size->size(); }
int ExportFrameDialog::jpegQuality() const { return m_quality->value(); }

void ExportFrameDialog::browse()
{
    const QString p = QFileDialog::getSaveFileName(this, tr("Export frame"), path(),
                                                   tr("PNG image (*.png);;JPEG image (*.jpg *.jpeg)"));
    if (!p.isEmpty())
        m_path->setText(p);
}

void ExportFrameDialog::validate()
{
    const std::string p = path().toStdString();
    if (nbody::gl::imageFormatFor(p) == nbody::gl::ImageFormat::Unknown) {
        m_problem->setText(tr("The file name must end in .png, .jpg or .jpeg."));
        return;
    }
    if (const nbody::gl::PngTarget t = nbody::gl::resolvePngTarget(p); !t.problem.empty()) {
        m_problem->setText(tr("Cannot write there: %1").arg(QString::fromStdString(t.problem)));
        return;
    }
    accept();
}

// ---- Record ------------------------------------------------------------------------------------

RecordDialog::RecordDialog(QSize viewSize, const QString& ffmpegMissing, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Record"));
    auto* form = new QFormLayout;
    m_sequence = new QRadioButton(tr("Image sequence: numbered PNG files in a directory"), this);
    m_video = new QRadioButton(tr("MP4 video (H.264 through ffmpeg)"), this);
    if (!ffmpegMissing.isEmpty()) {
        m_video->setEnabled(false);
        m_video->setText(m_video->text() + tr(" — unavailable: ffmpeg not found"));
        m_video->setToolTip(ffmpegMissing);
    }
    m_sequence->setChecked(true);
    auto* kinds = new QVBoxLayout;
    kinds->addWidget(m_sequence);
    kinds->addWidget(m_video);
    form->addRow(tr("Record to:"), kinds);
    m_path = pathRow(this, form, tr("Target:"), [this] { browse(); });
    m_path->setText(QDir::home().filePath(QStringLiteral("nbody-frames")));
    connect(m_video, &QRadioButton::toggled, this, [this](bool video) {
        QString t = m_path->text().trimmed();
        const bool isMp4 = t.endsWith(QLatin1String(".mp4"), Qt::CaseInsensitive);
        if (video && !isMp4)
            m_path->setText(t + QStringLiteral(".mp4"));
        else if (!video && isMp4)
            m_path->setText(t.chopped(4));
    });
    m_every = new QSpinBox(this);
    m_every->setRange(1, 1000000);
    m_every->setValue(1);
    m_every->setSuffix(tr(" step(s)"));
    m_every->setToolTip(tr("A frame is recorded now and then every k-th step; frames end exactly there."));
    form->addRow(tr("Every:"), m_every);
    m_size = new FrameSizeBox(viewSize, this);
    form->addRow(tr("Size:"), m_size);
    m_fps = new QDoubleSpinBox(this);
    m_fps->setRange(1, 240);
    m_fps->setValue(30);
    m_fps->setSuffix(tr(" frames/s"));
    form->addRow(tr("Video frame rate:"), m_fps);
    m_problem = problemLabel(this);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start recording"));
    connect(buttons, &QDialogButtonBox::accepted, this, &RecordDialog::validate);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
}

QString RecordDialog::target() const { return m_path->text().trimmed(); }
QSize RecordDialog::frameSize() const { return m_size->size(); }
int RecordDialog::every() const { return m_every->value(); }
double RecordDialog::fps() const { return m_fps->value(); }

void RecordDialog::browse()
{
    QString p;
    if (m_video->isChecked())
        p = QFileDialog::getSaveFileName(this, tr("Record video"), target(), tr("MP4 video (*.mp4)"));
    else
        p = QFileDialog::getExistingDirectory(this, tr("Record into directory"), target());
    if (!p.isEmpty())
        m_path->setText(p);
}

void RecordDialog::validate()
{
    if (target().isEmpty()) {
        m_problem->setText(tr("Choose a target."));
        return;
    }
    if (m_video->isChecked() != (nbody::gl::sinkKindFor(target().toStdString()) == nbody::gl::SinkKind::Mp4)) {
        m_problem->setText(m_video->isChecked() ? tr("A video's name must end in .mp4.")
                                                : tr("A directory for an image sequence must not end in .mp4."));
        return;
    }
    accept();
}

} // namespace nbody::app
