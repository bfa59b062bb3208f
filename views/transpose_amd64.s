//go:build !purego

#include "textflag.h"

// func transpose8NT(dst *uint64, dLd int64, src *uint64, sLd int64)
//
// Sets dst[i*dLd + j] = src[j*sLd + i] for i, j < 8 (strides in elements),
// with non-temporal stores (MOVNTI): each destination row of eight
// elements is written whole, so the write-combining buffers emit full
// cache lines without reading them first. The caller must execute
// sfence before the destination is read by another goroutine.
TEXT ·transpose8NT(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ dLd+8(FP), DX
	MOVQ src+16(FP), R8
	MOVQ sLd+24(FP), CX
	SHLQ $3, DX
	SHLQ $3, CX
	LEAQ (R8)(CX*1), R9
	LEAQ (R9)(CX*1), R10
	LEAQ (R10)(CX*1), R11
	LEAQ (R11)(CX*1), R12
	LEAQ (R12)(CX*1), R13
	LEAQ (R13)(CX*1), BX
	LEAQ (BX)(CX*1), AX
	XORQ CX, CX

row:
	MOVQ    (R8)(CX*1), SI
	MOVNTIQ SI, 0(DI)
	MOVQ    (R9)(CX*1), SI
	MOVNTIQ SI, 8(DI)
	MOVQ    (R10)(CX*1), SI
	MOVNTIQ SI, 16(DI)
	MOVQ    (R11)(CX*1), SI
	MOVNTIQ SI, 24(DI)
	MOVQ    (R12)(CX*1), SI
	MOVNTIQ SI, 32(DI)
	MOVQ    (R13)(CX*1), SI
	MOVNTIQ SI, 40(DI)
	MOVQ    (BX)(CX*1), SI
	MOVNTIQ SI, 48(DI)
	MOVQ    (AX)(CX*1), SI
	MOVNTIQ SI, 56(DI)
	ADDQ    DX, DI
	ADDQ    $8, CX
	CMPQ    CX, $64
	JLT     row
	RET

// func sfence()
TEXT ·sfence(SB), NOSPLIT, $0-0
	SFENCE
	RET
