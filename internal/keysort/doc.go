// Package keysort sorts sparse entries by linear keys of any width and
// hands the sorted entries, bucket by bucket, to a reducer that merges
// duplicates and writes the output. It is the engine behind COO
// canonicalisation (every duplicate policy), the COO→CSR/CSC, COO→GCS,
// GCS remap, CSR→CSC and COO→CSF conversions and CSF axis-order changes.
//
// # Engines
//
// Carry is an MSD radix sort that moves each entry's value with its key: a
// stable parallel scatter of the entries into buckets by the top varying
// key bits, then, per bucket and in cache, an LSD radix sort of words
// lowkey<<ib | j, where j is the entry's position in its bucket (ib ≈ 15
// bits, not the log2(nnz) bits of a global entry number), and a Reduce call
// that reads the bucket's values in cache and writes its output compactly.
// The digits of the LSD passes (up to three) are counted while the words
// are built from the staged keys, so each pass reads the bucket once, to
// place it. When the bits below the bucket's are many more than the
// bucket has entries to tell apart (keys of 49 bits in buckets of 2^14
// entries, say), the passes cover only the top bits, some log2(bucket
// size)+7 of them, below which few keys agree, and an insertion sort puts
// the rare neighbours that agree there in order. If that takes more than
// one move per entry the keys are clustered: the bucket is sorted again
// by all its bits, and so are the worker's next 16 buckets.
// Buckets are split among workers by size; the workers' output ranges are
// moved together at the end when Reduce merged entries. Results never
// depend on the number of workers. Into 64 buckets or more, on amd64, when
// the staging takes 28 MiB or more, the scatter of one-word keys goes
// through line buffers as Transpose's does (below).
//
// Keys are one or more 64-bit words compared lexicographically (a shape
// whose linear indices exceed 64 bits gets one word per part of its axes,
// see internal/coords). The sort works on the effective key, the
// concatenation of the bits in which keys differ, so constant high bits and
// unused bits of each word cost nothing. When the effective key bits below
// a bucket's do not fit beside j in one word, the words hold their top
// 64-ib bits and runs of equal words (rare, except for duplicates and
// near-duplicates) are ordered by comparing the rest; that is the only
// comparison sort left, besides insertion sort for buckets of at most 48
// entries and a pdqsort for buckets too small for a radix pass's
// histogram.
//
// Transpose is a second engine for keys whose low part is already in order
// within each high part, as the (column, row) keys of a CSR walked in
// storage order are: a stable sort by the high part alone is then a
// counting sort. It scatters entries into buckets of consecutive high
// parts, then counts and places each bucket in cache and writes compressed
// output (pointers, low parts, values) directly, with neither an LSD sort
// nor a reducer. Into 64 buckets or more, on amd64, when the staging takes
// 28 MiB or more, its scatter goes through a line buffer per bucket for
// the keys and one for the values, and writes whole cache lines with
// non-temporal stores (stream.go), which do not read the lines first.
//
// # Memory
//
// Carry stages, in bucket order, the key bits below the bucket's (4 bytes
// per entry when they fit in 32 bits, else 8 per 64 bits) and the values.
// Callers lend output buffers for both: the values always fit, and a lent
// key array is used when its stride is at most twice the staged width (a
// wider stride costs more in scattered writes than the memory it saves);
// otherwise the staged keys get a dense array of their own, from the
// caller's allocator (Carry.Mem; the Go heap without one), released before
// Run returns. (Through line buffers, 4-byte keys in a lent array of
// stride 8 are staged as 8 bytes, contiguous, in that array.) Each worker
// also holds the buffers of its largest bucket: 16 bytes plus a value per
// entry, and for keys that take the comparison of rests or have several
// words, 8 bytes more per staged word and per key word; and, with line
// buffers, 128 bytes per bucket. Buckets hold some
// 2^12 to 2^15 entries (at most 2^12 of them, see bucketBits and
// splitBits), so this is a few MiB per worker. Nothing is allocated in
// proportion to a dimension's extent.
//
// Transpose stages in its outputs (the keys in an array of their own,
// from Transpose.Mem, when the index output is narrower than they are) and
// needs, per worker, the keys and values of its largest bucket, 8 bytes
// per major of a bucket and, with line buffers, 128 bytes per bucket.
package keysort
