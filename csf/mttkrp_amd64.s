//go:build amd64 && !purego

#include "textflag.h"

// func root3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, bm, cm *float64, r, s, e int64, out *float64)
//
// Registers: SI p1, DI i1, R8 i2, R9 vals, R10 vb, R11 bm, R12 cm,
// R13 row stride in bytes, CX fiber f, DX end e, BX factor row of bm,
// R14 first leaf, R15 end leaf, AX scratch. Y0-Y3 accumulate the 16
// columns, Y4-Y7 hold products or a fiber's sum, Y8 the broadcast value.
TEXT ·root3F64I64(SB), NOSPLIT, $0-88
	MOVQ p1+0(FP), SI
	MOVQ i1+8(FP), DI
	MOVQ i2+16(FP), R8
	MOVQ vals+24(FP), R9
	MOVQ vb+32(FP), R10
	MOVQ bm+40(FP), R11
	MOVQ cm+48(FP), R12
	MOVQ r+56(FP), R13
	SHLQ $3, R13
	MOVQ s+64(FP), CX
	MOVQ e+72(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

fiber:
	CMPQ CX, DX
	JGE  done
	MOVQ (DI)(CX*8), BX
	IMULQ R13, BX
	ADDQ R11, BX
	MOVQ (SI)(CX*8), R14
	MOVQ 8(SI)(CX*8), R15
	INCQ CX
	MOVQ R15, AX
	SUBQ R14, AX
	CMPQ AX, $1
	JNE  multi

	// One leaf: a += (v·c)∘b.
	MOVQ R14, AX
	SUBQ R10, AX
	VBROADCASTSD (R9)(AX*8), Y8
	MOVQ (R8)(R14*8), AX
	IMULQ R13, AX
	ADDQ R12, AX
	VMULPD (AX), Y8, Y4
	VMULPD 32(AX), Y8, Y5
	VMULPD 64(AX), Y8, Y6
	VMULPD 96(AX), Y8, Y7
	VMULPD (BX), Y4, Y4
	VMULPD 32(BX), Y5, Y5
	VMULPD 64(BX), Y6, Y6
	VMULPD 96(BX), Y7, Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	JMP  fiber

multi:
	// t = Σ v·c over the leaves, then a += t∘b.
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

leaf:
	CMPQ R14, R15
	JGE  leafdone
	MOVQ R14, AX
	SUBQ R10, AX
	VBROADCASTSD (R9)(AX*8), Y8
	MOVQ (R8)(R14*8), AX
	IMULQ R13, AX
	ADDQ R12, AX
	VMULPD (AX), Y8, Y9
	VMULPD 32(AX), Y8, Y10
	VMULPD 64(AX), Y8, Y11
	VMULPD 96(AX), Y8, Y12
	VADDPD Y9, Y4, Y4
	VADDPD Y10, Y5, Y5
	VADDPD Y11, Y6, Y6
	VADDPD Y12, Y7, Y7
	INCQ R14
	JMP  leaf

leafdone:
	VMULPD (BX), Y4, Y4
	VMULPD 32(BX), Y5, Y5
	VMULPD 64(BX), Y6, Y6
	VMULPD 96(BX), Y7, Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	JMP  fiber

done:
	MOVQ    out+80(FP), AX
	VADDPD  (AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VADDPD  64(AX), Y2, Y2
	VADDPD  96(AX), Y3, Y3
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	VZEROUPPER
	RET

// func mid3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, cm, out *float64, r, s, e, own0, own1 int64)
//
// Registers: SI p1, DI i1, R8 i2, R9 vals, R10 vb, R11 cm, R12 out,
// R13 row stride in bytes, CX fiber, DX end, BX output row, R14 leaf,
// R15 end leaf, AX scratch. Y12-Y15 hold the root's row, Y4-Y7 a fiber's
// sum, Y8 the broadcast value.
TEXT ·mid3F64I64(SB), NOSPLIT, $0-104
	MOVQ p1+0(FP), SI
	MOVQ i1+8(FP), DI
	MOVQ i2+16(FP), R8
	MOVQ vals+24(FP), R9
	MOVQ vb+32(FP), R10
	MOVQ arow+40(FP), AX
	VMOVUPD (AX), Y12
	VMOVUPD 32(AX), Y13
	VMOVUPD 64(AX), Y14
	VMOVUPD 96(AX), Y15
	MOVQ cm+48(FP), R11
	MOVQ out+56(FP), R12
	MOVQ r+64(FP), R13
	SHLQ $3, R13
	MOVQ s+72(FP), CX
	MOVQ e+80(FP), DX

midfiber:
	CMPQ CX, DX
	JGE  middone
	MOVQ (DI)(CX*8), BX
	MOVQ (SI)(CX*8), R14
	MOVQ 8(SI)(CX*8), R15
	INCQ CX
	CMPQ BX, own0+88(FP)
	JLT  midfiber
	CMPQ BX, own1+96(FP)
	JGE  midfiber
	IMULQ R13, BX
	ADDQ R12, BX
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

midleaf:
	CMPQ R14, R15
	JGE  midleafdone
	MOVQ R14, AX
	SUBQ R10, AX
	VBROADCASTSD (R9)(AX*8), Y8
	MOVQ (R8)(R14*8), AX
	IMULQ R13, AX
	ADDQ R11, AX
	VMULPD (AX), Y8, Y9
	VMULPD 32(AX), Y8, Y10
	VMULPD 64(AX), Y8, Y11
	VMULPD 96(AX), Y8, Y0
	VADDPD Y9, Y4, Y4
	VADDPD Y10, Y5, Y5
	VADDPD Y11, Y6, Y6
	VADDPD Y0, Y7, Y7
	INCQ R14
	JMP  midleaf

midleafdone:
	VMULPD  Y12, Y4, Y4
	VMULPD  Y13, Y5, Y5
	VMULPD  Y14, Y6, Y6
	VMULPD  Y15, Y7, Y7
	VADDPD  (BX), Y4, Y4
	VADDPD  32(BX), Y5, Y5
	VADDPD  64(BX), Y6, Y6
	VADDPD  96(BX), Y7, Y7
	VMOVUPD Y4, (BX)
	VMOVUPD Y5, 32(BX)
	VMOVUPD Y6, 64(BX)
	VMOVUPD Y7, 96(BX)
	JMP     midfiber

middone:
	VZEROUPPER
	RET

// func leaf3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, bm, out *float64, r, s, e, own0, own1 int64)
//
// Registers as in mid3F64I64, with R11 bm and BX the fiber's factor row;
// Y4-Y7 hold the fiber's product of rows.
TEXT ·leaf3F64I64(SB), NOSPLIT, $0-104
	MOVQ p1+0(FP), SI
	MOVQ i1+8(FP), DI
	MOVQ i2+16(FP), R8
	MOVQ vals+24(FP), R9
	MOVQ vb+32(FP), R10
	MOVQ arow+40(FP), AX
	VMOVUPD (AX), Y12
	VMOVUPD 32(AX), Y13
	VMOVUPD 64(AX), Y14
	VMOVUPD 96(AX), Y15
	MOVQ bm+48(FP), R11
	MOVQ out+56(FP), R12
	MOVQ r+64(FP), R13
	SHLQ $3, R13
	MOVQ s+72(FP), CX
	MOVQ e+80(FP), DX

leaffiber:
	CMPQ CX, DX
	JGE  leafdone3
	MOVQ (DI)(CX*8), BX
	IMULQ R13, BX
	ADDQ R11, BX
	MOVQ (SI)(CX*8), R14
	MOVQ 8(SI)(CX*8), R15
	INCQ CX
	VMULPD (BX), Y12, Y4
	VMULPD 32(BX), Y13, Y5
	VMULPD 64(BX), Y14, Y6
	VMULPD 96(BX), Y15, Y7

leafleaf:
	CMPQ R14, R15
	JGE  leaffiber
	MOVQ (R8)(R14*8), BX
	CMPQ BX, own0+88(FP)
	JLT  leafnext
	CMPQ BX, own1+96(FP)
	JGE  leafnext
	MOVQ R14, AX
	SUBQ R10, AX
	VBROADCASTSD (R9)(AX*8), Y8
	IMULQ R13, BX
	ADDQ R12, BX
	VMULPD  Y4, Y8, Y9
	VMULPD  Y5, Y8, Y10
	VMULPD  Y6, Y8, Y11
	VMULPD  Y7, Y8, Y0
	VADDPD  (BX), Y9, Y9
	VADDPD  32(BX), Y10, Y10
	VADDPD  64(BX), Y11, Y11
	VADDPD  96(BX), Y0, Y0
	VMOVUPD Y9, (BX)
	VMOVUPD Y10, 32(BX)
	VMOVUPD Y11, 64(BX)
	VMOVUPD Y0, 96(BX)

leafnext:
	INCQ R14
	JMP  leafleaf

leafdone3:
	VZEROUPPER
	RET
