package tlsengine

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"reflect"
	"slices"
	"sync"
	"testing"
)

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("no entropy") }

func newTestTicketKeys(t testing.TB) *TicketKeys {
	t.Helper()
	k, err := NewTicketKeys(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestTicketSealOpenRoundTrip(t *testing.T) {
	k := newTestTicketKeys(t)
	pt := []byte("session state")
	ticket := k.sealTicket([]byte("hdr"), pt, rand.Reader)
	if !bytes.HasPrefix(ticket, []byte("hdr")) || len(ticket) != 3+len(pt)+ticketOverhead {
		t.Fatalf("ticket %x: want hdr prefix and %d bytes of overhead", ticket, ticketOverhead)
	}
	got, ok := k.openTicket(ticket[3:])
	if !ok || !bytes.Equal(got, pt) {
		t.Fatalf("openTicket = %q, %v", got, ok)
	}
	if other := k.sealTicket(nil, pt, rand.Reader); bytes.Equal(other, ticket[3:]) {
		t.Error("two seals of one plaintext are equal: nonce not fresh")
	}
}

func TestTicketOpenRejectsTampering(t *testing.T) {
	k := newTestTicketKeys(t)
	ticket := k.sealTicket(nil, []byte("state"), rand.Reader)
	for i := range ticket {
		bad := slices.Clone(ticket)
		bad[i] ^= 0x80
		if _, ok := k.openTicket(bad); ok {
			t.Errorf("ticket with byte %d flipped opened", i)
		}
	}
	for n := range len(ticket) {
		if _, ok := k.openTicket(ticket[:n]); ok {
			t.Errorf("ticket cut to %d bytes opened", n)
		}
	}
}

func TestTicketKeysRotationKeepsPreviousKeys(t *testing.T) {
	k := newTestTicketKeys(t)
	old := k.sealTicket(nil, []byte("old"), rand.Reader)
	for i := 1; i < ticketKeysKept; i++ {
		if err := k.Rotate(rand.Reader); err != nil {
			t.Fatal(err)
		}
		if _, ok := k.openTicket(old); !ok {
			t.Fatalf("ticket no longer opens after %d rotations", i)
		}
	}
	fresh := k.sealTicket(nil, []byte("new"), rand.Reader)
	if bytes.Equal(fresh[:ticketKeyNameLen], old[:ticketKeyNameLen]) {
		t.Error("rotation did not change the sealing key")
	}
	if err := k.Rotate(rand.Reader); err != nil {
		t.Fatal(err)
	}
	if _, ok := k.openTicket(old); ok {
		t.Errorf("ticket still opens after %d rotations", ticketKeysKept)
	}
	if _, ok := k.openTicket(fresh); !ok {
		t.Error("recent ticket does not open")
	}
}

func TestTicketKeysFromAnotherServerDoNotOpen(t *testing.T) {
	a, b := newTestTicketKeys(t), newTestTicketKeys(t)
	if _, ok := b.openTicket(a.sealTicket(nil, []byte("x"), rand.Reader)); ok {
		t.Error("ticket opened under another server's keys")
	}
}

func TestTicketKeysReportRandomnessFailure(t *testing.T) {
	if _, err := NewTicketKeys(failingReader{}); err == nil {
		t.Error("NewTicketKeys with a failing reader succeeded")
	}
	if _, err := NewTicketKeys(nil); err == nil {
		t.Error("NewTicketKeys(nil) succeeded")
	}
	k := newTestTicketKeys(t)
	if err := k.Rotate(io.LimitReader(rand.Reader, 10)); err == nil {
		t.Error("Rotate with a short reader succeeded")
	}
	if got := k.sealTicket(nil, []byte("x"), failingReader{}); got != nil {
		t.Errorf("sealTicket with a failing reader = %x, want nil", got)
	}
}

func TestZeroTicketKeysSealAndOpenNothing(t *testing.T) {
	var k TicketKeys
	if got := k.sealTicket(nil, []byte("x"), rand.Reader); got != nil {
		t.Errorf("zero TicketKeys sealed %x", got)
	}
	if _, ok := k.openTicket(make([]byte, 64)); ok {
		t.Error("zero TicketKeys opened a ticket")
	}
}

// Many loops seal and open while another goroutine rotates; run with -race.
// Rotations stay below ticketKeysKept so that every ticket must open.
func TestTicketKeysConcurrentUse(t *testing.T) {
	k := newTestTicketKeys(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				tk := k.sealTicket(nil, []byte("state"), rand.Reader)
				if pt, ok := k.openTicket(tk); !ok || string(pt) != "state" {
					t.Error("fresh ticket did not open")
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range ticketKeysKept - 1 {
			if err := k.Rotate(rand.Reader); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
}

var sessionStateTests = []sessionState{
	{version: 0x0304, suite: 0x1301, secret: bytes.Repeat([]byte{1}, 32), createdAt: 1767225600, ageAdd: 0xfeedface, lifetime: 7200},
	{version: 0x0304, suite: 0x1302, secret: bytes.Repeat([]byte{2}, 48), createdAt: 1 << 40, serverName: "cache.example.com",
		alpn: "redis", peerCertificates: [][]byte{bytes.Repeat([]byte{3}, 300), {4}}},
	{version: 0x0303, suite: 0xc02f, secret: bytes.Repeat([]byte{5}, 48), extendedMasterSecret: true},
}

func TestSessionStateRoundTrip(t *testing.T) {
	for i, s := range sessionStateTests {
		enc := s.marshal()
		var got sessionState
		if !got.unmarshal(enc) || !reflect.DeepEqual(got, s) {
			t.Errorf("#%d: round trip %+v, want %+v", i, got, s)
		}
		for n := range len(enc) {
			if new(sessionState).unmarshal(enc[:n]) {
				t.Errorf("#%d: prefix of %d bytes parsed", i, n)
			}
		}
		if new(sessionState).unmarshal(append(enc, 0)) {
			t.Errorf("#%d: trailing byte accepted", i)
		}
	}
}

func TestSessionStateRejectsUnknownFormat(t *testing.T) {
	enc := sessionStateTests[0].marshal()
	enc[0] = sessionStateVersion + 1
	if new(sessionState).unmarshal(enc) {
		t.Error("unknown format byte accepted")
	}
}

func BenchmarkTicketSeal(b *testing.B) {
	k := newTestTicketKeys(b)
	pt := sessionStateTests[1].marshal()
	buf := make([]byte, 0, len(pt)+ticketOverhead)
	b.ReportAllocs()
	b.SetBytes(int64(len(pt)))
	for b.Loop() {
		k.sealTicket(buf[:0], pt, rand.Reader)
	}
}
