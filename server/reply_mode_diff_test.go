package server

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// CLIENT REPLY scripts, compared with redis-server byte for byte. A muted
// command has no reply, so runDiff's one reply per command does not fit:
// each script is sent as one pipeline, followed by CLIENT REPLY ON and
// ECHO __end__, and everything up to the echo is compared.
var replyModeDiffCases = []diffCase{
	{"off-on-skip", []string{
		"CLIENT REPLY OFF", "SET a 1", "GET a", "CLIENT REPLY ON", "GET a",
		"CLIENT REPLY SKIP", "GET a", "PING", "CLIENT REPLY SKIP", "CLIENT REPLY SKIP", "PING", "PING",
	}},
	{"errors", []string{
		"CLIENT REPLY", "CLIENT REPLY FOO", "client reply on x", "client reply ON", "client Reply sKiP", "PING",
		"CLIENT REPLY OFF", "NOSUCH", "GET", "CLIENT REPLY FOO", "CLIENT REPLY ON", "PING",
	}},
	{"skip-while-off-is-ignored", []string{
		"CLIENT REPLY OFF", "CLIENT REPLY SKIP", "CLIENT REPLY ON", "PING", "PING",
	}},
	{"on-ends-skip", []string{"CLIENT REPLY SKIP", "CLIENT REPLY ON", "PING"}},
	{"off-while-skipped", []string{"CLIENT REPLY SKIP", "CLIENT REPLY OFF", "PING", "CLIENT REPLY ON"}},
	{"multi-queued-off", []string{
		"MULTI", "CLIENT REPLY OFF", "SET a 2", "GET a", "EXEC", "PING", "CLIENT REPLY ON",
		"MULTI", "SET a 3", "CLIENT REPLY SKIP", "GET a", "EXEC", "PING", "MULTI", "GET a", "EXEC",
	}},
	{"multi-while-off", []string{"CLIENT REPLY OFF", "MULTI", "SET a 2", "EXEC", "CLIENT REPLY ON", "GET a"}},
	{"multi-skipped", []string{"CLIENT REPLY SKIP", "MULTI", "SET a 2", "EXEC", "PING"}},
	{"multi-queued-on", []string{"CLIENT REPLY OFF", "MULTI", "PING", "CLIENT REPLY ON", "PING", "EXEC", "PING"}},
	{"multi-errors-while-off", []string{
		"CLIENT REPLY OFF", "MULTI", "NOSUCH", "EXEC", "MULTI", "INCR a", "LPUSH a x", "EXEC", "CLIENT REPLY ON", "GET a",
	}},
	{"reset", []string{"CLIENT REPLY OFF", "RESET", "PING", "CLIENT REPLY SKIP", "RESET", "PING"}},
	{"blocking-times-out-muted", []string{
		"CLIENT REPLY SKIP", "BLPOP nokey 0.01", "PING", "CLIENT REPLY OFF", "BLPOP nokey 0.01", "RPUSH l x",
		"BLPOP l 0.01", "CLIENT REPLY ON", "LLEN l",
	}},
	// pushes are sent to a muted client, its replies are not
	{"pubsub-resp2", []string{
		"CLIENT REPLY OFF", "SUBSCRIBE a b", "PING", "PING x", "UNSUBSCRIBE a", "UNSUBSCRIBE", "UNSUBSCRIBE", "RESET", "PING",
	}},
	{"pubsub-resp3", []string{
		"CLIENT REPLY SKIP", "HELLO 3", "CLIENT REPLY OFF", "SUBSCRIBE a b", "PUBLISH a x", "PSUBSCRIBE p*",
		"PUBLISH pq y", "GET k", "CLIENT REPLY ON", "PUBLISH a z", "CLIENT REPLY SKIP", "PUBLISH a w", "PING",
		"MULTI", "PUBLISH a v", "CLIENT REPLY OFF", "PUBLISH b u", "EXEC", "CLIENT REPLY ON",
		"CLIENT REPLY OFF", "MULTI", "PUBLISH a t", "GET k", "CLIENT REPLY ON", "PUBLISH a s", "EXEC",
		"PUNSUBSCRIBE", "UNSUBSCRIBE b a",
	}},
}

func TestClientReplyMatchesRedis(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	for _, c := range replyModeDiffCases {
		for _, line := range []string{"RESET", "FLUSHALL"} {
			ref.do(t, []string{line})
			ours.do(t, []string{line})
		}
		var in []byte
		for _, line := range c.cmds {
			in = append(in, diffEncode(diffSplit(t, line))...)
		}
		in = append(in, diffEncode([]string{"CLIENT", "REPLY", "ON"})...)
		in = append(in, diffEncode([]string{"ECHO", "__end__"})...)
		want := refPipeline(t, ref, in)
		var got []byte
		for rest := in; len(rest) > 0; {
			// a blocking pop ends the batch; the in-process client, with
			// no connection, gets the timeout reply at once
			n, out, _ := ours.s.execute(ours.cl, rest, got, time.Now().UnixMilli(), make([]byte, 64))
			if n == 0 {
				t.Fatalf("%s: execute stopped with %q left", c.name, rest)
			}
			got, rest = out, rest[n:]
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n  got  %q\n  want %q", c.name, got, want)
		}
	}
}

// refPipeline writes in to the reference and reads until the reply of
// the closing ECHO __end__.
func refPipeline(t *testing.T, ref *redisRef, in []byte) []byte {
	t.Helper()
	if _, err := ref.conn.Write(in); err != nil {
		t.Fatal(err)
	}
	_ = ref.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer ref.conn.SetReadDeadline(time.Time{})
	var raw []byte
	for !strings.HasSuffix(string(raw), "$7\r\n__end__\r\n") {
		if err := diffReadReply(ref.r, &raw); err != nil {
			t.Fatalf("reading the reference after %q: %v", raw, err)
		}
	}
	return raw
}
