package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func init() {
	engineSuite = append(engineSuite, []struct {
		name string
		fn   func(*testing.T)
	}{
		{"WatchAcrossConnectionsAndLoops", TestWatchAcrossConnectionsAndLoops},
		{"WatchedKeyExpiryAbortsExec", TestWatchedKeyExpiryAbortsExec},
		{"ExecIsAtomicAcrossLoops", TestExecIsAtomicAcrossLoops},
		{"ExecServesBlockedClientsAfterIt", TestExecServesBlockedClientsAfterIt},
		{"GoRedisTxPipelineAndWatch", TestGoRedisTxPipelineAndWatch},
		{"ExecWatchModelIsSerialisable", TestExecWatchModelIsSerialisable},
	}...)
}

// otherLoopConn dials until a connection lands on a loop other than rc's.
func otherLoopConn(t *testing.T, s *Server, rc *rawConn) *rawConn {
	t.Helper()
	for i := 0; i < 32; i++ {
		c := dialRaw(t, s.Addr())
		if clientLoop(t, s, c) != clientLoop(t, s, rc) {
			return c
		}
	}
	t.Fatal("no connection landed on another loop")
	return nil
}

// A write by a client on another loop aborts a watching EXEC; an unrelated
// write, or one in another database, does not; CLIENT LIST shows MULTI.
func TestWatchAcrossConnectionsAndLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	a := dialRaw(t, s.Addr())
	b := otherLoopConn(t, s, a)
	a.do("SET", "k", "1")
	if got := a.do("WATCH", "k"); got != "+OK\r\n" {
		t.Fatalf("WATCH = %q", got)
	}
	b.do("SET", "other", "x")
	b.do("SELECT", "1")
	b.do("SET", "k", "in db 1")
	if got := a.do("MULTI"); got != "+OK\r\n" {
		t.Fatalf("MULTI = %q", got)
	}
	a.do("INCR", "k")
	list := b.do("CLIENT", "LIST")
	if !strings.Contains(list, " flags=x db=0 sub=0 psub=0 ssub=0 multi=1 ") {
		t.Errorf("CLIENT LIST during MULTI: %q", list)
	}
	if got := a.do("EXEC"); got != "*1\r\n:2\r\n" {
		t.Fatalf("EXEC after unrelated writes = %q", got)
	}
	a.do("WATCH", "k")
	b.do("SELECT", "0")
	b.do("SET", "k", "10")
	a.do("MULTI")
	a.do("INCR", "k")
	if got := a.do("EXEC"); got != "*-1\r\n" {
		t.Fatalf("EXEC after another loop wrote the watched key = %q", got)
	}
	if got := a.do("GET", "k"); got != "$2\r\n10\r\n" {
		t.Fatalf("GET = %q", got)
	}
	if n := s.watches.n.Load(); n != 0 {
		t.Fatalf("watch table holds %d entries after EXEC", n)
	}
	a.do("WATCH", "k")
	a.c.Close() // a disconnect forgets the watch
	waitFor(t, func() bool { return s.watches.n.Load() == 0 }, "the closed client's watch dropped")
}

// A watched key whose TTL passes between WATCH and EXEC aborts the EXEC,
// as in Redis 7.0; one that had expired before WATCH does not.
func TestWatchedKeyExpiryAbortsExec(t *testing.T) {
	s, _ := startServer(t, Options{})
	ref := startDiffRedis(t)
	ours := dialRaw(t, s.Addr())
	theirs := dialRaw(t, ref.addr)
	script := func(rc *rawConn) []string {
		var out []string
		out = append(out, rc.do("SET", "k", "v", "PX", "50"))
		out = append(out, rc.do("WATCH", "k"))
		time.Sleep(120 * time.Millisecond)
		out = append(out, rc.do("MULTI"), rc.do("SET", "x", "1"), rc.do("EXEC"))
		out = append(out, rc.do("SET", "j", "v", "PX", "10"))
		time.Sleep(40 * time.Millisecond)
		out = append(out, rc.do("WATCH", "j"), rc.do("MULTI"), rc.do("SET", "x", "2"), rc.do("EXEC"))
		return out
	}
	got, want := script(ours), script(theirs)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ours   %q\nredis %q", got, want)
	}
	if want[4] != "*-1\r\n" {
		t.Fatalf("redis-server's EXEC after the expiry = %q", want[4])
	}
}

// A reader on another loop never sees half of a MULTI/EXEC of 10 SETs.
func TestExecIsAtomicAcrossLoops(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	w := dialRaw(t, s.Addr())
	r := otherLoopConn(t, s, w)
	keys := make([]string, 10)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i) // different slots, so different shards
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	var torn string
	go func() {
		defer wg.Done()
		args := append([]string{"MGET"}, keys...)
		for {
			select {
			case <-done:
				return
			default:
			}
			rc := r
			rc.send(multibulk(args...))
			rep, err := readRaw(rc.r)
			if err != nil {
				torn = err.Error()
				return
			}
			// every value in one reply is the same round
			vals := strings.Split(rep, "\r\n")
			first := ""
			for i := 2; i < len(vals); i += 2 {
				if first == "" {
					first = vals[i]
				} else if vals[i] != first {
					torn = rep
					return
				}
			}
		}
	}()
	const rounds = 300
	var pipe strings.Builder
	for round := 0; round < rounds; round++ {
		pipe.WriteString(multibulk("MULTI"))
		for _, k := range keys {
			pipe.WriteString(multibulk("SET", k, fmt.Sprint(round)))
		}
		pipe.WriteString(multibulk("EXEC"))
	}
	w.send(pipe.String())
	for i := 0; i < rounds*(len(keys)+2); i++ {
		w.reply()
	}
	close(done)
	wg.Wait()
	if torn != "" {
		t.Fatalf("a reader saw half of a transaction: %q", torn)
	}
	if got := w.do("GET", "k9"); got != fmt.Sprintf("$3\r\n%d\r\n", rounds-1) {
		t.Fatalf("GET k9 = %q", got)
	}
}

// A BLPOP on another loop is served by an RPUSH inside EXEC, after it.
func TestExecServesBlockedClientsAfterIt(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	waiter := dialRaw(t, s.Addr())
	w := otherLoopConn(t, s, waiter)
	waiter.send(multibulk("BLPOP", "q", "0"))
	waitForBlocked(t, s, 1)
	w.do("MULTI")
	w.do("RPUSH", "q", "a", "b")
	w.do("LLEN", "q")
	if got := w.do("EXEC"); got != "*2\r\n:2\r\n:2\r\n" {
		t.Fatalf("EXEC = %q", got)
	}
	if got := waiter.reply(); got != "*2\r\n$1\r\nq\r\n$1\r\na\r\n" {
		t.Fatalf("BLPOP = %q", got)
	}
	if got := w.do("LRANGE", "q", "0", "-1"); got != "*1\r\n$1\r\nb\r\n" {
		t.Fatalf("LRANGE = %q", got)
	}
}

// go-redis's TxPipelined and Watch with its optimistic retry loop.
func TestGoRedisTxPipelineAndWatch(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 2})
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		c := newGoRedis(t, redis.Options{Addr: s.Addr(), Protocol: proto, PoolSize: 8})
		c.Del(ctx, "n", "l")
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "n", "1", 0)
			p.Incr(ctx, "n")
			p.LPush(ctx, "n", "x")
			p.RPush(ctx, "l", "a")
			return nil
		})
		if len(cmds) != 4 || cmds[1].(*redis.IntCmd).Val() != 2 || cmds[2].Err() == nil || cmds[3].(*redis.IntCmd).Val() != 1 {
			t.Fatalf("proto %d: TxPipelined = %v, %v", proto, cmds, err)
		}
		// 8 clients increment one counter 25 times each with WATCH/MULTI/EXEC
		c.Set(ctx, "ctr", "0", 0)
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 25; i++ {
					for {
						err := c.Watch(ctx, func(tx *redis.Tx) error {
							n, err := tx.Get(ctx, "ctr").Int()
							if err != nil {
								return err
							}
							_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
								p.Set(ctx, "ctr", n+1, 0)
								return nil
							})
							return err
						}, "ctr")
						if err == redis.TxFailedErr {
							continue
						}
						if err != nil {
							t.Error(err)
						}
						break
					}
				}
			}()
		}
		wg.Wait()
		if n, _ := c.Get(ctx, "ctr").Int(); n != 200 {
			t.Fatalf("proto %d: counter = %d, want 200", proto, n)
		}
	}
}

// A model test: clients on every loop move random amounts between random
// accounts with WATCH/GET/MULTI/SET/SET/EXEC, retrying aborted
// transactions, while a reader sums all accounts in one MULTI/EXEC. Every
// sum the reader sees is the initial total (no transaction is seen in
// part), and the balances equal a serial replay of the transfers that
// committed (each commit changed exactly what it queued).
func TestExecWatchModelIsSerialisable(t *testing.T) {
	s, _ := startServer(t, Options{Loops: 3})
	const accounts, clients, transfers, initial = 5, 6, 40, 1000
	setup := dialRaw(t, s.Addr())
	for i := 0; i < accounts; i++ {
		setup.do("SET", fmt.Sprintf("acct%d", i), fmt.Sprint(initial))
	}
	var mu sync.Mutex
	delta := make([]int, accounts)
	var wg sync.WaitGroup
	for g := 0; g < clients; g++ {
		rc := dialRaw(t, s.Addr())
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			seed := uint32(g*7919 + 1)
			rnd := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>8) % n }
			for i := 0; i < transfers; i++ {
				from, to := rnd(accounts), rnd(accounts)
				if from == to {
					continue
				}
				for {
					kf, kt := fmt.Sprintf("acct%d", from), fmt.Sprintf("acct%d", to)
					rc.send(multibulk("WATCH", kf, kt) + multibulk("GET", kf) + multibulk("GET", kt))
					rc.reply()
					bf, bt := bulkInt(rc.reply()), bulkInt(rc.reply())
					amt := 1 + (bf+bt)%7
					// SET of values read before MULTI: only WATCH keeps
					// a concurrent transfer from being lost
					rc.send(multibulk("MULTI") + multibulk("SET", kf, fmt.Sprint(bf-amt)) +
						multibulk("SET", kt, fmt.Sprint(bt+amt)) + multibulk("EXEC"))
					for j := 0; j < 3; j++ {
						rc.reply()
					}
					if rc.reply() == "*-1\r\n" {
						continue // a watched account changed: retry
					}
					mu.Lock()
					delta[from] -= amt
					delta[to] += amt
					mu.Unlock()
					break
				}
			}
		}(g)
	}
	reader := dialRaw(t, s.Addr())
	stop := make(chan struct{})
	readErr := make(chan string, 1)
	go func() {
		for {
			select {
			case <-stop:
				readErr <- ""
				return
			default:
			}
			var b strings.Builder
			b.WriteString(multibulk("MULTI"))
			for i := 0; i < accounts; i++ {
				b.WriteString(multibulk("GET", fmt.Sprintf("acct%d", i)))
			}
			b.WriteString(multibulk("EXEC"))
			reader.send(b.String())
			for i := 0; i <= accounts; i++ {
				reader.reply()
			}
			rep := reader.reply()
			sum := 0
			for _, line := range strings.Split(rep, "\r\n")[1:] {
				var n int
				if _, err := fmt.Sscanf(line, "%d", &n); err == nil && !strings.HasPrefix(line, "$") {
					sum += n
				}
			}
			if sum != accounts*initial {
				readErr <- rep
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	if rep := <-readErr; rep != "" {
		t.Fatalf("a reader saw a total other than the initial one (a partial or lost transfer): %q", rep)
	}
	for i := 0; i < accounts; i++ {
		want := fmt.Sprintf(":%d\r\n", initial+delta[i])
		if got := setup.do("INCRBY", fmt.Sprintf("acct%d", i), "0"); got != want {
			t.Errorf("acct%d = %q, want %q from the committed transfers", i, got, want)
		}
	}
}

// bulkInt parses a bulk string reply holding an integer.
func bulkInt(rep string) int {
	var n int
	fmt.Sscanf(rep[strings.Index(rep, "\r\n")+2:], "%d", &n)
	return n
}

// EXEC's gathered statistics add up to what endCall adds per call: every
// call in its bucket and every nanosecond, also past txnStatsMax entries.
func TestExecStatsAddUp(t *testing.T) {
	var m multiState
	var got, want cmdStats
	for i := range 300 {
		d := int64(i*i*37 + 1) // buckets in order, then repeats of them
		if i >= 200 {
			d = int64((i-200)*(i-200)*37 + 1)
		}
		m.addStats(&got, d)
		want.ns.Add(d)
		want.hist[histIndex(d)].Add(1)
		if i%50 == 49 {
			m.flushStats()
		}
	}
	m.flushStats()
	if got.ns.Load() != want.ns.Load() {
		t.Fatalf("ns %d, want %d", got.ns.Load(), want.ns.Load())
	}
	for i := range got.hist {
		if got.hist[i].Load() != want.hist[i].Load() {
			t.Fatalf("bucket %d: %d calls, want %d", i, got.hist[i].Load(), want.hist[i].Load())
		}
	}
	if len(m.stats) != 0 {
		t.Fatalf("%d entries left after flushStats", len(m.stats))
	}
}

// A transaction whose queued arguments outgrow the arena many times over
// (and the pooled transaction's bound, so it is not kept) runs every
// command with its own arguments: the slices taken before the arena grew
// still read the same bytes.
func TestExecLargeTransactionKeepsArguments(t *testing.T) {
	o := newOurServer()
	o.do(t, []string{"MULTI"})
	val := func(i int) string { return fmt.Sprintf("%d:%s", i, strings.Repeat("v", i%300)) }
	const n = 3000
	for i := range n {
		if got := string(o.do(t, []string{"SET", fmt.Sprintf("k%d", i), val(i)})); got != "+QUEUED\r\n" {
			t.Fatalf("SET %d: %q", i, got)
		}
	}
	if got := o.do(t, []string{"EXEC"}); !bytes.HasPrefix(got, []byte(fmt.Sprintf("*%d\r\n+OK\r\n", n))) || bytes.Count(got, []byte("+OK\r\n")) != n {
		t.Fatalf("EXEC: %.80q", got)
	}
	for i := range n {
		v := val(i)
		if got, want := string(o.do(t, []string{"GET", fmt.Sprintf("k%d", i)})), fmt.Sprintf("$%d\r\n%s\r\n", len(v), v); got != want {
			t.Fatalf("GET k%d = %.60q, want %.60q", i, got, want)
		}
	}
}
