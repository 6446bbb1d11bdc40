package config

import (
	"errors"
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

// FuzzRewrite checks Rewrite never panics and that each forced entry's
// line is in its output, which parses as a redis.conf file.
func FuzzRewrite(f *testing.F) {
	for _, seed := range []string{
		"port 7000\n",                         // one setting
		"# c\n\n\nsave 1 2\nsave 3 4\n",       // comments, blanks, a repeated setting
		"nosuch \"x\nport 'a\n",               // unknown and unbalanced lines
		Signature + "\nport 1\n\r\n\t#x \t\n", // signature already there
	} {
		f.Add([]byte(seed), "port 6379")
	}
	canon := func(name string) (string, bool) { return name, name == "port" || name == "save" }
	f.Fuzz(func(t *testing.T, old []byte, line string) {
		if strings.ContainsAny(line, "\r\n") || strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			return
		}
		out := Rewrite(old, []Entry{{Name: "port", Lines: Lines(true, line)}}, canon)
		if !strings.Contains("\n"+string(out), "\n"+line+"\n") {
			t.Fatalf("%q: line %q missing from\n%s", old, line, out)
		}
		if _, err := ParseFile(strings.NewReader(strings.ReplaceAll(string(out), line+"\n", ""))); err != nil &&
			!errors.Is(err, ErrUnbalancedQuotes) {
			t.Fatalf("%q: output does not parse: %v", old, err)
		}
	})
}
