package server

import (
	"github.com/loopkv/loopkv/config"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/store"
)

// Memory cap: maxmemory, maxmemory-policy and maxmemory-samples, as Redis
// 7.0 has them. Before each command (processCommand in Redis), a server
// with a limit evicts keys through the store until the keyspace's memory is
// back under it; when it cannot (noeviction, or nothing the policy allows
// is left), commands flagged denyoom are refused with errOOM while reads,
// DEL and the other non-denyoom commands still run. The memory compared is
// the store's UsedMemory: keys, values and entry overhead, not connection
// buffers.

// errOOM is Redis's shared.oomerr.
const errOOM = "OOM command not allowed when used memory > 'maxmemory'."

// Defaults of the memory settings, Redis's.
const (
	defaultMaxMemoryPolicy = "noeviction"
	defaultEvictTenacity   = 10
)

// memConfig holds the memory settings, which CONFIG SET may change while
// loops read them.
type memConfig struct {
	maxMemory atomic.Int64  // bytes; 0 means no limit
	policy    atomic.Uint32 // a store.Policy
	samples   atomic.Int64  // maxmemory-samples
	tenacity  atomic.Int64  // maxmemory-eviction-tenacity, 0..100
	lfuLog    atomic.Int64  // lfu-log-factor
	lfuDecay  atomic.Int64  // lfu-decay-time, minutes
}

func (m *memConfig) load(o Options) {
	m.maxMemory.Store(max(o.MaxMemory, 0))
	applySoftMemoryLimit(o.MaxMemory)
	p, _ := store.ParsePolicy(o.MaxMemoryPolicy) // "" and unknown names: noeviction
	m.policy.Store(uint32(p))
	if o.MaxMemorySamples <= 0 {
		o.MaxMemorySamples = store.DefaultSamples
	}
	m.samples.Store(int64(o.MaxMemorySamples))
	m.tenacity.Store(defaultEvictTenacity)
	m.lfuLog.Store(store.DefaultLFULogFactor)
	m.lfuDecay.Store(store.DefaultLFUDecayTime)
}

// lfu reports whether maxmemory-policy is one of the LFU policies.
func (m *memConfig) lfu() bool { return store.Policy(m.policy.Load()).LFU() }

// ownClockPolicy reports whether maxmemory is set with a policy that needs
// each key's own access field, LRU or LFU (Redis's
// MAXMEMORY_FLAG_NO_SHARED_INTEGERS).
func (m *memConfig) ownClockPolicy() bool {
	p := store.Policy(m.policy.Load())
	return m.maxMemory.Load() != 0 && (p == store.AllKeysLRU || p == store.VolatileLRU || p.LFU())
}

// applyLFU tells the store what its keys' access fields count: under an
// LFU policy, accesses with the lfu-log-factor and lfu-decay-time settings.
func (s *Server) applyLFU() {
	m := &s.cfg.mem
	s.store.SetLFU(m.lfu(), m.lfuLog.Load(), m.lfuDecay.Load())
}

// policyName is maxmemory-policy as CONFIG GET and INFO print it.
func (m *memConfig) policyName() string { return store.Policy(m.policy.Load()).String() }

// evictOptions are the store's eviction options for the current settings.
func (m *memConfig) evictOptions() store.EvictOptions {
	return store.EvictOptions{
		MaxMemory: m.maxMemory.Load(),
		Policy:    store.Policy(m.policy.Load()),
		Samples:   int(m.samples.Load()),
		Budget:    evictBudget(m.tenacity.Load()),
	}
}

// evictBudget is how long one eviction may run for a tenacity, Redis's
// evictionTimeLimitUs: 50 µs per step up to 10, then 15% more per step,
// and no limit at 100.
func evictBudget(tenacity int64) time.Duration {
	switch {
	case tenacity <= 0:
		return time.Microsecond // Redis: 0 still evicts, a few keys per call
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond
	}
	return time.Duration(math.MaxInt64)
}

// checkMemory runs before cmd, as Redis's processCommand does when
// maxmemory is set: it evicts keys until the keyspace fits, and returns
// errOOM when it could not and cmd is denyoom, "" otherwise. now is Unix
// ms, for the LRU clock. Without a limit, or under it, it costs two atomic
// loads and does not allocate.
func (s *Server) checkMemory(cmd *command, now int64) (errText string) {
	return s.checkMemoryOn(s.store, cmd, now)
}

// checkMemoryOn is checkMemory evicting through the store view view, whose
// journal records the evicted keys (notify.go).
func (s *Server) checkMemoryOn(view *store.Store, cmd *command, now int64) (errText string) {
	limit := s.cfg.mem.maxMemory.Load()
	if limit <= 0 || s.store.UsedMemory() <= limit {
		return ""
	}
	_, st := view.Evict(now, s.cfg.mem.evictOptions())
	if st == store.OutOfMemory && cmd.Flags&flagDenyOOM != 0 {
		return errOOM
	}
	return ""
}

// memorySettings are the memory settings' rows.
var memorySettings = []configParam{
	{Setting: config.Setting{Name: "maxmemory", Default: "0", Type: config.Memory{Max: -1, Unsigned: true},
		Help: "memory limit of the keyspace in bytes (units: kb, mb, gb); 0 is no limit"},
		get: func(s *Server) string { return strconv.FormatInt(s.cfg.mem.maxMemory.Load(), 10) },
		apply: func(s *Server, v config.Value) {
			n := v.N
			if n < 0 {
				n = math.MaxInt64 // above 2^63: as good as no limit
			}
			s.cfg.mem.maxMemory.Store(n)
			applySoftMemoryLimit(n)
			// Redis starts evicting at once when the limit drops below use.
			now := time.Now().UnixMilli()
			s.inBackground(now, func(st *store.Store) { // notify.go
				_, _ = st.Evict(now, s.cfg.mem.evictOptions())
			})
		},
		opt: func(o *Options, v config.Value) string {
			if o.MaxMemory = v.N; v.N < 0 {
				o.MaxMemory = math.MaxInt64
			}
			return ""
		}},
	{Setting: config.Setting{Name: "maxmemory-policy", Default: "noeviction",
		Type: config.Enum{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"},
		Help: "what to evict at maxmemory: noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, volatile-random or volatile-ttl"},
		get: func(s *Server) string { return s.cfg.mem.policyName() },
		apply: func(s *Server, v config.Value) {
			p, _ := store.ParsePolicy(v.S) // the Enum type checked the name
			s.cfg.mem.policy.Store(uint32(p))
			s.applyLFU()
		},
		opt: func(o *Options, v config.Value) string { o.MaxMemoryPolicy = v.S; return "" }},
	atomicInt(config.Setting{Name: "maxmemory-samples", Default: "5", Type: config.Int{Min: 1, Max: math.MaxInt32},
		Help: "keys sampled per eviction"},
		func(s *Server) *atomic.Int64 { return &s.cfg.mem.samples },
		func(o *Options, n int64) { o.MaxMemorySamples = int(n) }),
	atomicInt(config.Setting{Name: "maxmemory-eviction-tenacity", Default: "10", Type: config.Int{Max: 100},
		Help: "how long an eviction cycle may run, 0 to 100"},
		func(s *Server) *atomic.Int64 { return &s.cfg.mem.tenacity }),
	lfuSetting(config.Setting{Name: "lfu-log-factor", Default: "10", Type: config.Int{Max: math.MaxInt32},
		Help: "how slowly LFU access counters grow: an access adds one with probability 1/((counter-5)*factor+1)"},
		func(s *Server) *atomic.Int64 { return &s.cfg.mem.lfuLog }),
	lfuSetting(config.Setting{Name: "lfu-decay-time", Default: "1", Type: config.Int{Max: math.MaxInt32},
		Help: "minutes after which an LFU access counter loses one; 0 never decays"},
		func(s *Server) *atomic.Int64 { return &s.cfg.mem.lfuDecay }),
}

// lfuSetting is an LFU parameter: stored, then passed on to the store.
func lfuSetting(st config.Setting, field func(s *Server) *atomic.Int64) configParam {
	p := atomicInt(st, field)
	p.apply = func(s *Server, v config.Value) {
		field(s).Store(v.N)
		s.applyLFU()
	}
	return p
}

func init() { registerSettings(memorySettings...) }

// applySoftMemoryLimit derives the Go runtime's soft memory limit from
// maxmemory, so that the collector works harder as the heap nears what the
// operator allowed instead of letting garbage double it (GOGC's default):
// maxmemory counts the keyspace only, so the limit leaves half as much
// again, plus 64 MiB, for connection buffers, arena slack and garbage. No
// maxmemory means no limit. A GOMEMLIMIT in the environment wins.
func applySoftMemoryLimit(maxMemory int64) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if maxMemory <= 0 {
		debug.SetMemoryLimit(math.MaxInt64)
		return
	}
	debug.SetMemoryLimit(softMemoryLimit(maxMemory))
}

func softMemoryLimit(maxMemory int64) int64 {
	if maxMemory > (math.MaxInt64-64<<20)/3*2 {
		return math.MaxInt64
	}
	return maxMemory + maxMemory/2 + 64<<20
}
