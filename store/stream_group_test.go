package store

import (
	"bytes"
	"math/rand"
	"slices"
	"strconv"
	"testing"
)

// groupModel is what a consumer group should hold.
type groupModel struct {
	last StreamID
	read int64
	cons map[string]int64 // name -> seen-time
	pel  map[StreamID]pelModel
}

type pelModel struct {
	cons  string
	time  int64
	count uint64
}

// withStreamKey calls fn with key's stream open for writing.
func withStreamKey(t *testing.T, s *Store, key []byte, fn func(k *kv)) {
	t.Helper()
	var k kv
	if st := s.openInto(&k, 0, key, t0, TypeStream, forWrite); st != OK || !k.exists() {
		t.Fatalf("open %q: %v", key, st)
	}
	defer k.release()
	fn(&k)
}

// groupsCheck compares key's groups with m: names in memcmp order, each
// group's metadata, its consumers in order with their seen-times and
// pending counts, and its PEL in ID order.
func groupsCheck(t *testing.T, s *Store, key []byte, m map[string]*groupModel) {
	t.Helper()
	withStreamKey(t, s, key, func(k *kv) {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		if n := k.streamGroupCount(); n != len(names) {
			t.Fatalf("%d groups, want %d", n, len(names))
		}
		d := k.streamGroupList(false)
		for i, name := range names {
			g, gm := k.groupAt(d, i), m[name]
			if string(g.name()) != name || g.last() != gm.last || g.entriesRead() != gm.read {
				t.Fatalf("group %d: %q %v %d, want %q %v %d", i, g.name(), g.last(), g.entriesRead(), name, gm.last, gm.read)
			}
			if f, ok := k.streamGroupFind([]byte(name)); !ok || f.r != g.r {
				t.Fatalf("streamGroupFind(%q) = %v, %v", name, f.r, ok)
			}
			cnames := make([]string, 0, len(gm.cons))
			pending := map[string]int{}
			for c := range gm.cons {
				cnames = append(cnames, c)
			}
			slices.Sort(cnames)
			ids := make([]StreamID, 0, len(gm.pel))
			for id, p := range gm.pel {
				ids = append(ids, id)
				pending[p.cons]++
			}
			slices.SortFunc(ids, StreamID.Cmp)
			if g.cons().n() != len(cnames) || g.pel().n() != len(ids) {
				t.Fatalf("group %q: %d consumers, %d pending; want %d, %d", name, g.cons().n(), g.pel().n(), len(cnames), len(ids))
			}
			for j, cn := range cnames {
				c := g.consAt(j)
				if string(c.name()) != cn || c.seen() != gm.cons[cn] || c.pending() != pending[cn] {
					t.Fatalf("group %q consumer %d: %q seen %d pending %d; want %q %d %d",
						name, j, c.name(), c.seen(), c.pending(), cn, gm.cons[cn], pending[cn])
				}
			}
			for j, id := range ids {
				e, p := g.pelAt(j), gm.pel[id]
				if e.id() != id || e.time() != p.time || e.count() != p.count || string(g.consumerAt(e.consumer()).name()) != p.cons {
					t.Fatalf("group %q PEL %d: %v %d %d %q; want %v %+v", name, j, e.id(), e.time(), e.count(),
						g.consumerAt(e.consumer()).name(), id, p)
				}
			}
		}
	})
}

// TestStreamGroupsMatchModel runs random group, consumer and PEL
// operations (fixed seed) on a stream and on groupModel and compares after
// each; then a COPY, a load of the groups as Value.StreamGroups gives
// them and a RENAME hold the same groups, and deleting the streams
// returns every byte the store counted.
func TestStreamGroupsMatchModel(t *testing.T) {
	const seed = 7
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewSource(seed))
	s := New(Options{Shards: 1, Databases: 1})
	key := []byte("s")
	if _, _, st := s.XAdd(0, key, [][]byte{[]byte("f"), []byte("v")}, &XAddOptions{}, t0); st != OK {
		t.Fatal(st)
	}
	m := map[string]*groupModel{}
	groupNames := []string{"", "g", "g1", "g10", "g2", "h", string(bytes.Repeat([]byte("x"), 40000))} // one name takes a large chunk
	consNames := []string{"", "a", "ab", "b", "c", "consumer-with-a-longer-name"}
	pick := func(names []string) string { return names[rnd.Intn(len(names))] }
	for step := 0; step < 20000; step++ {
		gname := pick(groupNames)
		gm := m[gname]
		withStreamKey(t, s, key, func(k *kv) {
			g, ok := k.streamGroupFind([]byte(gname))
			if ok != (gm != nil) {
				t.Fatalf("step %d: streamGroupFind(%q) = %v", step, gname, ok)
			}
			switch op := rnd.Intn(20); {
			case op == 0 && gm != nil:
				if !k.streamGroupDestroy([]byte(gname)) {
					t.Fatalf("step %d: destroy %q failed", step, gname)
				}
				delete(m, gname)
			case op < 3:
				id := StreamID{uint64(rnd.Intn(5)), uint64(rnd.Intn(5))}
				read := int64(rnd.Intn(3)) - 1
				if _, created := k.streamGroupCreate([]byte(gname), id, read); created != (gm == nil) {
					t.Fatalf("step %d: create %q = %v", step, gname, created)
				}
				if gm == nil {
					m[gname] = &groupModel{last: id, read: read, cons: map[string]int64{}, pel: map[StreamID]pelModel{}}
				}
			case gm == nil:
			case op < 6:
				cn := pick(consNames)
				now := t0 + int64(step)
				_, created := g.consumerCreate([]byte(cn), now)
				if _, had := gm.cons[cn]; created == had {
					t.Fatalf("step %d: consumer create %q = %v", step, cn, created)
				}
				if created {
					gm.cons[cn] = now
				}
			case op < 7:
				cn := pick(consNames)
				n, ok := g.consumerDelete([]byte(cn))
				want := 0
				for id, p := range gm.pel {
					if p.cons == cn {
						want++
						delete(gm.pel, id)
					}
				}
				if _, had := gm.cons[cn]; ok != had || n != want {
					t.Fatalf("step %d: consumer delete %q = %d, %v; want %d, %v", step, cn, n, ok, want, had)
				}
				delete(gm.cons, cn)
			case op < 15 && len(gm.cons) > 0:
				cn := pick(consNames)
				i, ok := g.consumerFind([]byte(cn))
				if !ok {
					break
				}
				id := StreamID{uint64(rnd.Intn(30)), uint64(rnd.Intn(10))}
				now := t0 + int64(step)
				g.pelAdd(id, g.consAt(i), now)
				p, had := gm.pel[id]
				if !had {
					p.count = 1
				}
				p.cons, p.time = cn, now
				gm.pel[id] = p
			case op < 15:
			case op < 17:
				g.setLast(StreamID{uint64(step), 1})
				g.setEntriesRead(int64(step))
				gm.last, gm.read = StreamID{uint64(step), 1}, int64(step)
			default:
				id := StreamID{uint64(rnd.Intn(30)), uint64(rnd.Intn(10))}
				_, had := gm.pel[id]
				if g.pelRemove(id) != had {
					t.Fatalf("step %d: pelRemove(%v) != %v", step, id, had)
				}
				delete(gm.pel, id)
			}
		})
		if step%97 == 0 || step > 19900 {
			groupsCheck(t, s, key, m)
		}
	}
	groupsCheck(t, s, key, m)
	if st := s.Copy(0, key, 0, []byte("copy"), t0, false); st != OK {
		t.Fatal(st)
	}
	groupsCheck(t, s, []byte("copy"), m)
	loaded := []byte("loaded")
	s.XAdd(0, loaded, [][]byte{[]byte("f"), []byte("v")}, &XAddOptions{}, t0)
	if err := s.LoadStreamGroups(0, loaded, streamGroupsOf(t, s, key)); err != nil {
		t.Fatal(err)
	}
	groupsCheck(t, s, loaded, m)
	if err := s.LoadStreamGroups(0, loaded, nil); err != ErrStreamGroups && len(m) > 0 {
		t.Fatalf("a second load = %v", err)
	}
	s.Del(0, loaded, t0)
	s.Del(0, key, t0)
	groupsCheck(t, s, []byte("copy"), m)
	if st := s.Rename(0, []byte("copy"), []byte("renamed"), t0, false); st != OK {
		t.Fatal(st)
	}
	groupsCheck(t, s, []byte("renamed"), m)
	s.Del(0, []byte("renamed"), t0)
	if u := s.UsedMemory(); u != 0 {
		t.Fatalf("UsedMemory = %d after deleting both streams", u)
	}
}

// streamGroupsOf returns copies of key's groups as Value.StreamGroups
// gives them.
func streamGroupsOf(t *testing.T, s *Store, key []byte) []StreamGroup {
	t.Helper()
	var out []StreamGroup
	s.View(0, key, t0, func(v *Value) {
		v.StreamGroups(func(g *StreamGroup) bool {
			c := *g
			c.Name = slices.Clone(g.Name)
			c.Pending = slices.Clone(g.Pending)
			c.Consumers = nil
			for _, sc := range g.Consumers {
				c.Consumers = append(c.Consumers, StreamConsumer{Name: slices.Clone(sc.Name), SeenTime: sc.SeenTime})
			}
			out = append(out, c)
			return true
		})
	})
	return out
}

// loadStreamGroupsRefusals are group lists LoadStreamGroups refuses.
var loadStreamGroupsRefusals = []struct {
	name   string
	groups []StreamGroup
}{
	{"group twice", []StreamGroup{{Name: []byte("g")}, {Name: []byte("g")}}},
	{"consumers out of order", []StreamGroup{{Name: []byte("g"), Consumers: []StreamConsumer{{Name: []byte("b")}, {Name: []byte("a")}}}}},
	{"consumer twice", []StreamGroup{{Name: []byte("g"), Consumers: []StreamConsumer{{Name: []byte("a")}, {Name: []byte("a")}}}}},
	{"pending not ascending", []StreamGroup{{Name: []byte("g"), Consumers: []StreamConsumer{{Name: []byte("a")}},
		Pending: []StreamPending{{ID: StreamID{2, 0}}, {ID: StreamID{1, 0}}}}}},
	{"pending without consumer", []StreamGroup{{Name: []byte("g"), Pending: []StreamPending{{ID: StreamID{1, 0}}}}}},
}

// TestLoadStreamGroupsRefusesInconsistentGroups: each is refused and
// leaves the stream without groups; a key that is no stream is refused.
func TestLoadStreamGroupsRefusesInconsistentGroups(t *testing.T) {
	s := New(Options{Shards: 1, Databases: 1})
	key := []byte("s")
	s.XAdd(0, key, [][]byte{[]byte("f"), []byte("v")}, &XAddOptions{}, t0)
	for i, tt := range loadStreamGroupsRefusals {
		if err := s.LoadStreamGroups(0, key, tt.groups); err != ErrStreamGroups {
			t.Errorf("#%d %s: %v, want ErrStreamGroups", i, tt.name, err)
		}
		if g := streamGroupsOf(t, s, key); len(g) != 0 {
			t.Errorf("#%d %s: left %d groups", i, tt.name, len(g))
		}
	}
	if err := s.LoadStreamGroups(0, []byte("nokey"), []StreamGroup{{Name: []byte("g")}}); err != ErrStreamGroups {
		t.Errorf("missing key: %v", err)
	}
}

// TestStreamGroupPELGrowsAndShrinks: a PEL of 100,000 entries (a large
// chunk) acknowledged from its head gives its memory back.
func TestStreamGroupPELGrowsAndShrinks(t *testing.T) {
	s := New(Options{Shards: 1, Databases: 1})
	key := []byte("s")
	s.XAdd(0, key, [][]byte{[]byte("f"), []byte("v")}, &XAddOptions{}, t0)
	base := s.UsedMemory()
	const n = 100_000
	withStreamKey(t, s, key, func(k *kv) {
		g, _ := k.streamGroupCreate([]byte("g"), StreamID{}, 0)
		c, _ := g.consumerCreate([]byte("c"), t0)
		for i := range n {
			g.pelAdd(StreamID{uint64(i), 0}, c, t0)
		}
		if c.pending() != n || g.pel().n() != n {
			t.Fatalf("pending %d, PEL %d", c.pending(), g.pel().n())
		}
	})
	if grown := s.UsedMemory() - base; grown < n*peSize {
		t.Fatalf("UsedMemory grew by %d for %d pending entries", grown, n)
	}
	if u, _ := s.MemoryUsage(0, key, 0); u < n*peSize {
		t.Fatalf("MEMORY USAGE %d with %d pending entries", u, n)
	}
	withStreamKey(t, s, key, func(k *kv) {
		g, _ := k.streamGroupFind([]byte("g"))
		for i := range n - 1 {
			if !g.pelRemove(StreamID{uint64(i), 0}) {
				t.Fatalf("pelRemove %d", i)
			}
		}
		if i, ok := g.pelFind(StreamID{n - 1, 0}); !ok || i != 0 {
			t.Fatalf("pelFind(last) = %d, %v", i, ok)
		}
	})
	if grown := s.UsedMemory() - base; grown > 4096 {
		t.Fatalf("UsedMemory still %d above the stream's after acknowledging all but one: %s", grown, strconv.Itoa(int(grown)))
	}
}
