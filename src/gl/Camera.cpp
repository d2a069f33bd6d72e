#include "Camera.h"

#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cmath>

namespace nbody::gl {

namespace {

constexpr float kDegPerPixel = 0.3f;
constexpr float kMaxPitchDeg = 89.f;
// The clip planes only clip (depth testing is off), so they can be far apart: the near plane a
// tiny fraction of the distance in front of the eye, the far plane well behind the framed sphere.
constexpr float kNearFraction = 1e-4f;
constexpr float kFarRadii = 1000.f;

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

} // namespace

void OrbitCamera::fit(const glm::vec3& centre, float radius, float aspect)
{
    const float r = (std::isfinite(radius) && radius > 0.f) ? radius : 1.f;
    target = finite(centre) ? centre : glm::vec3(0.f);
    sceneRadius = r;
    yawDeg = 30.f;
    pitchDeg = 20.f;
    float halfFov = glm::radians(std::clamp(fovYDeg, 1.f, 179.f)) * 0.5f;
    if (std::isfinite(aspect) && aspect > 0.f && aspect < 1.f) // portrait: the horizontal FOV is narrower
        halfFov = std::atan(std::tan(halfFov) * aspect);
    distance = r / std::sin(halfFov) * 1.1f;
    updateClipPlanes();
}

void OrbitCamera::orbit(float dxPixels, float dyPixels)
{
    if (!std::isfinite(dxPixels) || !std::isfinite(dyPixels))
        return;
    yawDeg = std::remainder(yawDeg - dxPixels * kDegPerPixel, 360.f);
    pitchDeg = std::clamp(pitchDeg + dyPixels * kDegPerPixel, -kMaxPitchDeg, kMaxPitchDeg);
}

void OrbitCamera::pan(float dxPixels, float dyPixels, float viewportHeight)
{
    if (!(viewportHeight > 0.f) || !std::isfinite(dxPixels) || !std::isfinite(dyPixels))
        return;
    // Length per pixel in the plane through the target, so the scene follows the mouse there.
    const float perPixel = 2.f * distance * std::tan(glm::radians(fovYDeg) * 0.5f) / viewportHeight;
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    target += (-dxPixels * right + dyPixels * up) * perPixel;
}

void OrbitCamera::zoom(float steps)
{
    if (!std::isfinite(steps))
        return;
    const float r = sceneRadius > 0.f ? sceneRadius : 1.f;
    distance = std::clamp(distance * std::pow(0.9f, steps), r * 1e-4f, r * 1e4f);
    updateClipPlanes();
}

glm::vec3 OrbitCamera::eye() const
{
    const float yaw = glm::radians(yawDeg);
    const float pitch = glm::radians(pitchDeg);
    const glm::vec3 dir(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
    return target + distance * dir;
}

glm::vec3 OrbitCamera::pointOnTargetPlane(float ndcX, float ndcY, float aspect) const
{
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    const glm::vec3 forward = -glm::vec3(v[0][2], v[1][2], v[2][2]);
    const float t = std::tan(glm::radians(std::clamp(fovYDeg, 1.f, 179.f)) * 0.5f);
    const float a = (std::isfinite(aspect) && aspect > 0.f) ? aspect : 1.f;
    // A ray through the pixel reaches the target's plane after `distance` along the view axis.
    return eye() + distance * (forward + right * (ndcX * t * a) + up * (ndcY * t));
}

glm::mat4 OrbitCamera::view() const
{
    return glm::lookAt(eye(), target, glm::vec3(0.f, 1.f, 0.f));
}

glm::mat4 OrbitCamera::projection(float aspect) const
{
    const float a = (std::isfinite(aspect) && aspect > 0.f) ? aspect : 1.f;
    const float n = nearPlane > 0.f ? nearPlane : 1e-6f;
    const float f = farPlane > n ? farPlane : n * 2.f;
    return glm::perspective(glm::radians(std::clamp(fovYDeg, 1.f, 179.f)), a, n, f);
}

void OrbitCamera::updateClipPlanes()
{
    const float r = sceneRadius > 0.f ? sceneRadius : 1.f;
    nearPlane = distance * kNearFraction;
    farPlane = distance + kFarRadii * r;
}

} // namespace nbody::gl
