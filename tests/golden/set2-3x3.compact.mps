*SENSE:Minimize
* emc 0.1.0: milp model, variant compact, of an edge-matching sub-problem (mps)
* puzzle set2-3x3 3x3 sha256 131cf6afc03707194641a974ba829c73c9f23f8b85c56c9cd24f02c2c4a62404
* subproblem: whole puzzle, 9 free cells, 9 pieces, 12 counted edges, goal optimisation
* free cells all
* symmetry breaking: piece 1 only on r1c1
* options none given (the defaults)
* sizes variables=52 constraints=40 binaries=30 nonzeros=162
NAME          emc_set2_3x3_compact
ROWS
 N  unmatched
 E  piece_p1
 E  piece_p2
 E  piece_p3
 E  piece_p4
 E  piece_p5
 E  piece_p6
 E  piece_p7
 E  piece_p8
 E  piece_p9
 E  cell_r1_c1
 E  cell_r1_c2
 E  cell_r1_c3
 E  cell_r2_c1
 E  cell_r2_c2
 E  cell_r2_c3
 E  cell_r3_c1
 E  cell_r3_c2
 E  cell_r3_c3
 L  edge_h_r1_c1_l1
 L  edge_h_r1_c2_l1
 L  edge_h_r1_c2_l2
 L  edge_h_r2_c1_l3
 L  edge_h_r2_c1_l4
 L  edge_h_r2_c2_l3
 L  edge_h_r2_c2_l4
 L  edge_h_r3_c1_l1
 L  edge_h_r3_c1_l2
 L  edge_h_r3_c2_l1
 L  edge_h_r3_c2_l2
 L  edge_v_r1_c1_l1
 L  edge_v_r1_c2_l3
 L  edge_v_r1_c2_l4
 L  edge_v_r1_c3_l1
 L  edge_v_r1_c3_l2
 L  edge_v_r2_c1_l1
 L  edge_v_r2_c1_l2
 L  edge_v_r2_c2_l3
 L  edge_v_r2_c2_l4
 L  edge_v_r2_c3_l1
 L  edge_v_r2_c3_l2
COLUMNS
    h_r1_c1_l1  edge_h_r1_c1_l1  -1.000000000000e+00
    h_r1_c1_l1  unmatched   1.000000000000e+00
    h_r1_c2_l1  edge_h_r1_c2_l1  -1.000000000000e+00
    h_r1_c2_l1  unmatched   1.000000000000e+00
    h_r1_c2_l2  edge_h_r1_c2_l2  -1.000000000000e+00
    h_r1_c2_l2  unmatched   1.000000000000e+00
    h_r2_c1_l3  edge_h_r2_c1_l3  -1.000000000000e+00
    h_r2_c1_l3  unmatched   1.000000000000e+00
    h_r2_c1_l4  edge_h_r2_c1_l4  -1.000000000000e+00
    h_r2_c1_l4  unmatched   1.000000000000e+00
    h_r2_c2_l3  edge_h_r2_c2_l3  -1.000000000000e+00
    h_r2_c2_l3  unmatched   1.000000000000e+00
    h_r2_c2_l4  edge_h_r2_c2_l4  -1.000000000000e+00
    h_r2_c2_l4  unmatched   1.000000000000e+00
    h_r3_c1_l1  edge_h_r3_c1_l1  -1.000000000000e+00
    h_r3_c1_l1  unmatched   1.000000000000e+00
    h_r3_c1_l2  edge_h_r3_c1_l2  -1.000000000000e+00
    h_r3_c1_l2  unmatched   1.000000000000e+00
    h_r3_c2_l1  edge_h_r3_c2_l1  -1.000000000000e+00
    h_r3_c2_l1  unmatched   1.000000000000e+00
    h_r3_c2_l2  edge_h_r3_c2_l2  -1.000000000000e+00
    h_r3_c2_l2  unmatched   1.000000000000e+00
    v_r1_c1_l1  edge_v_r1_c1_l1  -1.000000000000e+00
    v_r1_c1_l1  unmatched   1.000000000000e+00
    v_r1_c2_l3  edge_v_r1_c2_l3  -1.000000000000e+00
    v_r1_c2_l3  unmatched   1.000000000000e+00
    v_r1_c2_l4  edge_v_r1_c2_l4  -1.000000000000e+00
    v_r1_c2_l4  unmatched   1.000000000000e+00
    v_r1_c3_l1  edge_v_r1_c3_l1  -1.000000000000e+00
    v_r1_c3_l1  unmatched   1.000000000000e+00
    v_r1_c3_l2  edge_v_r1_c3_l2  -1.000000000000e+00
    v_r1_c3_l2  unmatched   1.000000000000e+00
    v_r2_c1_l1  edge_v_r2_c1_l1  -1.000000000000e+00
    v_r2_c1_l1  unmatched   1.000000000000e+00
    v_r2_c1_l2  edge_v_r2_c1_l2  -1.000000000000e+00
    v_r2_c1_l2  unmatched   1.000000000000e+00
    v_r2_c2_l3  edge_v_r2_c2_l3  -1.000000000000e+00
    v_r2_c2_l3  unmatched   1.000000000000e+00
    v_r2_c2_l4  edge_v_r2_c2_l4  -1.000000000000e+00
    v_r2_c2_l4  unmatched   1.000000000000e+00
    v_r2_c3_l1  edge_v_r2_c3_l1  -1.000000000000e+00
    v_r2_c3_l1  unmatched   1.000000000000e+00
    v_r2_c3_l2  edge_v_r2_c3_l2  -1.000000000000e+00
    v_r2_c3_l2  unmatched   1.000000000000e+00
    MARK      'MARKER'                 'INTORG'
    x_p1_r1_c1_k3  piece_p1   1.000000000000e+00
    x_p1_r1_c1_k3  cell_r1_c1   1.000000000000e+00
    x_p1_r1_c1_k3  edge_h_r1_c1_l1   1.000000000000e+00
    x_p1_r1_c1_k3  edge_v_r1_c1_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p2_r1_c3_k0  piece_p2   1.000000000000e+00
    x_p2_r1_c3_k0  cell_r1_c3   1.000000000000e+00
    x_p2_r1_c3_k0  edge_h_r1_c2_l2  -1.000000000000e+00
    x_p2_r1_c3_k0  edge_v_r1_c3_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p2_r3_c1_k2  piece_p2   1.000000000000e+00
    x_p2_r3_c1_k2  cell_r3_c1   1.000000000000e+00
    x_p2_r3_c1_k2  edge_h_r3_c1_l2   1.000000000000e+00
    x_p2_r3_c1_k2  edge_v_r2_c1_l1  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p2_r3_c3_k1  piece_p2   1.000000000000e+00
    x_p2_r3_c3_k1  cell_r3_c3   1.000000000000e+00
    x_p2_r3_c3_k1  edge_h_r3_c2_l1  -1.000000000000e+00
    x_p2_r3_c3_k1  edge_v_r2_c3_l2  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p3_r1_c3_k0  piece_p3   1.000000000000e+00
    x_p3_r1_c3_k0  cell_r1_c3   1.000000000000e+00
    x_p3_r1_c3_k0  edge_h_r1_c2_l1  -1.000000000000e+00
    x_p3_r1_c3_k0  edge_v_r1_c3_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p3_r3_c1_k2  piece_p3   1.000000000000e+00
    x_p3_r3_c1_k2  cell_r3_c1   1.000000000000e+00
    x_p3_r3_c1_k2  edge_h_r3_c1_l1   1.000000000000e+00
    x_p3_r3_c1_k2  edge_v_r2_c1_l2  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p3_r3_c3_k1  piece_p3   1.000000000000e+00
    x_p3_r3_c3_k1  cell_r3_c3   1.000000000000e+00
    x_p3_r3_c3_k1  edge_h_r3_c2_l2  -1.000000000000e+00
    x_p3_r3_c3_k1  edge_v_r2_c3_l1  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p4_r1_c3_k0  piece_p4   1.000000000000e+00
    x_p4_r1_c3_k0  cell_r1_c3   1.000000000000e+00
    x_p4_r1_c3_k0  edge_h_r1_c2_l2  -1.000000000000e+00
    x_p4_r1_c3_k0  edge_v_r1_c3_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p4_r3_c1_k2  piece_p4   1.000000000000e+00
    x_p4_r3_c1_k2  cell_r3_c1   1.000000000000e+00
    x_p4_r3_c1_k2  edge_h_r3_c1_l2   1.000000000000e+00
    x_p4_r3_c1_k2  edge_v_r2_c1_l2  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p4_r3_c3_k1  piece_p4   1.000000000000e+00
    x_p4_r3_c3_k1  cell_r3_c3   1.000000000000e+00
    x_p4_r3_c3_k1  edge_h_r3_c2_l2  -1.000000000000e+00
    x_p4_r3_c3_k1  edge_v_r2_c3_l2  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p5_r1_c2_k0  piece_p5   1.000000000000e+00
    x_p5_r1_c2_k0  cell_r1_c2   1.000000000000e+00
    x_p5_r1_c2_k0  edge_h_r1_c2_l1   1.000000000000e+00
    x_p5_r1_c2_k0  edge_v_r1_c2_l3   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p5_r2_c1_k3  piece_p5   1.000000000000e+00
    x_p5_r2_c1_k3  cell_r2_c1   1.000000000000e+00
    x_p5_r2_c1_k3  edge_h_r2_c1_l3   1.000000000000e+00
    x_p5_r2_c1_k3  edge_v_r1_c1_l1  -1.000000000000e+00
    x_p5_r2_c1_k3  edge_v_r2_c1_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p5_r2_c3_k1  piece_p5   1.000000000000e+00
    x_p5_r2_c3_k1  cell_r2_c3   1.000000000000e+00
    x_p5_r2_c3_k1  edge_h_r2_c2_l3  -1.000000000000e+00
    x_p5_r2_c3_k1  edge_v_r1_c3_l2  -1.000000000000e+00
    x_p5_r2_c3_k1  edge_v_r2_c3_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p5_r3_c2_k2  piece_p5   1.000000000000e+00
    x_p5_r3_c2_k2  cell_r3_c2   1.000000000000e+00
    x_p5_r3_c2_k2  edge_h_r3_c1_l1  -1.000000000000e+00
    x_p5_r3_c2_k2  edge_h_r3_c2_l2   1.000000000000e+00
    x_p5_r3_c2_k2  edge_v_r2_c2_l3  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p6_r1_c2_k0  piece_p6   1.000000000000e+00
    x_p6_r1_c2_k0  cell_r1_c2   1.000000000000e+00
    x_p6_r1_c2_k0  edge_h_r1_c2_l1   1.000000000000e+00
    x_p6_r1_c2_k0  edge_v_r1_c2_l4   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p6_r2_c1_k3  piece_p6   1.000000000000e+00
    x_p6_r2_c1_k3  cell_r2_c1   1.000000000000e+00
    x_p6_r2_c1_k3  edge_h_r2_c1_l4   1.000000000000e+00
    x_p6_r2_c1_k3  edge_v_r1_c1_l1  -1.000000000000e+00
    x_p6_r2_c1_k3  edge_v_r2_c1_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p6_r2_c3_k1  piece_p6   1.000000000000e+00
    x_p6_r2_c3_k1  cell_r2_c3   1.000000000000e+00
    x_p6_r2_c3_k1  edge_h_r2_c2_l4  -1.000000000000e+00
    x_p6_r2_c3_k1  edge_v_r1_c3_l2  -1.000000000000e+00
    x_p6_r2_c3_k1  edge_v_r2_c3_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p6_r3_c2_k2  piece_p6   1.000000000000e+00
    x_p6_r3_c2_k2  cell_r3_c2   1.000000000000e+00
    x_p6_r3_c2_k2  edge_h_r3_c1_l1  -1.000000000000e+00
    x_p6_r3_c2_k2  edge_h_r3_c2_l2   1.000000000000e+00
    x_p6_r3_c2_k2  edge_v_r2_c2_l4  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p7_r1_c2_k0  piece_p7   1.000000000000e+00
    x_p7_r1_c2_k0  cell_r1_c2   1.000000000000e+00
    x_p7_r1_c2_k0  edge_h_r1_c1_l1  -1.000000000000e+00
    x_p7_r1_c2_k0  edge_h_r1_c2_l2   1.000000000000e+00
    x_p7_r1_c2_k0  edge_v_r1_c2_l3   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p7_r2_c1_k3  piece_p7   1.000000000000e+00
    x_p7_r2_c1_k3  cell_r2_c1   1.000000000000e+00
    x_p7_r2_c1_k3  edge_h_r2_c1_l3   1.000000000000e+00
    x_p7_r2_c1_k3  edge_v_r2_c1_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p7_r2_c3_k1  piece_p7   1.000000000000e+00
    x_p7_r2_c3_k1  cell_r2_c3   1.000000000000e+00
    x_p7_r2_c3_k1  edge_h_r2_c2_l3  -1.000000000000e+00
    x_p7_r2_c3_k1  edge_v_r1_c3_l1  -1.000000000000e+00
    x_p7_r2_c3_k1  edge_v_r2_c3_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p7_r3_c2_k2  piece_p7   1.000000000000e+00
    x_p7_r3_c2_k2  cell_r3_c2   1.000000000000e+00
    x_p7_r3_c2_k2  edge_h_r3_c1_l2  -1.000000000000e+00
    x_p7_r3_c2_k2  edge_h_r3_c2_l1   1.000000000000e+00
    x_p7_r3_c2_k2  edge_v_r2_c2_l3  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p8_r1_c2_k0  piece_p8   1.000000000000e+00
    x_p8_r1_c2_k0  cell_r1_c2   1.000000000000e+00
    x_p8_r1_c2_k0  edge_h_r1_c1_l1  -1.000000000000e+00
    x_p8_r1_c2_k0  edge_h_r1_c2_l2   1.000000000000e+00
    x_p8_r1_c2_k0  edge_v_r1_c2_l4   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p8_r2_c1_k3  piece_p8   1.000000000000e+00
    x_p8_r2_c1_k3  cell_r2_c1   1.000000000000e+00
    x_p8_r2_c1_k3  edge_h_r2_c1_l4   1.000000000000e+00
    x_p8_r2_c1_k3  edge_v_r2_c1_l1   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p8_r2_c3_k1  piece_p8   1.000000000000e+00
    x_p8_r2_c3_k1  cell_r2_c3   1.000000000000e+00
    x_p8_r2_c3_k1  edge_h_r2_c2_l4  -1.000000000000e+00
    x_p8_r2_c3_k1  edge_v_r1_c3_l1  -1.000000000000e+00
    x_p8_r2_c3_k1  edge_v_r2_c3_l2   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p8_r3_c2_k2  piece_p8   1.000000000000e+00
    x_p8_r3_c2_k2  cell_r3_c2   1.000000000000e+00
    x_p8_r3_c2_k2  edge_h_r3_c1_l2  -1.000000000000e+00
    x_p8_r3_c2_k2  edge_h_r3_c2_l1   1.000000000000e+00
    x_p8_r3_c2_k2  edge_v_r2_c2_l4  -1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p9_r2_c2_k0  piece_p9   1.000000000000e+00
    x_p9_r2_c2_k0  cell_r2_c2   1.000000000000e+00
    x_p9_r2_c2_k0  edge_h_r2_c1_l4  -1.000000000000e+00
    x_p9_r2_c2_k0  edge_h_r2_c2_l3   1.000000000000e+00
    x_p9_r2_c2_k0  edge_v_r1_c2_l3  -1.000000000000e+00
    x_p9_r2_c2_k0  edge_v_r2_c2_l4   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p9_r2_c2_k1  piece_p9   1.000000000000e+00
    x_p9_r2_c2_k1  cell_r2_c2   1.000000000000e+00
    x_p9_r2_c2_k1  edge_h_r2_c1_l4  -1.000000000000e+00
    x_p9_r2_c2_k1  edge_h_r2_c2_l3   1.000000000000e+00
    x_p9_r2_c2_k1  edge_v_r1_c2_l4  -1.000000000000e+00
    x_p9_r2_c2_k1  edge_v_r2_c2_l3   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p9_r2_c2_k2  piece_p9   1.000000000000e+00
    x_p9_r2_c2_k2  cell_r2_c2   1.000000000000e+00
    x_p9_r2_c2_k2  edge_h_r2_c1_l3  -1.000000000000e+00
    x_p9_r2_c2_k2  edge_h_r2_c2_l4   1.000000000000e+00
    x_p9_r2_c2_k2  edge_v_r1_c2_l4  -1.000000000000e+00
    x_p9_r2_c2_k2  edge_v_r2_c2_l3   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
    MARK      'MARKER'                 'INTORG'
    x_p9_r2_c2_k3  piece_p9   1.000000000000e+00
    x_p9_r2_c2_k3  cell_r2_c2   1.000000000000e+00
    x_p9_r2_c2_k3  edge_h_r2_c1_l3  -1.000000000000e+00
    x_p9_r2_c2_k3  edge_h_r2_c2_l4   1.000000000000e+00
    x_p9_r2_c2_k3  edge_v_r1_c2_l3  -1.000000000000e+00
    x_p9_r2_c2_k3  edge_v_r2_c2_l4   1.000000000000e+00
    MARK      'MARKER'                 'INTEND'
RHS
    RHS       piece_p1   1.000000000000e+00
    RHS       piece_p2   1.000000000000e+00
    RHS       piece_p3   1.000000000000e+00
    RHS       piece_p4   1.000000000000e+00
    RHS       piece_p5   1.000000000000e+00
    RHS       piece_p6   1.000000000000e+00
    RHS       piece_p7   1.000000000000e+00
    RHS       piece_p8   1.000000000000e+00
    RHS       piece_p9   1.000000000000e+00
    RHS       cell_r1_c1   1.000000000000e+00
    RHS       cell_r1_c2   1.000000000000e+00
    RHS       cell_r1_c3   1.000000000000e+00
    RHS       cell_r2_c1   1.000000000000e+00
    RHS       cell_r2_c2   1.000000000000e+00
    RHS       cell_r2_c3   1.000000000000e+00
    RHS       cell_r3_c1   1.000000000000e+00
    RHS       cell_r3_c2   1.000000000000e+00
    RHS       cell_r3_c3   1.000000000000e+00
    RHS       edge_h_r1_c1_l1   0.000000000000e+00
    RHS       edge_h_r1_c2_l1   0.000000000000e+00
    RHS       edge_h_r1_c2_l2   0.000000000000e+00
    RHS       edge_h_r2_c1_l3   0.000000000000e+00
    RHS       edge_h_r2_c1_l4   0.000000000000e+00
    RHS       edge_h_r2_c2_l3   0.000000000000e+00
    RHS       edge_h_r2_c2_l4   0.000000000000e+00
    RHS       edge_h_r3_c1_l1   0.000000000000e+00
    RHS       edge_h_r3_c1_l2   0.000000000000e+00
    RHS       edge_h_r3_c2_l1   0.000000000000e+00
    RHS       edge_h_r3_c2_l2   0.000000000000e+00
    RHS       edge_v_r1_c1_l1   0.000000000000e+00
    RHS       edge_v_r1_c2_l3   0.000000000000e+00
    RHS       edge_v_r1_c2_l4   0.000000000000e+00
    RHS       edge_v_r1_c3_l1   0.000000000000e+00
    RHS       edge_v_r1_c3_l2   0.000000000000e+00
    RHS       edge_v_r2_c1_l1   0.000000000000e+00
    RHS       edge_v_r2_c1_l2   0.000000000000e+00
    RHS       edge_v_r2_c2_l3   0.000000000000e+00
    RHS       edge_v_r2_c2_l4   0.000000000000e+00
    RHS       edge_v_r2_c3_l1   0.000000000000e+00
    RHS       edge_v_r2_c3_l2   0.000000000000e+00
BOUNDS
 UP BND       h_r1_c1_l1   1.000000000000e+00
 UP BND       h_r1_c2_l1   1.000000000000e+00
 UP BND       h_r1_c2_l2   1.000000000000e+00
 UP BND       h_r2_c1_l3   1.000000000000e+00
 UP BND       h_r2_c1_l4   1.000000000000e+00
 UP BND       h_r2_c2_l3   1.000000000000e+00
 UP BND       h_r2_c2_l4   1.000000000000e+00
 UP BND       h_r3_c1_l1   1.000000000000e+00
 UP BND       h_r3_c1_l2   1.000000000000e+00
 UP BND       h_r3_c2_l1   1.000000000000e+00
 UP BND       h_r3_c2_l2   1.000000000000e+00
 UP BND       v_r1_c1_l1   1.000000000000e+00
 UP BND       v_r1_c2_l3   1.000000000000e+00
 UP BND       v_r1_c2_l4   1.000000000000e+00
 UP BND       v_r1_c3_l1   1.000000000000e+00
 UP BND       v_r1_c3_l2   1.000000000000e+00
 UP BND       v_r2_c1_l1   1.000000000000e+00
 UP BND       v_r2_c1_l2   1.000000000000e+00
 UP BND       v_r2_c2_l3   1.000000000000e+00
 UP BND       v_r2_c2_l4   1.000000000000e+00
 UP BND       v_r2_c3_l1   1.000000000000e+00
 UP BND       v_r2_c3_l2   1.000000000000e+00
 BV BND       x_p1_r1_c1_k3
 BV BND       x_p2_r1_c3_k0
 BV BND       x_p2_r3_c1_k2
 BV BND       x_p2_r3_c3_k1
 BV BND       x_p3_r1_c3_k0
 BV BND       x_p3_r3_c1_k2
 BV BND       x_p3_r3_c3_k1
 BV BND       x_p4_r1_c3_k0
 BV BND       x_p4_r3_c1_k2
 BV BND       x_p4_r3_c3_k1
 BV BND       x_p5_r1_c2_k0
 BV BND       x_p5_r2_c1_k3
 BV BND       x_p5_r2_c3_k1
 BV BND       x_p5_r3_c2_k2
 BV BND       x_p6_r1_c2_k0
 BV BND       x_p6_r2_c1_k3
 BV BND       x_p6_r2_c3_k1
 BV BND       x_p6_r3_c2_k2
 BV BND       x_p7_r1_c2_k0
 BV BND       x_p7_r2_c1_k3
 BV BND       x_p7_r2_c3_k1
 BV BND       x_p7_r3_c2_k2
 BV BND       x_p8_r1_c2_k0
 BV BND       x_p8_r2_c1_k3
 BV BND       x_p8_r2_c3_k1
 BV BND       x_p8_r3_c2_k2
 BV BND       x_p9_r2_c2_k0
 BV BND       x_p9_r2_c2_k1
 BV BND       x_p9_r2_c2_k2
 BV BND       x_p9_r2_c2_k3
ENDATA
