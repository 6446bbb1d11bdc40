package tlsengine

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"testing"
)

// fixedReader is a deterministic randomness source for reproducible flights.
type fixedReader struct{ n byte }

func (r *fixedReader) Read(b []byte) (int, error) {
	for i := range b {
		r.n++
		b[i] = r.n
	}
	return len(b), nil
}

// FuzzDeframe checks nextRecord against a naive header decoder: it never
// panics, returns only whole records that prefix the input, and asks for
// more bytes exactly when a valid header announces more than is present.
func FuzzDeframe(f *testing.F) {
	f.Add([]byte{22, 3, 1, 0, 2, 1, 0})                  // a tiny handshake record
	f.Add([]byte{23, 3, 3, 0x41, 0x00})                  // the largest legal ciphertext header
	f.Add([]byte{23, 3, 3, 0x41, 0x01})                  // one byte too long
	f.Add([]byte{21, 3, 3, 0, 2, 2, 40, 22, 3, 3, 0, 0}) // alert then an empty record
	f.Add([]byte{0x80, 0x2e, 1})                         // SSLv2-style header
	f.Fuzz(func(t *testing.T, buf []byte) {
		for off := 0; off < len(buf); {
			rec, err := nextRecord(buf[off:])
			rest := buf[off:]
			if len(rest) < 5 {
				if rec != nil || err != nil {
					t.Fatalf("short header: rec %x err %v", rec, err)
				}
				return
			}
			n := int(binary.BigEndian.Uint16(rest[3:5]))
			validType := rest[0] >= 20 && rest[0] <= 23
			switch {
			case !validType || rest[1] != 3 || n > maxCiphertext13:
				if err == nil {
					t.Fatalf("bad header %x accepted", rest[:5])
				}
				return
			case len(rest) < 5+n:
				if rec != nil || err != nil {
					t.Fatalf("partial record: rec %d bytes err %v", len(rec), err)
				}
				return
			}
			if err != nil || len(rec) != 5+n || &rec[0] != &rest[0] {
				t.Fatalf("record at %d: len %d err %v, want %d", off, len(rec), err, 5+n)
			}
			off += len(rec)
		}
	})
}

// fuzzFlights returns client first flights captured from crypto/tls with a
// fixed Rand: plain, with ALPN and SNI, with a P-256-only share (HRR path),
// and the hybrid post-quantum share.
func fuzzFlights(f *testing.F) [][]byte {
	var out [][]byte
	for _, edit := range []func(*tls.Config){
		func(c *tls.Config) {},
		func(c *tls.Config) { c.NextProtos = []string{"redis"}; c.ServerName = "ed.test" },
		func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.CurveP521, tls.CurveP256} },
		func(c *tls.Config) { c.CurvePreferences = []tls.CurveID{tls.X25519MLKEM768} },
	} {
		out = append(out, clientHelloRecord(f, func(c *tls.Config) { c.Rand = &fixedReader{}; edit(c) }))
	}
	return out
}

// FuzzEngine feeds mutated client input to a fresh, deterministic Engine
// (the transcript Config of replayCases[variant]), cut at a fuzzer-chosen
// point. Seeds are whole recorded client conversations (so mutations reach
// the second flight, application data and alerts) and first flights from
// crypto/tls. The engine must never panic, never consume more than it was
// given, and either progress or fail with a sticky *AlertError.
func FuzzEngine(f *testing.F) {
	p := loadReplayPKI(f)
	for i, rc := range replayCases {
		chunks, _ := readTranscript(f, "testdata/Server-TLSv13-"+rc.name)
		conv := bytes.Join(chunks, nil)
		f.Add(conv, uint16(len(conv)), uint8(i))      // the whole conversation at once
		f.Add(conv, uint16(len(chunks[0])), uint8(i)) // first flight, then the rest
	}
	for _, fl := range fuzzFlights(f) {
		f.Add(fl, uint16(len(fl)/2), uint8(0))
		ccs := append(bytes.Clone(fl), 20, 3, 3, 0, 1, 1)                   // + compat CCS
		f.Add(append(ccs, 23, 3, 3, 0, 4, 1, 2, 3, 4), uint16(7), uint8(2)) // + a bogus protected record
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, variant uint8) {
		fuzzReadInTwo(t, NewEngine(replayConfig(t, p, replayCases[int(variant)%len(replayCases)])), in, cut)
	})
}

// fuzzReadInTwo feeds a copy of in to e in two Reads cut at cut, checking
// each step with checkFuzzStep; after a failure a third Read must return
// the same (sticky) error.
func fuzzReadInTwo(t *testing.T, e *Engine, in []byte, cut uint16) {
	t.Helper()
	in = bytes.Clone(in)
	c := min(int(cut), len(in))
	n1, _, err := e.Read(in[:c], nil)
	checkFuzzStep(t, e, n1, c, err)
	if err != nil {
		return
	}
	n2, _, err := e.Read(in[n1:], nil)
	checkFuzzStep(t, e, n2, len(in)-n1, err)
	if err != nil {
		if _, _, err2 := e.Read(in, nil); err2 != err {
			t.Fatalf("error not sticky: %v then %v", err, err2)
		}
	}
}

func checkFuzzStep(t *testing.T, e *Engine, consumed, avail int, err error) {
	t.Helper()
	if consumed < 0 || consumed > avail {
		t.Fatalf("consumed %d of %d", consumed, avail)
	}
	if err != nil {
		var ae *AlertError
		if !errors.As(err, &ae) || e.Status()&StatusFailed == 0 {
			t.Fatalf("error %v is not a sticky alert (status %b)", err, e.Status())
		}
	}
	e.AppendOutput(nil)
}
