package tlsengine

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"runtime"
	"testing"
)

// releaseIdleTests pair a server Config with a crypto/tls client Config for
// every AEAD in both versions; keyUpdate also runs a KeyUpdate (asking the
// client to update too) right after a release.
var releaseIdleTests = []struct {
	name      string
	suite     uint16 // the suite both sides must agree on
	tls12     bool
	keyUpdate bool
}{
	{"TLSv13/AES_128_GCM", TLS_AES_128_GCM_SHA256, false, true},
	{"TLSv13/AES_256_GCM", TLS_AES_256_GCM_SHA384, false, false},
	{"TLSv13/CHACHA20_POLY1305", TLS_CHACHA20_POLY1305_SHA256, false, true},
	{"TLSv12/ECDHE_ECDSA_AES_128_GCM", TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true, false},
	{"TLSv12/ECDHE_ECDSA_AES_256_GCM", TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, true, false},
	{"TLSv12/ECDHE_ECDSA_CHACHA20_POLY1305", TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true, false},
}

var releaseIdleMsgs = [][]byte{[]byte("PING\r\n"), bytes.Repeat([]byte("y"), 20000), []byte("three"), []byte("four")}

func TestReleaseIdleAEADsAreRebuiltForTheNextRecords(t *testing.T) {
	p := loadPKI(t)
	for _, tt := range releaseIdleTests {
		scfg := &Config{Certificates: []*Certificate{p.p256}, CipherSuites: []uint16{tt.suite}}
		ccfg := clientConfig(p)
		if tt.tls12 {
			scfg.MinVersion = VersionTLS12
			ccfg = clientConfig12(p)
			ccfg.CipherSuites = []uint16{tt.suite}
		}
		cc, sc := tcpPair(t)
		res := make(chan clientResult, 1)
		go echoClient(cc, ccfg, releaseIdleMsgs, res)
		e := NewEngine(scfg)
		d := &driver{t: t, e: e, conn: sc}
		released := 0
		var firstIn, firstOut [48]byte // traffic secrets at the first release
		d.onData = func(d *driver, b []byte) {
			d.echo(b) // opened and sealed: both AEADs exist again
			d.flush() // hands out the last handshake records, if any
			if !d.e.ReleaseIdle() {
				t.Errorf("%s: ReleaseIdle after data %d = false", tt.name, released+1)
				return
			}
			released++
			if d.e.in.aead != nil || d.e.out.aead != nil || !d.e.in.keyed || !d.e.out.keyed {
				t.Errorf("%s: AEADs kept after ReleaseIdle", tt.name)
			}
			if d.e.ReleaseIdle() {
				t.Errorf("%s: a second ReleaseIdle released something", tt.name)
			}
			if tt.keyUpdate && released == 1 {
				firstIn, firstOut = d.e.in.secret, d.e.out.secret
			}
			if tt.keyUpdate && released == 2 {
				if err := d.e.KeyUpdate(true); err != nil {
					t.Error(err)
				}
				if d.e.ReleaseIdle() {
					t.Errorf("%s: ReleaseIdle with a KeyUpdate queued = true", tt.name)
				}
			}
		}
		serr := d.run()
		sc.Close()
		r := <-res
		if r.err != nil || serr != nil && !errors.Is(serr, io.EOF) {
			t.Fatalf("%s: client %v, server %v", tt.name, r.err, serr)
		}
		if r.state.CipherSuite != tt.suite {
			t.Errorf("%s: negotiated %x", tt.name, r.state.CipherSuite)
		}
		if released < len(releaseIdleMsgs) {
			t.Errorf("%s: released %d times for %d messages", tt.name, released, len(releaseIdleMsgs))
		}
		if tt.keyUpdate && (e.out.secret == firstOut || e.in.secret == firstIn) {
			t.Errorf("%s: the KeyUpdate after a release did not change both directions' keys", tt.name)
		}
	}
}

func TestReleaseIdleKeepsAEADsWhileBusy(t *testing.T) {
	p := loadPKI(t)
	e := NewEngine(&Config{Certificates: []*Certificate{p.p256}})
	if e.ReleaseIdle() {
		t.Error("ReleaseIdle before the ClientHello = true")
	}
	ch := captureClientHello(t, clientConfig(p))
	if _, _, err := e.Read(ch, nil); err != nil {
		t.Fatal(err)
	}
	if !e.out.keyed || e.out.aead == nil {
		t.Fatal("no handshake keys after the ClientHello")
	}
	if e.ReleaseIdle() || e.out.aead == nil {
		t.Error("ReleaseIdle mid-handshake released the handshake keys")
	}

	e = newEstablishedPair(t, TLS_AES_128_GCM_SHA256)
	e.state.Version = VersionTLS13
	if err := e.KeyUpdate(false); err != nil {
		t.Fatal(err)
	}
	if e.ReleaseIdle() {
		t.Error("ReleaseIdle with a KeyUpdate pending = true")
	}
	e.AppendOutput(nil)
	e.CloseNotify()
	if e.ReleaseIdle() {
		t.Error("ReleaseIdle with close_notify pending = true")
	}
	e.AppendOutput(nil)
	e.kuLen = 3 // a KeyUpdate split across records
	if e.ReleaseIdle() {
		t.Error("ReleaseIdle with a partial post-handshake message = true")
	}
	e.kuLen = 0
	e.fail(ErrInternal)
	e.AppendOutput(nil)
	if e.ReleaseIdle() {
		t.Error("ReleaseIdle after a fatal error = true")
	}
}

func TestReleaseIdleRecordRoundTripAndAllocs(t *testing.T) {
	for _, suite := range defaultCipherSuites {
		e := newEstablishedPair(t, suite)
		pt := bytes.Repeat([]byte{'q'}, 100)
		for i := 0; i < 3; i++ {
			if !e.ReleaseIdle() {
				t.Fatalf("%x: ReleaseIdle = false", suite)
			}
			out, hdr := e.BeginRecord(nil)
			rec, err := e.SealRecord(append(out, pt...), hdr)
			if err != nil {
				t.Fatal(err)
			}
			if _, got, err := e.Read(rec, nil); err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("%x: round trip after release: %q %v", suite, got, err)
			}
		}
		// The rebuild costs a few allocations once; the records after it none.
		e.ReleaseIdle()
		if n := sealAllocs(t, e, pt); n > 0.1 {
			t.Errorf("%x: %.2f allocations per record after a release (want amortised ~0)", suite, n)
		}
		if n := sealAllocs(t, e, pt); n != 0 {
			t.Errorf("%x: SealRecord allocates %.1f times once rebuilt", suite, n)
		}
	}
}

func TestReleaseIdleShrinksTheHeap(t *testing.T) {
	const n = 1000
	engines := make([]*Engine, n)
	for i := range engines {
		engines[i] = newEstablishedPair(t, TLS_AES_128_GCM_SHA256)
	}
	before := liveHeap()
	for _, e := range engines {
		if !e.ReleaseIdle() {
			t.Fatal("ReleaseIdle = false")
		}
	}
	after := liveHeap()
	runtime.KeepAlive(engines)
	// Two AES-GCM AEADs are about 1.5 KB; demand at least 1 KB per engine.
	if saved := (int64(before) - int64(after)) / n; saved < 1000 {
		t.Errorf("ReleaseIdle freed %d bytes per engine, want >= 1000", saved)
	} else {
		t.Logf("ReleaseIdle freed %d bytes per engine", saved)
	}
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkReleaseIdleRebuild is what the first record after a release
// costs: ReleaseIdle, then sealing a 64-byte record, which rebuilds the
// write AEAD (compare BenchmarkSealRecord/<suite>/64).
func BenchmarkReleaseIdleRebuild(b *testing.B) {
	for _, suite := range defaultCipherSuites {
		b.Run(tls.CipherSuiteName(suite), func(b *testing.B) {
			e := newEstablishedPair(b, suite)
			buf := make([]byte, 0, 256)
			pt := bytes.Repeat([]byte{'a'}, 64)
			b.ReportAllocs()
			for b.Loop() {
				e.ReleaseIdle()
				out, hdr := e.BeginRecord(buf[:0])
				if _, err := e.SealRecord(append(out, pt...), hdr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
