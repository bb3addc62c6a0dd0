// Written by Gmsh 4.8.4 (Debian) to tests/mesh/data/prism_extruded.msh:
//   gmsh -3 prism_extruded.geo -format msh41 -o prism_extruded.msh
// The triangle (0,0)-(1,0)-(0,1) extruded to z = 1 in two layers of prisms.
Point(1) = {0, 0, 0, 0.5}; Point(2) = {1, 0, 0, 0.5}; Point(3) = {0, 1, 0, 0.5};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 1};
Curve Loop(1) = {1, 2, 3}; Plane Surface(1) = {1};
out[] = Extrude {0, 0, 1} { Surface{1}; Layers{2}; Recombine; };
Physical Surface("bottom") = {1};
Physical Surface("top") = {out[0]};
Physical Surface("sides") = {out[2], out[3], out[4]};
Physical Volume("v") = {out[1]};
