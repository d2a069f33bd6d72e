#version 330 core
// A triangle that covers the viewport (vertices 0, 1, 2 → (-1,-1), (3,-1), (-1,3)); no attributes.
void main()
{
    vec2 p = vec2(gl_VertexID == 1 ? 3.0 : -1.0, gl_VertexID == 2 ? 3.0 : -1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
