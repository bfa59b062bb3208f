//go:build !amd64 || purego

package csf

var hasAVX = false

func root3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, bm, cm *float64, r, s, e int64, out *float64) {
	panic("csf: no assembly kernel on this platform")
}

func mid3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, cm, out *float64, r, s, e, own0, own1 int64) {
	panic("csf: no assembly kernel on this platform")
}

func leaf3F64I64(p1, i1, i2 *int64, vals *float64, vb int64, arow, bm, out *float64, r, s, e, own0, own1 int64) {
	panic("csf: no assembly kernel on this platform")
}
