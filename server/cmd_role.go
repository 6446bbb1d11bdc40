package server

import "bytes"

// ROLE and LOLWUT (Redis replication.c, lolwut.c).

// cmdRole is ROLE: loopkv is always a master without replicas, so its
// reply is Redis's for one: [master, offset 0, no replicas].
func cmdRole(c *cmdCtx) {
	c.arrayLen(3)
	c.bulkString("master")
	c.integer(0)
	c.arrayLen(0)
}

// lolwutVersionLine ends every LOLWUT reply, in Redis's words.
const lolwutVersionLine = "Redis ver. " + redisVersion + "\n"

// cmdLolwut is LOLWUT [VERSION version [args]]. As in Redis, only
// versions 5 and 6 draw (loopkv's own pictures, not Redis's), sized by
// their integer arguments; every other version, and no VERSION, prints
// the version line alone.
func cmdLolwut(c *cmdCtx) {
	ver := int64(7) // the server's major version: the plain line
	if len(c.args) >= 3 && bytes.EqualFold(c.args[1], []byte("version")) {
		v, ok := parseInt(c.args[2])
		if !ok {
			c.errReply(errNotInteger)
			return
		}
		ver = v
	}
	var art []byte
	switch ver {
	case 5:
		dims, ok := lolwutDims(c, []lolwutDim{{66, 1000}, {8, 200}, {12, 200}})
		if !ok {
			return
		}
		art = lolwutMaze(dims[0], dims[1], dims[2])
	case 6:
		dims, ok := lolwutDims(c, []lolwutDim{{80, 1000}, {20, 1000}})
		if !ok {
			return
		}
		art = lolwutWaves(dims[0], dims[1])
	}
	c.verbatim(append(art, lolwutVersionLine...))
}

// lolwutDim is a drawing's integer argument: its default and its upper
// bound (the lower is 1), Redis's for the version.
type lolwutDim struct{ def, max int64 }

// lolwutDims parses the drawing arguments after VERSION n, clamped to
// their bounds, replying Redis's error for one that is not an integer.
func lolwutDims(c *cmdCtx, dims []lolwutDim) ([]int, bool) {
	out := make([]int, len(dims))
	for i, d := range dims {
		v := d.def
		if j := 3 + i; j < len(c.args) {
			n, ok := parseInt(c.args[j])
			if !ok {
				c.errReply(errNotInteger)
				return nil, false
			}
			v = min(max(n, 1), d.max)
		}
		out[i] = int(v)
	}
	return out, true
}

// lolwutMaze draws a "10 PRINT" maze of cols characters by rows lines,
// its diagonals chosen by a generator seeded with seed: the same
// arguments draw the same maze.
func lolwutMaze(cols, seed, rows int) []byte {
	x := uint32(seed)*2654435761 + 1
	var b []byte
	for r := 0; r < rows; r++ {
		for i := 0; i < cols; i++ {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			if x&1 == 0 {
				b = append(b, '/')
			} else {
				b = append(b, '\\')
			}
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// lolwutWaves draws interfering ripples in ASCII shades, cols by rows.
func lolwutWaves(cols, rows int) []byte {
	const shades = " .:-=+*#%@"
	var b []byte
	for r := 0; r < rows; r++ {
		for i := 0; i < cols; i++ {
			v := (i*i + 3*r*r + i*r) / 7 % (2 * len(shades))
			if v >= len(shades) {
				v = 2*len(shades) - 1 - v
			}
			b = append(b, shades[v])
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

var roleCommands = []command{
	{Name: "role", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagFast, ACL: catAdmin | catDangerous,
		Doc: cmdDoc{Summary: "Return the role of the instance in the context of replication", Since: "2.8.12", Group: "server",
			Complexity: "O(1)"},
		ClockFree: true, Fn: cmdRole},
	{Name: "lolwut", Arity: -1, Flags: flagReadOnly | flagFast,
		Doc: cmdDoc{Summary: "Display some computer art and the Redis version", Since: "5.0.0", Group: "server",
			Args: []cmdArg{
				{Name: "version", Type: argInteger, Token: "VERSION", Flags: argOptional},
			}},
		ClockFree: true, Fn: cmdLolwut},
}

func init() { register(roleCommands...) }
