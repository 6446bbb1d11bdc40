package config

import (
	"reflect"
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
