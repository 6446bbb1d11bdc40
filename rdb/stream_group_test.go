package rdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loopkv/loopkv/store"
	"github.com/redis/go-redis/v9"
)

// redisStreamGroupsPayload builds a stream with consumer groups in
// redis-server and returns its DUMP payload.
func redisStreamGroupsPayload(t *testing.T) (*redisServer, []byte) {
	t.Helper()
	r := startRedis(t, t.TempDir(), "dump.rdb")
	ctx := context.Background()
	long := "abcdefghijklmnopqrstuvwxyz0123456789" // over 20 bytes, and LZF cannot shorten it
	for _, cmd := range []string{
		"XADD s 1-1 a 1", "XADD s 1-2 a 2", "XADD s 1-3 b 3", "XADD s 2-1 a 4", "XADD s 2-2 a 5",
		"XGROUP CREATE s g 0", "XGROUP CREATE s h $ ENTRIESREAD 5", "XGROUP CREATE s k 1-2", "XGROUP CREATE s " + long + " 0",
		"XREADGROUP GROUP g alice COUNT 2 STREAMS s >", "XREADGROUP GROUP g bob COUNT 2 STREAMS s >",
		"XGROUP CREATECONSUMER s g carol", "XCLAIM s g carol 0 1-1", "XCLAIM s g carol 0 1-1",
		"XREADGROUP GROUP " + long + " " + long + " STREAMS s >", "XGROUP CREATECONSUMER s k z", "XGROUP CREATECONSUMER s k a",
		"XREADGROUP GROUP k a COUNT 1 STREAMS s >", "XGROUP CREATECONSUMER s h gone", "XGROUP DELCONSUMER s h gone",
	} {
		var args []any
		for _, a := range strings.Fields(cmd) {
			args = append(args, a)
		}
		if err := r.c.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
	}
	p, err := r.c.Dump(ctx, "s").Result()
	if err != nil {
		t.Fatal(err)
	}
	return r, []byte(p)
}

// TestStreamGroupsRoundTripRedisBytes: the consumer groups of a DUMP of
// redis-server's (pending entries, claimed twice, consumers without any,
// an entries-read not known, a name over 20 bytes) read as XINFO and
// XPENDING describe them, and loaded into the store's stream of the same
// entries (LoadStreamGroups) they DUMP byte for byte as redis-server's.
// The loader still refuses the stream, at the group count.
func TestStreamGroupsRoundTripRedisBytes(t *testing.T) {
	r, payload := redisStreamGroupsPayload(t)
	body := payload[:len(payload)-dumpTrailer]
	d := &decoder{r: newBytesReader(body)}
	typ, _ := d.r.byte("type")
	if typ != typeStreamLP2 {
		t.Fatalf("type %d", typ)
	}
	var e *Error
	if err := d.readValue(typ); !errors.As(err, &e) || e.Reason != "stream consumer groups are not supported" {
		t.Fatalf("readValue = %v, want the refusal at the group count", err)
	}
	d = &decoder{r: newBytesReader(body[e.Offset:])}
	n, err := d.r.readCount("groups")
	if err != nil {
		t.Fatal(err)
	}
	groups, err := d.readStreamGroups(typ, n)
	if err != nil {
		t.Fatal(err)
	}
	if d.r.offset() != int64(len(body))-e.Offset {
		t.Fatalf("read %d of the group section's %d bytes", d.r.offset(), int64(len(body))-e.Offset)
	}
	s := store.New(store.Options{Shards: 1, Databases: 1})
	for _, x := range []struct{ id, f, v string }{{"1-1", "a", "1"}, {"1-2", "a", "2"}, {"1-3", "b", "3"}, {"2-1", "a", "4"}, {"2-2", "a", "5"}} {
		var ms, seq uint64
		fmt.Sscanf(x.id, "%d-%d", &ms, &seq)
		o := &store.XAddOptions{IDGiven: true, SeqGiven: true, ID: store.StreamID{Ms: ms, Seq: seq}}
		if _, _, st := s.XAdd(0, []byte("s"), [][]byte{[]byte(x.f), []byte(x.v)}, o, 1); st != store.OK {
			t.Fatal(st)
		}
	}
	if err := s.LoadStreamGroups(0, []byte("s"), d.storeGroups(groups)); err != nil {
		t.Fatal(err)
	}
	var ours []byte
	s.View(0, []byte("s"), 1, func(v *store.Value) { ours = DumpPayload(nil, v) })
	if string(ours) != string(payload) {
		t.Fatalf("DUMP of the stream with the groups loaded:\n%q\nredis-server's:\n%q", ours, payload)
	}
	ctx := context.Background()
	infos, err := r.c.XInfoGroups(ctx, "s").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != len(groups) {
		t.Fatalf("%d groups, redis-server has %d", len(groups), len(infos))
	}
	for i, info := range infos {
		g := groups[i]
		got := fmt.Sprintf("%s %d %d %s %d", d.bytes(g.name), len(g.consumers), len(g.pel), g.last, g.read)
		want := fmt.Sprintf("%s %d %d %s %d", info.Name, info.Consumers, info.Pending, info.LastDeliveredID, info.EntriesRead)
		if info.EntriesRead == 0 && info.Name == "k" { // nil, not known
			want = fmt.Sprintf("%s %d %d %s %d", info.Name, info.Consumers, info.Pending, info.LastDeliveredID, store.GroupEntriesReadInvalid)
		}
		if got != want {
			t.Errorf("group %d: %s; redis-server: %s", i, got, want)
		}
		pend, err := r.c.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: info.Name, Start: "-", End: "+", Count: 100}).Result()
		if err != nil {
			t.Fatal(err)
		}
		var gotP, wantP []string
		for _, p := range g.pel {
			gotP = append(gotP, fmt.Sprintf("%s %s %d", p.id, d.bytes(g.consumers[p.consumer].name), p.count))
		}
		for _, p := range pend {
			wantP = append(wantP, fmt.Sprintf("%s %s %d", p.ID, p.Consumer, p.RetryCount))
		}
		if fmt.Sprint(gotP) != fmt.Sprint(wantP) {
			t.Errorf("group %s PEL %v; redis-server: %v", info.Name, gotP, wantP)
		}
	}
}

// streamGroupsCorruptTests are group sections (after the count) that a
// load refuses, written from records.
var streamGroupsCorruptTests = []struct {
	name   string
	groups func(n func(string) span) []streamGroupRec
	want   string
}{
	{"group twice", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g")}, {name: n("g")}}
	}, "appears twice"},
	{"pending entry without consumer", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g"), pel: []streamPendingRec{{id: store.StreamID{Ms: 1}, count: 1}}}}
	}, "with no consumer"},
	{"consumer's entry not pending", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g"), consumers: []streamConsumerRec{{name: n("c"), pel: []store.StreamID{{Ms: 1}}}}}}
	}, "is not in its group's PEL"},
	{"entry held by two consumers", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g"), pel: []streamPendingRec{{id: store.StreamID{Ms: 1}}},
			consumers: []streamConsumerRec{{name: n("a"), pel: []store.StreamID{{Ms: 1}}}, {name: n("b"), pel: []store.StreamID{{Ms: 1}}}}}}
	}, "held by two consumers"},
	{"consumer twice", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g"), consumers: []streamConsumerRec{{name: n("a")}, {name: n("a")}}}}
	}, "appears twice in a group"},
	{"pending entry twice", func(n func(string) span) []streamGroupRec {
		return []streamGroupRec{{name: n("g"), pel: []streamPendingRec{{id: store.StreamID{Ms: 1}}, {id: store.StreamID{Ms: 1}}}}}
	}, "appears twice in a consumer group's PEL"},
}

// TestStreamGroupsRefuseInconsistentRecords: each inconsistency is refused
// with its reason, and no strict prefix of a good section reads.
func TestStreamGroupsRefuseInconsistentRecords(t *testing.T) {
	for i, tt := range streamGroupsCorruptTests {
		var arena []byte
		n := func(s string) span { off := len(arena); arena = append(arena, s...); return span{off, len(s)} }
		gs := tt.groups(n)
		d := &decoder{r: newBytesReader(appendGroupRecs(nil, gs, arena))}
		cnt, _ := d.r.readCount("groups")
		_, err := d.readStreamGroups(typeStreamLP2, cnt)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("#%d %s: %v, want %q", i, tt.name, err, tt.want)
		}
	}
	_, payload := redisStreamGroupsPayload(t)
	body := payload[:len(payload)-dumpTrailer]
	d := &decoder{r: newBytesReader(body)}
	typ, _ := d.r.byte("type")
	var e *Error
	if !errors.As(d.readValue(typ), &e) {
		t.Fatal("no refusal")
	}
	sec := body[e.Offset:]
	for i := 0; i < len(sec); i++ {
		d := &decoder{r: newBytesReader(sec[:i])}
		cnt, err := d.r.readCount("groups")
		if err == nil {
			_, err = d.readStreamGroups(typ, cnt)
		}
		if err == nil {
			t.Fatalf("prefix of %d of %d bytes read", i, len(sec))
		}
	}
}

// appendGroupRecs writes records as RDB does, in the records' order
// (which may be inconsistent: the refusals above are built so).
func appendGroupRecs(dst []byte, groups []streamGroupRec, arena []byte) []byte {
	str := func(s span) []byte { return appendLen(dst[:0:0], uint64(s.n)) }
	name := func(dst []byte, s span) []byte { return append(append(dst, str(s)...), arena[s.off:s.off+s.n]...) }
	dst = appendLen(dst, uint64(len(groups)))
	for _, g := range groups {
		dst = name(dst, g.name)
		dst = appendLen(appendLen(dst, g.last.Ms), g.last.Seq)
		dst = appendLen(dst, uint64(g.read))
		dst = appendLen(dst, uint64(len(g.pel)))
		for _, p := range g.pel {
			dst = appendRawID(dst, p.id)
			dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
			dst = appendLen(dst, p.count)
		}
		dst = appendLen(dst, uint64(len(g.consumers)))
		for _, c := range g.consumers {
			dst = name(dst, c.name)
			dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
			dst = appendLen(dst, uint64(len(c.pel)))
			for _, id := range c.pel {
				dst = appendRawID(dst, id)
			}
		}
	}
	return dst
}
