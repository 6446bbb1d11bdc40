package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/store"
)

// Version is loopkv's version; INFO also reports the Redis version whose
// behaviour it follows.
const (
	Version      = "0.1.0"
	redisVersion = "7.0.15"
)

// Server is a loopkv server: the shared state of every loop. A Server built
// as a bare &Server{store: st} initialises the rest on first use.
type Server struct {
	store *store.Store

	once  sync.Once
	opts  Options // with defaults, after setup
	cfg   liveConfig
	log   *zap.Logger
	h     handler
	start time.Time
	ready chan struct{} // listening, with the start-up load done
	done  chan struct{}
	// the start-up load (persist_load.go): listening is closed once the
	// transport accepts, loaded once the load ended; loadErr is its error
	listening, loaded chan struct{}
	loadErr           error

	tr       transport
	trMu     sync.Mutex
	stopOnce sync.Once

	tls    *tlsState // nil without a TLS port (tls.go)
	tlsErr error     // loading the TLS files failed; Serve returns it

	clients   registry
	laddrs    laddrCache   // the local addresses' strings, shared by their connections (conn.go)
	blocked   blockTable   // clients blocked in BLPOP and the like (blocking.go)
	paused    pauseState   // CLIENT PAUSE (pause.go)
	watches   watchTable   // clients' WATCHed keys (multi.go)
	pubsub    pubsubTable  // subscribers by channel (pubsub.go)
	tracking  trackTable   // client-side caching (tracking.go)
	notifyCfg notifyConfig // notify-keyspace-events (notify.go)
	dirty     atomic.Int64 // changes since the last save, Redis's server.dirty (notify.go)
	bg        bgJournal    // the journal of active expiry and background eviction (notify.go)
	acl       *aclState    // users and permissions; the default user reflects requirepass
	nextID    atomic.Uint64
	connected atomic.Int64
	stats     serverStats

	loopsMu sync.Mutex
	loops   []*loopState

	// observability (stats.go, slowlog.go)
	bare        loopStats // counters of clients without a loop (tests, bare servers)
	otherErrs   otherErrs
	slowlog     slowlog
	latency     latencyMonitor
	monitors    monitorList            // monitor.go
	prop        propagator             // the change stream (propagate.go)
	aof         aofState               // the append-only file (aof.go)
	metricsAddr atomic.Pointer[string] // the metrics listener, once Serve runs; "" when off
	obsErr      error                  // an observability setting was refused; Serve returns it

	persist    persistState // saves and their state (persist.go)
	persistErr error        // a persistence setting was refused; Serve returns it

	debug debugState // DEBUG's switches (cmd_debug.go)
}

// serverStats are INFO's counters that are not per loop.
type serverStats struct {
	totalConns    atomic.Int64
	rejectedConns atomic.Int64
	resetCommands atomic.Int64 // commands counted before CONFIG RESETSTAT
	// resetStore is the store's expired, evicted, hit and miss counts at
	// the last CONFIG RESETSTAT, which INFO subtracts; nil before one.
	resetStore atomic.Pointer[keyspaceStats]
	opsPerSec  atomic.Int64 // sampled once a second by the ticker
	lastOps    int64        // ticker goroutine only
	lastOpsAt  time.Time    // ticker goroutine only
}

// New returns a Server configured by opts; Serve starts it.
func New(opts Options) *Server {
	s := &Server{opts: opts, store: opts.Store}
	s.lazy()
	return s
}

// lazy initialises everything a Server needs beyond its store.
func (s *Server) lazy() { s.once.Do(s.setup) }

func (s *Server) setup() {
	s.opts = s.opts.withDefaults()
	s.cfg.load(s.opts)
	setNotifyFlags(s, s.opts.NotifyKeyspaceEvents) // notify.go; cmd/loopkv checked the letters
	s.tracking.maxKeys.Store(1000000)
	s.bare = newLoopStats()
	s.obsErr = s.cfg.obs.load(s, s.opts)
	s.persistErr = s.cfg.persist.load(s, s.opts.Persist) // persist.go
	if s.persistErr == nil {
		s.persistErr = s.cfg.aof.load(s, s.opts.AOF) // aof.go
	}
	s.log = s.opts.Logger
	if s.store == nil {
		s.store = store.New(store.Options{Databases: s.opts.Databases})
	}
	if s.opts.Limits != nil {
		s.store.SetLimits(*s.opts.Limits)
	}
	s.applyLFU() // maxmemory.go
	s.acl = newACLState(s.opts.RequirePass)
	if err := s.loadConfigUsers(); err != nil && s.obsErr == nil {
		s.obsErr = err // acl_file.go; Serve returns it
	}
	if s.opts.TLS.Port != 0 {
		s.tls, s.tlsErr = newTLSState(s.opts.TLS, s.log)
	}
	if err := s.applyConfig(); err != nil && s.obsErr == nil {
		s.obsErr = err
	}
	s.h.s = s
	s.start = time.Now()
	s.persist.lastSave.Store(s.start.Unix()) // LASTSAVE before any save, as Redis
	s.persist.lastBgSec.Store(-1)
	s.ready = make(chan struct{})
	s.done = make(chan struct{})
	s.listening = make(chan struct{})
	s.loaded = make(chan struct{})
}

// Addr is the plaintext address the server listens on; "" when Port is
// negative (TLS only).
func (s *Server) Addr() string {
	s.lazy()
	if s.opts.Port < 0 {
		return ""
	}
	return net.JoinHostPort(s.opts.Bind, strconv.Itoa(s.opts.Port))
}

// TLSAddr is the TLS address the server listens on; "" without TLS.
func (s *Server) TLSAddr() string {
	s.lazy()
	if s.opts.TLS.Port == 0 {
		return ""
	}
	return net.JoinHostPort(s.opts.Bind, strconv.Itoa(s.opts.TLS.Port))
}

// MetricsAddr is the address of the Prometheus endpoint (Options.MetricsPort)
// once the server is ready; "" when it is off.
func (s *Server) MetricsAddr() string {
	if p := s.metricsAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// Ready is closed once the server accepts connections.
func (s *Server) Ready() <-chan struct{} {
	s.lazy()
	return s.ready
}

// Listening is closed once the server listens, before its start-up load
// ends (Ready): clients meanwhile get -LOADING.
func (s *Server) Listening() <-chan struct{} {
	s.lazy()
	return s.listening
}

// Serve listens and runs the loops until Stop, SHUTDOWN or a listen
// error; it returns nil after a graceful stop.
func (s *Server) Serve() error {
	s.lazy()
	if s.opts.ACLFile != "" {
		if err := s.acl.setFile(s.opts.ACLFile); err != nil {
			return err
		}
	}
	s.trMu.Lock()
	if s.tr != nil {
		s.trMu.Unlock()
		return ErrServerClosed
	}
	if s.tlsErr != nil || s.obsErr != nil || s.persistErr != nil || s.Addr() == "" && s.tls == nil {
		s.trMu.Unlock()
		if s.tlsErr != nil {
			return s.tlsErr
		}
		if s.obsErr != nil {
			return s.obsErr
		}
		if s.persistErr != nil {
			return s.persistErr
		}
		return errors.New("server: no listener: the port is disabled and TLS is off")
	}
	var tr transport
	switch s.opts.Engine {
	case "gnet":
		tr = &gnetTransport{tlsAddr: s.TLSAddr()}
	case "netpoll":
		tr = &netpollTransport{tlsAddr: s.TLSAddr()}
	default:
		s.trMu.Unlock()
		return fmt.Errorf("server: unknown engine %q (want gnet or netpoll)", s.opts.Engine)
	}
	s.tr = tr
	s.trMu.Unlock()
	defer close(s.done)
	defer s.tls.close()
	defer s.closeAOF()
	// the load runs once the loops listen (persist_load.go): meanwhile they
	// answer -LOADING; with nothing to load they never do
	s.markLoading(s.cfg.aof.want.Load() || s.opts.Persist.LoadOnStart)
	maddr, stopMetrics, err := s.startMetrics() // metrics.go
	if err != nil {
		return err
	}
	defer stopMetrics()
	s.metricsAddr.Store(&maddr)
	s.log.Info("loopkv starting",
		zap.String("addr", s.Addr()), zap.String("tls_addr", s.TLSAddr()), zap.Int("loops", s.opts.Loops), zap.String("engine", s.opts.Engine),
		zap.String("version", Version), zap.Int("pid", pid()))
	var once sync.Once
	err = tr.serve(&s.h, s.Addr(), s.opts.Loops, s.log, func() {
		once.Do(func() {
			close(s.listening)
			go s.loadData()
		})
	})
	select {
	case <-s.listening:
		<-s.loaded // the loader has the AOF; closeAOF comes after it
		if err == nil && s.loadErr != nil {
			return s.loadErr
		}
	default:
		s.persist.loading.Store(false)
	}
	if err != nil {
		s.log.Error("server stopped", zap.Error(err))
		return err
	}
	s.log.Info("server stopped")
	return nil
}

// Stop stops accepting, closes every connection once its queued replies
// are flushed, and waits until Serve returns or ctx ends.
func (s *Server) Stop(ctx context.Context) error {
	s.lazy()
	s.persist.progress.stop.Store(true) // a load running gives up (persist_load.go)
	s.trMu.Lock()
	tr := s.tr
	s.trMu.Unlock()
	if tr == nil {
		return nil
	}
	select {
	case <-s.done:
		return nil
	default:
	}
	select {
	case <-s.listening:
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	var err error
	s.stopOnce.Do(func() { err = tr.stop(ctx) })
	select {
	case <-s.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// requestShutdown stops the server from a command handler without
// blocking the loop.
func (s *Server) requestShutdown() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	}()
}

// Run serves with opts until ctx ends (then stops gracefully) or a client
// sends SHUTDOWN.
func Run(ctx context.Context, opts Options) error { return New(opts).Run(ctx, nil) }

// Run serves until ctx ends, then stops gracefully within 10 seconds, or
// until a client sends SHUTDOWN. ready, when not nil, is called once the
// server accepts connections.
func (s *Server) Run(ctx context.Context, ready func()) error {
	errc := make(chan error, 1)
	go func() { errc <- s.Serve() }()
	select {
	case err := <-errc:
		return err
	case <-s.Ready():
		if ready != nil {
			ready()
		}
	case <-ctx.Done():
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Stop(sctx); err != nil {
		return err
	}
	return <-errc
}

func (s *Server) loopSnapshot() []*loopState {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	return slices.Clone(s.loops)
}

// totalCommands is total_commands_processed.
func (s *Server) totalCommands() int64 {
	var n int64
	for _, ls := range s.loopSnapshot() {
		n += ls.commands.Load()
	}
	return n - s.stats.resetCommands.Load()
}

func sortByID(all []*connState) {
	slices.SortFunc(all, func(a, b *connState) int {
		switch {
		case a.cl.id < b.cl.id:
			return -1
		case a.cl.id > b.cl.id:
			return 1
		}
		return 0
	})
}
