package server

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopkv/loopkv/store"
)

// infoSections are INFO's sections in Redis's order; all of them are in
// the default set.
var infoSections = []infoSection{
	{name: "server", fn: (*Server).infoServer},
	{name: "clients", fn: (*Server).infoClients},
	{name: "memory", ks: (*Server).infoMemory},
	{name: "persistence", fn: (*Server).infoPersistence},
	{name: "stats", ks: (*Server).infoStats},
	{name: "replication", fn: (*Server).infoReplication},
	{name: "cpu", fn: (*Server).infoCPU},
	{name: "commandstats", fn: (*Server).infoCommandStats, notDflt: true},
	{name: "errorstats", fn: (*Server).infoErrorStats},
	{name: "latencystats", fn: (*Server).infoLatencyStats, notDflt: true},
	{name: "cluster", fn: (*Server).infoCluster},
	{name: "keyspace", ks: (*Server).infoKeyspace},
}

// infoSection is one INFO section.
type infoSection struct {
	name    string
	fn      func(s *Server, b []byte) []byte
	ks      func(s *Server, st *store.Store, b []byte) []byte // instead of fn, for a section that reads the store's counts
	notDflt bool                                              // only with "all", "everything" or its name, as in Redis
}

// appendInfo appends INFO's text for the named sections: none and "default"
// mean the default set, "all" and "everything" every section; unknown
// names add nothing. The store's counts are read through st, the caller's
// view: inside EXEC the transaction's, which holds the shard locks that
// reading the keyspace itself would wait for.
func (s *Server) appendInfo(st *store.Store, b []byte, names [][]byte) []byte {
	want := map[string]bool{}
	dflt, all := len(names) == 0, false
	for _, n := range names {
		switch l := strings.ToLower(string(n)); l {
		case "default":
			dflt = true
		case "all", "everything":
			all = true
		default:
			want[l] = true
		}
	}
	n := 0
	for _, sec := range infoSections {
		if !all && !want[sec.name] && !(dflt && !sec.notDflt) {
			continue
		}
		if n > 0 {
			b = append(b, "\r\n"...)
		}
		n++
		if sec.ks != nil {
			b = sec.ks(s, st, b)
		} else {
			b = sec.fn(s, b)
		}
	}
	return b
}

func infoLine(b []byte, key, val string) []byte {
	b = append(b, key...)
	b = append(b, ':')
	b = append(b, val...)
	return append(b, "\r\n"...)
}

func infoInt(b []byte, key string, v int64) []byte {
	b = append(b, key...)
	b = append(b, ':')
	b = strconv.AppendInt(b, v, 10)
	return append(b, "\r\n"...)
}

var runID = func() string {
	var r [20]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}()

func (s *Server) infoServer(b []byte) []byte {
	now := time.Now()
	up := int64(now.Sub(s.start) / time.Second)
	exe, _ := os.Executable()
	b = append(b, "# Server\r\n"...)
	b = infoLine(b, "redis_version", redisVersion)
	b = infoLine(b, "loopkv_version", Version)
	b = infoLine(b, "redis_git_sha1", "00000000")
	b = infoLine(b, "redis_git_dirty", "0")
	b = infoLine(b, "redis_build_id", "0")
	b = infoLine(b, "redis_mode", "standalone")
	b = infoLine(b, "os", osName())
	b = infoInt(b, "arch_bits", strconv.IntSize)
	b = infoLine(b, "multiplexing_api", "epoll")
	b = infoLine(b, "go_version", runtime.Version())
	b = infoInt(b, "process_id", int64(pid()))
	b = infoLine(b, "process_supervised", "no")
	b = infoLine(b, "run_id", runID)
	b = infoInt(b, "tcp_port", int64(s.opts.Port))
	b = infoInt(b, "server_time_usec", now.UnixMicro())
	b = infoInt(b, "uptime_in_seconds", up)
	b = infoInt(b, "uptime_in_days", up/86400)
	b = infoLine(b, "hz", "10")
	b = infoLine(b, "configured_hz", "10")
	b = infoInt(b, "io_threads_active", 0)
	b = infoInt(b, "event_loops", int64(s.opts.Loops))
	b = infoLine(b, "executable", exe)
	return infoLine(b, "config_file", s.opts.ConfigFile)
}

func (s *Server) infoClients(b []byte) []byte {
	b = append(b, "# Clients\r\n"...)
	b = infoInt(b, "connected_clients", s.connected.Load())
	b = infoInt(b, "cluster_connections", 0)
	b = infoInt(b, "maxclients", s.cfg.maxClients.Load())
	b = infoInt(b, "client_recent_max_input_buffer", 0)
	b = infoInt(b, "client_recent_max_output_buffer", 0)
	b = infoInt(b, "blocked_clients", s.blocked.n.Load()+s.paused.n.Load()) // Redis 7.0 counts the clients a pause holds
	b = infoInt(b, "total_blocking_keys", s.blocked.keys.Load())
	b = infoInt(b, "tracking_clients", s.tracking.n.Load())
	return infoInt(b, "clients_in_timeout_table", 0)
}

// memorySamples are the runtime/metrics INFO memory reports; unlike
// runtime.ReadMemStats, reading them does not stop the world.
var memorySamples = [...]string{"/memory/classes/total:bytes", "/memory/classes/heap/objects:bytes",
	"/gc/scan/heap:bytes", "/cpu/classes/gc/total:cpu-seconds", "/cpu/classes/total:cpu-seconds", "/gc/cycles/total:gc-cycles"}

func (s *Server) infoMemory(ks *store.Store, b []byte) []byte {
	st := storeStats(ks)
	used := st.used
	var samples [len(memorySamples)]metrics.Sample
	for i, name := range memorySamples {
		samples[i].Name = name
	}
	metrics.Read(samples[:])
	u := func(i int) int64 {
		if samples[i].Value.Kind() == metrics.KindUint64 {
			return int64(samples[i].Value.Uint64())
		}
		return 0
	}
	f := func(i int) float64 {
		if samples[i].Value.Kind() == metrics.KindFloat64 {
			return samples[i].Value.Float64()
		}
		return 0
	}
	total, heap := u(0), u(1)
	b = append(b, "# Memory\r\n"...)
	b = infoInt(b, "used_memory", used)
	b = infoLine(b, "used_memory_human", bytesToHuman(used))
	b = infoInt(b, "used_memory_rss", total)
	b = infoLine(b, "used_memory_rss_human", bytesToHuman(total))
	b = infoInt(b, "go_heap_objects", heap)
	b = infoInt(b, "keyspace_arena_bytes", st.arena)
	b = infoInt(b, "go_gc_scan_heap_bytes", u(2))
	b = infoInt(b, "go_gc_cycles", u(5))
	b = infoLine(b, "go_gc_cpu_seconds", strconv.FormatFloat(f(3), 'f', 6, 64))
	b = infoLine(b, "go_total_cpu_seconds", strconv.FormatFloat(f(4), 'f', 6, 64))
	maxMem := s.cfg.mem.maxMemory.Load()
	b = infoInt(b, "maxmemory", maxMem)
	b = infoLine(b, "maxmemory_human", bytesToHuman(maxMem))
	b = infoLine(b, "maxmemory_policy", s.cfg.mem.policyName())
	return infoLine(b, "mem_allocator", "go")
}

func (s *Server) infoPersistence(b []byte) []byte {
	b = append(b, "# Persistence\r\n"...)
	b = s.infoRDB(b)        // persist.go
	b = s.infoAOF(b)        // aof.go
	return s.infoLoading(b) // persist_load.go
}

func (s *Server) infoStats(ks *store.Store, b []byte) []byte {
	st := storeStats(ks)
	if base := s.stats.resetStore.Load(); base != nil { // CONFIG RESETSTAT
		st.expired, st.evicted, st.hits, st.misses = st.expired-base.expired, st.evicted-base.evicted,
			st.hits-base.hits, st.misses-base.misses
	}
	b = append(b, "# Stats\r\n"...)
	b = infoInt(b, "total_connections_received", s.stats.totalConns.Load())
	b = infoInt(b, "total_commands_processed", s.totalCommands())
	b = infoInt(b, "instantaneous_ops_per_sec", s.stats.opsPerSec.Load())
	b = infoInt(b, "total_net_input_bytes", 0)
	b = infoInt(b, "total_net_output_bytes", 0)
	b = infoInt(b, "rejected_connections", s.stats.rejectedConns.Load())
	b = infoInt(b, "expired_keys", st.expired)
	b = infoInt(b, "evicted_keys", st.evicted)
	b = infoInt(b, "keyspace_hits", st.hits)
	b = infoInt(b, "keyspace_misses", st.misses)
	b = s.acl.appendInfoStats(b)
	b = infoInt(b, "pubsub_channels", s.pubsub.size(kindChannel))
	b = infoInt(b, "pubsub_patterns", s.pubsub.patterns.Load())
	b = infoInt(b, "pubsubshard_channels", s.pubsub.size(kindShard))
	keys, items, prefixes := s.tracking.sizes()
	b = infoInt(b, "tracking_total_keys", keys)
	b = infoInt(b, "tracking_total_items", items)
	b = infoInt(b, "tracking_total_prefixes", prefixes)
	return infoInt(b, "total_error_replies", s.totalErrors())
}

func (s *Server) infoReplication(b []byte) []byte {
	b = append(b, "# Replication\r\n"...)
	b = infoLine(b, "role", "master")
	b = infoInt(b, "connected_slaves", 0)
	b = infoLine(b, "master_replid", runID)
	return infoInt(b, "master_repl_offset", 0)
}

func (s *Server) infoCPU(b []byte) []byte {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b = append(b, "# CPU\r\n"...)
	b = infoLine(b, "used_cpu_sys", tvString(ru.Stime))
	return infoLine(b, "used_cpu_user", tvString(ru.Utime))
}

func tvString(tv syscall.Timeval) string {
	return strconv.FormatFloat(float64(tv.Sec)+float64(tv.Usec)/1e6, 'f', 6, 64)
}

func (s *Server) infoCluster(b []byte) []byte {
	b = append(b, "# Cluster\r\n"...)
	return infoInt(b, "cluster_enabled", 0)
}

// infoKeyspace lists each non-empty database as dbN:keys=..,expires=..,avg_ttl=..
func (s *Server) infoKeyspace(ks *store.Store, b []byte) []byte {
	b = append(b, "# Keyspace\r\n"...)
	for db, d := range storeStats(ks).dbs {
		if d.keys == 0 {
			continue
		}
		b = append(b, "db"...)
		b = strconv.AppendInt(b, int64(db), 10)
		b = append(b, ":keys="...)
		b = strconv.AppendInt(b, int64(d.keys), 10)
		b = append(b, ",expires="...)
		b = strconv.AppendInt(b, int64(d.expires), 10)
		b = append(b, ",avg_ttl="...)
		b = strconv.AppendInt(b, d.avgTTL, 10)
		b = append(b, "\r\n"...)
	}
	return b
}

// bytesToHuman formats n as Redis's bytesToHuman: 1023B, 1.00K, 2.50M ...
func bytesToHuman(n int64) string {
	units := []string{"K", "M", "G", "T", "P"}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	f := float64(n)
	for _, u := range units {
		f /= 1024
		if f < 1024 || u == "P" {
			return strconv.FormatFloat(f, 'f', 2, 64) + u
		}
	}
	return ""
}

// osName is INFO's os field, "Linux 6.1.0-18-amd64 x86_64" as Redis prints
// uname's sysname, release and machine; unix.Uname serves every unix GOOS.
func osName() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return runtime.GOOS
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:]) + " " +
		unix.ByteSliceToString(u.Machine[:])
}

func pid() int { return os.Getpid() }
