package server

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/store"
)

// TestStreamGroupCommandsAsRedisRewritesThem: the AOF commands of a
// stream with consumer groups (loaded into the store as a loader will
// load them: pending entries held by several consumers, re-delivered,
// consumers holding none, an entries-read not known) are the XGROUP
// CREATE, XCLAIM and XGROUP CREATECONSUMER commands Redis 7.0's rewrite
// writes for those groups; they replay in redis-server without an error,
// and redis-server's own AOF rewrite of what they built is the same
// commands, byte for byte.
func TestStreamGroupCommandsAsRedisRewritesThem(t *testing.T) {
	st := store.New(store.Options{Shards: 1, Databases: 1})
	key := []byte("s")
	for _, id := range []store.StreamID{{Ms: 1, Seq: 1}, {Ms: 1, Seq: 2}, {Ms: 1, Seq: 3}, {Ms: 2, Seq: 1}} {
		o := &store.XAddOptions{IDGiven: true, SeqGiven: true, ID: id}
		if _, _, s := st.XAdd(0, key, [][]byte{[]byte("f"), []byte(id.String())}, o, 1); s != store.OK {
			t.Fatal(s)
		}
	}
	const t1 = 1_700_000_000_000
	groups := []store.StreamGroup{
		{Name: []byte("abcdefghijklmnopqrstuvwxyz0123456789"), LastID: store.StreamID{}, EntriesRead: 0,
			Consumers: []store.StreamConsumer{{Name: []byte("only")}}},
		{Name: []byte("g"), LastID: store.StreamID{Ms: 2, Seq: 1}, EntriesRead: 4,
			Consumers: []store.StreamConsumer{{Name: []byte("a")}, {Name: []byte("b")}, {Name: []byte("c")}, {Name: []byte("d")}},
			Pending: []store.StreamPending{{ID: store.StreamID{Ms: 1, Seq: 1}, DeliveryTime: t1, DeliveryCount: 3, Consumer: 2},
				{ID: store.StreamID{Ms: 1, Seq: 2}, DeliveryTime: t1 + 5, DeliveryCount: 1, Consumer: 1},
				{ID: store.StreamID{Ms: 2, Seq: 1}, DeliveryTime: t1 + 9, DeliveryCount: 12, Consumer: 1}}},
		{Name: []byte("k"), LastID: store.StreamID{Ms: 1, Seq: 2}, EntriesRead: store.GroupEntriesReadInvalid},
	}
	if err := st.LoadStreamGroups(0, key, groups); err != nil {
		t.Fatal(err)
	}
	var cmds []byte
	st.View(0, key, 1, func(v *store.Value) { cmds = appendStreamCommands(nil, v) })
	long := "abcdefghijklmnopqrstuvwxyz0123456789"
	var wantGroups strings.Builder
	for _, line := range []string{
		"XGROUP CREATE s " + long + " 0-0 ENTRIESREAD 0", "XGROUP CREATECONSUMER s " + long + " only",
		"XGROUP CREATE s g 2-1 ENTRIESREAD 4", "XGROUP CREATECONSUMER s g a",
		"XCLAIM s g b 0 1-2 TIME 1700000000005 RETRYCOUNT 1 JUSTID FORCE",
		"XCLAIM s g b 0 2-1 TIME 1700000000009 RETRYCOUNT 12 JUSTID FORCE",
		"XCLAIM s g c 0 1-1 TIME 1700000000000 RETRYCOUNT 3 JUSTID FORCE", "XGROUP CREATECONSUMER s g d",
		"XGROUP CREATE s k 1-2 ENTRIESREAD -1",
	} {
		wantGroups.WriteString(multibulk(strings.Fields(line)...))
	}
	if !strings.HasSuffix(string(cmds), wantGroups.String()) {
		t.Fatalf("commands:\n%q\nwant them to end with:\n%q", cmds, wantGroups.String())
	}
	dir := t.TempDir()
	rc := dialRaw(t, startRefRedis(t, "--dir", dir, "--appendonly", "yes", "--aof-use-rdb-preamble", "no"))
	rc.send(string(cmds))
	for r := bufio.NewReader(bytes.NewReader(cmds)); ; {
		if _, err := readRaw(r); err != nil {
			break
		}
		if reply := rc.reply(); strings.HasPrefix(reply, "-") {
			t.Fatalf("redis-server refused a command: %q", reply)
		}
	}
	if r := rc.do("BGREWRITEAOF"); strings.HasPrefix(r, "-") {
		t.Fatal(r)
	}
	want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n" + string(cmds)
	var base []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.base.aof"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); bytes.Contains(b, []byte("XGROUP")) {
				base = b
			}
		}
		if base != nil {
			break
		}
	}
	if string(base) != want {
		t.Fatalf("redis-server's rewrite:\n%q\nours:\n%q", base, want)
	}
}
