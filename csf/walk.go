package csf

// walker visits leaves in tree order and keeps the path to the current
// leaf: the node and coordinate of each upper level. Leaves are addressed
// by their absolute position in the last indices buffer.
type walker struct {
	nl    int
	ptr   []cursor // levels 0..nl-2
	idx   []cursor // levels 0..nl-1
	node  []int64  // current node of levels 0..nl-2
	end   []int64  // end of node[l]'s children: indptr[l][node[l]+1]
	coord []int64  // coordinate of node[l]
	t     *Tensor
}

func newWalker(t *Tensor) *walker {
	nl := len(t.levels)
	w := &walker{
		nl:    nl,
		ptr:   make([]cursor, nl-1),
		idx:   make([]cursor, nl),
		node:  make([]int64, nl-1),
		end:   make([]int64, nl-1),
		coord: make([]int64, nl-1),
		t:     t,
	}
	for l := range t.levels {
		lv := &t.levels[l]
		w.idx[l] = newCursor(lv.idxType, lv.idx.Bytes(), lv.off+lv.n)
		if l < nl-1 {
			w.ptr[l] = newCursor(lv.ptrType, lv.ptr.Bytes(), lv.off+lv.n+1)
		}
	}
	return w
}

// seek positions the walker on the path to leaf k, which must be one of
// the tensor's leaves.
func (w *walker) seek(k int64) {
	c := k
	for l := w.nl - 2; l >= 0; l-- {
		lv := &w.t.levels[l]
		p := w.ptr[l].ops.lastLE(w.ptr[l].b, lv.off, lv.off+lv.n, c)
		w.node[l] = p
		c = p
	}
	for l := 0; l < w.nl-1; l++ {
		w.end[l] = w.ptr[l].at(w.node[l] + 1)
		w.coord[l] = w.idx[l].at(w.node[l])
	}
}

// advance moves level l to its next node, moving its ancestors along when
// it leaves their children.
func (w *walker) advance(l int) {
	w.node[l]++
	if l > 0 {
		for w.node[l] >= w.end[l-1] {
			w.advance(l - 1)
		}
	}
	w.end[l] = w.ptr[l].at(w.node[l] + 1)
	w.coord[l] = w.idx[l].at(w.node[l])
}

// fill writes the level-order coordinates of leaves [lo, hi) to dst, nl
// per leaf. The walker must have been positioned on lo by seek or by the
// fill that ended at lo.
func (w *walker) fill(lo, hi int64, dst []int64) {
	nl := w.nl
	last := nl - 1
	leaves := w.idx[last].span(lo, hi)
	for j, x := range leaves {
		k := lo + int64(j)
		for k >= w.end[last-1] {
			w.advance(last - 1)
		}
		row := dst[j*nl : (j+1)*nl : (j+1)*nl]
		copy(row, w.coord)
		row[last] = x
	}
}

// leafRange returns the tensor's leaves as absolute positions [lo, hi).
func (t *Tensor) leafRange() (int64, int64) {
	last := &t.levels[len(t.levels)-1]
	return last.off, last.off + last.n
}

// splitLeaves cuts the leaves into k nearly equal ranges: range c is
// [r[c], r[c+1]).
func splitLeaves(lo, hi int64, k int) []int64 {
	r := make([]int64, k+1)
	n := hi - lo
	for c := range k + 1 {
		r[c] = lo + n*int64(c)/int64(k)
	}
	return r
}
