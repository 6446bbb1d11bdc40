package config

// Match reports whether s matches the glob pattern as Redis's
// stringmatchlen does with nocase: * any run, ? one byte, [abc], [^abc],
// [a-z] a class, \x the byte x; letters match in either case. It runs in
// O(len(pattern)·len(s)): one backtrack point, at the last star.
func Match(pattern, s string) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pattern) {
			switch pattern[p] {
			case '*':
				for p < len(pattern) && pattern[p] == '*' {
					p++
				}
				if p == len(pattern) {
					return true
				}
				starP, starI = p, i
				continue
			case '?':
				p, i = p+1, i+1
				continue
			case '[':
				if next, ok := matchClass(pattern, p, s[i]); ok {
					p, i = next, i+1
					continue
				}
			default:
				c, next := pattern[p], p+1
				if c == '\\' && next < len(pattern) {
					c, next = pattern[next], next+1
				}
				if lower(c) == lower(s[i]) {
					p, i = next, i+1
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP, starI
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchClass matches c against the class opening at pattern[p] == '[';
// it returns the index after the class. An unclosed class ends with the
// pattern.
func matchClass(pattern string, p int, c byte) (int, bool) {
	p++
	not := p < len(pattern) && pattern[p] == '^'
	if not {
		p++
	}
	hit := false
	for p < len(pattern) && pattern[p] != ']' {
		switch {
		case pattern[p] == '\\' && p+1 < len(pattern):
			p++
			hit = hit || lower(pattern[p]) == lower(c)
			p++
		case p+2 < len(pattern) && pattern[p+1] == '-':
			lo, hi := lower(pattern[p]), lower(pattern[p+2])
			if lo > hi {
				lo, hi = hi, lo
			}
			hit = hit || (lo <= lower(c) && lower(c) <= hi)
			p += 3
		default:
			hit = hit || lower(pattern[p]) == lower(c)
			p++
		}
	}
	if p < len(pattern) {
		p++ // the ']'
	}
	return p, hit != not
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
