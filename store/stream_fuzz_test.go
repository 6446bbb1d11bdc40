package store

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// streamModel is what a stream should hold: its live entries in order
// and its metadata.
type streamModel struct {
	ents   []streamEntryModel
	last   StreamID
	maxDel StreamID
	added  uint64
	exists bool
}

type streamEntryModel struct {
	id StreamID
	fv []string
}

func (m *streamModel) find(id StreamID) int {
	return slices.IndexFunc(m.ents, func(e streamEntryModel) bool { return e.id == id })
}

// streamGot reads the whole stream key from s: its entries and metadata.
func streamGot(t *testing.T, s *Store, key []byte) ([]streamEntryModel, StreamInfo) {
	t.Helper()
	var ents []streamEntryModel
	r := StreamReply{
		Entry: func(dst []byte, id StreamID, n int) []byte { ents = append(ents, streamEntryModel{id: id}); return dst },
		Elem: func(dst, b []byte) []byte {
			ents[len(ents)-1].fv = append(ents[len(ents)-1].fv, string(b))
			return dst
		},
	}
	if _, _, st := s.XRange(0, key, StreamID{}, MaxStreamID, -1, false, t0, nil, r); st != OK {
		t.Fatalf("XRange: %v", st)
	}
	var info StreamInfo
	s.XInfo(0, key, t0, func(v *StreamInfo) { info = *v; info.k = nil })
	return ents, info
}

// streamCheckNodes validates every node of key as a loader would.
func streamCheckNodes(t *testing.T, s *Store, key []byte) {
	t.Helper()
	s.View(0, key, t0, func(v *Value) {
		var last StreamID
		i := 0
		var total int64
		v.StreamNodes(func(master StreamID, lp []byte) bool {
			n, l, err := ValidateStreamNode(lp, master, last, i == 0)
			if err != nil {
				t.Fatalf("node %d (master %v): %v", i, master, err)
			}
			total += n
			last = l
			i++
			return true
		})
		if m := v.StreamMeta(); total != m.Length {
			t.Fatalf("nodes hold %d live entries, length %d", total, m.Length)
		}
	})
}

// FuzzStream runs a script of stream operations decoded from the input on
// the store and on streamModel, with small node limits, and compares
// after each: entries, length, metadata, node validity; a range read in
// both directions with a count; a COPY's and a snapshot clone's content.
func FuzzStream(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 1, 1, 2, 9, 200, 3, 5, 4, 4, 5, 5, 6, 7})        // one of each
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x02\x05\x01\x01\x01\x03\x03")) // many adds, then trims
	f.Add([]byte{3, 50, 0, 7, 0, 8, 0, 9, 1, 0, 1, 1, 1, 2, 5, 0, 5, 1})                              // deletes of every entry
	f.Fuzz(func(t *testing.T, p []byte) {
		s := New(Options{Shards: 1, Databases: 1})
		if len(p) > 0 {
			l := s.Limits()
			l.StreamNodeMaxEntries = int(p[0] % 6)
			l.StreamNodeMaxBytes = []int{0, 40, 90, 300, 4096}[int(p[0]/6)%5]
			s.SetLimits(l)
			p = p[1:]
		}
		key := []byte("s")
		var m streamModel
		next := func() byte {
			if len(p) == 0 {
				return 0
			}
			b := p[0]
			p = p[1:]
			return b
		}
		for steps := 0; len(p) > 0 && steps < 300; steps++ {
			op := next() % 8
			arg := next()
			switch op {
			case 0, 1: // XADD, an ID past the last by a small step
				id := m.last
				if arg&3 == 0 {
					id.Ms += uint64(arg >> 2)
					id.Seq = uint64(arg & 0x30 >> 4)
				} else {
					id.Seq += uint64(arg & 3)
				}
				nf := 1 + int(arg>>5)%3
				var fv []string
				for i := range nf {
					fv = append(fv, []string{"a", "b", "12", "c"}[(int(arg)+i)%4], strconv.Itoa(int(arg)*(i+1)-300))
				}
				if arg%7 == 0 {
					fv = append(fv, "long", fmt.Sprintf("%0*d", int(arg), 7))
				}
				args := make([][]byte, len(fv))
				for i := range fv {
					args[i] = []byte(fv[i])
				}
				gotID, _, st := s.XAdd(0, key, args, &XAddOptions{IDGiven: true, SeqGiven: true, ID: id}, t0)
				switch {
				case !m.last.Less(id):
					if st != StreamIDTooSmall {
						t.Fatalf("XAdd %v after %v: %v", id, m.last, st)
					}
					if !m.exists && s.Exists(0, key, t0) {
						t.Fatalf("a refused XAdd created the key")
					}
				case st != OK || gotID != id:
					t.Fatalf("XAdd %v: %v %v", id, gotID, st)
				default:
					m.ents = append(m.ents, streamEntryModel{id, fv})
					m.last, m.exists = id, true
					m.added++
				}
			case 2: // XDEL of an entry, or of a missing ID
				var ids []StreamID
				if len(m.ents) > 0 {
					ids = append(ids, m.ents[int(arg)%len(m.ents)].id)
				}
				ids = append(ids, StreamID{uint64(arg % 4), uint64(arg % 3)})
				n, st := s.XDel(0, key, ids, t0)
				want := int64(0)
				for _, id := range ids {
					if i := m.find(id); i >= 0 {
						m.ents = slices.Delete(m.ents, i, i+1)
						if m.maxDel.Less(id) {
							m.maxDel = id
						}
						want++
					}
				}
				if st != OK || n != want {
					t.Fatalf("XDel %v: %d %v, want %d", ids, n, st, want)
				}
			case 3: // XTRIM MAXLEN =
				o := XTrimOptions{Strategy: TrimMaxLen, MaxLen: int64(arg % 40)}
				n, _ := s.XTrim(0, key, &o, t0)
				want := max(0, int64(len(m.ents))-o.MaxLen)
				m.ents = m.ents[want:]
				if n != want {
					t.Fatalf("XTrim MAXLEN %d: %d, want %d", o.MaxLen, n, want)
				}
			case 4: // XTRIM MINID =
				o := XTrimOptions{Strategy: TrimMinID, MinID: StreamID{uint64(arg >> 4), uint64(arg & 15)}}
				n, _ := s.XTrim(0, key, &o, t0)
				i := 0
				for i < len(m.ents) && m.ents[i].id.Less(o.MinID) {
					i++
				}
				m.ents = m.ents[i:]
				if n != int64(i) {
					t.Fatalf("XTrim MINID %v: %d, want %d", o.MinID, n, i)
				}
			case 5: // XTRIM ~: whole nodes, at most LIMIT entries; the model follows the store
				o := XTrimOptions{Strategy: TrimMaxLen, MaxLen: int64(arg % 20), Approx: true, Limit: int64(arg >> 5)}
				before := len(m.ents)
				n, _ := s.XTrim(0, key, &o, t0)
				if n < 0 || n > int64(before) || int64(before)-n < min(o.MaxLen, int64(before)) || o.Limit > 0 && n > o.Limit {
					t.Fatalf("XTrim ~ %d LIMIT %d of %d: %d", o.MaxLen, o.Limit, before, n)
				}
				m.ents = m.ents[n:]
			case 6: // XRANGE, both directions, with a count
				lo := StreamID{uint64(arg >> 4), uint64(arg & 3)}
				hi := StreamID{lo.Ms + uint64(arg&12), MaxStreamID.Seq}
				count := int64(arg%5) - 1
				for _, rev := range []bool{false, true} {
					var want []StreamID
					for _, e := range m.ents {
						if !e.id.Less(lo) && !hi.Less(e.id) {
							want = append(want, e.id)
						}
					}
					if rev {
						slices.Reverse(want)
					}
					if count >= 0 && int64(len(want)) > count {
						want = want[:count]
					}
					var got []StreamID
					r := StreamReply{Entry: func(dst []byte, id StreamID, _ int) []byte { got = append(got, id); return dst },
						Elem: func(dst, _ []byte) []byte { return dst }}
					s.XRange(0, key, lo, hi, count, rev, t0, nil, r)
					if !slices.Equal(got, want) {
						t.Fatalf("XRange %v %v count %d rev %v: %v, want %v", lo, hi, count, rev, got, want)
					}
				}
			case 7: // XSETID past the last entry
				id := m.last
				id.Ms += uint64(arg % 3)
				st := s.XSetID(0, key, id, -1, StreamID{}, t0)
				if !m.exists {
					if st != NotFound {
						t.Fatalf("XSetID of a missing key: %v", st)
					}
					continue
				}
				if st != OK {
					t.Fatalf("XSetID %v: %v", id, st)
				}
				m.last = id
			}
			if !m.exists {
				continue
			}
			ents, info := streamGot(t, s, key)
			if len(ents) != len(m.ents) || info.Length != int64(len(m.ents)) {
				t.Fatalf("step %d: %d entries (length %d), want %d", steps, len(ents), info.Length, len(m.ents))
			}
			for i := range ents {
				if ents[i].id != m.ents[i].id || !slices.Equal(ents[i].fv, m.ents[i].fv) {
					t.Fatalf("step %d: entry %d = %v, want %v", steps, i, ents[i], m.ents[i])
				}
			}
			first := StreamID{}
			if len(m.ents) > 0 {
				first = m.ents[0].id
			}
			if info.LastID != m.last || info.MaxDeletedID != m.maxDel || info.EntriesAdded != m.added || info.FirstID != first {
				t.Fatalf("step %d: info %+v, want last %v maxdel %v added %d first %v", steps, info, m.last, m.maxDel, m.added, first)
			}
			streamCheckNodes(t, s, key)
		}
		if !m.exists {
			return
		}
		// a copy (another key of the table) and a snapshot's view hold the same
		if st := s.Copy(0, key, 0, []byte("c"), t0, false); st != OK {
			t.Fatalf("Copy: %v", st)
		}
		a, _ := streamGot(t, s, key)
		b, _ := streamGot(t, s, []byte("c"))
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("copy differs")
		}
		s.Del(0, key, t0)
		streamCheckNodes(t, s, []byte("c"))
	})
}
