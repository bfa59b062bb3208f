// Package layouts builds Arrow columns of the layouts whose slots reach
// their children or buffers through data of their own (unions, run-end
// encoding, string and list views, structs), nested and sliced, for the
// tests of arrowext's readers and writers and for the interop suite's
// pyarrow round trips (interop/layoutcases). The values depend only on the
// arguments, so a reader can rebuild what a writer wrote.
package layouts

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// NestedTypes returns types that hold dense unions and list views at every
// depth arrow-go's IPC writer slices: struct fields, list values,
// fixed-size lists, sparse union members and map values, and the two
// alone.
func NestedTypes() []arrow.DataType {
	du := arrow.DenseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, []arrow.UnionTypeCode{2, 5})
	lv := arrow.ListViewOf(arrow.PrimitiveTypes.Int32)
	leaf := arrow.StructOf(arrow.Field{Name: "u", Type: du, Nullable: true}, arrow.Field{Name: "v", Type: lv, Nullable: true})
	return []arrow.DataType{
		leaf,
		arrow.ListOf(leaf),
		arrow.LargeListOf(du),
		arrow.FixedSizeListOf(2, lv),
		arrow.SparseUnionOf([]arrow.Field{{Name: "d", Type: du}, {Name: "l", Type: lv}}, []arrow.UnionTypeCode{0, 1}),
		arrow.MapOf(arrow.PrimitiveTypes.Int32, leaf),
		du,
		lv,
	}
}

// Cuts are the slices [lo, hi) of Sliced's 7 values that the tests take.
var Cuts = [][2]int64{{1, 4}, {3, 7}, {2, 2}}

// Sliced returns values [lo, hi) of a column of 7 values of typ (see Fill).
func Sliced(mem memory.Allocator, typ arrow.DataType, lo, hi int64) arrow.Array {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	Fill(b, 7)
	a := b.NewArray()
	defer a.Release()
	return array.NewSlice(a, lo, hi)
}

// OneColumn returns a table of the one column a, named c.
func OneColumn(a arrow.Array) arrow.Table {
	return array.NewTableFromSlice(arrow.NewSchema([]arrow.Field{{Name: "c", Type: a.DataType(), Nullable: true}}, nil), [][]arrow.Array{{a}})
}

// Table returns a table of one column of each layout (sparse and dense
// unions, run-end encoded, string view, list views of both widths,
// struct), built by arrow-go's builders and sliced from slot 1, and its
// columns, which the caller releases after the table.
func Table(mem memory.Allocator) (arrow.Table, []arrow.Array) {
	var cols []arrow.Array
	add := func(b array.Builder) {
		a := b.NewArray()
		b.Release()
		cols = append(cols, array.NewSlice(a, 1, int64(a.Len())))
		a.Release()
	}
	codes := []arrow.UnionTypeCode{3, 7}
	fields := []arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
	for _, mode := range []arrow.UnionMode{arrow.SparseMode, arrow.DenseMode} {
		b := array.NewBuilder(mem, arrow.UnionOf(mode, fields, codes))
		Fill(b, 6)
		add(b)
	}
	rb := array.NewRunEndEncodedBuilder(mem, arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String)
	for _, s := range []string{"a", "a", "b", "b", "b", "c"} {
		rb.Append(1)
		rb.ValueBuilder().(*array.StringBuilder).Append(s)
	}
	add(rb)
	sv := array.NewStringViewBuilder(mem)
	sv.AppendValues([]string{"short", "a string longer than twelve bytes", "", "another string longer than twelve", "x"}, []bool{true, true, false, true, true})
	add(sv)
	for _, typ := range []arrow.DataType{arrow.ListViewOf(arrow.PrimitiveTypes.Int64), arrow.LargeListViewOf(arrow.PrimitiveTypes.Int32), arrow.StructOf(fields...)} {
		b := array.NewBuilder(mem, typ)
		Fill(b, 6)
		add(b)
	}

	fs := make([]arrow.Field, len(cols))
	n := cols[0].Len()
	for i, c := range cols {
		fs[i] = arrow.Field{Name: c.DataType().Name(), Type: c.DataType(), Nullable: true}
		n = min(n, c.Len())
	}
	chunks := make([][]arrow.Array, len(cols))
	for i, c := range cols {
		cols[i] = array.NewSlice(c, 0, int64(n))
		c.Release()
		chunks[i] = []arrow.Array{cols[i]}
	}
	return array.NewTableFromSlice(arrow.NewSchema(fs, nil), chunks), cols
}

// Fill appends n values to b, of any type NestedTypes and Table use: the
// i-th slot of each level null when i%4 == 3, unions alternating members.
func Fill(b array.Builder, n int) {
	for i := range n {
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(int64(i))
		case *array.Int32Builder:
			b.Append(int32(i))
		case *array.StringBuilder:
			b.Append(strings.Repeat("s", i+10))
		case *array.StructBuilder:
			b.Append(i%4 != 3)
			for f := range b.NumField() {
				Fill(b.FieldBuilder(f), 1)
			}
		case *array.ListViewBuilder, *array.LargeListViewBuilder:
			lb := b.(listViewBuilder)
			if i%4 == 3 {
				lb.AppendNull()
				continue
			}
			lb.AppendWithSize(true, i%3)
			Fill(lb.ValueBuilder(), i%3)
		case *array.MapBuilder:
			b.Append(true)
			Fill(b.KeyBuilder(), 2)
			Fill(b.ItemBuilder(), 2)
		case array.ListLikeBuilder:
			b.Append(i%4 != 3)
			if i%4 != 3 {
				k := 2
				if _, ok := b.(*array.FixedSizeListBuilder); !ok {
					k = i % 3
				}
				Fill(b.ValueBuilder(), k)
			} else if _, ok := b.(*array.FixedSizeListBuilder); ok {
				Fill(b.ValueBuilder(), 2)
			}
		case *array.DenseUnionBuilder:
			c := i % 2
			b.Append(b.Type().(arrow.UnionType).TypeCodes()[c])
			Fill(b.Child(c), 1)
		case *array.SparseUnionBuilder:
			c := i % 2
			b.Append(b.Type().(arrow.UnionType).TypeCodes()[c])
			for k := range b.NumChildren() {
				if k == c {
					Fill(b.Child(k), 1)
				} else {
					b.Child(k).AppendEmptyValue()
				}
			}
		default:
			panic(fmt.Sprintf("layouts.Fill: %T", b))
		}
	}
}

// listViewBuilder is what the list view builders of both offset widths
// have in common.
type listViewBuilder interface {
	array.ListLikeBuilder
	AppendWithSize(valid bool, size int)
}
