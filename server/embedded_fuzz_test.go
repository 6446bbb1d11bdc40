package server

import (
	"bufio"
	"bytes"
	"testing"
)

// FuzzFeed gives arbitrary bytes to a client, whole and cut in two: the
// server must not panic, and every reply stream must be complete RESP.
func FuzzFeed(f *testing.F) {
	for _, seed := range []string{
		"PING\r\n", // inline
		multibulk("ECHO", "x") + multibulk("PING"),                            // pipeline
		multibulk("HELLO", "3", "SETNAME", "n") + multibulk("CLIENT", "LIST"), // RESP3 switch
		multibulk("CONFIG", "GET", "*"),                                       // every setting
		multibulk("COMMAND", "DOCS", "get"),                                   // nested maps
		"*2\r\n$4\r\nECHO\r\n$5\r\nhel",                                       // partial
		"*1\r\n$-5\r\n",                                                       // protocol error
		"\"unbalanced\r\n",                                                    // inline quoting error
	} {
		f.Add([]byte(seed), uint16(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, cut uint16) {
		for _, parts := range [][][]byte{{in}, {in[:int(cut)%(len(in)+1)], in[int(cut)%(len(in)+1):]}} {
			e := NewEmbedded(Options{})
			var out []byte
			for _, p := range parts {
				out = append(out, e.Feed(bytes.Clone(p))...)
			}
			r := bufio.NewReader(bytes.NewReader(out))
			for {
				if _, err := r.Peek(1); err != nil {
					break
				}
				if raw, err := readRaw(r); err != nil {
					t.Fatalf("replies to %q are not RESP: %v after %q", in, err, raw)
				}
			}
		}
	})
}
