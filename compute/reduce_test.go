package compute_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arrowsparse/arrowsparse"
	"github.com/arrowsparse/arrowsparse/compute"
	"github.com/arrowsparse/arrowsparse/internal/testing/testutil"
)

type reduceFunc func(memory.Allocator, arrowsparse.Tensor, []int, compute.ReduceOptions) (arrowsparse.Tensor, error)

var reductions = []struct {
	name string
	f    reduceFunc
}{
	{"sum", compute.Sum}, {"prod", compute.Prod}, {"min", compute.Min},
	{"max", compute.Max}, {"count", compute.Count}, {"mean", compute.Mean},
}

// refReduce is the reference reduction of the row-major dense elements
// xs of shape over the axes marked in red, with the stored flags for
// count: every result element visits its elements in row-major order.
// Integers are reduced in int64 or uint64 (the bits of the result are
// returned in an int64), floats in float64.
type refResult struct {
	ints   []int64
	floats []float64
	isInt  bool
	err    bool
}

func refReduce(name string, dt arrow.DataType, shape []int64, xs []float64, xi []int64, stored []bool, red []bool) refResult {
	var outShape []int64
	for k, d := range shape {
		if !red[k] {
			outShape = append(outShape, d)
		}
	}
	nOut := int64(1)
	for _, d := range outShape {
		nOut *= d
	}
	r := int64(1)
	for k, d := range shape {
		if red[k] {
			r *= d
		}
	}
	if r == 0 && (name == "min" || name == "max") {
		return refResult{err: true}
	}
	isFloat := dt.ID() == arrow.FLOAT16 || dt.ID() == arrow.FLOAT32 || dt.ID() == arrow.FLOAT64
	unsigned := dt.ID() == arrow.UINT8 || dt.ID() == arrow.UINT16 || dt.ID() == arrow.UINT32 || dt.ID() == arrow.UINT64
	res := refResult{isInt: name == "count" || (!isFloat && name != "mean" && name != "min" && name != "max") || (!isFloat && (name == "min" || name == "max"))}
	groups := make([][]int64, nOut)
	n := int64(len(xs))
	for q := range n {
		c := testutil.Unlinear(shape, q)
		var oc []int64
		for k := range shape {
			if !red[k] {
				oc = append(oc, c[k])
			}
		}
		o := int64(0)
		if len(outShape) > 0 {
			o = testutil.Linear(outShape, oc)
		}
		groups[o] = append(groups[o], q)
	}
	for _, g := range groups {
		if res.isInt {
			var acc int64
			switch name {
			case "count":
				for _, q := range g {
					if stored[q] {
						acc++
					}
				}
			case "sum":
				for _, q := range g {
					acc += xi[q]
				}
			case "prod":
				acc = 1
				for _, q := range g {
					acc *= xi[q]
				}
			case "min", "max":
				acc = xi[g[0]]
				for _, q := range g[1:] {
					less := xi[q] < acc
					if unsigned {
						less = uint64(xi[q]) < uint64(acc)
					}
					if less == (name == "min") && xi[q] != acc {
						acc = xi[q]
					}
				}
			}
			res.ints = append(res.ints, acc)
			continue
		}
		var acc float64
		switch name {
		case "sum", "mean":
			for _, q := range g {
				if isFloat {
					acc += xs[q]
				} else if unsigned {
					acc += float64(uint64(xi[q]))
				} else {
					acc += float64(xi[q])
				}
			}
			if name == "mean" {
				acc /= float64(r)
			}
		case "prod":
			acc = 1
			for _, q := range g {
				acc *= xs[q]
			}
		case "min":
			acc = math.Inf(1)
			for _, q := range g {
				acc = min(acc, xs[q])
			}
		case "max":
			acc = math.Inf(-1)
			for _, q := range g {
				acc = max(acc, xs[q])
			}
		}
		if r == 0 && name == "mean" {
			acc = math.NaN()
		}
		res.floats = append(res.floats, acc)
	}
	return res
}

func subsets(nd int) [][]int {
	out := [][]int{nil}
	for m := range 1 << nd {
		s := []int{}
		for k := range nd {
			if m&(1<<k) != 0 {
				s = append(s, k)
			}
		}
		out = append(out, s)
	}
	return out
}

// TestReduce checks every reduction over every set of axes (and None) of
// tensors of ranks 0 to 4 in every format and value type, with dense,
// COO and automatic results, against a reduction of the dense elements.
func TestReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range valueTypes {
		for _, shape := range shapes {
			for _, f := range formatsFor(len(shape)) {
				t.Run(fmt.Sprintf("%s/%v/%s", dt, shape, f), func(t *testing.T) {
					mem := testutil.Checked(t)
					c := randomTensor(t, mem, r, shape, 1+r.IntN(14), dt, arrow.PrimitiveTypes.Int32)
					defer c.Release()
					x := as(t, mem, c, f)
					defer x.Release()
					checkReductions(t, mem, r, x)
				})
			}
		}
	}
}

func checkReductions(t *testing.T, mem memory.Allocator, r *rand.Rand, x arrowsparse.Tensor) {
	shape := x.Shape()
	dt := x.DataType()
	xs := denseOf[float64](t, mem, x)
	xi := denseOf[int64](t, mem, x)
	stored := storedMask(t, mem, x)
	for _, axes := range subsets(len(shape)) {
		red := make([]bool, len(shape))
		for k := range red {
			red[k] = axes == nil
		}
		for _, a := range axes {
			red[a] = true
		}
		for _, rd := range reductions {
			for _, format := range []compute.Format{compute.Auto, compute.Dense, compute.COO, compute.GCS} {
				o := compute.ReduceOptions{Format: format, KeepDims: r.IntN(3) == 0, Workers: 1 + r.IntN(2)}
				name := fmt.Sprintf("%s/%v/%s/keepdims=%v", rd.name, axes, format, o.KeepDims)
				want := refReduce(rd.name, dt, shape, xs, xi, stored, red)
				got, err := rd.f(mem, x, negate(axes, len(shape), r), o)
				if want.err {
					require.ErrorIs(t, err, arrowsparse.ErrShape, name)
					continue
				}
				require.NoError(t, err, name)
				checkResult(t, mem, name, got, want)
				if s, ok := got.(arrowsparse.Sparse); ok {
					assert.True(t, s.IsCanonical(), name)
					checkStoredNonzero(t, got)
				}
				got.Release()
			}
		}
	}
}

// negate writes some axes as negative numbers, as NumPy allows.
func negate(axes []int, nd int, r *rand.Rand) []int {
	if axes == nil {
		return nil
	}
	out := make([]int, len(axes))
	for i, a := range axes {
		out[i] = a
		if r.IntN(2) == 0 {
			out[i] = a - nd
		}
	}
	return out
}

// storedMask returns, per element, whether x's canonical form stores it.
func storedMask(t *testing.T, mem memory.Allocator, x arrowsparse.Tensor) []bool {
	n, err := arrowsparse.NumElements(x.Shape())
	require.NoError(t, err)
	m := make([]bool, n)
	s, ok := x.(arrowsparse.Sparse)
	if !ok {
		for i := range m {
			m[i] = true
		}
		return m
	}
	c := s.AppendCoords(nil)
	nd := x.NumDims()
	for i := range s.NNZ() {
		m[testutil.Linear(x.Shape(), c[i*int64(nd):(i+1)*int64(nd)])] = true
	}
	return m
}

func checkResult(t *testing.T, mem memory.Allocator, name string, got arrowsparse.Tensor, want refResult) {
	t.Helper()
	if want.isInt {
		g := denseOf[int64](t, mem, got)
		require.Equal(t, want.ints, nonNil(g), name)
		return
	}
	g := denseOf[float64](t, mem, got)
	require.Equal(t, len(want.floats), len(g), name)
	tol := 1e-12
	if got.DataType().ID() == arrow.FLOAT16 {
		tol = 1e-3
	} else if got.DataType().ID() == arrow.FLOAT32 {
		tol = 1e-6
	}
	for i := range g {
		w := want.floats[i]
		if math.IsNaN(w) {
			require.True(t, math.IsNaN(g[i]), "%s: element %d is %v, want NaN", name, i, g[i])
			continue
		}
		require.InDelta(t, w, g[i], tol*max(1, math.Abs(w)), "%s: element %d", name, i)
	}
}

func nonNil(s []int64) []int64 {
	if s == nil {
		return []int64(nil)
	}
	return s
}
