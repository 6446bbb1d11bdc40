package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// configDirective is one line of a redis.conf file: a name and its
// arguments, with quotes and escapes resolved.
type configDirective struct {
	line int
	name string
	args []string
}

// parseConfig reads redis.conf syntax: one directive per line, # comments,
// arguments separated by spaces, "double" (with \n \r \t \" \\ \xHH escapes)
// or 'single' quoted as Redis's sdssplitargs does.
func parseConfig(r io.Reader) ([]configDirective, error) {
	var out []configDirective
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		args, err := splitArgs(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(args) == 0 {
			continue
		}
		out = append(out, configDirective{line: n, name: strings.ToLower(args[0]), args: args[1:]})
	}
	return out, sc.Err()
}

var errUnbalancedQuotes = errors.New("unbalanced quotes in configuration line")

// splitArgs splits a line as Redis's sdssplitargs.
func splitArgs(line string) ([]string, error) {
	var args []string
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			return args, nil
		}
		var cur []byte
		switch line[i] {
		case '"':
			i++
			for {
				if i >= len(line) {
					return nil, errUnbalancedQuotes
				}
				ch := line[i]
				if ch == '"' {
					i++
					break
				}
				if ch == '\\' && i+1 < len(line) {
					i++
					switch e := line[i]; e {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					case 'x':
						if i+2 < len(line) && isHex(line[i+1]) && isHex(line[i+2]) {
							cur = append(cur, hexVal(line[i+1])<<4|hexVal(line[i+2]))
							i += 2
						} else {
							cur = append(cur, 'x')
						}
					default:
						cur = append(cur, e)
					}
					i++
					continue
				}
				cur = append(cur, ch)
				i++
			}
			if i < len(line) && line[i] != ' ' && line[i] != '\t' {
				return nil, errUnbalancedQuotes
			}
		case '\'':
			i++
			for {
				if i >= len(line) {
					return nil, errUnbalancedQuotes
				}
				ch := line[i]
				if ch == '\'' {
					i++
					break
				}
				if ch == '\\' && i+1 < len(line) && line[i+1] == '\'' {
					ch = '\''
					i++
				}
				cur = append(cur, ch)
				i++
			}
			if i < len(line) && line[i] != ' ' && line[i] != '\t' {
				return nil, errUnbalancedQuotes
			}
		default:
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				cur = append(cur, line[i])
				i++
			}
		}
		args = append(args, string(cur))
	}
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func hexVal(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
