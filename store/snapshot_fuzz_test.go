package store

import (
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"
)

// snapWalker walks a snapshot in its own goroutine, one key per permit,
// so that the fuzz loop interleaves writes with the walk.
type snapWalker struct {
	sn   *Snapshot
	want map[string]string
	got  map[string]string
	step chan struct{}
	done chan error
	err  error
	over bool
}

func startWalker(s *Store) *snapWalker {
	v := s.Lock(nil, true)
	w := &snapWalker{sn: v.SnapshotAt(t0), want: liveDump(v), got: map[string]string{},
		step: make(chan struct{}), done: make(chan error, 1)}
	v.Unlock()
	go func() {
		w.done <- w.sn.Each(func(db int, v *Value) error {
			<-w.step
			w.got[strconv.Itoa(db)+"/"+string(v.Key)] = canonValue(v)
			return nil
		})
	}()
	return w
}

// advance lets the walker visit up to n more keys.
func (w *snapWalker) advance(n int) {
	for ; n > 0 && !w.over; n-- {
		select {
		case w.step <- struct{}{}:
		case w.err = <-w.done:
			w.over = true
		}
	}
}

// finish lets the walk run to its end and checks what it saw.
func (w *snapWalker) finish(t *testing.T) {
	if !w.over {
		close(w.step)
		w.err = <-w.done
		w.over = true
	}
	w.sn.Close()
	if w.err != nil {
		t.Fatal(w.err)
	}
	if !maps.Equal(w.got, w.want) {
		diffDumps(t, "snapshot", w.got, w.want)
		t.FailNow()
	}
}

// FuzzSnapshot applies operations decoded from the input (3 bytes each:
// opcode, key, argument) to a store of every type, 4 shards and 3
// databases, interleaved with snapshots (at most two at once) whose walks
// advance a few keys at a time between the writes. Each walk must show the
// keyspace as it was when its snapshot was taken; at the end the keyspace,
// walked from a last snapshot and loaded into a fresh store, must read back
// the same (in the encodings the loaded sizes give).
func FuzzSnapshot(f *testing.F) {
	f.Add([]byte{20, 0, 0, 0, 1, 1, 21, 0, 5, 2, 2, 2, 21, 0, 9})
	f.Add([]byte{1, 0, 200, 2, 1, 200, 3, 2, 200, 4, 3, 200, 20, 0, 0, 5, 0, 1, 6, 1, 2, 21, 0, 30, 7, 0, 0})
	f.Add([]byte{0, 0, 1, 20, 0, 0, 8, 0, 0, 20, 0, 0, 9, 0, 1, 21, 0, 3, 21, 1, 3, 10, 0, 0, 22, 0, 0})
	f.Add([]byte{3, 4, 150, 3, 5, 150, 20, 0, 0, 11, 4, 0, 12, 5, 0, 21, 0, 100})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 600 {
			data = data[:600]
		}
		s := New(Options{Shards: 4, Databases: 3})
		s.SetLimits(Limits{HashMaxListpackEntries: 8, HashMaxListpackValue: 16, SetMaxIntsetEntries: 8,
			SetMaxListpackEntries: 8, SetMaxListpackValue: 16, ZSetMaxListpackEntries: 8, ZSetMaxListpackValue: 16,
			ListMaxListpackSize: 4})
		var walkers []*snapWalker
		defer func() {
			for _, w := range walkers {
				if !w.over {
					close(w.step)
					<-w.done
				}
				w.sn.Close()
			}
		}()
		now := t0
		for i := 0; i+3 <= len(data); i += 3 {
			op, kb, arg := data[i], data[i+1], data[i+2]
			db := int(kb>>4) % 3
			key := []byte("k" + strconv.Itoa(int(kb&7)))
			other := []byte("k" + strconv.Itoa(int(arg&7)))
			n := int(arg%32) + 2
			elems := func(prefix string) [][]byte {
				es := make([][]byte, n)
				for j := range es {
					es[j] = []byte(prefix + strconv.Itoa((int(arg)+j*7)%40))
				}
				return es
			}
			now += int64(arg % 4)
			switch op % 23 {
			case 0:
				s.Set(db, key, []byte(strconv.Itoa(int(arg)*int(arg))), now, SetOptions{})
			case 1:
				fv := elems("f")
				for j := 1; j < len(fv); j += 2 {
					fv[j] = fv[j][:min(len(fv[j]), int(arg%20))]
				}
				s.HSet(db, key, fv[:len(fv)&^1], now)
			case 2:
				s.SAdd(db, key, elems(""), now)
			case 3:
				sm := elems("m")
				for j := 0; j+1 < len(sm); j += 2 {
					sm[j] = []byte(strconv.Itoa(j % 5))
				}
				s.ZAdd(db, key, 0, sm[:len(sm)&^1], now)
			case 4:
				s.LPush(db, key, ListEnd(arg&1), elems("e"), false, now)
			case 5:
				s.Del(db, key, now)
			case 6:
				s.Expire(db, key, now, now+int64(arg%6), 0)
			case 7:
				s.Rename(db, key, other, now, false)
			case 8:
				s.Copy(db, key, (db+1)%3, other, now, true)
			case 9:
				s.HDel(db, key, elems("f"), now)
			case 10:
				s.SRem(db, key, elems(""), now)
			case 11:
				s.LPop(db, key, ListTail, n, now, nil, func(dst []byte, _ int) []byte { return dst }, rawEnc)
			case 12:
				s.ZRem(db, key, elems("m"), now)
			case 13:
				if arg%8 == 0 {
					s.FlushDB(db)
				}
			case 14:
				s.SwapDB(db, int(arg)%3)
			case 15:
				s.Get(db, key, now, nil, rawEnc) // may expire it lazily
			case 16:
				s.ActiveExpireCycle(now, time.Second)
			case 17:
				s.RehashCycle(time.Millisecond)
			case 18:
				s.Append(db, key, elems("a")[0], now)
			case 19:
				s.SPopCount(db, key, uint64(n), now, func([]byte) {})
			case 20: // a snapshot
				if len(walkers) < 2 {
					walkers = append(walkers, startWalker(s))
				}
			case 21: // walk some keys of a snapshot
				if len(walkers) > 0 {
					walkers[int(kb)%len(walkers)].advance(n)
				}
			case 22: // finish a walk
				if len(walkers) > 0 {
					j := int(kb) % len(walkers)
					walkers[j].finish(t)
					walkers = append(walkers[:j], walkers[j+1:]...)
				}
			}
		}
		for len(walkers) > 0 {
			walkers[0].finish(t)
			walkers = walkers[1:]
		}
		want := apiDump(t, s, now)
		sn := s.SnapshotAt(now)
		defer sn.Close()
		dst := New(Options{Shards: 2, Databases: 3})
		dst.SetLimits(s.Limits())
		if err := sn.Each(func(db int, v *Value) error { loadValue(t, dst, db, v, now); return nil }); err != nil {
			t.Fatal(err)
		}
		// a loaded value takes the encoding its size gives it, as in Redis
		// (a set emptied down to two members is a hash table no more)
		diffDumps(t, "loaded", withoutEncodings(apiDump(t, dst, now)), withoutEncodings(want))
	})
}

// withoutEncodings drops the encoding (second word) of each description.
func withoutEncodings(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, d := range m {
		typ, rest, _ := strings.Cut(d, " ")
		_, rest, _ = strings.Cut(rest, " ")
		out[k] = typ + " " + rest
	}
	return out
}
