package rdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// TestDumpRestoreWithRedis moves every type and encoding both ways: DUMP
// from redis-server then Restore into a store, and DumpPayload from a store
// then RESTORE into redis-server; both sides then hold the same keys.
func TestDumpRestoreWithRedis(t *testing.T) {
	ctx := context.Background()
	r := startRedis(t, t.TempDir(), "dump.rdb")
	fillRedis(t, r)
	s := store.New(store.Options{})
	now := time.Now().UnixMilli()
	for _, k := range r.c.Keys(ctx, "*").Val() {
		p, err := r.c.Dump(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		var at int64
		if ttl := r.c.PTTL(ctx, k).Val(); ttl > 0 {
			at = now + ttl.Milliseconds()
		}
		if err := Restore(s, 0, []byte(k), []byte(p), at, false); err != nil {
			t.Fatalf("Restore %q: %v", k, err)
		}
		if err := Restore(s, 0, []byte(k), []byte(p), at, false); !errors.Is(err, ErrKeyExists) {
			t.Fatalf("second Restore %q without replace: %v", k, err)
		}
		if err := Restore(s, 0, []byte(k), []byte(p), at, true); err != nil {
			t.Fatalf("Restore %q with replace: %v", k, err)
		}
	}
	compareDumps(t, storeDump(t, s, 0), redisDump(t, r.c, 0))

	// And the other way, into an empty redis.
	r2 := startRedis(t, t.TempDir(), "dump.rdb")
	ours := store.New(store.Options{})
	fillStore(t, ours)
	for k, d := range storeDump(t, ours, 0) {
		var p []byte
		if !ours.View(0, []byte(k), now, func(v *store.Value) { p = DumpPayload(nil, v) }) {
			t.Fatalf("View %q: missing", k)
		}
		ttl := time.Duration(0)
		if d.TTL {
			ttl = time.Duration(d.At) * time.Millisecond
		}
		if err := r2.c.Restore(ctx, k, ttl, string(p)).Err(); err != nil {
			t.Fatalf("redis RESTORE %q: %v", k, err)
		}
	}
	compareDumps(t, storeDump(t, ours, 0), redisDump(t, r2.c, 0))
}

// TestRestoreRefusesBadPayloads: a wrong checksum or a newer RDB version is
// ErrPayload, as Redis's "DUMP payload version or checksum are wrong"; a
// payload with a good trailer but bad data is an *Error; nothing is stored.
func TestRestoreRefusesBadPayloads(t *testing.T) {
	s := store.New(store.Options{})
	s.Set(0, []byte("k"), []byte("hello world, a string value"), 0, store.SetOptions{})
	var p []byte
	s.View(0, []byte("k"), 0, func(v *store.Value) { p = DumpPayload(nil, v) })
	if err := Restore(s, 0, []byte("k2"), p, 0, false); err != nil {
		t.Fatal(err)
	}
	flip := append([]byte(nil), p...)
	flip[3] ^= 0x40
	if err := Restore(s, 0, []byte("k3"), flip, 0, false); err != ErrPayload {
		t.Errorf("bit flip: %v", err)
	}
	newer := append([]byte(nil), p...)
	newer[len(newer)-10] = 12
	if err := Restore(s, 0, []byte("k3"), resum(newer), 0, false); err != ErrPayload {
		t.Errorf("version 12: %v", err)
	}
	if err := Restore(s, 0, []byte("k3"), []byte("short"), 0, false); err != ErrPayload {
		t.Errorf("short: %v", err)
	}
	bad := resum(append([]byte{7, 1, 2}, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0)) // type 7: a module
	var e *Error
	if err := Restore(s, 0, []byte("k3"), bad, 0, false); !errors.As(err, &e) || e.Offset != 0 {
		t.Errorf("module type: %v", err)
	}
	if s.Exists(0, []byte("k3"), 0) {
		t.Error("k3 was stored")
	}
}

// resum recomputes a DUMP payload's CRC64 after an edit.
func resum(p []byte) []byte {
	n := len(p)
	c := checksum(p[:n-8])
	for i := range 8 {
		p[n-8+i] = byte(c >> (8 * i))
	}
	return p
}

// TestRestoreAtPastTTL: a TTL already past stores nothing; with replace it
// deletes the old value; without, an existing key is still ErrKeyExists.
func TestRestoreAtPastTTL(t *testing.T) {
	s := store.New(store.Options{})
	s.Set(0, []byte("src"), []byte("v"), 0, store.SetOptions{})
	s.Set(0, []byte("old"), []byte("x"), 0, store.SetOptions{})
	var p []byte
	s.View(0, []byte("src"), 0, func(v *store.Value) { p = DumpPayload(nil, v) })
	const now = 1_000_000
	if err := RestoreAt(s, 0, []byte("new"), p, now-1, false, now); err != nil || s.Exists(0, []byte("new"), now) {
		t.Errorf("past TTL on a new key: %v, exists %v", err, s.Exists(0, []byte("new"), now))
	}
	if err := RestoreAt(s, 0, []byte("old"), p, now, false, now); err != ErrKeyExists {
		t.Errorf("past TTL on an existing key without replace: %v", err)
	}
	if err := RestoreAt(s, 0, []byte("old"), p, now, true, now); err != nil || s.Exists(0, []byte("old"), now) {
		t.Errorf("past TTL with replace: %v, exists %v", err, s.Exists(0, []byte("old"), now))
	}
	if err := RestoreAt(s, 0, []byte("ttl"), p, now+5000, false, now); err != nil || s.ExpireAt(0, []byte("ttl"), now) != now+5000 {
		t.Errorf("future TTL: %v, at %d", err, s.ExpireAt(0, []byte("ttl"), now))
	}
}
