package server

// The hot HyperLogLog commands join the zero-allocation tables of
// cmd_string_alloc_test.go: PFADD of elements already counted, on a sparse
// and a dense value, and PFCOUNT of one key whose cardinality is cached
// (after the first run) or of a missing key.
func init() {
	dense := hllAdd("d", "e", 0, 3000) // past hll-sparse-max-bytes: dense
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"PFADD/sparse/existing", []string{"PFADD h a b c"}, []string{"PFADD", "h", "a", "b"}},
		{"PFADD/dense/existing", []string{dense}, []string{"PFADD", "d", "e1", "e2999"}},
		{"PFCOUNT/sparse/cached", []string{"PFADD h a b c", "PFCOUNT h"}, []string{"PFCOUNT", "h"}},
		{"PFCOUNT/dense/cached", []string{dense, "PFCOUNT d"}, []string{"PFCOUNT", "d"}},
		{"PFCOUNT/missing", nil, []string{"PFCOUNT", "nokey"}},
	}...)
}
