package config

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzSplitArgs checks SplitArgs never panics and that arguments it
// returns, quoted back, split to themselves.
func FuzzSplitArgs(f *testing.F) {
	for _, seed := range []string{
		"port 6379",                // plain
		"requirepass \"a b\\\"c\"", // double quotes with escapes
		"x 'it\\'s'",               // single quotes
		"x \"\\x41\\n\"",           // hex escape
		"a \"b",                    // unbalanced
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args, err := SplitArgs(line)
		if err != nil {
			return
		}
		var b strings.Builder
		for _, a := range args {
			b.WriteString(" \"")
			for i := 0; i < len(a); i++ {
				switch c := a[i]; c {
				case '"', '\\':
					b.WriteByte('\\')
					b.WriteByte(c)
				case '\n':
					b.WriteString("\\n")
				case '\r':
					b.WriteString("\\r")
				default:
					b.WriteByte(c)
				}
			}
			b.WriteString("\"")
		}
		again, err := SplitArgs(b.String())
		if err != nil || !reflect.DeepEqual(again, args) && !(len(args) == 0 && len(again) == 0) {
			t.Fatalf("%q -> %q -> %q (%v)", line, args, again, err)
		}
	})
}
