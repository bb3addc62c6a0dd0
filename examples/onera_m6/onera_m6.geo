// The ONERA M6 wing from its CAD file, meshed for inviscid flow: the wing
// surfaces of the IGES file (upper, lower and the two tip caps, in mm;
// SU2's test-case geometry, which also holds a far-field sphere and a
// symmetry disc that are not used here) are sewn, closed at the root by a
// plane face on y = 0, and cut out of a box of 21 x 12 x 20 root chords.
// Markers: wing, symmetry (y = 0), farfield. Two sizings (mm):
//
// - h_wall alone (the example grids): tetrahedra graded from h_wall on the
//   wing to 160 h_wall at 12 root chords from it.
// - h_le set (production grids): the leading edge at h_le, the trailing
//   edge at h_te (default 2 h_le), the tip curves at h_tip (1.5 h_le), the
//   rest of the wing at h_wall (8 h_le); from each of these the size grows
//   as h + growth * distance (growth 0.17 by default), capped at h_far (850
//   mm). The defaults are mesh.sh's finest production level.
//
//   gmsh -3 onera_m6.geo -setstring cad onera_m6_wing.igs -setnumber h_wall 30 \
//        -format su2 -o onera_m6.su2
//   gmsh -3 onera_m6.geo -setstring cad onera_m6_wing.igs -setnumber h_le 1.9 \
//        -format su2 -o onera_m6_p4.su2
//
// examples/onera_m6/mesh.sh runs it for the example grids and, with
// --production, for the production sequence.
SetFactory("OpenCASCADE");
Geometry.OCCSewFaces = 1;
Geometry.OCCFixDegenerated = 1;
Geometry.OCCFixSmallEdges = 1;
Geometry.OCCFixSmallFaces = 1;
Geometry.Tolerance = 1e-3;
If (!Exists(h_wall) && !Exists(h_le))
  h_wall = 30;  // mm on the wing
ElseIf (!Exists(h_wall))
  h_wall = 8 * h_le;
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
  Error(StrCat(cad, ": expected the 4 wing surfaces of the ONERA M6 file inside x < 1200, y < 1300, |z| < 50 mm, found %g"), #wing());
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
  Error(StrCat(cad, ": expected the 4 wing surfaces on the fluid's boundary, found %g"), #wall());
  Abort;
EndIf
Physical Surface("wing") = {wall()};
Physical Surface("farfield") = {far()};
Physical Surface("symmetry") = {sym()};
Physical Volume("fluid") = {out()};
If (!Exists(h_le))
  // The example grids: h_wall on the whole wing, graded linearly to 160
  // h_wall at 12 root chords.
  Field[1] = Distance;
  Field[1].SurfacesList = {wall()};
  Field[2] = Threshold;
  Field[2].InField = 1;
  Field[2].SizeMin = h_wall;
  Field[2].SizeMax = 160 * h_wall;
  Field[2].DistMin = 0;
  Field[2].DistMax = 12 * c;
  Background Field = 2;
Else
  // Production sizing: h = h_k + growth * d_k from each feature k (the
  // leading edge, the trailing edge, the tip curves, the whole wing at
  // h_wall), the smallest of them, capped at h_far. On the wing this
  // resolves the leading edge (h_le), the trailing edge (h_te) and the
  // rounded tip (h_tip) and coarsens towards h_wall mid-chord; in the
  // volume the size grows at the same rate from every feature.
  If (!Exists(h_te))
    h_te = 2 * h_le;
  EndIf
  If (!Exists(h_tip))
    h_tip = 1.5 * h_le;
  EndIf
  If (!Exists(growth))
    growth = 0.17;
  EndIf
  If (!Exists(h_far))
    h_far = 850;
  EndIf
  // The wing's curves by their bounding boxes: the leading edge ends at x
  // 690.7 mm, the trailing edge starts at x 805.9 mm, the tip curves lie
  // beyond y 1180 mm; the root curves (y = 0) are left to the others.
  le() = {};
  te() = {};
  tip() = {};
  edges() = Unique(Abs(Boundary{ Surface{wall()}; }));
  For i In {0:#edges()-1}
    bb() = BoundingBox Curve{edges(i)};
    If (bb(1) > 1180)
      tip() += edges(i);
    ElseIf (bb(4) > 1190 && bb(3) < 700 && bb(2) > -1 && bb(5) < 1)
      le() += edges(i);
    ElseIf (bb(4) > 1190 && bb(0) > 800 && bb(2) > -1 && bb(5) < 1)
      te() += edges(i);
    EndIf
  EndFor
  If (#le() != 1 || #te() != 1 || #tip() < 1)
    Error(StrCat(cad, ": expected one leading-edge curve, one trailing-edge curve and the tip curves of the ONERA M6, found %g, %g and %g"), #le(), #te(), #tip());
    Abort;
  EndIf
  Printf("production sizing: leading edge %g mm, trailing edge %g mm, tip %g mm (%g curves), wing %g mm, growth %g, far field %g mm", h_le, h_te, h_tip, #tip(), h_wall, growth, h_far);
  // Distances, sampled finely enough (about 2 mm along the curves, 5 mm
  // over the faces) that the sampling error stays below the sizes.
  Field[1] = Distance;
  Field[1].CurvesList = {le()};
  Field[1].NumPointsPerCurve = 800;
  Field[2] = Distance;
  Field[2].CurvesList = {te()};
  Field[2].NumPointsPerCurve = 800;
  Field[3] = Distance;
  Field[3].CurvesList = {tip()};
  Field[3].NumPointsPerCurve = 400;
  Field[4] = Distance;
  Field[4].SurfacesList = {wall()};
  Field[4].NumPointsPerCurve = 250;
  Field[11] = MathEval;
  Field[11].F = Sprintf("%g + %g * F1", h_le, growth);
  Field[12] = MathEval;
  Field[12].F = Sprintf("%g + %g * F2", h_te, growth);
  Field[13] = MathEval;
  Field[13].F = Sprintf("%g + %g * F3", h_tip, growth);
  Field[14] = MathEval;
  Field[14].F = Sprintf("%g + %g * F4", h_wall, growth);
  Field[15] = MathEval;
  Field[15].F = Sprintf("%g", h_far);
  Field[20] = Min;
  Field[20].FieldsList = {11, 12, 13, 14, 15};
  Background Field = 20;
  // The rounded tip caps (the wing faces beyond y 1190 mm): the default
  // Frontal-Delaunay spans each cap with one triangle between its curves
  // (30.9 mm edges at any h_tip); Delaunay fills them at h_tip.
  caps() = {};
  For i In {0:#wall()-1}
    bb() = BoundingBox Surface{wall(i)};
    If (bb(1) > 1190)
      caps() += wall(i);
    EndIf
  EndFor
  MeshAlgorithm Surface{caps()} = 5;
EndIf
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
