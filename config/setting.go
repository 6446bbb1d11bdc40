package config

import "strings"

// Flags describe how a setting may be changed.
type Flags uint8

const (
	// Immutable settings are read at start only; CONFIG SET refuses them.
	Immutable Flags = 1 << iota
	// Multi settings may repeat in redis.conf and on the command line; the
	// values are kept one per line, in order (tls-cert-file).
	Multi
	// Own marks loopkv's own settings, which Redis 7.0 does not have
	// (engine, loops, metrics-port); differential tests skip them.
	Own
	// NoRewrite settings are left as the file has them by CONFIG REWRITE
	// (loops, whose CONFIG GET shows the count it defaulted to).
	NoRewrite
	// Hidden settings match CONFIG GET only by their exact name.
	Hidden
	// FileOnly rows are redis.conf directives, not CONFIG settings: CONFIG
	// GET and SET do not know them, as Redis does not know user.
	FileOnly
	// Append settings take repeated lines as one value, joined by spaces
	// (save 900 1, then save 300 10; one client-output-buffer-limit line
	// per class), as Redis reads them; an empty value starts again.
	Append
)

// Join is the value of a setting given cur and then v again: v for most
// settings, cur and v as lines for Multi ones, or joined by a space for
// Append ones.
func (s *Setting) Join(cur, v string) string {
	switch {
	case s.Flags&Multi != 0:
		return cur + "\n" + v
	case s.Flags&Append != 0 && cur != "" && v != "":
		return cur + " " + v
	}
	return v
}

// Setting is one row of the settings table.
type Setting struct {
	Name    string   // redis.conf name, lower case
	Aliases []string // older names Redis still accepts (hash-max-ziplist-entries)
	Default string   // as redis.conf writes it
	Help    string   // one line: what the setting means
	Type    Type     // nil accepts any string
	Flags   Flags
}

// Parse checks v as the setting's Type does; see Type.
func (s *Setting) Parse(v string) (Value, string) {
	if s.Type == nil {
		return Value{S: v}, ""
	}
	return s.Type.Parse(v)
}

// Is reports whether name (any case) is the setting's name or an alias.
func (s *Setting) Is(name string) bool {
	if strings.EqualFold(name, s.Name) {
		return true
	}
	for _, a := range s.Aliases {
		if strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}

// Texts returns the redis.conf lines that set value: one per line of a
// Multi value, one line otherwise, formatted as CONFIG REWRITE writes them.
// An empty Multi value gives none.
func (s *Setting) Texts(value string) []string {
	vals := []string{value}
	if s.Flags&Multi != 0 {
		if value == "" {
			return nil
		}
		vals = strings.Split(value, "\n")
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = s.Name + " " + formatFor(s.Type, v)
	}
	return out
}

// formatFor writes v as CONFIG REWRITE writes a value of type t.
func formatFor(t Type, v string) string {
	if f, ok := t.(interface{ Format(string) string }); ok {
		return f.Format(v)
	}
	return Quote(v)
}
