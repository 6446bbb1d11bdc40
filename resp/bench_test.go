package resp

import (
	"strings"
	"testing"
)

var parseBenchmarks = []struct {
	name string
	in   string
}{
	{"inline-ping", "PING\r\n"},
	{"set", "*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\na\r\n"},
	{"get", mb("GET", "key:000000000042")},
	{"pipeline=16", strings.Repeat(mb("SET", "key:000000000042", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 16)},
	{"bulk=16KiB", mb("SET", "key:000000000042", strings.Repeat("x", 16<<10))},
}

func BenchmarkParse(b *testing.B) {
	for _, bb := range parseBenchmarks {
		b.Run(bb.name, func(b *testing.B) {
			buf := []byte(bb.in)
			var p Parser
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				for in := buf; len(in) > 0; {
					_, n, err := p.Next(in)
					if n == 0 || err != nil {
						b.Fatalf("n=%d err=%v", n, err)
					}
					in = in[n:]
				}
			}
		})
	}
}

// BenchmarkParseSlowBulk feeds a 1 MiB value in 64 KiB pieces, as a
// connection receives it; the cost is per piece, not per byte seen so far.
func BenchmarkParseSlowBulk(b *testing.B) {
	buf := []byte(mb("SET", "k", strings.Repeat("v", 1<<20)))
	var p Parser
	b.ReportAllocs()
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		for k := 64 << 10; ; k += 64 << 10 {
			_, n, err := p.Next(buf[:min(k, len(buf))])
			if err != nil {
				b.Fatal(err)
			}
			if n > 0 {
				break
			}
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	val := []byte(strings.Repeat("v", 32))
	out := make([]byte, 0, 4096)
	cases := []struct {
		name string
		fn   func([]byte) []byte
	}{
		{"ok", func(d []byte) []byte { return AppendOK(d) }},
		{"int", func(d []byte) []byte { return AppendInt(d, 1234567) }},
		{"bulk=32", func(d []byte) []byte { return AppendBulk(d, val) }},
		{"bulkint", func(d []byte) []byte { return AppendBulkInt(d, -98765) }},
		{"error", func(d []byte) []byte { return AppendError(d, "ERR unknown command") }},
		{"null/RESP2", func(d []byte) []byte { return AppendNull(d, 2) }},
		{"double/RESP3", func(d []byte) []byte { return AppendDouble(d, 3.14159, 3) }},
		{"double/RESP2", func(d []byte) []byte { return AppendDouble(d, 1e300, 2) }},
		{"verbatim/RESP3", func(d []byte) []byte { return AppendVerbatim(d, "txt", val, 3) }},
		{"deferred-array=3", func(d []byte) []byte {
			d, mark := BeginArray(d)
			d = AppendBulk(d, val)
			d = AppendInt(d, 1)
			d = AppendNull(d, 3)
			return EndArray(d, mark, 3)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.fn(nil))))
			for b.Loop() {
				out = c.fn(out[:0])
			}
		})
	}
}

func BenchmarkReadReply(b *testing.B) {
	var reply []byte
	reply = AppendArrayLen(reply, 3)
	reply = AppendBulkString(reply, "value")
	reply = AppendMapLen(reply, 1, 3)
	reply = AppendSimple(reply, "k")
	reply = AppendDouble(reply, 1.5, 3)
	reply = AppendNull(reply, 3)
	b.ReportAllocs()
	b.SetBytes(int64(len(reply)))
	for b.Loop() {
		if n, err := ReadReply(reply); n != len(reply) || err != nil {
			b.Fatalf("n=%d err=%v", n, err)
		}
	}
}
