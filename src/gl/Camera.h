#pragma once
/// \file Camera.h
/// An orbit camera (GLM): looks at a target from a distance along yaw/pitch angles.

#include <glm/glm.hpp>

namespace nbody::gl {

class OrbitCamera {
public:
    /// Frames a sphere (centre, radius, length units) so it fills the view from the default
    /// direction (yaw 30°, pitch 20°): target = centre, distance from the narrower of the
    /// vertical field of view and the horizontal one for `aspect` (width / height), near/far
    /// planes around it.
    void fit(const glm::vec3& centre, float radius, float aspect = 1.f);
    /// Rotates by mouse motion in pixels (0.3° per pixel: yaw −= dx, pitch += dy); pitch
    /// clamped to ±89°, yaw kept in −180…180°.
    void orbit(float dxPixels, float dyPixels);
    /// Moves the target in the view plane by mouse motion in pixels, for a viewport height.
    void pan(float dxPixels, float dyPixels, float viewportHeight);
    /// Multiplies the distance by 0.9^steps (wheel: steps = delta/120); positive zooms in.
    /// The distance stays within 1e-4 … 1e4 sceneRadius; the clip planes follow it.
    void zoom(float steps);

    /// The point under normalised device coordinates (ndcX, ndcY ∈ −1…1, y up) on the plane
    /// through the target facing the camera (where sandbox edits place bodies).
    glm::vec3 pointOnTargetPlane(float ndcX, float ndcY, float aspect) const;

    glm::mat4 view() const;
    glm::mat4 projection(float aspect) const;
    /// The eye position (target + distance along yaw/pitch; yaw 0, pitch 0 looks down −z).
    glm::vec3 eye() const;
    /// Sets nearPlane = 1e-4 distance and farPlane = distance + 1000 sceneRadius (depth testing
    /// is off, so the planes only clip). fit() and zoom() call it; call it after setting
    /// distance or sceneRadius directly.
    void updateClipPlanes();

    glm::vec3 target{0.f};
    float distance = 1.f;
    float yawDeg = 30.f;
    float pitchDeg = 20.f;
    float fovYDeg = 45.f;
    float nearPlane = 0.01f;
    float farPlane = 100.f;
    float sceneRadius = 1.f; ///< radius of the sphere last framed by fit(), length units
};

} // namespace nbody::gl
