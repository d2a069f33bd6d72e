#version 330 core
// A round sprite with a soft edge: opaque body colour at the centre, fading to transparent at the
// rim; fragments outside the circle are discarded.
in vec3 v_colour;

out vec4 fragColour;

void main()
{
    vec2 p = gl_PointCoord * 2.0 - 1.0; // -1..1 across the sprite
    float r2 = dot(p, p);
    if (r2 > 1.0)
        discard;
    float alpha = 1.0 - smoothstep(0.55, 1.0, sqrt(r2));
    fragColour = vec4(v_colour, alpha);
}
