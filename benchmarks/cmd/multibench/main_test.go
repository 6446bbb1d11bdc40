package main

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loopkv/loopkv/benchmarks/internal/redistest"
	"github.com/loopkv/loopkv/benchmarks/loadgen"
)

// TestMultibenchRunsTransactions: against a real redis-server, plaintext
// and TLS, pipelined transactions complete and every key of the last batch
// holds its value.
func TestMultibenchRunsTransactions(t *testing.T) {
	s := redistest.Start(t)
	for _, tg := range []loadgen.Target{{Addr: s.Addr, Pid: s.Pid}, {Addr: s.TLSAddr, TLS: s.TLS, Pid: s.Pid}} {
		r := &result{Conns: 3, Pipeline: 4, Sets: 10}
		if err := run(r, tg, 200*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if r.Txns == 0 || r.Txns%4 != 0 || r.Latency.Count == 0 {
			t.Fatalf("%s: %d transactions, %d batches", tg.Addr, r.Txns, r.Latency.Count)
		}
	}
	// Connection i writes mb:i:0 … mb:i:39 (4 transactions of 10 SETs).
	nc, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte("DBSIZE\r\n")); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(nc).ReadString('\n'); err != nil || line != ":120\r\n" {
		t.Fatalf("DBSIZE = %q %v, want :120", line, err)
	}
}

// TestMultibenchFailsOnErrorReplies: a transaction that cannot run (SETs
// refused under maxmemory 1 with noeviction: EXECABORT) fails the run.
func TestMultibenchFailsOnErrorReplies(t *testing.T) {
	s := redistest.Start(t)
	c, err := loadgen.Dial(loadgen.Target{Addr: s.Addr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(false)
	c.Append("CONFIG", "SET", "maxmemory", "1")
	c.Append("CONFIG", "SET", "maxmemory-policy", "noeviction")
	if err := c.Do(2); err != nil || c.ErrReplies != 0 {
		t.Fatalf("CONFIG SET: %v %s", err, c.FirstErr)
	}
	r := &result{Conns: 1, Pipeline: 1, Sets: 2}
	err = run(r, loadgen.Target{Addr: s.Addr}, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "error reply") {
		t.Fatalf("run under maxmemory 1 = %v, want an error reply", err)
	}
}
