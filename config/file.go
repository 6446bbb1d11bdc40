package config

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Directive is one line of a redis.conf file: a name and its arguments,
// with quotes and escapes resolved.
type Directive struct {
	Line int      // 1-based line number
	Name string   // lower case
	Args []string // as written, unquoted
}

// ParseFile reads redis.conf syntax: one directive per line, # comments,
// arguments separated by spaces, "double" (with \n \r \t \" \\ \xHH escapes)
// or 'single' quoted as Redis's sdssplitargs does.
func ParseFile(r io.Reader) ([]Directive, error) {
	var out []Directive
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.Trim(sc.Text(), " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		args, err := SplitArgs(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if len(args) == 0 {
			continue
		}
		out = append(out, Directive{Line: n, Name: strings.ToLower(args[0]), Args: args[1:]})
	}
	return out, sc.Err()
}

// ErrUnbalancedQuotes is a line whose quotes do not close.
var ErrUnbalancedQuotes = errors.New("config: unbalanced quotes in configuration line")

// SplitArgs splits a line as Redis's sdssplitargs.
func SplitArgs(line string) ([]string, error) {
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
					return nil, ErrUnbalancedQuotes
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
				return nil, ErrUnbalancedQuotes
			}
		case '\'':
			i++
			for {
				if i >= len(line) {
					return nil, ErrUnbalancedQuotes
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
				return nil, ErrUnbalancedQuotes
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

// Load stores each directive's value in values under its setting's name
// (an alias sets its setting): the arguments joined by spaces; a setting
// given again keeps the last value, or for Multi and Append settings the
// values together (Setting.Join). find returns the setting a name means,
// or nil. include FILE reads FILE (or each file a glob matches, in name
// order) in its place, as Redis does. A directive no setting names, and
// one loopkv cannot honour (rename-command, loadmodule), is an error
// naming file and line, as Redis refuses it.
func Load(file string, dirs []Directive, find func(name string) *Setting, values map[string]string) error {
	return load(file, dirs, find, values, map[string]bool{}, 0)
}

// maxIncludeDepth bounds include files including others (or themselves).
const maxIncludeDepth = 16

// refused are the directives loopkv knows and cannot honour, with why.
var refused = map[string]string{
	"rename-command": "rename-command is not supported by loopkv (deny the command with an ACL rule instead)",
	"loadmodule":     "loadmodule is not supported: loopkv does not load Redis modules",
}

func load(file string, dirs []Directive, find func(name string) *Setting, values map[string]string, seen map[string]bool, depth int) error {
	for _, d := range dirs {
		if why := refused[d.Name]; why != "" {
			return fmt.Errorf("%s:%d: %s", file, d.Line, why)
		}
		if d.Name == "include" {
			if len(d.Args) != 1 {
				return fmt.Errorf("%s:%d: bad directive or wrong number of arguments: %s", file, d.Line, d.Name)
			}
			if err := include(file, d, find, values, seen, depth); err != nil {
				return err
			}
			continue
		}
		st := find(d.Name)
		if st == nil {
			return fmt.Errorf("%s:%d: bad directive or wrong number of arguments: %s", file, d.Line, d.Name)
		}
		v := strings.Join(d.Args, " ")
		if seen[st.Name] {
			v = st.Join(values[st.Name], v)
		}
		seen[st.Name] = true
		values[st.Name] = v
	}
	return nil
}

// include loads the file, or the files matching the glob, that d names.
func include(file string, d Directive, find func(name string) *Setting, values map[string]string, seen map[string]bool, depth int) error {
	if depth >= maxIncludeDepth {
		return fmt.Errorf("%s:%d: include nested more than %d deep", file, d.Line, maxIncludeDepth)
	}
	paths := []string{d.Args[0]}
	if strings.ContainsAny(d.Args[0], "*?[") {
		var err error
		if paths, err = filepath.Glob(d.Args[0]); err != nil {
			return fmt.Errorf("%s:%d: include %s: %w", file, d.Line, d.Args[0], err)
		}
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s:%d: include: %w", file, d.Line, err)
		}
		sub, err := ParseFile(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := load(path, sub, find, values, seen, depth+1); err != nil {
			return err
		}
	}
	return nil
}
