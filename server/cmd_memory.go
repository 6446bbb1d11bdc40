package server

import (
	"bytes"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
)

// MEMORY and its subcommands (Redis object.c, memoryCommand). The
// figures are loopkv's own: the store's accounting of its arenas and
// the Go runtime's, under Redis's field names.

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
	"HELP",
	"    Prints this help.",
}

// memoryUsageSamples is MEMORY USAGE's default SAMPLES, Redis's.
const memoryUsageSamples = 5

// cmdMemoryUsage is MEMORY USAGE key [SAMPLES count]: the options are
// checked before the key is looked up, as Redis does.
func cmdMemoryUsage(c *cmdCtx) {
	samples := int64(memoryUsageSamples)
	for j := 3; j < len(c.args); j += 2 {
		if !bytes.EqualFold(c.args[j], []byte("samples")) || j+1 >= len(c.args) {
			c.errReply(errSyntax)
			return
		}
		n, ok := parseInt(c.args[j+1])
		if !ok {
			c.errReply(errNotInteger)
			return
		}
		if n < 0 {
			c.errReply(errSyntax)
			return
		}
		samples = min(n, 1<<30)
	}
	n, ok := c.store.MemoryUsage(c.db(), c.args[2], int(samples))
	if !ok {
		c.null()
		return
	}
	c.integer(n)
}

// memoryDoctorSmall is the used memory under which Redis's MEMORY DOCTOR
// declines to judge.
const memoryDoctorSmall = 5 << 20

const (
	doctorEmpty = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. " +
		"Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n"
	doctorFine = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
)

// cmdMemoryDoctor is MEMORY DOCTOR. loopkv has none of the buffers
// Redis's checks look at (replication backlog, Lua caches), so past the
// small-instance text it reports no issue.
func cmdMemoryDoctor(c *cmdCtx) {
	if c.store.UsedMemory() < memoryDoctorSmall {
		c.verbatim([]byte(doctorEmpty))
		return
	}
	c.verbatim([]byte(doctorFine))
}

// cmdMemoryPurge is MEMORY PURGE: the Go runtime's way to return freed
// memory to the system, after a collection.
func cmdMemoryPurge(c *cmdCtx) {
	debug.FreeOSMemory()
	c.ok()
}

// cmdMemoryMallocStats is MEMORY MALLOC-STATS: Redis's reply when its
// allocator is not jemalloc.
func cmdMemoryMallocStats(c *cmdCtx) {
	c.verbatim([]byte("Stats not supported for the current allocator"))
}

// memStatsSamples are the runtime/metrics MEMORY STATS reports.
var memStatsSamples = [...]string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes",
	"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes"}

// memPeak is the highest total.allocated MEMORY STATS has seen.
var memPeak atomic.Int64

// cmdMemoryStats is MEMORY STATS: Redis 7.0's fields in its order.
// total.allocated is INFO's used_memory (the store's chunks and bucket
// arrays); the allocator figures are the Go heap's; rss is what the
// runtime holds from the system.
func cmdMemoryStats(c *cmdCtx) {
	s := c.srv
	var smp [len(memStatsSamples)]metrics.Sample
	for i, name := range memStatsSamples {
		smp[i].Name = name
	}
	metrics.Read(smp[:])
	u := func(i int) int64 {
		if smp[i].Value.Kind() == metrics.KindUint64 {
			return int64(smp[i].Value.Uint64())
		}
		return 0
	}
	allocated, active := u(0), u(0)+u(1)
	resident := u(2) - u(3)
	rss := resident
	total := c.store.UsedMemory()
	peak := memPeak.Load()
	for total > peak && !memPeak.CompareAndSwap(peak, total) {
		peak = memPeak.Load()
	}
	peak = max(peak, total)
	var clients int64
	for _, cs := range s.clients.snapshot() {
		clients += cs.shared.qbuf.Load() + cs.shared.omem.Load()
	}
	type dbOver struct {
		db            int
		main, expires int64
	}
	var dbs []dbOver
	overhead := clients
	st := storeStats(c.store)
	keys := int64(0)
	for db, d := range st.dbs {
		if d.keys == 0 {
			continue
		}
		keys += int64(d.keys)
		m, e := c.store.DictOverhead(db)
		dbs = append(dbs, dbOver{db, m, e})
		overhead += m + e
	}
	c.mapLen(27 + len(dbs))
	c.bulkString("peak.allocated")
	c.integer(peak)
	c.bulkString("total.allocated")
	c.integer(total)
	for _, f := range []string{"startup.allocated", "replication.backlog", "clients.slaves"} {
		c.bulkString(f)
		c.integer(0)
	}
	c.bulkString("clients.normal")
	c.integer(clients)
	for _, f := range []string{"cluster.links", "aof.buffer", "lua.caches", "functions.caches"} {
		c.bulkString(f)
		c.integer(0)
	}
	for _, d := range dbs {
		c.bulkString("db." + strconv.Itoa(d.db))
		c.mapLen(3)
		c.bulkString("overhead.hashtable.main")
		c.integer(d.main)
		c.bulkString("overhead.hashtable.expires")
		c.integer(d.expires)
		c.bulkString("overhead.hashtable.slot-to-keys")
		c.integer(0)
	}
	dataset := max(total-overhead, 0)
	c.bulkString("overhead.total")
	c.integer(overhead)
	c.bulkString("keys.count")
	c.integer(keys)
	c.bulkString("keys.bytes-per-key")
	c.integer(ratioInt(total, keys))
	c.bulkString("dataset.bytes")
	c.integer(dataset)
	c.bulkString("dataset.percentage")
	c.double(percent(dataset, total))
	c.bulkString("peak.percentage")
	c.double(percent(total, peak))
	c.bulkString("allocator.allocated")
	c.integer(allocated)
	c.bulkString("allocator.active")
	c.integer(active)
	c.bulkString("allocator.resident")
	c.integer(resident)
	memPair(c, "allocator-fragmentation", active, allocated)
	memPair(c, "allocator-rss", resident, active)
	memPair(c, "rss-overhead", rss, resident)
	c.bulkString("fragmentation")
	c.double(ratio(rss, total))
	c.bulkString("fragmentation.bytes")
	c.integer(rss - total)
}

// memPair appends name.ratio, a/b, and name.bytes, a-b.
func memPair(c *cmdCtx, name string, a, b int64) {
	c.bulkString(name + ".ratio")
	c.double(ratio(a, b))
	c.bulkString(name + ".bytes")
	c.integer(a - b)
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ratioInt(a, b int64) int64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func percent(a, b int64) float64 { return 100 * ratio(a, b) }

var memoryCommands = []command{
	{Name: "memory", Arity: -2,
		Doc: cmdDoc{Summary: "A container for memory diagnostics commands", Since: "4.0.0", Group: "server",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "usage", Arity: -3, Flags: flagReadOnly,
				Keys: []keySpec{{Flags: keyRO, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
				Doc: cmdDoc{Summary: "Estimate the memory usage of a key", Since: "4.0.0", Group: "server",
					Complexity: "O(N) where N is the number of samples.",
					Args: []cmdArg{
						{Name: "key", Type: argKey, KeySpec: 0},
						{Name: "count", Type: argInteger, Token: "SAMPLES", Flags: argOptional},
					}},
				Fn: cmdMemoryUsage},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "4.0.0", Group: "server",
					Complexity: "O(1)"},
				ClockFree: true, Fn: func(c *cmdCtx) { helpReply(c, memoryHelp) }},
			{Name: "stats", Arity: 2,
				Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Doc: cmdDoc{Summary: "Show memory usage details", Since: "4.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdMemoryStats},
			{Name: "purge", Arity: 2,
				Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"},
				Doc: cmdDoc{Summary: "Ask the allocator to release memory", Since: "4.0.0", Group: "server",
					Complexity: "Depends on how much memory is allocated, could be slow"},
				ClockFree: true, Fn: cmdMemoryPurge},
			{Name: "doctor", Arity: 2,
				Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Doc: cmdDoc{Summary: "Outputs memory problems report", Since: "4.0.0", Group: "server",
					Complexity: "O(1)"},
				ClockFree: true, Fn: cmdMemoryDoctor},
			{Name: "malloc-stats", Arity: 2,
				Tips: []string{"nondeterministic_output", "request_policy:all_shards", "response_policy:special"},
				Doc: cmdDoc{Summary: "Show allocator internal stats", Since: "4.0.0", Group: "server",
					Complexity: "Depends on how much memory is allocated, could be slow"},
				ClockFree: true, Fn: cmdMemoryMallocStats},
		}},
}

func init() { register(memoryCommands...) }
