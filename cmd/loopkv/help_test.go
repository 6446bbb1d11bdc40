package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestHelpListsEverySettingWithItsMeaning runs --help and looks for each
// row of the settings table (and each alias) with its one-line meaning.
func TestHelpListsEverySettingWithItsMeaning(t *testing.T) {
	var out bytes.Buffer
	defer func(w io.Writer) { helpOutput = w }(helpOutput)
	helpOutput = &out
	if _, _, err := loadSettings([]string{"--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	text := out.String()
	for _, st := range table() {
		if st.Help == "" {
			t.Errorf("%s has no help", st.Name)
			continue
		}
		i := strings.Index(text, "\n  -"+st.Name+" ")
		if i < 0 {
			t.Errorf("--help does not list %s", st.Name)
			continue
		}
		if entry := text[i:]; !strings.Contains(entry[:min(len(entry), len(st.Name)+len(st.Help)+40)], st.Help) {
			t.Errorf("--help lists %s without its meaning %q", st.Name, st.Help)
		}
		for _, a := range st.Aliases {
			if !strings.Contains(text, "\n  -"+a+" ") || !strings.Contains(text, "old name of "+st.Name) {
				t.Errorf("--help does not list %s as the old name of %s", a, st.Name)
			}
		}
	}
}

// TestRedisConfDirectivesLoad: lines a stock redis.conf carries load, an
// alias sets its setting, and a daemonize that is not yes or no is
// refused, naming it.
func TestRedisConfDirectivesLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redis.conf")
	conf := "daemonize no\nsupervised no\npidfile /var/run/redis.pid\ntcp-backlog 511\nhash-max-ziplist-entries 64\n" +
		"save 900 1\nsave 300 10\nclient-output-buffer-limit pubsub 32mb 8mb 60\nuser alice on >pw ~k* +get\nuser bob off\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := loadSettings([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	opts, _, err := buildOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Limits == nil || opts.Limits.HashMaxListpackEntries != 64 || opts.Persist.Save != "900 1 300 10" ||
		!reflect.DeepEqual(opts.ACLUsers, []string{"alice on >pw ~k* +get", "bob off"}) {
		t.Errorf("from %q: limits %+v, save %q, users %q", conf, opts.Limits, opts.Persist.Save, opts.ACLUsers)
	}
	cfg, _, err = loadSettings([]string{"--daemonize", "maybe"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := buildOptions(cfg); err == nil || !strings.HasPrefix(err.Error(), "daemonize:") {
		t.Errorf("daemonize maybe: %v, want an error naming daemonize", err)
	}
}
