package config

import (
	"strings"
	"testing"
)

var parseTests = []struct {
	typ     Type
	in      string
	want    string // canonical value, or the reason when bad
	wantBad bool
}{
	{Int{Max: 100}, "5", "5", false},
	{Int{Max: 100}, "01", "argument couldn't be parsed into an integer", true},
	{Int{Max: 100}, "+5", "argument couldn't be parsed into an integer", true},
	{Int{Max: 100}, " 5", "argument couldn't be parsed into an integer", true},
	{Int{Max: 100}, "101", "argument must be between 0 and 100 inclusive", true},
	{Int{Min: 1, Max: 1<<32 - 1, Unsigned: true}, "-1", "argument must be between 1 and 4294967295 inclusive", true},
	{Int{Min: -1, Max: 1<<63 - 1}, "-1", "-1", false},
	{Int{Max: 1<<63 - 1}, "9223372036854775808", "argument couldn't be parsed into an integer", true},
	{Memory{Max: 1<<63 - 1}, "1kb", "1024", false},
	{Memory{Max: 1<<63 - 1}, "1K", "1000", false},
	{Memory{Max: 1<<63 - 1}, "2GB", "2147483648", false},
	{Memory{Max: 1<<63 - 1}, "", "0", false},
	{Memory{Max: 1<<63 - 1}, "-1", "argument must be a memory value", true},
	{Memory{Max: 1<<63 - 1}, "1tb", "argument must be a memory value", true},
	{Memory{Min: 1 << 20, Max: 1<<63 - 1}, "1kb", "argument must be between 1048576 and 9223372036854775807 inclusive", true},
	{Bool{}, "YES", "yes", false},
	{Bool{}, "1", "argument must be 'yes' or 'no'", true},
	{Enum{"debug", "notice"}, "NOTICE", "notice", false},
	{Enum{"debug", "notice"}, "x", "argument(s) must be one of the following: debug, notice", true},
}

func TestTypesParseAsRedisDoes(t *testing.T) {
	for i, tt := range parseTests {
		v, msg := tt.typ.Parse(tt.in)
		got := v.S
		if tt.wantBad {
			got = msg
		}
		if got != tt.want || (msg != "") != tt.wantBad {
			t.Errorf("#%d: %T.Parse(%q) = %q, %q; want %q", i, tt.typ, tt.in, v.S, msg, tt.want)
		}
	}
}

func TestFormatMemoryUsesTheLargestUnit(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1: "1", 1024: "1kb", 1536: "1536", 1 << 20: "1mb", 3 << 30: "3gb", 1000: "1000"} {
		if got := FormatMemory(n); got != want {
			t.Errorf("FormatMemory(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{"", "a b", "a\"b\\c", "\x00\x01\xff\n\r\t", "/tmp/dir"} {
		args, err := SplitArgs("x " + Quote(s))
		if err != nil || len(args) != 2 || args[1] != s {
			t.Errorf("Quote(%q) = %s reads back as %q, %v", s, Quote(s), args, err)
		}
	}
}

func canonTest(name string) (string, bool) {
	switch name {
	case "hash-max-ziplist-entries":
		return "hash-max-listpack-entries", true
	case "port", "save", "timeout", "hash-max-listpack-entries", "maxmemory":
		return name, true
	}
	return "", false
}

func TestRewriteKeepsCommentsAndOrder(t *testing.T) {
	old := "# top\n  port 7000\n\n\n# mid\nsave 900 1\nsave 300 10\ntimeout 5\nhash-max-ziplist-entries 100\nnosuch x\n"
	got := string(Rewrite([]byte(old), []Entry{
		{Name: "port", Lines: Lines(true, "port 7000")},
		{Name: "save", Lines: Lines(true, "save 60 1")},
		{Name: "timeout", Lines: Lines(false, "timeout 0")},
		{Name: "hash-max-listpack-entries", Lines: Lines(true, "hash-max-listpack-entries 100")},
		{Name: "maxmemory", Lines: Lines(true, "maxmemory 1gb")},
		{Name: "unset", Lines: Lines(false, "unset 1")},
	}, canonTest))
	want := "# top\nport 7000\n\n# mid\nsave 60 1\n\ntimeout 0\nhash-max-listpack-entries 100\n# ??? nosuch x\n\n" +
		Signature + "\nmaxmemory 1gb\n"
	if got != want {
		t.Errorf("Rewrite:\n%s\nwant:\n%s", got, want)
	}
	again := string(Rewrite([]byte(got), []Entry{{Name: "maxmemory", Lines: Lines(true, "maxmemory 2gb")},
		{Name: "timeout", Lines: Lines(true, "timeout 1")}}, canonTest))
	if !strings.Contains(again, "\nmaxmemory 2gb\n") || strings.Count(again, Signature) != 1 || !strings.Contains(again, "\ntimeout 1\n") {
		t.Errorf("second Rewrite:\n%s", again)
	}
}
