package server

import (
	"strings"
	"testing"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"StreamXReadBlockRepliesMatchRedis", TestStreamXReadBlockRepliesMatchRedis},
		{"StreamXReadBlockServedAcrossLoops", TestStreamXReadBlockServedAcrossLoops},
	}...)
}

// xreadBlockSteps: connections 0 and 1 block in XREAD, connection 2
// writes (see blockingSteps).
var xreadBlockSteps = []pubsubStep{
	// time-outs, and what is refused before blocking
	{0, "XREAD BLOCK 10 STREAMS s1 s2 $ $", 1, 0, false},
	{0, "XREAD COUNT 2 BLOCK 10 STREAMS s1 0", 1, 0, false},
	{0, "XREAD BLOCK -1 STREAMS s1 0", 1, 0, false},
	{0, "XREAD BLOCK x STREAMS s1 0", 1, 0, false},
	{0, "XREAD BLOCK 1 STREAMS s1 >", 1, 0, false},
	// served by a later XADD, from the second key named, that key alone
	{0, "XREAD BLOCK 0 STREAMS s1 s2 $ $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "XADD s2 1-1 a b", 1, 1, false},
	{2, "XADD s1 1-1 c d", 1, 0, false},
	// data already there: no blocking
	{0, "XREAD BLOCK 0 STREAMS s1 s2 0 0", 1, 0, false},
	// $ of an existing stream waits for the next entry; COUNT holds
	{0, "XREAD COUNT 1 BLOCK 0 STREAMS s1 $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "MULTI", 1, 0, false},
	{2, "XADD s1 2-1 e f", 1, 0, false},
	{2, "XADD s1 2-2 g h", 1, 0, false},
	{2, "EXEC", 1, 1, false},
	// two waiters on one stream are both served by one XADD
	{0, "XREAD BLOCK 0 STREAMS s3 $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{1, "XREAD COUNT 5 BLOCK 0 STREAMS s3 0", 0, 0, false},
	{2, "#await blocked_clients 2", 1, 0, false},
	{2, "XADD s3 1-1 a b", 1, 1, false},
	{1, "PING", 2, 0, false},
	// a waiter whose ID is past the new entry stays; the one behind it is served
	{0, "XREAD BLOCK 0 STREAMS s4 5-0", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{1, "XREAD BLOCK 0 STREAMS s4 0-1", 0, 0, false},
	{2, "#await blocked_clients 2", 1, 0, false},
	{2, "XADD s4 3-0 a b", 1, 0, false},
	{1, "PING", 2, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "XADD s4 6-0 c d", 1, 1, false},
	// a write of another type leaves the waiter blocked; an XADD then serves it
	{0, "XREAD BLOCK 0 STREAMS w $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "SET w v", 1, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "DEL w", 1, 0, false},
	{2, "XADD w 1-1 a b", 1, 1, false},
	// inside MULTI, XREAD BLOCK does not block
	{2, "MULTI", 1, 0, false},
	{2, "XREAD BLOCK 0 STREAMS m $", 1, 0, false},
	{2, "EXEC", 1, 0, false},
	// CLIENT UNBLOCK: TIMEOUT answers as a time-out, ERROR with -UNBLOCKED
	{0, "XREAD BLOCK 0 STREAMS u $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "CLIENT UNBLOCK {id0} TIMEOUT", 1, 1, false},
	{0, "XREAD BLOCK 0 STREAMS u $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "CLIENT UNBLOCK {id0} ERROR", 1, 1, false},
	// an XADD that fails serves nobody; XADD NOMKSTREAM of a missing key neither
	{0, "XREAD BLOCK 0 STREAMS s1 $", 0, 0, false},
	{2, "#await blocked_clients 1", 1, 0, false},
	{2, "XADD s1 1-1 x y", 1, 0, false},
	{2, "XADD s1 9-9 x y", 1, 1, false},
	{2, "FLUSHALL", 1, 0, false},
}

// XREAD BLOCK's replies over real sockets, in RESP2 and RESP3, byte for
// byte as redis-server's, with the waiters and the writer spread over two
// loops.
func TestStreamXReadBlockRepliesMatchRedis(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	steps := append([]pubsubStep(nil), xreadBlockSteps...)
	steps = append(steps, pubsubStep{0, "HELLO 3", 1, 0, true}, pubsubStep{1, "HELLO 3", 1, 0, true})
	steps = append(steps, xreadBlockSteps...)
	diffPubsubScript(t, s, 3, steps)
}

// An XREAD BLOCK waiting on one loop is served by an XADD on another, and
// the waiter's connection then runs the commands it pipelined behind it.
func TestStreamXReadBlockServedAcrossLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	waiter := dialRaw(t, s.Addr())
	var writer *rawConn
	for i := 0; i < 16 && writer == nil; i++ {
		c := dialRaw(t, s.Addr())
		if clientLoop(t, s, c) != clientLoop(t, s, waiter) {
			writer = c
		}
	}
	if writer == nil {
		t.Fatal("no connection landed on the other loop")
	}
	for round := range 3 {
		waiter.send(multibulk("XREAD", "BLOCK", "0", "STREAMS", "st", "$") + multibulk("PING"))
		waitForBlocked(t, s, 1)
		if got := writer.do("INFO", "clients"); !strings.Contains(got, "blocked_clients:1\r\n") {
			t.Fatalf("INFO clients while blocked: %q", got)
		}
		id := []string{"1-1", "1-2", "2-0"}[round]
		if got := writer.do("XADD", "st", id, "job", "j"+id); got != multibulk(id)[4:] {
			t.Fatalf("XADD = %q", got)
		}
		want := "*1\r\n*2\r\n$2\r\nst\r\n*1\r\n*2\r\n" + multibulk(id)[4:] + "*2\r\n$3\r\njob\r\n" + multibulk("j" + id)[4:]
		if got := waiter.reply(); got != want {
			t.Fatalf("XREAD = %q, want %q", got, want)
		}
		if got := waiter.reply(); got != "+PONG\r\n" {
			t.Fatalf("the pipelined PING = %q", got)
		}
		waitForBlocked(t, s, 0)
	}
}
