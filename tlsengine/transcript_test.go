package tlsengine

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/sha512"
	"testing"
)

func TestTranscriptSumLeavesStateRunning(t *testing.T) {
	tr := newTranscript(crypto.SHA256)
	tr.write([]byte("ClientHello"))
	first := tr.sum(nil)
	if again := tr.sum(nil); !bytes.Equal(first, again) {
		t.Error("second sum differs")
	}
	tr.write([]byte("ServerHello"))
	want := sha256.Sum256([]byte("ClientHelloServerHello"))
	if got := tr.sum([]byte("dst")); !bytes.Equal(got, append([]byte("dst"), want[:]...)) {
		t.Errorf("sum = %x, want dst||%x", got, want)
	}
	if want := sha256.Sum256([]byte("ClientHello")); !bytes.Equal(first, want[:]) {
		t.Errorf("first sum = %x", first)
	}
}

func TestTranscriptHelloRetryRewriteSHA384(t *testing.T) {
	ch1, hrr := []byte("ClientHello1"), []byte("HelloRetryRequest")
	tr := newTranscript(crypto.SHA384)
	tr.write(ch1)
	tr.hrrRewrite()
	tr.write(hrr)
	inner := sha512.Sum384(ch1)
	msg := append([]byte{typeMessageHash, 0, 0, 48}, inner[:]...)
	want := sha512.Sum384(append(msg, hrr...))
	if got := tr.sum(nil); !bytes.Equal(got, want[:]) {
		t.Errorf("transcript = %x, want %x", got, want)
	}
}

func TestTranscriptCloneIsIndependent(t *testing.T) {
	tr := newTranscript(crypto.SHA256)
	tr.write([]byte("a"))
	c, ok := tr.clone()
	if !ok {
		t.Fatal("SHA-256 transcript cannot be cloned")
	}
	c.write([]byte("b"))
	tr.write([]byte("c"))
	wantA, wantC := sha256.Sum256([]byte("ab")), sha256.Sum256([]byte("ac"))
	if !bytes.Equal(c.sum(nil), wantA[:]) || !bytes.Equal(tr.sum(nil), wantC[:]) {
		t.Error("clone shares state with the original")
	}
	tr.reset()
	if empty := sha256.Sum256(nil); !bytes.Equal(tr.sum(nil), empty[:]) {
		t.Error("reset does not empty the transcript")
	}
}

func BenchmarkTranscriptSum(b *testing.B) {
	tr := newTranscript(crypto.SHA256)
	tr.write(make([]byte, 512))
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		tr.sum(buf[:0])
	}
}
