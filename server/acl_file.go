package server

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The users file (--aclfile): one user per line, `user <name> <rules...>`,
// as ACL SAVE writes and ACL LOAD reads; blank lines and lines starting
// with '#' are skipped. Loading is all or nothing.

// aclFileMax bounds the users file read by ACL LOAD.
const aclFileMax = 16 << 20

// setFile sets the users file and loads it; the users are unchanged when
// it fails. Called at start when --aclfile is given.
func (a *aclState) setFile(path string) error {
	a.mu.Lock()
	a.file = path
	a.mu.Unlock()
	return a.loadFile()
}

func (a *aclState) aclFile() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.file
}

// loadFile replaces the users with those of the users file. Users that
// are kept keep their handles, so their clients stay authenticated with
// the new rules; removed users' clients lose every permission. A file
// without a default user gets a fresh one (on nopass ~* &* +@all).
func (a *aclState) loadFile() error {
	path := a.aclFile()
	f, err := os.Open(path)
	if err != nil {
		return errors.New("Error loading ACLs, opening file '" + path + "': " + errText(err))
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, aclFileMax+1))
	if err != nil {
		return errors.New("Error loading ACLs, reading file '" + path + "': " + errText(err))
	}
	if len(buf) > aclFileMax {
		return errors.New("Error loading ACLs, file '" + path + "' is larger than 16 MB")
	}
	perms, err := parseACLFile(path, string(buf))
	if err != nil {
		return err
	}
	if perms["default"] == nil {
		perms["default"] = defaultPerm("")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, u := range a.users {
		if perms[name] == nil {
			a.removeLocked(u)
		}
	}
	for name, p := range perms {
		u := a.users[name]
		if u == nil {
			u = &aclUser{name: name}
			a.users[name] = u
		}
		u.perm.Store(p)
	}
	return nil
}

// parseACLFile parses the users file text, reporting every bad line as
// Redis does: "path:line: reason. ".
func parseACLFile(path, text string) (map[string]*aclPerm, error) {
	perms := make(map[string]*aclPerm)
	var errs strings.Builder
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		at := path + ":" + strconv.Itoa(i+1) + ": "
		args, ok := splitArgs(line)
		switch {
		case !ok:
			errs.WriteString(at + "unbalanced quotes in acl line. ")
			continue
		case len(args) < 2 || args[0] != "user":
			errs.WriteString(at + "should start with user keyword followed by the username. ")
			continue
		case strings.ContainsAny(args[1], " \x00"):
			errs.WriteString(at + "Usernames can't contain spaces or null characters. ")
			continue
		case perms[args[1]] != nil:
			errs.WriteString(at + "Duplicate user '" + args[1] + "' found. ")
			continue
		}
		p, j, err := newUserPerm().setRules(args[2:])
		if err != nil {
			errs.WriteString(at + err.Error() + " (in '" + args[2+j] + "'). ")
			continue
		}
		perms[args[1]] = p
	}
	if errs.Len() > 0 {
		return nil, errors.New(strings.TrimSuffix(errs.String(), " "))
	}
	return perms, nil
}

// saveFile writes every user to the users file through a temporary file
// renamed into place.
func (a *aclState) saveFile() error {
	var b strings.Builder
	for _, u := range a.sortedUsers() {
		b.WriteString("user " + u.name + " " + u.perm.Load().describe() + "\n")
	}
	path := a.aclFile()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aclfile-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// splitArgs splits a line into words as Redis's sdssplitargs: spaces
// separate, "..." with \n \r \t \xHH escapes and '...' with \' quote.
func splitArgs(line string) ([]string, bool) {
	var out []string
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			return out, true
		}
		var w strings.Builder
		switch q := line[i]; q {
		case '"', '\'':
			i++
			closed := false
			for i < len(line) {
				ch := line[i]
				if ch == q {
					closed = true
					i++
					break
				}
				if ch == '\\' && i+1 < len(line) {
					i++
					ch = unescape(line, &i, q)
				}
				w.WriteByte(ch)
				i++
			}
			if !closed || (i < len(line) && line[i] != ' ' && line[i] != '\t') {
				return nil, false
			}
		default:
			for i < len(line) && line[i] != ' ' && line[i] != '\t' {
				w.WriteByte(line[i])
				i++
			}
		}
		out = append(out, w.String())
	}
}

// unescape decodes the escape whose letter is at line[*i]; for \xHH it
// leaves *i on the last hex digit.
func unescape(line string, i *int, q byte) byte {
	ch := line[*i]
	if q == '\'' {
		if ch == '\'' {
			return ch
		}
		*i--
		return '\\'
	}
	switch ch {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	case 'x':
		if *i+2 < len(line) {
			if v, err := strconv.ParseUint(line[*i+1:*i+3], 16, 8); err == nil {
				*i += 2
				return byte(v)
			}
		}
	}
	return ch
}

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
