package main

import (
	"os"
	"path/filepath"
	"testing"
)

// maxMemoryFlagTests are --maxmemory and friends as Redis reads them: a
// size with b, k, kb, m, mb, g or gb in any case (k = 1000, kb = 1024).
var maxMemoryFlagTests = []struct {
	args    []string
	mem     int64
	policy  string
	samples int
	ok      bool
}{
	{nil, 0, "noeviction", 5, true},
	{[]string{"--maxmemory", "100mb"}, 100 << 20, "noeviction", 5, true},
	{[]string{"--maxmemory", "100MB"}, 100 << 20, "noeviction", 5, true},
	{[]string{"--maxmemory", "1m"}, 1000 * 1000, "noeviction", 5, true},
	{[]string{"--maxmemory", "2K"}, 2000, "noeviction", 5, true},
	{[]string{"--maxmemory", "2kb"}, 2048, "noeviction", 5, true},
	{[]string{"--maxmemory", "3Gb"}, 3 << 30, "noeviction", 5, true},
	{[]string{"--maxmemory", "1g"}, 1000 * 1000 * 1000, "noeviction", 5, true},
	{[]string{"--maxmemory", "512b"}, 512, "noeviction", 5, true},
	{[]string{"--maxmemory", "12345"}, 12345, "noeviction", 5, true},
	{[]string{"--maxmemory", "1mb", "--maxmemory-policy", "ALLKEYS-LRU"}, 1 << 20, "allkeys-lru", 5, true},
	{[]string{"--maxmemory-policy", "volatile-ttl", "--maxmemory-samples", "10"}, 0, "volatile-ttl", 10, true},
	{[]string{"--maxmemory", "ten"}, 0, "", 0, false},
	{[]string{"--maxmemory", "-1"}, 0, "", 0, false},
	{[]string{"--maxmemory", "1tb"}, 0, "", 0, false},
	{[]string{"--maxmemory-policy", "allkeys-lfu"}, 0, "allkeys-lfu", 5, true},
	{[]string{"--maxmemory-policy", "Volatile-LFU", "--lfu-log-factor", "0"}, 0, "volatile-lfu", 5, true},
	{[]string{"--maxmemory-policy", "lru"}, 0, "", 0, false},
	{[]string{"--maxmemory-samples", "0"}, 0, "", 0, false},
}

func TestMaxMemoryFlagsParseRedisUnits(t *testing.T) {
	for i, tt := range maxMemoryFlagTests {
		cfg, _, err := loadSettings(tt.args)
		if err != nil {
			t.Fatalf("#%d: loadSettings(%q): %v", i, tt.args, err)
		}
		opts, _, err := buildOptions(cfg)
		if (err == nil) != tt.ok {
			t.Errorf("#%d: buildOptions(%q) error = %v, want ok %v", i, tt.args, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		if opts.MaxMemory != tt.mem || opts.MaxMemoryPolicy != tt.policy || opts.MaxMemorySamples != tt.samples {
			t.Errorf("#%d: %q gave %d %q %d, want %d %q %d", i, tt.args,
				opts.MaxMemory, opts.MaxMemoryPolicy, opts.MaxMemorySamples, tt.mem, tt.policy, tt.samples)
		}
	}
}

// The config file takes the same directives, and flags override it.
func TestMaxMemoryFromConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loopkv.conf")
	conf := "maxmemory 64mb\nmaxmemory-policy volatile-lru\nmaxmemory-samples 7\n"
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := loadSettings([]string{path, "--maxmemory-policy", "allkeys-random"})
	if err != nil {
		t.Fatal(err)
	}
	opts, _, err := buildOptions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if opts.MaxMemory != 64<<20 || opts.MaxMemoryPolicy != "allkeys-random" || opts.MaxMemorySamples != 7 {
		t.Fatalf("got %d %q %d", opts.MaxMemory, opts.MaxMemoryPolicy, opts.MaxMemorySamples)
	}
}
