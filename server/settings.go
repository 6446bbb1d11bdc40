package server

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/loopkv/loopkv/config"
)

// The settings table. Every setting is one configParam row, registered
// from its family's file as commands are:
//
//	var memorySettings = []configParam{{Setting: config.Setting{Name: "maxmemory",
//		Default: "0", Help: "...", Type: config.Memory{Max: math.MaxInt64}}, get: ..., apply: ...}}
//	func init() { registerSettings(memorySettings...) }
//
// The row's config.Setting (name, aliases, default, meaning, type, flags)
// serves redis.conf and the flags in cmd/loopkv (Settings), --help, CONFIG
// GET, SET and REWRITE; get reads the live value as CONFIG GET shows it,
// apply changes it with a value its Type accepted.

// configParam is one row of the settings table. A row with neither apply
// nor set, or with config.Immutable, is immutable. set is the older form:
// it parses v itself and returns "" or Redis's reason.
type configParam struct {
	config.Setting
	get   func(s *Server) string
	apply func(s *Server, v config.Value)
	set   func(s *Server, v string) string
	// opt, when set, puts a start-up value (redis.conf, flags) into
	// Options (OptionsFrom); "" or why the value is refused. A mutable row
	// without opt gets a start-up value through Options.Config.
	opt func(o *Options, v config.Value) string
	// rewrite, when set, gives CONFIG REWRITE's lines and whether they
	// differ from the default; otherwise they come from get and Default.
	rewrite func(s *Server) []config.Line
}

// registerSettings adds rows to the table; call it from an init function.
func registerSettings(rows ...configParam) {
	if settingsBuilt {
		panic("server: registerSettings after the settings table was built")
	}
	configParams = append(configParams, rows...)
}

// configParams are the registered rows.
var configParams []configParam

var (
	settingsOnce  sync.Once
	settingsBuilt bool
	settingsIndex map[string]int // lower-case name or alias -> index in configParams
)

// settingsTable returns the rows, indexing them on first use.
func settingsTable() []configParam {
	settingsOnce.Do(func() {
		settingsBuilt = true
		settingsIndex = make(map[string]int, 2*len(configParams))
		for i := range configParams {
			p := &configParams[i]
			for _, n := range append([]string{p.Name}, p.Aliases...) {
				if _, dup := settingsIndex[n]; dup {
					panic("server: setting " + n + " registered twice")
				}
				settingsIndex[n] = i
			}
		}
	})
	return configParams
}

// findConfigParam returns the row named name (any case, or an alias), or
// nil.
func findConfigParam(name []byte) *configParam {
	rows := settingsTable()
	var low [64]byte
	if len(name) > len(low) {
		return nil
	}
	n := low[:len(name)]
	for i, c := range name {
		n[i] = lower(c)
	}
	if i, ok := settingsIndex[string(n)]; ok {
		return &rows[i]
	}
	return nil
}

// findConfigSetting is findConfigParam for CONFIG GET and SET, which do
// not know redis.conf-only directives.
func findConfigSetting(name []byte) *configParam {
	if p := findConfigParam(name); p != nil && p.Flags&config.FileOnly == 0 {
		return p
	}
	return nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Settings returns every setting's row, in registration order: what
// cmd/loopkv needs to read redis.conf, build the flags and print --help.
func Settings() []config.Setting {
	rows := settingsTable()
	out := make([]config.Setting, len(rows))
	for i := range rows {
		out[i] = rows[i].Setting
	}
	return out
}

func (p *configParam) immutable() bool {
	return p.Flags&config.Immutable != 0 || (p.apply == nil && p.set == nil)
}

// change applies v, already accepted by p's Type; "" or Redis's reason.
func (p *configParam) change(s *Server, raw string, v config.Value) string {
	if p.apply != nil {
		p.apply(s, v)
		return ""
	}
	return p.set(s, raw)
}

// cmdConfigGet is CONFIG GET pattern [pattern ...]: a map of every setting
// matching any pattern, as Redis 7.0 answers: a pattern without *, ? or [
// names one setting (any case, or an alias) and is echoed as given; a glob
// matches names and aliases, except hidden settings.
func cmdConfigGet(c *cmdCtx) {
	rows := settingsTable()
	type hit struct {
		name string
		p    *configParam
	}
	var hits []hit
	seen := func(name string) bool {
		for _, h := range hits {
			if h.name == name {
				return true
			}
		}
		return false
	}
	for _, pat := range c.args[2:] {
		if bytes.IndexAny(pat, "[*?") < 0 {
			if p := findConfigSetting(pat); p != nil && !seen(string(pat)) {
				hits = append(hits, hit{string(pat), p})
			}
			continue
		}
		for i := range rows {
			p := &rows[i]
			if p.Flags&(config.Hidden|config.FileOnly) != 0 {
				continue
			}
			for _, n := range append([]string{p.Name}, p.Aliases...) {
				if !seen(n) && globMatchFold(string(pat), []byte(n), true) {
					hits = append(hits, hit{n, p})
				}
			}
		}
	}
	c.mapLen(len(hits))
	for _, h := range hits {
		c.bulkString(h.name)
		c.bulkString(h.p.get(c.srv))
	}
}

// cmdConfigSet is CONFIG SET name value [name value ...], all or nothing
// as in Redis 7.0: every name and value is checked before any is applied,
// and if applying one fails, those applied are restored.
func cmdConfigSet(c *cmdCtx) {
	if len(c.args)%2 != 0 {
		c.errReply("ERR wrong number of arguments for 'config|set' command")
		return
	}
	type change struct {
		p        *configParam
		arg, raw string
		val      config.Value
		old      string
	}
	changes := make([]change, 0, (len(c.args)-2)/2)
	for i := 2; i < len(c.args); i += 2 {
		p := findConfigSetting(c.args[i])
		if p == nil {
			c.errReply("ERR Unknown option or number of arguments for CONFIG SET - '" + clip(c.args[i]) + "'")
			return
		}
		arg := strings.ToLower(string(c.args[i]))
		fail := func(msg string) {
			c.errReply("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + msg)
		}
		if p.immutable() {
			fail("can't set immutable config")
			return
		}
		for _, ch := range changes {
			if ch.arg == arg { // an alias and its name are two settings here, as in Redis
				fail("duplicate parameter")
				return
			}
		}
		changes = append(changes, change{p: p, arg: arg, raw: string(c.args[i+1])})
	}
	for i := range changes {
		ch := &changes[i]
		v, msg := ch.p.Parse(ch.raw)
		if msg != "" {
			c.errReply("ERR CONFIG SET failed (possibly related to argument '" + ch.arg + "') - " + msg)
			return
		}
		ch.val, ch.old = v, ch.p.get(c.srv)
	}
	for i := range changes {
		ch := &changes[i]
		if msg := ch.p.change(c.srv, ch.raw, ch.val); msg != "" {
			for _, done := range changes[:i] {
				old, _ := done.p.Parse(done.old)
				_ = done.p.change(c.srv, done.old, old)
			}
			c.errReply("ERR CONFIG SET failed (possibly related to argument '" + ch.arg + "') - " + msg)
			return
		}
	}
	c.ok()
}

// atomicInt is a numeric setting loops read from an atomic; opt, when
// given, is its Options field.
func atomicInt(st config.Setting, field func(s *Server) *atomic.Int64, opt ...func(o *Options, n int64)) configParam {
	p := configParam{Setting: st,
		get:   func(s *Server) string { return strconv.FormatInt(field(s).Load(), 10) },
		apply: func(s *Server, v config.Value) { field(s).Store(v.N) }}
	if len(opt) > 0 {
		p.opt = func(o *Options, v config.Value) string { opt[0](o, v.N); return "" }
	}
	return p
}

// settable is a setting with no effect in loopkv: stored and reported.
func settable(st config.Setting) configParam {
	name, def := st.Name, st.Default
	return configParam{Setting: st,
		get:   func(s *Server) string { return s.cfg.misc(name, def) },
		apply: func(s *Server, v config.Value) { s.cfg.setMisc(name, v.S) }}
}

// atomicBool is a yes or no setting loops read from an atomic; opt, when
// given, is its Options field (as redis.conf writes it).
func atomicBool(st config.Setting, field func(s *Server) *atomic.Bool, opt ...func(o *Options) *string) configParam {
	p := configParam{Setting: st,
		get: func(s *Server) string {
			if field(s).Load() {
				return "yes"
			}
			return "no"
		},
		apply: func(s *Server, v config.Value) { field(s).Store(v.N == 1) }}
	if len(opt) > 0 {
		p.opt = func(o *Options, v config.Value) string { *opt[0](o) = v.S; return "" }
	}
	return p
}

// setValue parses v with p's Type and applies it: what CONFIG SET does
// for one setting, and what New does with Options' values.
func (p *configParam) setValue(s *Server, v string) string {
	val, msg := p.Parse(v)
	if msg != "" {
		return msg
	}
	return p.change(s, v, val)
}

// OptionsFrom turns settings by name, as redis.conf and the flags give
// them (aliases resolved), into Options: each value is checked by its
// row's Type, a setting not given takes its row's default, and each
// error names its setting ("maxclients: argument must be ...: \"0\"").
// A mutable setting with no Options field that is given a value other
// than its default goes to Options.Config, which New applies.
func OptionsFrom(values map[string]string) (Options, []error) {
	var o Options
	var errs []error
	for _, p := range settingsTable() {
		raw, given := values[p.Name]
		if !given {
			raw = p.Default
		}
		vals := []string{raw}
		if p.Flags&config.Multi != 0 {
			vals = nil
			if raw != "" {
				vals = strings.Split(raw, "\n")
			}
		}
		var v config.Value
		bad := false
		for _, line := range vals {
			var msg string
			if v, msg = p.Parse(line); msg != "" {
				errs = append(errs, errors.New(p.Name+": "+msg+": "+strconv.Quote(line)))
				bad = true
			}
		}
		if bad {
			continue
		}
		if p.Flags&config.Multi != 0 {
			v = config.Value{S: raw}
		}
		if p.opt != nil {
			if msg := p.opt(&o, v); msg != "" {
				errs = append(errs, errors.New(p.Name+": "+msg+": "+strconv.Quote(raw)))
			}
			continue
		}
		if given && raw != p.Default {
			if o.Config == nil {
				o.Config = map[string]string{}
			}
			o.Config[p.Name] = raw
		}
	}
	return o, errs
}

// applyConfig applies Options.Config through the rows, after New's
// other settings; the error names the first setting refused.
func (s *Server) applyConfig() error {
	for _, p := range settingsTable() {
		raw, ok := s.opts.Config[p.Name]
		if !ok || p.opt != nil || p.immutable() {
			continue
		}
		if msg := p.setValue(s, raw); msg != "" {
			return errors.New("server: " + p.Name + ": " + msg + ": " + strconv.Quote(raw))
		}
	}
	return nil
}

// fixed is an immutable setting loopkv accepts and reports but does not
// use (pidfile, supervised); CONFIG GET shows the value in its canonical
// form (unixsocketperm 0700 as 700, an enum in lower case), as Redis does.
func fixed(st config.Setting) configParam {
	st.Flags |= config.Immutable
	return configParam{Setting: st, get: func(s *Server) string {
		v, ok := s.opts.Config[st.Name]
		if !ok {
			return st.Default
		}
		if val, msg := st.Parse(v); msg == "" && st.Flags&config.Multi == 0 {
			return val.S
		}
		return v
	}}
}

// toOption is an opt that stores the value's canonical text in an
// Options field (one that a load function parses again).
func toOption(field func(o *Options) *string) func(o *Options, v config.Value) string {
	return func(o *Options, v config.Value) string { *field(o) = v.S; return "" }
}

// startValue is one setting's start-up value as Options holds it, and
// the value meant when that is "" (the row's default, or the embedded
// server's where it differs: no save points).
type startValue struct{ name, v, def string }

// applyStartValues applies start-up values through CONFIG SET's parsers;
// the error names the first setting refused.
func (s *Server) applyStartValues(vals []startValue) error {
	for _, kv := range vals {
		v := kv.v
		if v == "" {
			v = kv.def
		}
		if msg := findConfigParam([]byte(kv.name)).setValue(s, v); msg != "" {
			return errors.New("server: " + kv.name + ": " + msg + ": " + strconv.Quote(v))
		}
	}
	return nil
}
