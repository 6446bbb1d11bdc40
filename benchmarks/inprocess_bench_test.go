// Package benchmarks holds loopkv's cross-package benchmarks. The
// in-process ones here drive server.Embedded: the loop's real connection
// handler (parse, dispatch, store, reply) without sockets.
package benchmarks

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/server"
)

// netCmd is a benchmarked command.
type netCmd struct {
	name string
	cmd  string // inline form for InlinePing, otherwise space-separated args
}

// networkCommands is Garnet's founding set (BDN.benchmark Network*).
var networkCommands = []netCmd{
	{"InlinePing", "PING\r\n"},
	{"Set", "SET a a"},
	{"SetEx", "SETEX d 9 d"},
	{"SetNx", "SET a a NX"},
	{"SetXx", "SET a a XX"},
	{"GetFound", "GET a"},
	{"GetNotFound", "GET b"},
	{"Increment", "INCR i"},
	{"Decrement", "DECR j"},
	{"IncrementBy", "INCRBY k 1234567890"},
	{"DecrementBy", "DECRBY l 1234567890"},
}

// preload are the keys the commands find.
var preload = []string{"SET a a", "SET i 0", "SET j 0", "SET k 0", "SET l 0"}

func encode(cmd string) []byte {
	if strings.HasSuffix(cmd, "\r\n") {
		return []byte(cmd)
	}
	args := strings.Fields(cmd)
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b
}

func newEmbedded(tb testing.TB, preload []string) *server.Embedded {
	e := server.NewEmbedded(server.Options{Logger: zap.NewNop()})
	for _, c := range preload {
		if out := e.Feed(encode(c)); bytes.HasPrefix(out, []byte("-")) {
			tb.Fatalf("preload %q: %q", c, out)
		}
	}
	return e
}

// BenchmarkNetwork reports ns/op per Feed of batch commands and ns/cmd.
func BenchmarkNetwork(b *testing.B) { benchNetwork(b, networkCommands, preload) }

// benchNetwork runs each command at batches of 1 and 100 on an Embedded
// holding preload's keys.
func benchNetwork(b *testing.B, cmds []netCmd, preload []string) {
	for _, nc := range cmds {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", nc.name, batch), func(b *testing.B) {
				e := newEmbedded(b, preload)
				in := bytes.Repeat(encode(nc.cmd), batch)
				if out := e.Feed(in); bytes.HasPrefix(out, []byte("-")) {
					b.Fatalf("%s: %q", nc.cmd, out)
				}
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					e.Feed(in)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/cmd")
			})
		}
	}
}

// newEmbeddedTLS is newEmbedded behind TLS 1.3: the client seals, the
// server opens, runs, seals, and the client opens the replies.
func newEmbeddedTLS(tb testing.TB) (*server.Embedded, *server.EmbeddedTLSClient) {
	e, cl, err := server.NewEmbeddedTLS(server.Options{Logger: zap.NewNop()})
	if err != nil {
		tb.Fatal(err)
	}
	for _, c := range preload {
		out, err := cl.Open(nil, e.Feed(cl.Seal(nil, encode(c))))
		if err != nil || !bytes.Equal(out, []byte("+OK\r\n")) {
			tb.Fatalf("preload %q: %q, %v", c, out, err)
		}
	}
	return e, cl
}

// BenchmarkNetworkTLS is BenchmarkNetwork over TLS 1.3 (AES-128-GCM): each
// op seals batch commands as the client (one record), feeds them, and
// opens the replies as the client; the client's share is included.
func BenchmarkNetworkTLS(b *testing.B) {
	for _, nc := range networkCommands {
		for _, batch := range []int{1, 100} {
			b.Run(fmt.Sprintf("%s/batch=%d", nc.name, batch), func(b *testing.B) {
				e, cl := newEmbeddedTLS(b)
				req := bytes.Repeat(encode(nc.cmd), batch)
				in := make([]byte, 0, len(req)+1024)
				var plain []byte
				in = cl.Seal(in[:0], req)
				plain, err := cl.Open(plain[:0], e.Feed(in))
				if err != nil || bytes.HasPrefix(plain, []byte("-")) {
					b.Fatalf("%s: %q, %v", nc.cmd, plain, err)
				}
				b.SetBytes(int64(len(req)))
				b.ReportAllocs()
				for b.Loop() {
					in = cl.Seal(in[:0], req)
					plain, _ = cl.Open(plain[:0], e.Feed(in))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/cmd")
			})
		}
	}
}
