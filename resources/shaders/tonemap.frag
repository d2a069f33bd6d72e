#version 330 core
// Tone mapping of the floating-point accumulation buffer (src/gl/Renderer.cpp, toneMap()): each
// channel x = exposure × accumulated light goes through Reinhard's x / (1 + x) (Reinhard et al.
// 2002), which approaches 1 without reaching it, so dense cores glow brighter than their
// outskirts instead of clipping; then display gamma 1/2.2: d = (x / (1 + x))^(1/2.2). The light
// covers the background as much as its brightest channel: out = d + background × (1 − max(d)),
// so a body's centre shows its own colour. gl::toneMapped() is the same in C++ (for grey light).
uniform sampler2D u_hdr;
uniform float u_exposure;
uniform vec3 u_background;

out vec4 fragColour;

void main()
{
    vec3 x = max(texelFetch(u_hdr, ivec2(gl_FragCoord.xy), 0).rgb, vec3(0.0)) * u_exposure;
    vec3 display = pow(x / (1.0 + x), vec3(1.0 / 2.2));
    float cover = max(display.r, max(display.g, display.b));
    fragColour = vec4(display + u_background * (1.0 - cover), 1.0);
}
