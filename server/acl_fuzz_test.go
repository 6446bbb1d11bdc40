package server

import (
	"slices"
	"strings"
	"testing"
)

// FuzzACLSetUser applies arbitrary rule strings to a new user and to the
// default user: nothing may panic, and a user that results must describe
// itself in rules that rebuild the same user (ACL LIST / ACL SAVE round
// trip).
func FuzzACLSetUser(f *testing.F) {
	for _, seed := range []string{
		"on >pass ~key:* +@all -del",               // the common case
		"reset on nopass %R~r* %W~w* &chan +@read", // read/write patterns, channels
		"allkeys ~a", // pattern after allkeys
		"#0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef !0123", // hash add, bad remove
		"+@all -@write +set -@nosuch",    // categories, unknown category
		"%RW~[a-\\]x nocommands +GET <x", // class with escape, missing password
		"(~x +get) clearselectors",       // selectors are not supported
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		rules := strings.Fields(s)
		for _, base := range []*aclPerm{newUserPerm(), defaultPerm("pw")} {
			p, i, err := base.setRules(rules)
			if err != nil {
				if i < 0 || i >= len(rules) {
					t.Fatalf("error %v at rule %d of %d", err, i, len(rules))
				}
				continue
			}
			desc := p.describe()
			q, _, err := newUserPerm().setRules(strings.Fields(desc))
			if err != nil && strings.Contains(err.Error(), "after the * pattern") {
				// Redis 7.0.15 too lists "%R~* %W~* ~" as "~* ~", which its
				// own SETUSER refuses (testdata/fuzz/FuzzACLSetUser/issue8-*).
				continue
			}
			if err != nil {
				t.Fatalf("description %q of %q does not parse: %v", desc, s, err)
			}
			if got := q.describe(); got != desc {
				// Redis 7.0.15 lists "~0 %W~* %R~*" as "~0 ~*", which
				// rebuilds as "~*": the * pattern absorbs the others
				// (testdata/fuzz/FuzzACLSetUser/issue8-*). Accept a shorter
				// description only if it grants the same keys and is itself
				// a fixed point.
				if !sameKeyAccess(p, q, rules) {
					t.Fatalf("rules %q: description %q rebuilds as %q, with other key access", s, desc, got)
				}
				r, _, err := newUserPerm().setRules(strings.Fields(got))
				if err != nil || r.describe() != got {
					t.Fatalf("rules %q: description %q rebuilds as %q, which is not a fixed point", s, desc, got)
				}
			}
			if !slices.Equal(p.cmds, q.cmds) || p.allowAll != q.allowAll {
				t.Fatalf("rules %q: rebuilt command bits differ", s)
			}
		}
	})
}

// sameKeyAccess reports whether p and q allow the same reads and the same
// writes of a set of probe keys: fixed ones, and every rule's text with its
// ~ and % prefixes stripped, so each pattern is tried on a key it matches.
// Read-and-write access is not compared: like Redis, a key needing both
// must match one pattern with both, and Redis describes "%R~* %W~*" as
// "~*", which grants both at once. Nor is the empty key: Redis's pattern
// "*" does not match it (stringmatchlen), while "~*" (allkeys) does, and
// redis-server 7.0.15 shows the same: "~0 %W~* %R~*" cannot GET "" but
// its description "~0 ~*" can.
func sameKeyAccess(p, q *aclPerm, rules []string) bool {
	probes := []string{"0", "a", "key:1", "*", "x\\y"}
	for _, r := range rules {
		if k := strings.TrimLeft(r, "%RWrw~"); k != "" {
			probes = append(probes, k)
		}
	}
	for _, k := range probes {
		for _, need := range []uint8{aclRead, aclWrite} {
			if p.keyAllowed([]byte(k), need) != q.keyAllowed([]byte(k), need) {
				return false
			}
		}
	}
	return true
}

// FuzzGlobMatch compares globMatch with refGlob, a direct recursive
// reading of Redis's stringmatchlen.
func FuzzGlobMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"a*b?c", "axxbyc"}, // star and any
		{"[^a-c]\\*", "d*"}, // negated range, escape
		{"[abc", "b"},       // unclosed class
		{"[a-]x", "]x"},     // range ending at the bracket
		{"*[\\", "x\\"},     // escape at the end of a class
		{"**?*?", "ab"},     // stars around anys
		{"a\\", "a\\"},      // trailing backslash
		{"[z-a]", "m"},      // reversed range
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		if len(pat) > 24 || len(s) > 32 {
			return
		}
		if got, want := globMatch(pat, []byte(s)), refGlob(pat, s); got != want {
			t.Fatalf("globMatch(%q, %q) = %v, stringmatchlen says %v", pat, s, got, want)
		}
	})
}

// refGlob follows stringmatchlen's control flow step by step; exponential,
// for short inputs only.
func refGlob(p, s string) bool {
	for len(p) > 0 && len(s) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for len(s) > 0 {
				if refGlob(p[1:], s) {
					return true
				}
				s = s[1:]
			}
			return false
		case '?':
			s = s[1:]
		case '[':
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			match := false
			for {
				if len(p) == 0 {
					break
				} else if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						match = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					p = p[2:]
					if lo <= s[0] && s[0] <= hi {
						match = true
					}
				} else if p[0] == s[0] {
					match = true
				}
				p = p[1:]
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			s = s[1:]
			if len(p) == 0 {
				continue
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if p[0] != s[0] {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
		if len(s) == 0 {
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			break
		}
	}
	return len(p) == 0 && len(s) == 0
}
