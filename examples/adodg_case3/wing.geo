// ADODG case 3's wing: a rectangular wing of NACA 0012 sections (the
// closed-trailing-edge form, -0.1036 x^4), chord 1, semi-span 3 chords,
// its tip closed by revolving the tip section about its chord line (the
// cap reaches 0.06 chords beyond y = 3). Cut out of a box of 21 x 12 x 20
// chords: the root on the symmetry plane y = 0. Markers: wing, symmetry,
// farfield. Units: chords.
//
// Sizing: the leading edge at h_le, the trailing edge at h_te (2 h_le),
// the tip's curves at h_tip (1.5 h_le), the rest of the wing at h_wall
// (6 h_le); from each the size grows as h + growth * distance (0.2),
// capped at h_far (2 chords).
//
//   gmsh -3 wing.geo -setnumber h_le 0.01 -format su2 -o wing.su2
//
// examples/adodg_case3/mesh.sh runs it for the example grids.
SetFactory("OpenCASCADE");
If (!Exists(h_le))
  h_le = 0.01;
EndIf
If (!Exists(h_te))
  h_te = 2 * h_le;
EndIf
If (!Exists(h_tip))
  h_tip = 1.5 * h_le;
EndIf
If (!Exists(h_wall))
  h_wall = 6 * h_le;
EndIf
If (!Exists(growth))
  growth = 0.2;
EndIf
If (!Exists(h_far))
  h_far = 2;
EndIf
semi_span = 3;
// The section's upper surface, z = t(x), through points clustered at both
// ends (x = (1 - cos)/2); the lower one is its mirror image.
n = 80;
For i In {0:n}
  x = 0.5 * (1 - Cos(Pi * i / n));
  t = 0.6 * (0.2969 * Sqrt(x) - 0.1260 * x - 0.3516 * x^2 + 0.2843 * x^3 - 0.1036 * x^4);
  Point(1 + i) = {x, 0, t};
  If (i > 0 && i < n)
    Point(1001 + i) = {x, 0, -t};
  EndIf
EndFor
up() = {};
lo() = {1};
For i In {0:n}
  up() += 1 + i;
  If (i > 0 && i < n)
    lo() += 1001 + i;
  EndIf
EndFor
lo() += 1 + n;
Spline(1) = {up()};
Spline(2) = {lo()};
Line(3) = {1, 1 + n};  // the chord, for the tip's half section
Curve Loop(1) = {1, -2};
Plane Surface(1) = {1};
// The wing to the tip section, then the cap: the upper half section
// turned half a revolution about the chord line at y = semi_span.
body() = Extrude {0, semi_span, 0} { Surface{1}; };
Curve Loop(500) = {1, -3};
Plane Surface(500) = {500};
Translate {0, semi_span, 0} { Surface{500}; }
cap() = Extrude { {1, 0, 0}, {0, semi_span, 0}, -Pi } { Surface{500}; };
wing() = BooleanUnion{ Volume{body(1)}; Delete; }{ Volume{cap(1)}; Delete; };
Box(100) = {-10, 0, -10, 21, 12, 20};
fluid() = BooleanDifference{ Volume{100}; Delete; }{ Volume{wing()}; Delete; };
bnd() = Boundary{ Volume{fluid()}; };
far() = {};
wall() = {};
sym() = {};
For i In {0:#bnd()-1}
  bb() = BoundingBox Surface{bnd(i)};
  If (bb(4) < 1e-6)
    sym() += bnd(i);
  ElseIf (bb(0) > -0.01 && bb(3) < 1.01 && bb(4) < semi_span + 0.1 && bb(2) > -0.1 && bb(5) < 0.1)
    wall() += bnd(i);
  Else
    far() += bnd(i);
  EndIf
EndFor
Printf("wing: %g wall surfaces, %g far-field, %g symmetry", #wall(), #far(), #sym());
Physical Surface("wing") = {wall()};
Physical Surface("farfield") = {far()};
Physical Surface("symmetry") = {sym()};
Physical Volume("fluid") = {fluid()};
// Feature curves by their bounding boxes: the leading edge x = 0, the
// trailing edge x = 1, the tip's curves beyond y = semi_span - 1e-6.
le() = {};
te() = {};
tip() = {};
edges() = Unique(Abs(Boundary{ Surface{wall()}; }));
For i In {0:#edges()-1}
  bb() = BoundingBox Curve{edges(i)};
  If (bb(1) > semi_span - 1e-6)
    tip() += edges(i);
  ElseIf (bb(3) < 1e-6 && bb(4) > semi_span - 1e-3)
    le() += edges(i);
  ElseIf (bb(0) > 1 - 1e-6 && bb(4) > semi_span - 1e-3)
    te() += edges(i);
  EndIf
EndFor
Printf("features: %g leading-edge, %g trailing-edge, %g tip curves", #le(), #te(), #tip());
Field[1] = Distance;
Field[1].CurvesList = {le()};
Field[1].NumPointsPerCurve = 1000;
Field[2] = Distance;
Field[2].CurvesList = {te()};
Field[2].NumPointsPerCurve = 1000;
Field[3] = Distance;
Field[3].CurvesList = {tip()};
Field[3].NumPointsPerCurve = 400;
Field[4] = Distance;
Field[4].SurfacesList = {wall()};
Field[4].NumPointsPerCurve = 200;
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
// Gmsh's optimizer on every tetrahedron of quality below 0.6 (its
// default 0.3 leaves slivers: dihedral angles 2.9-176 degrees on the
// medium mesh against 9.7-163).
Mesh.OptimizeThreshold = 0.6;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
