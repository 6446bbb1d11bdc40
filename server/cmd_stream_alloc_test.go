package server

func init() {
	// XADD with MAXLEN keeps the stream at its size: its nodes and index
	// are arena chunks, freed and reused, so the steady state allocates
	// nothing; XLEN and a short XRANGE read in place.
	zeroAllocCommands = append(zeroAllocCommands, []struct {
		name  string
		setup []string
		cmd   []string
	}{
		{"XADD/maxlen", []string{"XADD s 1-1 f v"}, []string{"XADD", "s", "MAXLEN", "500", "*", "f", "v"}},
		{"XADD/maxlen~", []string{"XADD s 1-1 f v"}, []string{"XADD", "s", "MAXLEN", "~", "500", "*", "field", "value"}},
		{"XLEN", []string{"XADD s 1-1 f v", "XADD s 1-2 f v"}, []string{"XLEN", "s"}},
		{"XRANGE/2", []string{"XADD s 1-1 f v", "XADD s 1-2 f 12"}, []string{"XRANGE", "s", "-", "+"}},
		{"XREAD/1", []string{"XADD s 1-1 f v", "XADD s 1-2 f 12"}, []string{"XREAD", "COUNT", "1", "STREAMS", "s", "1-1"}},
	}...)
}
