package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var splitArgsTests = []struct {
	line string
	want []string
}{
	{"port 6379", []string{"port", "6379"}},
	{"  requirepass   \"a b\\\"c\"  ", []string{"requirepass", "a b\"c"}},
	{"save \"\"", []string{"save", ""}},
	{"requirepass 'it\\'s'", []string{"requirepass", "it's"}},
	{"x \"\\x41\\n\"", []string{"x", "A\n"}},
	{"client-output-buffer-limit normal 0 0 0", []string{"client-output-buffer-limit", "normal", "0", "0", "0"}},
}

func TestSplitArgsFollowsRedisQuoting(t *testing.T) {
	for i, tt := range splitArgsTests {
		got, err := SplitArgs(tt.line)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("#%d %q: got %q, %v, want %q", i, tt.line, got, err, tt.want)
		}
	}
	for _, bad := range []string{"a \"b", "a 'b", "a \"b\"c"} {
		if _, err := SplitArgs(bad); err == nil {
			t.Errorf("%q: no error for unbalanced quotes", bad)
		}
	}
}

// loadFile is Load of the file at path, with find knowing port, save
// (Append) and timeout.
func loadFile(t *testing.T, path string) (map[string]string, error) {
	t.Helper()
	rows := map[string]*Setting{"port": {Name: "port"}, "timeout": {Name: "timeout"}, "save": {Name: "save", Flags: Append}}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dirs, err := ParseFile(f)
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{}
	return values, Load(path, dirs, func(name string) *Setting { return rows[name] }, values)
}

func TestIncludeReadsFilesInPlaceAsRedis(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("b.conf", "port 2\nsave 300 10\n")
	write("d1.conf", "timeout 5\n")
	write("d2.conf", "timeout 6\n")
	main := write("main.conf", "port 1\nsave 900 1\ninclude "+filepath.Join(dir, "b.conf")+"\ntimeout 4\ninclude "+filepath.Join(dir, "d?.conf")+"\n")
	got, err := loadFile(t, main)
	want := map[string]string{"port": "2", "save": "900 1 300 10", "timeout": "6"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v, want %q", got, err, want)
	}
	loop := write("loop.conf", "include "+filepath.Join(dir, "loop.conf")+"\n")
	if _, err := loadFile(t, loop); err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("a file including itself: %v", err)
	}
	missing := write("missing.conf", "include "+filepath.Join(dir, "nosuch.conf")+"\n")
	if _, err := loadFile(t, missing); err == nil || !strings.Contains(err.Error(), "missing.conf:1: include") {
		t.Errorf("a missing include: %v", err)
	}
}

func TestUnsupportedDirectivesAreRefusedNamingTheLine(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ line, want string }{
		{"rename-command FLUSHALL \"\"", ":2: rename-command is not supported by loopkv"},
		{"loadmodule /usr/lib/redis/modules/x.so", ":2: loadmodule is not supported"},
		{"nosuch 1", ":2: bad directive or wrong number of arguments: nosuch"},
		{"include", ":2: bad directive or wrong number of arguments: include"},
	} {
		p := filepath.Join(dir, "r.conf")
		if err := os.WriteFile(p, []byte("port 1\n"+tt.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := loadFile(t, p); err == nil || !strings.Contains(err.Error(), p+tt.want) {
			t.Errorf("%q: %v, want %q", tt.line, err, tt.want)
		}
	}
}
