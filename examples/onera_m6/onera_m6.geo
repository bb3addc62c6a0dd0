// The ONERA M6 wing from its CAD file, meshed for inviscid flow: the wing
// surfaces of the IGES file (upper, lower and the two tip caps, in mm;
// SU2's test-case geometry, which also holds a far-field sphere and a
// symmetry disc that are not used here) are sewn, closed at the root by a
// plane face on y = 0, and cut out of a box of 21 x 12 x 20 root chords;
// tetrahedra graded from h_wall on the wing to 160 h_wall at 12 root
// chords from it. Markers: wing, symmetry (y = 0), farfield.
//
//   gmsh -3 onera_m6.geo -setstring cad onera_m6_wing.igs -setnumber h_wall 30 \
//        -format su2 -o onera_m6.su2
//
// examples/onera_m6/mesh.sh runs it for the grid sequence.
SetFactory("OpenCASCADE");
Geometry.OCCSewFaces = 1;
Geometry.OCCFixDegenerated = 1;
Geometry.OCCFixSmallEdges = 1;
Geometry.OCCFixSmallFaces = 1;
Geometry.Tolerance = 1e-3;
If (!Exists(h_wall))
  h_wall = 30;  // mm on the wing
EndIf
If (!Exists(cad))
  cad = "onera_m6_wing.igs";
EndIf
c = 805.9;  // root chord, mm
v() = ShapeFromFile(cad);
// The wing: the surfaces inside its box (the far field and symmetry disc
// of the file lie far outside).
wing() = Surface In BoundingBox{-1, -1, -50, 1200, 1300, 50};
If (#wing() != 4)
  Error("%s: expected the 4 wing surfaces of the ONERA M6 file inside x < 1200, y < 1300, |z| < 50 mm, found %g", cad, #wing());
  Abort;
EndIf
other() = {};
For i In {0:#v()-1}
  found = 0;
  For j In {0:#wing()-1}
    If (v(i) == wing(j))
      found = 1;
    EndIf
  EndFor
  If (found == 0)
    other() += v(i);
  EndIf
EndFor
Recursive Delete { Surface{other()}; }
root() = Curve In BoundingBox{-1, -1e-3, -50, 1200, 1e-3, 50};
Curve Loop(1000) = {root()};
Plane Surface(1000) = {1000};
Surface Loop(1001) = {wing(), 1000};
Volume(1) = {1001};
Box(2) = {-10 * c, 0, -10 * c, 21 * c, 12 * c, 20 * c};
out() = BooleanDifference{ Volume{2}; Delete; }{ Volume{1}; Delete; };
bnd() = Boundary{ Volume{out()}; };
far() = {};
wall() = {};
sym() = {};
For i In {0:#bnd()-1}
  bb() = BoundingBox Surface{bnd(i)};
  If (bb(4) < 1e-2)
    sym() += bnd(i);
  ElseIf (bb(0) > -1 && bb(3) < 1300 && bb(4) < 1300 && bb(2) > -50 && bb(5) < 50)
    wall() += bnd(i);
  Else
    far() += bnd(i);
  EndIf
EndFor
If (#wall() != 4)
  Error("%s: expected the 4 wing surfaces on the fluid's boundary, found %g", cad, #wall());
  Abort;
EndIf
Physical Surface("wing") = {wall()};
Physical Surface("farfield") = {far()};
Physical Surface("symmetry") = {sym()};
Physical Volume("fluid") = {out()};
Field[1] = Distance;
Field[1].SurfacesList = {wall()};
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_wall;
Field[2].SizeMax = 160 * h_wall;
Field[2].DistMin = 0;
Field[2].DistMax = 12 * c;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
