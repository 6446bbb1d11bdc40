package server

import (
	"github.com/loopkv/loopkv/config"
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

// tlsParam is a TLS setting read from and written to TLSOptions.
func tlsParam(name string, get func(o *TLSOptions) string, set func(o *TLSOptions, v string) string) configParam {
	return configParam{Setting: config.Setting{Name: name},
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
				return "TLS is disabled: start the server with tls-port"
			}
			o := s.tls.options()
			if msg := set(&o, v); msg != "" {
				return msg
			}
			s.tls.setTLSOption(func(cur *TLSOptions) { _ = set(cur, v) })
			return ""
		}}
}

func tlsString(name string, field func(o *TLSOptions) *string, check func(v string) string) configParam {
	return tlsParam(name, func(o *TLSOptions) string { return *field(o) },
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

// firstOf gets and sets the default (first) entry of a repeatable setting.
func firstOf(field func(o *TLSOptions) *[]string) (func(o *TLSOptions) string, func(o *TLSOptions, v string) string) {
	return func(o *TLSOptions) string {
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
			n := append([]string{v}, l[1:]...)
			*field(o) = n
			return ""
		}
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

var tlsConfigParams = func() []configParam {
	certGet, certSet := firstOf(func(o *TLSOptions) *[]string { return &o.CertFiles })
	keyGet, keySet := firstOf(func(o *TLSOptions) *[]string { return &o.KeyFiles })
	return []configParam{
		{Setting: config.Setting{Name: "tls-port"}, get: func(s *Server) string { return strconv.Itoa(s.opts.TLS.Port) }},
		tlsParam("tls-cert-file", certGet, certSet),
		tlsParam("tls-key-file", keyGet, keySet),
		// The password is never shown.
		tlsParam("tls-key-file-pass", func(*TLSOptions) string { return "" },
			func(o *TLSOptions, v string) string { o.KeyFilePass = v; return "" }),
		tlsString("tls-ca-cert-file", func(o *TLSOptions) *string { return &o.CACertFile }, nil),
		tlsString("tls-ca-cert-dir", func(o *TLSOptions) *string { return &o.CACertDir }, nil),
		tlsString("tls-auth-clients", func(o *TLSOptions) *string { return &o.AuthClients }, oneOf("no", "optional", "yes")),
		tlsString("tls-protocols", func(o *TLSOptions) *string { return &o.Protocols }, func(v string) string {
			if _, _, err := parseTLSProtocols(v); err != nil {
				return err.Error()
			}
			return ""
		}),
		tlsString("tls-ciphersuites", func(o *TLSOptions) *string { return &o.Ciphersuites }, func(v string) string {
			if _, err := parseSuiteList("tls-ciphersuites", v, true); err != nil {
				return err.Error()
			}
			return ""
		}),
		tlsString("tls-ciphers", func(o *TLSOptions) *string { return &o.Ciphers }, func(v string) string {
			if _, err := parseSuiteList("tls-ciphers", v, false); err != nil {
				return err.Error()
			}
			return ""
		}),
		tlsString("tls-groups", func(o *TLSOptions) *string { return &o.Groups }, func(v string) string {
			if _, err := parseTLSGroups(v); err != nil {
				return err.Error()
			}
			return ""
		}),
		tlsString("tls-session-caching", func(o *TLSOptions) *string { return &o.SessionCaching }, oneOf("yes", "no")),
		tlsParam("tls-session-cache-timeout",
			func(o *TLSOptions) string { return strconv.Itoa(o.SessionCacheTimeout) },
			func(o *TLSOptions, v string) string {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return "argument must be between 1 and 2147483647 inclusive"
				}
				o.SessionCacheTimeout = n
				return ""
			}),
		{Setting: config.Setting{Name: "tls-auth-clients-user"},
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
					return "TLS is disabled: start the server with tls-port"
				}
				mode, _ := parseUserFrom(v)
				s.tls.userFrom.Store(mode)
				return ""
			}},
		tlsAutoReloadParam,
		tlsLimit("tls-handshake-timeout", func(t *tlsState) *atomic.Int64 { return &t.handshakeTimeout }),
		tlsLimit("tls-max-handshakes", func(t *tlsState) *atomic.Int64 { return &t.maxHandshakes }),
	}
}()

// tlsLimit is a limit read by the loops at once, with no reload.
func tlsLimit(name string, field func(t *tlsState) *atomic.Int64) configParam {
	def := map[string]int64{"tls-handshake-timeout": defaultTLSHandshakeTimeout, "tls-max-handshakes": defaultTLSMaxHandshakes}[name]
	return configParam{Setting: config.Setting{Name: name},
		get: func(s *Server) string {
			if s.tls == nil {
				return strconv.FormatInt(def, 10)
			}
			return strconv.FormatInt(field(s.tls).Load(), 10)
		},
		set: func(s *Server, v string) string {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return "argument must be between 1 and 9223372036854775807 inclusive"
			}
			if s.tls == nil {
				return "TLS is disabled: start the server with tls-port"
			}
			field(s.tls).Store(n)
			return ""
		}}
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
var tlsAutoReloadParam = configParam{Setting: config.Setting{Name: "tls-auto-reload-interval"},
	get: func(s *Server) string {
		if s.tls == nil {
			return strconv.Itoa(s.opts.TLS.AutoReloadInterval)
		}
		return strconv.Itoa(s.tls.options().AutoReloadInterval)
	},
	set: func(s *Server, v string) string {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return "argument must be between 0 and 2147483647 inclusive"
		}
		if s.tls == nil {
			return "TLS is disabled: start the server with tls-port"
		}
		s.tls.mu.Lock()
		s.tls.opts.AutoReloadInterval = n
		s.tls.mu.Unlock()
		return ""
	}}
