#version 330 core
// Overlay lines (bounds box, axes) in world coordinates with a colour per vertex
// (src/gl/Renderer.cpp, Renderer::drawLines).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_colour;

uniform mat4 u_viewProjection;

out vec3 v_colour;

void main()
{
    gl_Position = u_viewProjection * vec4(a_position, 1.0);
    v_colour = a_colour;
}
