//go:build amd64 && !purego

#include "textflag.h"

// func prefetchRows32(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint)
//
// For each of the n int32 row numbers k at ks, prefetches the start of row
// k of B: bi + pb[k]<<bshift and vb + pb[k]<<vshift, pb being npb int64s.
// A k outside [0, npb) is skipped (an index outside the shape in a matrix
// built trusted panics in the Go code that follows, never here).
TEXT ·prefetchRows32(SB), NOSPLIT, $0-64
	MOVQ ks+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ pb+16(FP), R8
	MOVQ npb+24(FP), R13
	MOVQ bi+32(FP), R9
	MOVQ bshift+40(FP), R10
	MOVQ vb+48(FP), R11
	MOVQ vshift+56(FP), R12
	TESTQ BX, BX
	JLE   done32

loop32:
	MOVLQSX (SI), AX
	CMPQ    AX, R13
	JAE     skip32
	MOVQ    (R8)(AX*8), DX
	MOVQ    DX, DI
	MOVQ    R10, CX
	SHLQ    CX, DI
	PREFETCHT0 (R9)(DI*1)
	MOVQ    R12, CX
	SHLQ    CX, DX
	PREFETCHT0 (R11)(DX*1)

skip32:
	ADDQ    $4, SI
	DECQ    BX
	JNZ     loop32

done32:
	RET

// func prefetchRows64(ks unsafe.Pointer, n int, pb unsafe.Pointer, npb int, bi unsafe.Pointer, bshift uint, vb unsafe.Pointer, vshift uint)
//
// prefetchRows32 for int64 row numbers.
TEXT ·prefetchRows64(SB), NOSPLIT, $0-64
	MOVQ ks+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ pb+16(FP), R8
	MOVQ npb+24(FP), R13
	MOVQ bi+32(FP), R9
	MOVQ bshift+40(FP), R10
	MOVQ vb+48(FP), R11
	MOVQ vshift+56(FP), R12
	TESTQ BX, BX
	JLE   done64

loop64:
	MOVQ    (SI), AX
	CMPQ    AX, R13
	JAE     skip64
	MOVQ    (R8)(AX*8), DX
	MOVQ    DX, DI
	MOVQ    R10, CX
	SHLQ    CX, DI
	PREFETCHT0 (R9)(DI*1)
	MOVQ    R12, CX
	SHLQ    CX, DX
	PREFETCHT0 (R11)(DX*1)

skip64:
	ADDQ    $8, SI
	DECQ    BX
	JNZ     loop64

done64:
	RET

// func prefetchPointers32(ks unsafe.Pointer, n int, pb unsafe.Pointer)
//
// For each of the n int32 row numbers k at ks, prefetches pb[k], an int64.
TEXT ·prefetchPointers32(SB), NOSPLIT, $0-24
	MOVQ ks+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ pb+16(FP), R8
	TESTQ BX, BX
	JLE   donep32

loopp32:
	MOVLQSX (SI), AX
	PREFETCHT0 (R8)(AX*8)
	ADDQ    $4, SI
	DECQ    BX
	JNZ     loopp32

donep32:
	RET

// func prefetchPointers64(ks unsafe.Pointer, n int, pb unsafe.Pointer)
//
// prefetchPointers32 for int64 row numbers.
TEXT ·prefetchPointers64(SB), NOSPLIT, $0-24
	MOVQ ks+0(FP), SI
	MOVQ n+8(FP), BX
	MOVQ pb+16(FP), R8
	TESTQ BX, BX
	JLE   donep64

loopp64:
	MOVQ    (SI), AX
	PREFETCHT0 (R8)(AX*8)
	ADDQ    $8, SI
	DECQ    BX
	JNZ     loopp64

donep64:
	RET
