package server

import (
	"runtime"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// Options configures a Server. The zero value of each field means Redis's
// default (or loopkv's, where Redis has none), as listed beside it.
type Options struct {
	Bind       string // listen address, default "127.0.0.1"
	Port       int    // TCP port, default 6379; negative disables plaintext (TLS only)
	Loops      int    // event loops, default runtime.GOMAXPROCS(0)
	MaxClients int    // maxclients, default 10000
	Engine     string // event-loop library: "gnet" (default) or "netpoll"
	// RequirePass is the default user's password; "" means no password.
	RequirePass string
	// ACLFile is the users file loaded at start and by ACL LOAD; "" means none.
	ACLFile string
	// ACLUsers are redis.conf's user directives, each "NAME RULE ...";
	// not with ACLFile.
	ACLUsers []string
	// Timeout closes a client idle this many seconds; 0 means never.
	Timeout int
	// LogLevel is debug, verbose, notice (default) or warning.
	LogLevel string
	// Databases is the number of logical databases, default 16.
	Databases int
	// ClientQueryBufferLimit closes a client whose unparsed input exceeds
	// it; client-query-buffer-limit, default 1 GiB.
	ClientQueryBufferLimit int64
	// ProtoMaxBulkLen is the longest bulk string accepted;
	// proto-max-bulk-len, default 512 MiB.
	ProtoMaxBulkLen int64
	// ClientOutputBufferLimit is the hard limit on a normal client's unsent
	// replies (the first number of Redis's "client-output-buffer-limit
	// normal"); a client above it is closed. Default 256 MiB; Redis's own
	// default for normal clients is 0 (unlimited).
	ClientOutputBufferLimit int64
	// Logger receives the server's logs; nil means zap.NewNop().
	Logger *zap.Logger
	// Level, when set, is changed by CONFIG SET loglevel.
	Level *zap.AtomicLevel
	// Log is how Logger was built (NewLogger), for CONFIG GET logfile,
	// syslog-enabled, syslog-ident and syslog-facility; its Level is unused.
	Log LogConfig
	// Store is the keyspace; nil means a new one with Databases databases.
	Store *store.Store
	// Limits are the encoding conversion thresholds (hash-max-listpack-entries
	// and the others, encodingSettings); nil keeps Redis's defaults.
	Limits *store.Limits
	// ConfigFile is the path CONFIG GET/INFO report; it is not read here.
	ConfigFile string
	// MaxMemory caps the keyspace's memory in bytes (maxmemory); 0, the
	// default, means no cap. See maxmemory.go.
	MaxMemory int64
	// MaxMemoryPolicy is maxmemory-policy: noeviction (default),
	// allkeys-lru, allkeys-random, volatile-lru, volatile-random or
	// volatile-ttl.
	MaxMemoryPolicy string
	// MaxMemorySamples is maxmemory-samples, keys sampled per eviction,
	// default 5.
	MaxMemorySamples int
	// TLS configures the TLS listener (tls.go); TLS.Port 0 disables it.
	TLS TLSOptions
	// ProtectedMode is protected-mode: "yes" (default) or "no". See
	// protected.go.
	ProtectedMode string
	// The observability settings as redis.conf writes them; "" means
	// Redis's default (10000, 128, 0, yes and "50 99 99.9"); a blank
	// LatencyTrackingInfoPercentiles (" ") means none. See obs_config.go.
	SlowlogLogSlowerThan           string
	SlowlogMaxLen                  string
	LatencyMonitorThreshold        string
	LatencyTracking                string
	LatencyTrackingInfoPercentiles string
	// Persist configures RDB persistence (persist.go).
	Persist PersistOptions
	// NotifyKeyspaceEvents is notify-keyspace-events, Redis's flag letters
	// (notify.go); "" publishes no keyspace event.
	NotifyKeyspaceEvents string
	// AOF configures the append-only file (aof.go); its directory is
	// under Persist.Dir, as Redis's appenddirname is under dir.
	AOF AOFOptions
	// Config holds start-up values of mutable settings with no field
	// here, by name, as redis.conf writes them (OptionsFrom); New applies
	// them as CONFIG SET would.
	Config map[string]string
	// MetricsPort serves Prometheus metrics on http://Bind:MetricsPort/metrics
	// when not 0 (metrics.go); negative picks a free port.
	MetricsPort int
}

// Defaults of Options, Redis's where Redis has one.
const (
	defaultBind          = "127.0.0.1"
	defaultPort          = 6379
	defaultMaxClients    = 10000
	defaultDatabases     = 16
	defaultQueryBufLimit = 1 << 30
	defaultOutBufLimit   = 256 << 20
	defaultLogLevel      = "notice"
)

// withDefaults returns o with every zero field replaced by its default.
func (o Options) withDefaults() Options {
	if o.Bind == "" {
		o.Bind = defaultBind
	}
	if o.Port == 0 {
		o.Port = defaultPort
	}
	if o.Loops <= 0 {
		o.Loops = runtime.GOMAXPROCS(0)
	}
	if o.Engine == "" {
		o.Engine = "gnet"
	}
	if o.MaxClients <= 0 {
		o.MaxClients = defaultMaxClients
	}
	if o.LogLevel == "" {
		o.LogLevel = defaultLogLevel
	}
	if o.Databases <= 0 {
		o.Databases = defaultDatabases
	}
	if o.ClientQueryBufferLimit <= 0 {
		o.ClientQueryBufferLimit = defaultQueryBufLimit
	}
	if o.ProtoMaxBulkLen <= 0 {
		o.ProtoMaxBulkLen = resp.DefaultLimits.MaxBulk
	}
	if o.ClientOutputBufferLimit <= 0 {
		o.ClientOutputBufferLimit = defaultOutBufLimit
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}

// liveConfig holds the settings CONFIG SET may change while loops read them.
type liveConfig struct {
	maxClients     atomic.Int64
	requirePass    atomic.Pointer[string]
	timeout        atomic.Int64 // seconds
	logLevel       atomic.Pointer[string]
	queryBufLimit  atomic.Int64
	protoMaxBulk   atomic.Int64
	outBufLimit    atomic.Int64                 // normal clients' hard limit; 0 as set is 1<<62
	outLimits      atomic.Pointer[outputLimits] // client-output-buffer-limit as set (output_limits.go)
	pubsubHard     atomic.Int64                 // client-output-buffer-limit pubsub: hard, soft bytes, soft seconds
	pubsubSoft     atomic.Int64
	pubsubSoftSecs atomic.Int64
	mem            memConfig       // maxmemory and its policy
	obs            obsConfig       // slow log, latency monitor and tracking
	prot           protectedConfig // protected-mode
	persist        persistConfig   // save, dir, dbfilename and the other RDB settings (persist.go)
	aof            aofConfig       // appendonly and the other AOF settings (aof.go)

	miscMu sync.Mutex
	miscKV map[string]string // settings with no effect, as last set
}

func (c *liveConfig) misc(name, def string) string {
	c.miscMu.Lock()
	defer c.miscMu.Unlock()
	if v, ok := c.miscKV[name]; ok {
		return v
	}
	return def
}

func (c *liveConfig) setMisc(name, v string) {
	c.miscMu.Lock()
	defer c.miscMu.Unlock()
	if c.miscKV == nil {
		c.miscKV = make(map[string]string)
	}
	c.miscKV[name] = v
}

func (c *liveConfig) load(o Options) {
	c.maxClients.Store(int64(o.MaxClients))
	pass := o.RequirePass
	c.requirePass.Store(&pass)
	c.timeout.Store(int64(o.Timeout))
	lvl := o.LogLevel
	c.logLevel.Store(&lvl)
	c.queryBufLimit.Store(o.ClientQueryBufferLimit)
	c.protoMaxBulk.Store(o.ProtoMaxBulkLen)
	lim := defaultOutputLimits
	lim[classNormal].hard = o.ClientOutputBufferLimit
	c.storeOutputLimits(&lim)
	c.mem.load(o)
	c.prot.load(o)
}
