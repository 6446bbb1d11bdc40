package server

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// allocGateCommands must run through Embedded.Feed, the loop's own path,
// without allocating once warm.
var allocGateCommands = []struct {
	name string
	in   string
}{
	{"PING inline", "PING\r\n"},
	{"PING", "*1\r\n$4\r\nPING\r\n"},
	{"SET", "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\na\r\n"},
	{"GET", "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"},
	{"GET missing", "*2\r\n$3\r\nGET\r\n$1\r\nb\r\n"},
	{"pipeline", strings.Repeat("*2\r\n$3\r\nGET\r\n$1\r\na\r\n", 100)},
}

func TestEmbeddedFeedDoesNotAllocate(t *testing.T) {
	e := NewEmbedded(Options{})
	e.Feed([]byte("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\na\r\n"))
	for _, tt := range allocGateCommands {
		in := []byte(tt.in)
		e.Feed(in)
		if n := testing.AllocsPerRun(200, func() { e.Feed(in) }); n != 0 {
			t.Errorf("%s: %v allocs per Feed, want 0", tt.name, n)
		}
	}
}

// splitPipeline mixes multibulk and inline commands of every shape.
var splitPipeline = multibulk("ECHO", "split") + "PING\r\n" + multibulk("SET", "k", strings.Repeat("v", 300)) +
	multibulk("GET", "k") + "ECHO \"quoted arg\"\r\n" + multibulk("PING", "") + "\r\n" + multibulk("CLIENT", "GETNAME")

func TestEmbeddedCommandSplitAtEveryByte(t *testing.T) {
	want := string(NewEmbedded(Options{}).Feed([]byte(splitPipeline)))
	if strings.Contains(want, "-ERR") {
		t.Fatalf("pipeline has an error reply: %q", want)
	}
	for i := 0; i <= len(splitPipeline); i++ {
		e := NewEmbedded(Options{})
		got := string(e.Feed([]byte(splitPipeline[:i])))
		got += string(e.Feed([]byte(splitPipeline[i:])))
		if got != want {
			t.Fatalf("split at %d: got %q, want %q", i, got, want)
		}
	}
}

func TestEmbeddedRandomChunks(t *testing.T) {
	seed := uint64(20261129)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	pipe := strings.Repeat(splitPipeline, 20)
	want := string(NewEmbedded(Options{}).Feed([]byte(pipe)))
	for round := 0; round < 50; round++ {
		e := NewEmbedded(Options{})
		var got bytes.Buffer
		for rest := pipe; len(rest) > 0; {
			n := 1 + rng.IntN(min(len(rest), 64))
			got.Write(e.Feed([]byte(rest[:n])))
			rest = rest[n:]
		}
		if got.String() != want {
			t.Fatalf("round %d: replies differ", round)
		}
	}
}

func TestEmbeddedBigBatchContinuesPastOutputLimit(t *testing.T) {
	e := NewEmbedded(Options{})
	val := strings.Repeat("x", 100<<10)
	in := strings.Repeat(multibulk("ECHO", val), 30) // 3 MB of replies
	out := e.Feed([]byte(in))
	if want := strings.Repeat("$102400\r\n"+val+"\r\n", 30); string(out) != want {
		t.Errorf("got %d bytes of replies, want %d", len(out), len(want))
	}
}

func TestEmbeddedQuitAndProtocolErrorClose(t *testing.T) {
	e := NewEmbedded(Options{})
	if got := string(e.Feed([]byte("PING\r\nQUIT\r\nPING\r\n"))); got != "+PONG\r\n+OK\r\n" || !e.Closed() {
		t.Errorf("QUIT: %q closed=%v", got, e.Closed())
	}
	e = NewEmbedded(Options{})
	if got := string(e.Feed([]byte("PING\r\n*1\r\n$-5\r\n"))); got != "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n" || !e.Closed() {
		t.Errorf("protocol error: %q closed=%v", got, e.Closed())
	}
}
