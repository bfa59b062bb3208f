//go:build amd64 && !purego

package csf

import "golang.org/x/sys/cpu"

// hasAVX says whether root3F64I64 may run: it uses 256-bit AVX
// multiplies and adds (no FMA, so that it rounds as the Go code does).
var hasAVX = cpu.X86.HasAVX

// root3F64I64 accumulates 16 columns of the MTTKRP row of one root node of
// a 3-level tree with int64 indptr and indices and float64 values: for
// each fiber f in [s, e), with x = i1[f] and its leaves k,
//
//	a += (vals[k-vb]·cm[i2[k]·r : +16])∘bm[x·r : +16]   (one leaf)
//	a += (Σ_k vals[k-vb]·cm[i2[k]·r : +16])∘bm[x·r : +16]
//
// then out[0:16] += a. bm, cm and out point at the block's first column;
// r is the row stride in elements. The operations on each column are
// those of mttWorker.root3, in the same order.
//
//go:noescape
func root3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, bm, cm *float64, r, s, e int64, out *float64)

// mid3F64I64 is the MTTKRP of a 3-level tree whose middle level holds the
// mode, for the fibers [s, e) of one root and 16 columns: for each fiber
// f whose coordinate x = i1[f] lies in [own0, own1),
//
//	out[x·r : +16] += (Σ_k vals[k-vb]·cm[i2[k]·r : +16])∘arow[0:16]
//
// arow is the root's factor row. It rounds as mttWorker.mid3.
//
//go:noescape
func mid3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, cm, out *float64, r, s, e, own0, own1 int64)

// leaf3F64I64 is the MTTKRP of a 3-level tree whose last level holds the
// mode, for the fibers [s, e) of one root and 16 columns: for each fiber f
// and each leaf k with y = i2[k] in [own0, own1),
//
//	out[y·r : +16] += vals[k-vb]·(arow[0:16]∘bm[i1[f]·r : +16])
//
// It rounds as mttWorker.leaf3.
//
//go:noescape
func leaf3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, bm, out *float64, r, s, e, own0, own1 int64)
