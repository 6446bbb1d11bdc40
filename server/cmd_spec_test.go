package server

import (
	"strings"
	"testing"
)

func okRow(name string) command { return command{Name: name, Arity: 1, Fn: cmdPing} }

// A malformed family is refused when the table is built, before any
// command runs.
func TestCommandTableRejectsBadRows(t *testing.T) {
	for _, tt := range []struct {
		name string
		fam  []command
	}{
		{"duplicate", []command{okRow("a"), okRow("a")}},
		{"upper case", []command{okRow("Get")}},
		{"empty name", []command{okRow("")}},
		{"not a letter", []command{okRow("1x")}},
		{"too long", []command{okRow(strings.Repeat("x", 40))}},
		{"no handler", []command{{Name: "a", Arity: 1}}},
		{"container runnable alone without handler", []command{{Name: "a", Arity: -1, Subs: []command{okRow("b")}}}},
		{"nested subcommands", []command{{Name: "a", Arity: -2, Subs: []command{{Name: "b", Arity: -3, Subs: []command{okRow("c")}}}}}},
		{"duplicate subcommand", []command{{Name: "a", Arity: -2, Subs: []command{okRow("b"), okRow("b")}}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: built without a panic", tt.name)
				}
			}()
			newCmdTable([][]command{tt.fam})
		}()
	}
	tab := newCmdTable([][]command{{okRow("b"), {Name: "a", Arity: -2, Subs: []command{okRow("y"), okRow("x")}}}})
	var names []string
	for i, cmd := range tab.rows {
		if cmd.id != i {
			t.Errorf("%s: id %d at %d", cmd.full, cmd.id, i)
		}
		names = append(names, cmd.full)
	}
	if got := strings.Join(names, " "); got != "a a|x a|y b" {
		t.Errorf("rows %q, want a container before its subcommands, by name", got)
	}
}

// Every row documents itself, and every key argument of its docs names
// one of its key specs.
func TestCommandRowsAreWellFormed(t *testing.T) {
	for _, cmd := range commands().rows {
		if cmd.Arity == 0 || cmd.Doc.Summary == "" || cmd.Doc.Since == "" || cmd.Doc.Group == "" {
			t.Errorf("%s: arity %d, docs %+v", cmd.full, cmd.Arity, cmd.Doc)
		}
		var walk func(args []cmdArg)
		walk = func(args []cmdArg) {
			for _, a := range args {
				if a.Type == argKey && (a.KeySpec < 0 || a.KeySpec >= len(cmd.Keys)) {
					t.Errorf("%s: argument %s names key spec %d of %d", cmd.full, a.Name, a.KeySpec, len(cmd.Keys))
				}
				if (a.Type == argOneOf || a.Type == argBlock) != (len(a.Args) > 0) {
					t.Errorf("%s: argument %s of type %s has %d arguments", cmd.full, a.Name, argTypeNames[a.Type], len(a.Args))
				}
				walk(a.Args)
			}
		}
		walk(cmd.Doc.Args)
		for _, s := range cmd.Keys {
			if s.Flags&keyVariableFlags != 0 && cmd.KeyFlags == nil {
				t.Errorf("%s: a key spec with variable flags and no KeyFlags", cmd.full)
			}
		}
	}
}

// specShapes are rows with every key spec shape, for the fuzz target.
var specShapes = []command{
	{Name: "range", Keys: []keySpec{{Flags: keyRW, BS: bsIndex(1), FK: fkRange(-1, 2, 0)}}},
	{Name: "limit", Keys: []keySpec{{Flags: keyRO, BS: bsKeyword("STREAMS", 1), FK: fkRange(-1, 1, 2)}}},
	{Name: "back", Keys: []keySpec{{Flags: keyOW, BS: bsKeyword("STORE", -2), FK: fkRange(0, 1, 0)}}},
	{Name: "keynum", Keys: []keySpec{{Flags: keyRM, BS: bsIndex(2), FK: fkKeyNum(0, 1, 2)}}},
	{Name: "unknown", Keys: []keySpec{{Flags: keyRO | keyIncomplete}, {Flags: keyRO | keyNotKey, BS: bsIndex(1), FK: fkRange(0, 1, 0)}}},
}

// FuzzCommandKeys runs the key extractor of every row and of every spec
// shape on arbitrary calls: it never panics, never names a position
// outside the call or the command name, and gives each key its spec's
// flags.
func FuzzCommandKeys(f *testing.F) {
	for _, seed := range []string{
		"a b c d",                       // a plain range
		"x 2 a b STREAMS s1 s2 0 0",     // keynum, then a keyword with a limit
		"x 9223372036854775807 a",       // a huge key count
		"x -1 a",                        // a negative key count
		"x STORE",                       // a keyword with nothing after it
		"x k v GET",                     // SET's variable flags
		"x 0",                           // no keys
		"x STREAMS",                     // a keyword as the last argument
		"x a b c d e f g h i j k l m n", // more keys than the caller's buffer
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		fields := strings.Fields(s)
		if len(fields) == 0 {
			return
		}
		args := make([][]byte, len(fields))
		for i := range fields {
			args[i] = []byte(fields[i])
		}
		var buf [4]keyRef
		rows := commands().rows
		for i := range specShapes {
			rows = append(rows, &specShapes[i])
		}
		for _, cmd := range rows {
			for _, opts := range []keySearch{0, keysPartial, keysNotKeys | keysPartial} {
				keys, ok := commandKeys(cmd, args, buf[:0], opts)
				if !ok && opts&keysPartial != 0 {
					t.Fatalf("%s %q: failed with keysPartial", cmd.full, s)
				}
				for _, k := range keys {
					if k.Pos < 1 || k.Pos >= len(args) || k.Flags == 0 {
						t.Fatalf("%s %q: key %+v of %d arguments", cmd.full, s, k, len(args))
					}
				}
			}
		}
	})
}

// Dispatch finds commands and subcommands, any case, without allocating.
func TestResolveCommandAllocatesNothing(t *testing.T) {
	for _, tt := range []struct{ line, full string }{
		{"GET k", "get"}, {"get k", "get"}, {"CONFIG GET maxmemory", "config|get"}, {"client ID", "client|id"},
		{"Command Count", "command|count"}, {"COMMAND", "command"}, {"OBJECT ENCODING k", "object|encoding"},
	} {
		var args [][]byte
		for _, f := range strings.Fields(tt.line) {
			args = append(args, []byte(f))
		}
		if cmd, msg := resolveCommand(args); cmd == nil || cmd.full != tt.full {
			t.Fatalf("%s: %v %q, want %s", tt.line, cmd, msg, tt.full)
		}
		if n := testing.AllocsPerRun(100, func() { resolveCommand(args) }); n != 0 {
			t.Errorf("%s: %v allocs, want 0", tt.line, n)
		}
	}
}
