package server

import (
	"math"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// prefetchAhead is the memory-level parallelism of a pipelined batch: at
// millions of keys each lookup is two dependent cache misses, so before
// execute runs the commands at the front of in, one by one, it looks ahead
// at up to store.PrefetchMax of them (resp.ScanCommand, no Parser) and has
// the store warm the bucket and record of each one's first key
// (store.Prefetch), so that their misses overlap instead of following each
// other. It returns how many commands it looked at, for execute to call it
// again after them; 0 when it did nothing (a batch of one command, where
// there is nothing to overlap, pays one header scan); math.MaxInt when it
// will do nothing for the rest of the batch either (a keyspace that fits
// the caches, queued or refused commands), so that execute does not ask
// again at every command. It is only a hint:
// the commands run as they would without it, whatever it misread (a
// SELECT in the batch, a subcommand, an unusual encoding the scan leaves
// to the Parser). owning loop only.
func (c *cmdCtx) prefetchAhead(in []byte) int {
	cl := c.cl
	if prefetchOff || cl.multi != nil || !cl.authed && c.srv.authRequired() {
		return math.MaxInt // queued or refused commands look nothing up
	}
	if c.store.UsedMemory() < prefetchMinUsed {
		return math.MaxInt // a keyspace that fits the caches: the scan would cost more than it saves
	}
	if cl.prefetchSkip > 0 {
		cl.prefetchSkip--
		return math.MaxInt // its batches repeat one key (below)
	}
	var keys [store.PrefetchMax][]byte
	cmds, nk, long := prefetchKeys(in, &keys)
	if nk >= 2 {
		if oneKey(keys[:nk]) {
			cl.prefetchSkip = prefetchSkipBatches
		} else {
			c.store.Prefetch(cl.db, keys[:nk])
		}
	}
	if long && cmds == 0 {
		return math.MaxInt // the batch goes on with long commands: look no further in it
	}
	return cmds
}

// prefetchSkipBatches is how many batches of a client prefetchAhead
// leaves alone after one whose commands all name the same key (LPUSH of
// one list, as redis-benchmark's): one miss at most for the batch, no
// overlap to gain, where the look-ahead and the store's pass over its 16
// keys cost LPUSH of a list of millions about 8 % of its CPU per command.
const prefetchSkipBatches = 64

// oneKey reports whether keys are all the same.
func oneKey(keys [][]byte) bool {
	for _, k := range keys[1:] {
		if string(k) != string(keys[0]) {
			return false
		}
	}
	return true
}

// prefetchLongArgs is the argument count past which a command ends the
// look-ahead: scanning an MSET of 10 keys once more than the Parser does
// costs more than the one miss of its first key saves (MSET over TLS at
// pipeline 16 cost 1.27-1.33x redis's CPU per op with it, 0.87x before).
const prefetchLongArgs = 8

// prefetchOff turns prefetchAhead off, for benchmarks that compare. Set
// it only while no loop runs.
var prefetchOff bool

// prefetchMinUsed is the keyspace size (UsedMemory) below which
// prefetchAhead does nothing. The look-ahead scans each command once more
// than the Parser does: for MSET of 10 keys over TLS at pipeline 16 on a
// one-key keyspace it cost 17-22 % more server CPU per op (1.87-1.90 ->
// 2.20-2.33 us), where no miss was left to overlap; at 100k keys (about
// 7 MB of records, past the L2) it already saved 15-20 % per SET and GET.
// A variable for tests that prefetch small keyspaces.
var prefetchMinUsed int64 = 4 << 20

// prefetchKeys puts in keys the first key of each of the complete
// commands at the front of in, up to len(keys) commands, and returns how
// many commands it looked at and how many keys it found; 0, 0 for fewer
// than two commands. It stops before a command of more than
// prefetchLongArgs arguments, and long reports that it did.
func prefetchKeys(in []byte, keys *[store.PrefetchMax][]byte) (cmds, nk int, long bool) {
	var first [resp.ScanArgs][]byte
	n, argc := resp.ScanCommand(in, &first)
	if n == 0 || n == len(in) {
		return 0, 0, false
	}
	if argc > prefetchLongArgs {
		return 0, 0, true
	}
	var (
		last     *command
		lastName []byte
	)
	for cmds < len(keys) {
		n, argc := resp.ScanCommand(in, &first)
		if n == 0 || argc == 0 {
			break
		}
		if argc > prefetchLongArgs {
			return cmds, nk, true
		}
		in = in[n:]
		cmds++
		// a pipeline mostly repeats one command: look a name up once
		if last == nil || string(first[0]) != string(lastName) {
			last, lastName = lookupCommand(first[0]), first[0]
		}
		cmd := last
		if cmd != nil && len(cmd.subs) > 0 {
			cmd = nil
			if argc > 1 {
				cmd = last.sub(first[1])
			}
		}
		// the spec's first key position (COMMAND INFO's first key)
		if cmd != nil {
			if k := cmd.legacy[0]; k > 0 && k < min(argc, resp.ScanArgs) {
				keys[nk] = first[k]
				nk++
			}
		}
	}
	return cmds, nk, false
}
