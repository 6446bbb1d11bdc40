package server

import (
	"github.com/loopkv/loopkv/config"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loopkv/loopkv/tlsengine"
)

// CONFIG GET/SET of the TLS settings and INFO's tls section. Setting a
// file (tls-cert-file, tls-key-file, tls-key-file-pass, tls-ca-cert-file,
// tls-ca-cert-dir) or a policy (tls-auth-clients, tls-protocols,
// tls-ciphersuites, tls-ciphers, tls-groups, tls-session-caching,
// tls-session-cache-timeout) schedules a reload off the loop; several
// settings of one CONFIG SET land in one reload.

func init() {
	registerSettings(tlsConfigParams...)
	infoSections = append(infoSections, infoSection{name: "tls", fn: (*Server).infoTLS})
}

// tlsParam is a TLS setting read from and written to TLSOptions; set
// checks v and stores it, at start (opt) and by CONFIG SET (a reload).
func tlsParam(st config.Setting, get func(o *TLSOptions) string, set func(o *TLSOptions, v string) string) configParam {
	return configParam{Setting: st,
		get: func(s *Server) string {
			if s.tls == nil {
				o := s.opts.TLS.withDefaults()
				return get(&o)
			}
			o := s.tls.options()
			return get(&o)
		},
		set: func(s *Server, v string) string {
			if s.tls == nil {
				return errTLSDisabled
			}
			o := s.tls.options()
			if msg := set(&o, v); msg != "" {
				return msg
			}
			s.tls.setTLSOption(func(cur *TLSOptions) { _ = set(cur, v) })
			return ""
		},
		opt: func(o *Options, v config.Value) string {
			if v.S == "" && st.Default == "" {
				return "" // unset: TLSOptions' default
			}
			return set(&o.TLS, v.S)
		},
		// CONFIG REWRITE writes what was configured, not what it defaults to.
		rewrite: func(s *Server) []config.Line {
			o := s.opts.TLS
			if s.tls != nil {
				o = s.tls.options()
			}
			v := get(&o)
			if v == "" && st.Default == "" {
				return nil
			}
			return config.Lines(v != st.Default, st.Name+" "+config.Quote(v))
		}}
}

const errTLSDisabled = "TLS is disabled: start the server with tls-port"

func tlsString(st config.Setting, field func(o *TLSOptions) *string, check func(v string) string) configParam {
	return tlsParam(st, func(o *TLSOptions) string { return *field(o) },
		func(o *TLSOptions, v string) string {
			if check != nil {
				if msg := check(v); msg != "" {
					return msg
				}
			}
			*field(o) = v
			return ""
		})
}

// tlsFiles is tls-cert-file or tls-key-file: repeatable, in pairs. CONFIG
// GET and SET see the first (default) file; redis.conf and the flags give
// them all, one a line.
func tlsFiles(st config.Setting, field func(o *TLSOptions) *[]string) configParam {
	st.Flags |= config.Multi
	p := tlsParam(st, func(o *TLSOptions) string {
		if l := *field(o); len(l) > 0 {
			return l[0]
		}
		return ""
	}, func(o *TLSOptions, v string) string {
		l := *field(o)
		if len(l) == 0 {
			*field(o) = []string{v}
			return ""
		}
		*field(o) = append([]string{v}, l[1:]...)
		return ""
	})
	p.rewrite = func(s *Server) []config.Line {
		o := s.opts.TLS
		if s.tls != nil {
			o = s.tls.options()
		}
		var lines []string
		for _, f := range *field(&o) {
			lines = append(lines, st.Name+" "+config.Quote(f))
		}
		return config.Lines(true, lines...)
	}
	p.opt = func(o *Options, v config.Value) string {
		*field(&o.TLS) = nil
		if v.S != "" {
			*field(&o.TLS) = strings.Split(v.S, "\n")
		}
		return ""
	}
	return p
}

func oneOf(choices ...string) func(string) string {
	return func(v string) string {
		for _, c := range choices {
			if strings.EqualFold(v, c) {
				return ""
			}
		}
		return "argument(s) must be one of the following: " + strings.Join(choices, ", ")
	}
}

// parseAuthClients checks tls-auth-clients: Redis's choices, or empty
// for the default.
func parseAuthClients(v string) (config.Value, string) {
	if v == "" {
		return config.Value{}, ""
	}
	return config.Enum{"no", "yes", "optional"}.Parse(v)
}

// checked adapts a parser of TLS names (suites, groups, protocols).
func checked[T any](parse func(v string) (T, error)) func(string) string {
	return func(v string) string {
		if _, err := parse(v); err != nil {
			return err.Error()
		}
		return ""
	}
}

// tlsInt is a TLS setting of whole seconds or counts, at least min.
func tlsInt(st config.Setting, min int, field func(o *TLSOptions) *int) configParam {
	return tlsParam(st, func(o *TLSOptions) string { return strconv.Itoa(*field(o)) },
		func(o *TLSOptions, v string) string {
			n, err := strconv.Atoi(v)
			if err != nil || n < min || n > math.MaxInt32 {
				return "argument must be between " + strconv.Itoa(min) + " and 2147483647 inclusive"
			}
			*field(o) = n
			return ""
		})
}

var tlsConfigParams = []configParam{
	{Setting: config.Setting{Name: "tls-port", Default: "0", Type: config.Int{Max: 65535}, Flags: config.Immutable,
		Help: "TCP port for TLS clients; 0 is no TLS"},
		get: func(s *Server) string { return strconv.Itoa(s.opts.TLS.Port) },
		opt: func(o *Options, v config.Value) string { o.TLS.Port = int(v.N); return "" }},
	tlsFiles(config.Setting{Name: "tls-cert-file", Help: "server certificate chain, PEM; repeat with tls-key-file for SNI certificates"},
		func(o *TLSOptions) *[]string { return &o.CertFiles }),
	tlsFiles(config.Setting{Name: "tls-key-file", Help: "private key of tls-cert-file, PEM; one per certificate"},
		func(o *TLSOptions) *[]string { return &o.KeyFiles }),
	// The password is never shown.
	tlsParam(config.Setting{Name: "tls-key-file-pass", Help: "password of an encrypted (legacy PEM) tls-key-file"},
		func(*TLSOptions) string { return "" },
		func(o *TLSOptions, v string) string { o.KeyFilePass = v; return "" }),
	tlsString(config.Setting{Name: "tls-ca-cert-file", Help: "CA certificates client certificates must chain to, PEM"},
		func(o *TLSOptions) *string { return &o.CACertFile }, nil),
	tlsString(config.Setting{Name: "tls-ca-cert-dir", Help: "directory of CA certificates for client certificates"},
		func(o *TLSOptions) *string { return &o.CACertDir }, nil),
	tlsString(config.Setting{Name: "tls-auth-clients", Type: config.Func(parseAuthClients),
		Help: "client certificates: no, optional or yes (the default with a CA, else no)"},
		func(o *TLSOptions) *string { return &o.AuthClients }, oneOf("no", "optional", "yes")),
	tlsString(config.Setting{Name: "tls-protocols", Default: "TLSv1.2 TLSv1.3", Help: "TLS versions offered: TLSv1.2, TLSv1.3 or both"},
		func(o *TLSOptions) *string { return &o.Protocols }, func(v string) string {
			if _, _, err := parseTLSProtocols(v); err != nil {
				return err.Error()
			}
			return ""
		}),
	tlsString(config.Setting{Name: "tls-ciphersuites", Help: "TLS 1.3 suites, OpenSSL names separated by colons; empty for all"},
		func(o *TLSOptions) *string { return &o.Ciphersuites },
		checked(func(v string) ([]uint16, error) { return parseSuiteList("tls-ciphersuites", v, true) })),
	tlsString(config.Setting{Name: "tls-ciphers", Help: "TLS 1.2 suites, OpenSSL names separated by colons; empty for all"},
		func(o *TLSOptions) *string { return &o.Ciphers },
		checked(func(v string) ([]uint16, error) { return parseSuiteList("tls-ciphers", v, false) })),
	tlsString(config.Setting{Name: "tls-groups", Flags: config.Own, Help: "key exchange groups separated by colons (X25519MLKEM768, X25519, P-256...); empty for all"},
		func(o *TLSOptions) *string { return &o.Groups }, checked(parseTLSGroups)),
	tlsString(config.Setting{Name: "tls-session-caching", Default: "yes", Type: config.Bool{}, Help: "issue session tickets for resumption: yes or no"},
		func(o *TLSOptions) *string { return &o.SessionCaching }, oneOf("yes", "no")),
	tlsInt(config.Setting{Name: "tls-session-cache-timeout", Default: "300", Type: config.Int{Min: 1, Max: math.MaxInt32}, Help: "session ticket lifetime in seconds"},
		1, func(o *TLSOptions) *int { return &o.SessionCacheTimeout }),
	{Setting: config.Setting{Name: "tls-auth-clients-user", Default: "off", Flags: config.Own,
		Help: "log a verified client in as the user its certificate's CN or URI SAN names: CN, URI or off (Valkey's)"},
		get: func(s *Server) string {
			if s.tls == nil {
				return "off"
			}
			return userFromNames[s.tls.userFrom.Load()]
		},
		set: func(s *Server, v string) string {
			if msg := oneOf("CN", "URI", "off")(v); msg != "" {
				return msg
			}
			if s.tls == nil {
				return errTLSDisabled
			}
			mode, _ := parseUserFrom(v)
			s.tls.userFrom.Store(mode)
			return ""
		},
		opt: func(o *Options, v config.Value) string { o.TLS.AuthClientsUser = v.S; return "" }},
	tlsAutoReloadParam,
	tlsLimit(config.Setting{Name: "tls-handshake-timeout", Default: "10", Flags: config.Own,
		Help: "close a connection still handshaking after this many seconds"},
		func(t *tlsState) *atomic.Int64 { return &t.handshakeTimeout }, func(o *TLSOptions) *int { return &o.HandshakeTimeout }),
	tlsLimit(config.Setting{Name: "tls-max-handshakes", Default: "1024", Flags: config.Own,
		Help: "connections handshaking at once; more are refused"},
		func(t *tlsState) *atomic.Int64 { return &t.maxHandshakes }, func(o *TLSOptions) *int { return &o.MaxHandshakes }),
}

// tlsLimit is a limit read by the loops at once, with no reload.
func tlsLimit(st config.Setting, field func(t *tlsState) *atomic.Int64, opt func(o *TLSOptions) *int) configParam {
	st.Type = config.Int{Min: 1, Max: math.MaxInt64}
	def, _ := strconv.ParseInt(st.Default, 10, 64)
	return configParam{Setting: st,
		get: func(s *Server) string {
			if s.tls == nil {
				return strconv.FormatInt(def, 10)
			}
			return strconv.FormatInt(field(s.tls).Load(), 10)
		},
		set: func(s *Server, v string) string {
			if s.tls == nil {
				return errTLSDisabled
			}
			n, _ := strconv.ParseInt(v, 10, 64)
			field(s.tls).Store(n)
			return ""
		},
		opt: func(o *Options, v config.Value) string { *opt(&o.TLS) = int(v.N); return "" }}
}

// infoTLS is INFO's tls section (loopkv's; Redis 7.0 reports no TLS fields).
func (s *Server) infoTLS(b []byte) []byte {
	b = append(b, "# TLS\r\n"...)
	t := s.tls
	if t == nil {
		return infoInt(b, "tls_enabled", 0)
	}
	st := &t.stats
	b = infoInt(b, "tls_enabled", 1)
	b = infoInt(b, "tls_port", int64(t.port))
	b = infoInt(b, "tls_connections", st.conns.Load())
	b = infoInt(b, "tls_handshakes_completed", st.completed.Load())
	b = infoInt(b, "tls_handshakes_failed", st.failed.Load())
	b = infoInt(b, "tls_handshake_timeouts", st.timeouts.Load())
	b = infoInt(b, "tls_handshakes_refused", st.refused.Load())
	b = infoInt(b, "tls_resumptions", st.resumed.Load())
	b = infoInt(b, "tls_client_certificates", st.clientCerts.Load())
	b = infoInt(b, "tls_handshakes_in_flight", st.inFlight.Load())
	b = infoInt(b, "tls_idle_released", st.idleShed.Load())
	b = infoInt(b, "tls_worker_queue_depth", t.queueDepth())
	b = infoInt(b, "tls_reloads", st.reloads.Load())
	b = infoInt(b, "tls_reload_failures", st.reloadFails.Load())
	if p := t.lastErr.Load(); p != nil {
		b = infoLine(b, "tls_last_reload_error", strings.ReplaceAll(*p, "\n", " "))
	}
	// Failures by alert, as tls_handshakes_failed_<alert>:<count>.
	for a := range st.byAlert {
		if n := st.byAlert[a].Load(); n > 0 {
			b = infoInt(b, "tls_handshakes_failed_"+tlsengine.Alert(a).String(), n)
		}
	}
	b = infoLine(b, "tls_cert_not_after", t.certNotAfter())
	return b
}

// certNotAfter is the default certificate's expiry, RFC 3339.
func (t *tlsState) certNotAfter() string {
	cfg := t.cfg.Load()
	if cfg == nil || len(cfg.Certificates) == 0 || cfg.Certificates[0].Leaf == nil {
		return ""
	}
	return cfg.Certificates[0].Leaf.NotAfter.UTC().Format(time.RFC3339)
}

// tlsAutoReloadParam is CONFIG GET/SET tls-auto-reload-interval, in
// seconds; the file checks read it each second, with no reload.
var tlsAutoReloadParam = configParam{Setting: config.Setting{Name: "tls-auto-reload-interval", Default: "0",
	Type: config.Int{Max: math.MaxInt32}, Flags: config.Own,
	Help: "seconds between checks of the TLS files, reloaded when they change; 0 never (Valkey's)"},
	get: func(s *Server) string {
		if s.tls == nil {
			return strconv.Itoa(s.opts.TLS.AutoReloadInterval)
		}
		return strconv.Itoa(s.tls.options().AutoReloadInterval)
	},
	set: func(s *Server, v string) string {
		if s.tls == nil {
			return errTLSDisabled
		}
		n, _ := strconv.Atoi(v) // checked by Type
		s.tls.mu.Lock()
		s.tls.opts.AutoReloadInterval = n
		s.tls.mu.Unlock()
		return ""
	},
	opt: func(o *Options, v config.Value) string { o.TLS.AutoReloadInterval = int(v.N); return "" }}
