package main

import (
	"os"
	"path/filepath"
	"testing"
)

// notify-keyspace-events comes from redis.conf or its flag, and an unknown
// letter is refused at start with Redis's reason.
func TestNotifyKeyspaceEventsSetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopkv.conf")
	if err := os.WriteFile(path, []byte("notify-keyspace-events Ex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{path}, "Ex"},
		{[]string{path, "--notify-keyspace-events", "KEA"}, "KEA"},
		{nil, ""},
	} {
		cfg, _, err := loadSettings(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		opts, _, err := buildOptions(cfg)
		if err != nil || opts.NotifyKeyspaceEvents != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.args, opts.NotifyKeyspaceEvents, err, tc.want)
		}
	}
	cfg, _, err := loadSettings([]string{"--notify-keyspace-events", "KEq"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := buildOptions(cfg); err == nil {
		t.Error("notify-keyspace-events KEq accepted")
	}
}
