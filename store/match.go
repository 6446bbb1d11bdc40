package store

// Match reports whether str matches the glob pattern by Redis's
// stringmatchlen rules (case-sensitive): '*' any run, '?' any byte,
// "[abc]", "[^abc]" and "[a-z]" classes (reversed ranges allowed, an
// unclosed class ends at the end of the pattern), and '\' escaping the next
// byte. Patterns nested more than 1000 stars deep match nothing, as in
// Redis.
func Match(pattern, str []byte) bool {
	skip := false
	return match(pattern, str, &skip, 0)
}

// at returns p[i], or 0 past the end, as reading a C string would.
func at(p []byte, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

func match(pat, str []byte, skipLonger *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	for len(pat) > 0 && len(str) > 0 {
		switch pat[0] {
		case '*':
			for len(pat) > 0 && at(pat, 1) == '*' {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for len(str) > 0 {
				if match(pat[1:], str, skipLonger, nesting+1) {
					return true
				}
				if *skipLonger {
					return false
				}
				str = str[1:]
			}
			*skipLonger = true
			return false
		case '?':
			str, pat = str[1:], pat[1:]
		case '[':
			var ok bool
			if pat, ok = matchClass(pat[1:], str[0]); !ok {
				return false
			}
			str = str[1:]
		case '\\':
			if len(pat) >= 2 {
				pat = pat[1:]
			}
			fallthrough
		default:
			if pat[0] != str[0] {
				return false
			}
			str, pat = str[1:], pat[1:]
		}
		if len(str) == 0 {
			for len(pat) > 0 && pat[0] == '*' {
				pat = pat[1:]
			}
			break
		}
	}
	return len(pat) == 0 && len(str) == 0
}

// matchClass matches c against the class that starts at pat (just after
// '['). It returns the pattern after the class's ']' (empty for an unclosed
// class) and whether c matched.
func matchClass(pat []byte, c byte) ([]byte, bool) {
	not := at(pat, 0) == '^'
	if not {
		pat = pat[1:]
	}
	matched := false
	for {
		switch {
		case at(pat, 0) == '\\' && len(pat) >= 2:
			pat = pat[1:]
			if pat[0] == c {
				matched = true
			}
		case at(pat, 0) == ']' && len(pat) > 0:
			return pat[1:], matched != not
		case len(pat) == 0:
			return pat, matched != not
		case len(pat) >= 3 && pat[1] == '-':
			lo, hi := int(int8(pat[0])), int(int8(pat[2]))
			if lo > hi {
				lo, hi = hi, lo
			}
			if v := int(int8(c)); v >= lo && v <= hi {
				matched = true
			}
			pat = pat[2:]
		default:
			if pat[0] == c {
				matched = true
			}
		}
		pat = pat[1:]
	}
}
