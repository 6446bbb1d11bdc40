package server

import (
	"errors"
	"net"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/tlsengine"
)

// TLS connections (see doc.go for the callback order). A connection
// accepted on the TLS port gets a *tlsConn at open: a tlsengine.Engine
// built from the server's current *tlsengine.Config (swapped atomically by
// a reload) and nothing else. onData steps the engine on the ciphertext the
// transport holds, opening records in place (or behind cs.pending), runs
// the commands there, and seals the replies in place in ls.out behind a
// header reserved before the batch, one record per MaxPlaintext bytes.
// Handshake output, tickets and alerts go into the same ls.out, so a
// callback still makes one write. Costly signatures and client chain
// checks go to a bounded worker pool (tls_worker.go) and the handshake
// resumes on the owning loop after the worker wakes the connection.

// TLSOptions configures the TLS listener; the zero value disables it.
// Setting names are Redis's (tls-port, tls-cert-file, ...).
type TLSOptions struct {
	// Port is tls-port; 0 disables TLS.
	Port int
	// CertFiles and KeyFiles are tls-cert-file and tls-key-file, as pairs:
	// the first pair is the default certificate, the others are chosen by
	// SNI (exact name, then wildcard) when a client names them.
	CertFiles, KeyFiles []string
	// KeyFilePass is tls-key-file-pass: the password of a legacy
	// encrypted PEM key ("Proc-Type: 4,ENCRYPTED"). Encrypted PKCS #8 keys
	// ("ENCRYPTED PRIVATE KEY") are not supported.
	KeyFilePass string
	// CACertFile and CACertDir (tls-ca-cert-file, tls-ca-cert-dir) hold the
	// CAs that client certificates must chain to.
	CACertFile, CACertDir string
	// AuthClients is tls-auth-clients: "no", "optional" or "yes". The
	// default is "yes" when a CA is configured (Redis's default) and "no"
	// otherwise (where Redis would refuse to start).
	AuthClients string
	// Protocols is tls-protocols, e.g. "TLSv1.2 TLSv1.3" (the default).
	Protocols string
	// Ciphersuites is tls-ciphersuites, TLS 1.3 suites in OpenSSL's names
	// separated by colons; "" means all three.
	Ciphersuites string
	// Ciphers is tls-ciphers, TLS 1.2 suites in OpenSSL's names separated
	// by colons; "" or "DEFAULT" means all six ECDHE AEAD suites.
	Ciphers string
	// Groups is tls-groups: key exchange groups (X25519MLKEM768, X25519,
	// P-256, P-384, P-521; OpenSSL aliases accepted) separated by colons;
	// "" means all, in that order. x448 and the FFDHE groups are not
	// supported.
	Groups string
	// SessionCaching is tls-session-caching: "yes" (default) issues
	// stateless session tickets; "no" issues none.
	SessionCaching string
	// SessionCacheTimeout is tls-session-cache-timeout in seconds, the
	// ticket lifetime; default 300.
	SessionCacheTimeout int
	// HandshakeTimeout is tls-handshake-timeout in seconds: a connection
	// still handshaking after it is closed. Default 10.
	HandshakeTimeout int
	// MaxHandshakes is tls-max-handshakes: connections allowed to be
	// handshaking at once across the server; more are refused at accept
	// with an internal_error alert. Default 1024.
	MaxHandshakes int
	// Workers is the size of the pool that makes RSA signatures and
	// checks client chains; default runtime.NumCPU(). -1 does that work
	// inline on the loop (tests).
	Workers int
	// WorkerQueue bounds the jobs waiting for a worker; a handshake that
	// finds it full is refused with internal_error. Default 256.
	WorkerQueue int
	// AutoReloadInterval is Valkey's tls-auto-reload-interval: seconds
	// between checks of the certificate, key and CA files, which are
	// reloaded when they change (tls_autoreload.go); 0 (the default)
	// never checks.
	AutoReloadInterval int
	// AuthClientsUser is Valkey's tls-auth-clients-user: "CN" makes a
	// client whose certificate verified the ACL user named by its common
	// name (when that user exists and is on), with no AUTH; "URI" the
	// user named by the first of its URI subject alternative names that
	// names one (spiffe://example.org/app as a whole); "off" (the
	// default) leaves it to AUTH.
	AuthClientsUser string
	// Config, when set, is used as is instead of the files (tests,
	// in-process benchmarks); reloads then keep it.
	Config *tlsengine.Config
}

// Defaults of TLSOptions.
const (
	defaultTLSHandshakeTimeout = 10
	defaultTLSMaxHandshakes    = 1024
	defaultTLSWorkerQueue      = 256
	defaultTLSSessionTimeout   = 300
	defaultTLSProtocols        = "TLSv1.2 TLSv1.3"
)

func (o TLSOptions) withDefaults() TLSOptions {
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = defaultTLSHandshakeTimeout
	}
	if o.MaxHandshakes <= 0 {
		o.MaxHandshakes = defaultTLSMaxHandshakes
	}
	if o.WorkerQueue <= 0 {
		o.WorkerQueue = defaultTLSWorkerQueue
	}
	if o.SessionCacheTimeout <= 0 {
		o.SessionCacheTimeout = defaultTLSSessionTimeout
	}
	if o.SessionCaching == "" {
		o.SessionCaching = "yes"
	}
	if o.Protocols == "" {
		o.Protocols = defaultTLSProtocols
	}
	if o.AuthClients == "" {
		o.AuthClients = "no"
		if o.CACertFile != "" || o.CACertDir != "" {
			o.AuthClients = "yes"
		}
	}
	return o
}

// tlsState is the server's TLS side, nil when TLS is off.
type tlsState struct {
	// immutable after newTLSState
	port    int
	pool    *tlsPool // nil: inline
	tickets *tlsengine.TicketKeys
	log     *zap.Logger

	// swapped by reloads; every new connection loads it once
	cfg atomic.Pointer[tlsengine.Config]

	// settings as CONFIG GET reports them; reloads read them
	mu        sync.Mutex
	opts      TLSOptions
	reloadDue bool       // a CONFIG SET reload is scheduled
	reloadMu  sync.Mutex // serialises reloads
	lastErr   atomic.Pointer[string]

	// limits CONFIG SET may change
	handshakeTimeout atomic.Int64 // seconds
	maxHandshakes    atomic.Int64
	userFrom         atomic.Uint32 // tls-auth-clients-user: userFromOff, userFromCN or userFromURI

	stats tlsStats
	logRL rateLimit

	quit      chan struct{} // closed by close: stops rotateTickets
	closeOnce sync.Once
}

// tlsStats are INFO's tls section; read from any goroutine.
type tlsStats struct {
	conns       atomic.Int64 // open TLS connections
	inFlight    atomic.Int64 // connections still handshaking
	completed   atomic.Int64
	failed      atomic.Int64
	resumed     atomic.Int64
	timeouts    atomic.Int64 // handshakes closed by tls-handshake-timeout
	refused     atomic.Int64 // connections refused by tls-max-handshakes or a full worker queue
	clientCerts atomic.Int64 // handshakes that verified a client certificate
	reloads     atomic.Int64
	reloadFails atomic.Int64
	idleShed    atomic.Int64      // cumulative: idle connections whose AEADs sweepTLS dropped
	shedBytes   atomic.Int64      // cumulative: the heap those AEADs held (shedBytes)
	byAlert     [256]atomic.Int64 // failures by the alert sent or received

	// ticker goroutine only (collectShed)
	shedCollected int64     // shedBytes at the last collection
	lastCollect   time.Time // of the last collection
	heapLive      [1]metrics.Sample
}

// newTLSState loads the certificates and starts the worker pool; it is
// called once by setup when Options.TLS.Port is set.
func newTLSState(o TLSOptions, log *zap.Logger) (*tlsState, error) {
	o = o.withDefaults()
	t := &tlsState{port: o.Port, opts: o, log: log}
	t.handshakeTimeout.Store(int64(o.HandshakeTimeout))
	t.maxHandshakes.Store(int64(o.MaxHandshakes))
	mode, ok := parseUserFrom(o.AuthClientsUser)
	if !ok {
		return nil, errors.New("server: tls-auth-clients-user must be CN, URI or off: " + o.AuthClientsUser)
	}
	t.userFrom.Store(mode)
	if o.Workers >= 0 {
		t.pool = newTLSPool(o.Workers, o.WorkerQueue)
	}
	tk, err := tlsengine.NewTicketKeys(randReader)
	if err != nil {
		return nil, err
	}
	t.tickets = tk
	cfg, err := t.build(o)
	if err != nil {
		return nil, err
	}
	t.cfg.Store(cfg)
	t.quit = make(chan struct{})
	go t.rotateTickets()
	go t.autoReload() // tls_autoreload.go
	return t, nil
}

// ticketKeysKept is how many ticket keys open tickets (tlsengine keeps the
// current one and two previous ones).
const ticketKeysKept = 3

// rotateTickets draws a new session ticket key every lifetime/3, so that a
// ticket outlives its key only once it has expired too. It runs on its own
// goroutine, which sleeps between rotations, until close.
func (t *tlsState) rotateTickets() {
	for {
		every := time.Duration(t.options().SessionCacheTimeout) * time.Second / ticketKeysKept
		select {
		case <-t.quit:
			return
		case <-time.After(max(every, time.Second)):
			if err := t.tickets.Rotate(randReader); err != nil {
				t.log.Error("tls ticket key rotation failed", zap.Error(err))
			}
		}
	}
}

// close stops the worker pool, the ticket key rotation and the file checks.
func (t *tlsState) close() {
	if t == nil {
		return
	}
	t.closeOnce.Do(func() { close(t.quit) })
	if t.pool != nil {
		t.pool.close()
	}
}

// isTLSAddr reports whether a connection accepted on local address a came
// through the TLS listener.
func (t *tlsState) isTLSAddr(a net.Addr) bool {
	if t == nil {
		return false
	}
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.Port == t.port
	}
	return false
}

// tlsConn is the TLS side of one connection. owning loop only, except job.
type tlsConn struct {
	eng         *tlsengine.Engine
	job         *tlsJob       // a signature or chain check on a worker; nil when none
	opened      time.Duration // since clockStart (monotonic): for the handshake timeout
	lingerUntil time.Duration // since clockStart: lingering ends at the first sweep after it
	lingered    int32         // bytes discarded while lingering; <= tlsLingerBytes
	established bool          // the handshake completed (counted once)
	inFlight    bool          // counted in tlsStats.inFlight
	refuse      bool          // over maxclients: rejectMaxClients is sent after the handshake instead of serving
	linger      lingerStep
}

// Lingering close after a fatal alert. Closing a socket whose peer is still
// sending makes the kernel reset the connection, and a peer that is reset
// drops the alert unread (a 128 KiB Finished refused at its header). So
// once the alert is written the connection shuts down its write side (the
// peer reads the alert, then end of file) and discards what still arrives
// until the peer closes, tlsLingerBytes arrived or tlsLinger passed (the
// once-a-second sweep closes it: 1 to 2 s). The engine and the handshake
// slot are given back at once.
type lingerStep uint8

const (
	lingerNone   lingerStep = iota
	lingerQueued            // the alert is in ls.out: shut the write side after the flush
	lingering               // write side shut; input discarded

	tlsLinger      = time.Second
	tlsLingerBytes = 1 << 20
)

// tlsLoop is a loop's TLS scratch. owning loop only.
type tlsLoop struct {
	spill []byte   // replies past the first record of a batch, sealed from here
	free  [][]byte // released cs.pending buffers of tlsPendingSize, reused; <= tlsPendingFree
}

// getPending returns an empty buffer for a command cut across records.
func (l *tlsLoop) getPending() []byte {
	if n := len(l.free); n > 0 {
		b := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return b[:0]
	}
	return make([]byte, 0, tlsPendingSize)
}

// putPending keeps a released pending buffer of the standard size for reuse.
func (l *tlsLoop) putPending(b []byte) {
	if cap(b) == tlsPendingSize && len(l.free) < tlsPendingFree {
		l.free = append(l.free, b[:0])
	}
}

// Sizes of the TLS scratch.
const (
	tlsRecordRoom  = 16<<10 + 256
	tlsPendingSize = 2*tlsRecordRoom + 1<<10 // capacity of a pooled cs.pending: a command cut across two records
	tlsPendingFree = 64                      // pooled pending buffers per loop
	// tlsHandshakeInputLimit bounds the bytes a client may leave unread
	// while its handshake waits (on a worker, or for the rest of a
	// message): a client Certificate is at most 256 KiB.
	tlsHandshakeInputLimit = 1 << 20
)

// openTLS gives a connection accepted on the TLS port its engine, or
// returns the bytes to send before refusing it. owning loop only.
func (h *handler) openTLS(cs *connState) []byte {
	t := h.s.tls
	if t.stats.inFlight.Add(1) > t.maxHandshakes.Load() {
		t.stats.inFlight.Add(-1)
		t.stats.refused.Add(1)
		t.stats.failed.Add(1)
		t.stats.byAlert[tlsengine.AlertInternalError].Add(1)
		t.logFailure(cs.addr, "too many handshakes in flight", tlsengine.AlertInternalError)
		return alertInternalError
	}
	t.stats.conns.Add(1)
	cs.tls = &tlsConn{eng: tlsengine.NewEngine(t.cfg.Load()), inFlight: true, opened: time.Since(clockStart)}
	return nil
}

// errHandshakeInput closes a client that sends too much before its
// handshake completes.
var errHandshakeInput = errors.New("server: too much input before the TLS handshake completed")

// alertInternalError is a plaintext fatal internal_error alert record, sent
// to a connection refused before its handshake starts.
var alertInternalError = alertRecord(tlsengine.AlertInternalError)

// alertRecord is a plaintext fatal alert record.
func alertRecord(a tlsengine.Alert) []byte { return []byte{21, 3, 3, 0, 2, 2, byte(a)} }

// rejectAs returns what to send a connection refused at accept: the Redis
// error text on the plaintext port, a fatal alert a on the TLS port (a
// TLS client cannot read plaintext). t may be nil.
func (t *tlsState) rejectAs(tc transportConn, plain []byte, a tlsengine.Alert) []byte {
	if !t.isTLSAddr(tc.LocalAddr()) {
		return plain
	}
	t.stats.refused.Add(1)
	return alertRecord(a)
}

// closeTLS releases a connection's engine and settles its counters.
// owning loop only.
func (h *handler) closeTLS(cs *connState) {
	tc := cs.tls
	if tc == nil {
		return
	}
	t := h.s.tls
	if tc.inFlight {
		tc.inFlight = false
		t.stats.inFlight.Add(-1)
	}
	t.stats.conns.Add(-1)
	if tc.job != nil {
		tc.job.abandoned.Store(true)
		tc.job = nil
	}
	tc.eng.Release()
	cs.ls.tls.putPending(cs.pending)
	cs.pending = nil
}

// onDataTLS steps the engine on in (ciphertext), runs the commands of the
// opened records and seals their replies into ls.out. It returns the
// ciphertext consumed and whether to close after the write. owning loop
// only.
func (h *handler) onDataTLS(cs *connState, ls *loopState, in []byte) (int, bool) {
	tc := cs.tls
	e := tc.eng
	if tc.linger != lingerNone {
		tc.lingered += int32(min(len(in), tlsLingerBytes+1))
		return len(in), tc.lingered > tlsLingerBytes
	}
	if tc.job != nil {
		if !tc.job.done.Load() {
			return 0, h.tlsOverLimit(cs, len(in))
		}
		h.finishJob(cs)
	}
	consumed, closeAfter := 0, false
	out := ls.out // empty, or the replies onData released (aof_hold.go)
	if tc.established {
		out = h.deliverPending(cs, ls, out) // outbox.go
	}
	for {
		// Without a pending command the records are opened in place: the
		// plaintext is compacted to the front of in[consumed:] and the
		// commands run there. Behind a pending command they are appended
		// to it (Read stops when it is full: StatusHasPlaintext).
		var dst []byte
		if cs.pending != nil {
			cs.pending = growPending(&ls.tls, cs.pending)
			dst = cs.pending
		}
		n, p, err := e.Read(in[consumed:], dst)
		consumed += n
		if cs.pending != nil {
			cs.pending = p
		}
		st := e.Status()
		out = e.AppendOutput(out)
		if err != nil {
			h.tlsFailed(cs, err)
			if h.startLinger(cs, err) {
				ls.out = out
				return len(in), false
			}
			closeAfter = true
			break
		}
		if st&tlsengine.StatusHandshakeDone != 0 && !tc.established {
			if reject := h.tlsEstablished(cs); reject != nil {
				out = h.denyTLS(cs, ls, out, reject) // commands already read never run
				closeAfter = true
				break
			}
		}
		if len(p) > 0 {
			var stop bool
			out, closeAfter, stop = h.runTLSBatch(cs, ls, p, out)
			if closeAfter { // QUIT, a protocol error: end the TLS session cleanly
				e.CloseNotify()
				out = e.AppendOutput(out)
			}
			if stop {
				break
			}
		}
		if st&(tlsengine.StatusWantSign|tlsengine.StatusWantVerify) != 0 {
			if !h.startJob(cs, ls, st) {
				out = e.AppendOutput(out) // the internal_error alert
				closeAfter = true
			} else if tc.job == nil { // done inline: go on stepping
				out = e.AppendOutput(out)
				continue
			}
			break
		}
		if st&tlsengine.StatusPeerClosed != 0 {
			e.CloseNotify()
			out = e.AppendOutput(out)
			closeAfter = true
			break
		}
		if st&tlsengine.StatusHasPlaintext == 0 {
			break
		}
	}
	ls.out = out
	if closeAfter {
		return consumed, true
	}
	return consumed, h.tlsOverLimit(cs, len(in)-consumed)
}

// startLinger begins a lingering close after err, when it sent an alert
// and the connection is a socket; it reports whether it did. owning loop
// only.
func (h *handler) startLinger(cs *connState, err error) bool {
	ae, ok := err.(*tlsengine.AlertError)
	if !ok || ae.Received || cs.tc.Fd() < 0 {
		return false
	}
	tc := cs.tls
	tc.linger, tc.lingerUntil = lingerQueued, time.Since(clockStart)+tlsLinger
	if tc.inFlight {
		tc.inFlight = false
		h.s.tls.stats.inFlight.Add(-1)
	}
	tc.eng.Release()
	return true
}

// writeShutter is a transportConn whose Write hands bytes to the kernel
// before returning (gnet), so that its write side can be shut right after.
type writeShutter interface {
	// shutWrite shuts the write side (shutdown(2), SHUT_WR); it fails
	// when output is still queued.
	shutWrite() error
}

// lingerFlushed shuts the write side of a connection whose alert flush
// just wrote, where the transport allows (netpoll writes after the flush
// returns: its connection only drains); it reports whether to close
// instead. owning loop only.
func (h *handler) lingerFlushed(cs *connState) bool {
	cs.tls.linger = lingering
	if ws, ok := cs.tc.(writeShutter); ok {
		return ws.shutWrite() != nil
	}
	return false
}

// runTLSBatch runs the commands in p (opened plaintext: in place in the
// transport's bytes, or cs.pending) with their replies sealed into out, and keeps an
// incomplete trailing command in cs.pending. stop reports that stepping
// must not go on: the connection closes (closeAfter), or the batch stopped
// at batchOutLimit (cs.needWake) with commands left in cs.pending.
func (h *handler) runTLSBatch(cs *connState, ls *loopState, p, out []byte) (_ []byte, closeAfter, stop bool) {
	e := cs.tls.eng
	out, hdr := e.BeginRecord(out)
	start := len(out)
	n, out, closeAfter := h.runBatch(cs, ls, p, out)
	out = h.sealReplies(cs, ls, out, hdr, start)
	rest := p[n:]
	switch {
	case len(rest) == 0:
		ls.tls.putPending(cs.pending) // an idle connection keeps no buffer
		cs.pending = nil
	case cs.pending != nil: // p is cs.pending: shift the rest down
		cs.pending = cs.pending[:copy(cs.pending, rest)]
	case len(rest) <= tlsPendingSize-tlsRecordRoom:
		cs.pending = append(ls.tls.getPending(), rest...)
	default:
		cs.pending = append(make([]byte, 0, len(rest)+tlsRecordRoom), rest...)
	}
	return out, closeAfter, closeAfter || cs.needWake
}

// sealReplies seals the replies out[start:] into records: the first one in
// place behind the header BeginRecord reserved at hdr, the rest (replies
// past MaxPlaintext) copied from the loop's spill buffer.
func (h *handler) sealReplies(cs *connState, ls *loopState, out []byte, hdr, start int) []byte {
	e := cs.tls.eng
	body := len(out) - start
	if body == 0 {
		return out[:hdr]
	}
	max := e.MaxPlaintext()
	if body > max {
		ls.tls.spill = append(ls.tls.spill[:0], out[start+max:]...)
		out = out[:start+max]
	}
	out, err := e.SealRecord(out, hdr)
	if err == nil && body > max {
		out, err = e.AppendRecords(out, ls.tls.spill)
		if cap(ls.tls.spill) > loopOutKeep {
			ls.tls.spill = nil
		}
	}
	if err != nil {
		h.s.log.Debug("tls seal failed", zap.Uint64("conn", cs.cl.id), zap.Error(err))
	}
	return out
}

// growPending makes room for at least one more record of plaintext behind
// the command kept in p; a pooled buffer it outgrows goes back to l.
func growPending(l *tlsLoop, p []byte) []byte {
	if cap(p)-len(p) >= tlsRecordRoom {
		return p
	}
	n := make([]byte, len(p), 2*cap(p)+tlsRecordRoom)
	copy(n, p)
	l.putPending(p)
	return n
}

// tlsOverLimit applies client-query-buffer-limit to what a TLS connection
// holds unparsed: its pending plaintext, the ciphertext left in the
// transport and, while handshaking, the part of a handshake message the
// engine holds (a ClientHello may reach 128 KiB), all within
// tlsHandshakeInputLimit.
func (h *handler) tlsOverLimit(cs *connState, left int) bool {
	q := int64(left + len(cs.pending) + cs.tls.eng.Buffered())
	if q != cs.shared.qbuf.Load() {
		cs.shared.qbuf.Store(q)
	}
	if !cs.tls.established && q > tlsHandshakeInputLimit {
		h.tlsFailed(cs, errHandshakeInput)
		return true
	}
	if q > h.s.cfg.queryBufLimit.Load() {
		h.s.log.Warn("closing client that reached max query buffer length",
			zap.Uint64("conn", cs.cl.id), zap.Int64("qbuf", q))
		return true
	}
	return false
}

// tlsEstablished counts a completed handshake and returns the reply that
// refuses the client, or nil to admit it: maxclients' error for a client
// that was over the limit at accept (counted in rejected_connections
// there), protected mode's DENIED (protected.go) for one without a
// verified certificate that is not on loopback. owning loop only.
func (h *handler) tlsEstablished(cs *connState) []byte {
	tc := cs.tls
	t := h.s.tls
	tc.established = true
	if tc.inFlight {
		tc.inFlight = false
		t.stats.inFlight.Add(-1)
	}
	t.stats.completed.Add(1)
	st := tc.eng.ConnectionState()
	if st.DidResume {
		t.stats.resumed.Add(1)
	}
	if st.VerifiedLeaf != nil {
		t.stats.clientCerts.Add(1)
		subject := st.VerifiedLeaf.Subject.String()
		cs.shared.setTags(func(t *clientTags) { t.tlsSubject, t.hasSubject = subject, true })
		if u := h.s.userForCert(st.VerifiedLeaf); u != nil {
			setUser(&cs.cl, u)
			cs.cl.authed = true
		}
	}
	if ce := h.s.log.Check(zap.DebugLevel, "tls handshake done"); ce != nil {
		ce.Write(zap.Uint64("conn", cs.cl.id), zap.String("addr", cs.addr),
			zap.String("version", tlsVersionName(st.Version)), zap.Uint16("suite", st.CipherSuite),
			zap.Bool("resumed", st.DidResume))
	}
	if tc.refuse {
		return rejectMaxClients
	}
	if h.s.protectedRejects(cs.tc.RemoteAddr(), st.VerifiedLeaf != nil) {
		h.s.stats.rejectedConns.Add(1)
		return rejectProtected
	}
	return nil
}

// denyTLS appends to out what a client refused after its handshake reads:
// the reply the plaintext port sends (reject), sealed, then close_notify.
// owning loop only.
func (h *handler) denyTLS(cs *connState, ls *loopState, out, reject []byte) []byte {
	e := cs.tls.eng
	out, hdr := e.BeginRecord(out)
	start := len(out)
	out = h.sealReplies(cs, ls, append(out, reject...), hdr, start)
	e.CloseNotify()
	return e.AppendOutput(out)
}

// tlsFailed counts and logs a fatal TLS error. owning loop only.
func (h *handler) tlsFailed(cs *connState, err error) {
	t := h.s.tls
	a := tlsengine.AlertInternalError
	if ae, ok := err.(*tlsengine.AlertError); ok {
		a = ae.Alert
	}
	if !cs.tls.established {
		t.stats.failed.Add(1)
		t.stats.byAlert[a].Add(1)
		t.logFailure(cs.addr, err.Error(), a)
		return
	}
	if ce := h.s.log.Check(zap.DebugLevel, "tls connection failed"); ce != nil {
		ce.Write(zap.Uint64("conn", cs.cl.id), zap.String("addr", cs.addr), zap.Error(err))
	}
}

// Shedding idle connections' key schedules (tlsengine ReleaseIdle).
const (
	// tlsShedAfter is how long an established connection stays quiet
	// before its two AEADs (about 1.5 KB with AES-GCM, twice that in RSS at
	// GOGC=100) are dropped. One sweep period: a rebuild costs two small
	// allocations and about a microsecond on the next record, so a client
	// that speaks every second or two pays far less than one command's
	// cost, while every connection quiet for longer holds none.
	tlsShedAfter = time.Second
	// The ticker asks the runtime to collect once the AEADs shed since the
	// last collection held tlsCollectShare of the live heap, and at least
	// tlsCollectMin bytes, at most once per tlsCollectEvery; see
	// collectShed. With 10 s between collections, 10,000 connections
	// opened over 9 s still held 4.7 KiB RSS each 5 s after the last one
	// (the last collection came before the last sheds); with 2 s, 2.6–2.8
	// KiB (debug.FreeOSMemory instead: 2.2 KiB, for a heap-wide scavenge
	// under the heap lock; not worth it).
	tlsCollectShare = 16 // 1/16 of the live heap
	tlsCollectMin   = 256 << 10
	tlsCollectEvery = 2 * time.Second
	// The heap two AEADs hold, by the heap profile: AES-GCM keeps the
	// expanded key and its product table in a 768-byte object per
	// direction, ChaCha20-Poly1305 its 32-byte key in a 48-byte one.
	shedBytesGCM    = 2 * 768
	shedBytesChaCha = 2 * 48
)

// shedBytes is the heap freed by shedding the AEADs of a connection using
// suite.
func shedBytes(suite uint16) int64 {
	switch suite {
	case tlsengine.TLS_CHACHA20_POLY1305_SHA256, tlsengine.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		tlsengine.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256:
		return shedBytesChaCha
	}
	return shedBytesGCM
}

// sweepTLS closes the loop's connections still handshaking after
// tls-handshake-timeout and sheds the AEADs of established connections
// idle for tlsShedAfter. owning loop only.
func (h *handler) sweepTLS(ls *loopState, now time.Time) {
	t := h.s.tls
	limit := time.Duration(t.handshakeTimeout.Load()) * time.Second
	idleBefore := now.UnixMilli() - tlsShedAfter.Milliseconds()
	var shed, freed int64
	mono := now.Sub(clockStart)
	for _, cs := range ls.conns {
		tc := cs.tls
		if tc == nil {
			continue
		}
		if tc.linger != lingerNone {
			if mono > tc.lingerUntil && !cs.shared.killed.Swap(true) {
				cs.tc.Close()
			}
			continue
		}
		if tc.established {
			if tc.job == nil && cs.pending == nil && cs.shared.lastActive.Load() <= idleBefore && tc.eng.ReleaseIdle() {
				shed++
				freed += shedBytes(tc.eng.ConnectionState().CipherSuite)
			}
			continue
		}
		if mono-tc.opened < limit || cs.shared.killed.Swap(true) {
			continue
		}
		t.stats.timeouts.Add(1)
		t.stats.failed.Add(1)
		t.logFailure(cs.addr, "handshake timeout", tlsengine.AlertCloseNotify)
		cs.tc.Close()
	}
	if shed > 0 {
		t.stats.idleShed.Add(shed)
		t.stats.shedBytes.Add(freed)
	}
}

// collectShed runs a garbage collection once sweeps have shed AEADs that
// held 1/tlsCollectShare of the live heap (and tlsCollectMin) since the
// last one, at most once per tlsCollectEvery. ticker goroutine only.
//
// The trade-off: idle connections allocate nothing, so without it the
// freed key schedules stay counted in the heap until the runtime's forced
// collection (every 2 minutes) and RSS stays at the old heap goal until
// then. A collection costs the ticker goroutine its duration (a few ms for
// tens of MB of live heap; active expiry waits that long), a share of the
// CPU while marking and two short stop-the-world pauses on the loops. The
// trigger is the bytes freed against the live heap, not a count of
// connections: the cost of a collection grows with the live heap and what
// it gives back is the bytes shed, so a server whose heap is mostly its
// connections collects after every few hundred sheds (whatever is left
// uncollected is under 1/16 of the heap, which bounds how much an RSS
// reading depends on when the last collection ran), while one holding a
// large dataset does not collect it every 2 s for a thousand idle
// connections, and ChaCha20-Poly1305 connections, whose AEADs are 30 times
// smaller, do not count as AES-GCM ones.
func (t *tlsState) collectShed(now time.Time) {
	n := t.stats.shedBytes.Load()
	freed := n - t.stats.shedCollected
	if freed < tlsCollectMin || now.Sub(t.stats.lastCollect) < tlsCollectEvery {
		return
	}
	t.stats.heapLive[0].Name = "/gc/heap/live:bytes"
	metrics.Read(t.stats.heapLive[:])
	if v := t.stats.heapLive[0].Value; v.Kind() == metrics.KindUint64 && freed < int64(v.Uint64()/tlsCollectShare) {
		return
	}
	t.stats.shedCollected, t.stats.lastCollect = n, now
	start := time.Now()
	runtime.GC()
	if ce := t.log.Check(zap.DebugLevel, "tls: collected after shedding idle connections' keys"); ce != nil {
		ce.Write(zap.Int64("shed_bytes", freed), zap.Duration("took", time.Since(start)))
	}
}

// logFailure logs a failed handshake at most once per second, with the
// number suppressed since the last line. any goroutine.
func (t *tlsState) logFailure(addr, reason string, a tlsengine.Alert) {
	if n, ok := t.logRL.allow(time.Now()); ok {
		t.log.Warn("tls handshake failed", zap.String("addr", addr), zap.String("reason", reason),
			zap.String("alert", a.String()), zap.Int64("suppressed", n))
	}
}

// rateLimit lets one event through per second and counts the others.
type rateLimit struct {
	last       atomic.Int64 // unix second of the last event let through
	suppressed atomic.Int64
}

func (r *rateLimit) allow(now time.Time) (suppressed int64, ok bool) {
	sec := now.Unix()
	last := r.last.Load()
	if sec == last || !r.last.CompareAndSwap(last, sec) {
		r.suppressed.Add(1)
		return 0, false
	}
	return r.suppressed.Swap(0), true
}

// tlsVersionName is the version as Redis and OpenSSL name it.
func tlsVersionName(v uint16) string {
	switch v {
	case tlsengine.VersionTLS12:
		return "TLSv1.2"
	case tlsengine.VersionTLS13:
		return "TLSv1.3"
	}
	return "0x" + strconv.FormatUint(uint64(v), 16)
}
