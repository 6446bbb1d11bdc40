package server

import (
	"strconv"
	"testing"
)

// TestCommandRowsMatchRedisCommandInfo checks every row of the string and
// key tables against COMMAND INFO of the reference redis-server: arity, key
// positions, and the write, readonly and fast flags.
func TestCommandRowsMatchRedisCommandInfo(t *testing.T) {
	ref := startDiffRedis(t)
	for _, table := range [][]command{stringCommands, keyCommands} {
		for _, cmd := range table {
			nd, _ := diffParseNode(ref.do(t, []string{"COMMAND", "INFO", cmd.Name}))
			if len(nd.kids) != 1 || len(nd.kids[0].kids) < 6 {
				t.Errorf("%s: COMMAND INFO reply %+v", cmd.Name, nd)
				continue
			}
			info := nd.kids[0].kids
			num := func(i int) int {
				n, _ := strconv.Atoi(info[i].head[1:])
				return n
			}
			if num(1) != cmd.Arity || num(3) != cmd.First || num(4) != cmd.Last || num(5) != cmd.Step {
				t.Errorf("%s: arity/first/last/step = %d/%d/%d/%d, redis %d/%d/%d/%d", cmd.Name,
					cmd.Arity, cmd.First, cmd.Last, cmd.Step, num(1), num(3), num(4), num(5))
			}
			flags := map[string]bool{}
			for _, f := range info[2].kids {
				flags[f.head[1:]] = true
			}
			for _, f := range []struct {
				name string
				bit  cmdFlags
			}{{"write", flagWrite}, {"readonly", flagReadOnly}, {"fast", flagFast}} {
				if flags[f.name] != (cmd.Flags&f.bit != 0) {
					t.Errorf("%s: flag %s = %v, redis %v", cmd.Name, f.name, cmd.Flags&f.bit != 0, flags[f.name])
				}
			}
		}
	}
}
