package server

import (
	"errors"
	"github.com/loopkv/loopkv/config"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The users file (--aclfile): one user per line, `user <name> <rules...>`,
// as ACL SAVE writes and ACL LOAD reads; blank lines are skipped and, as
// in Redis 7.0, there are no comments. Loading is all or nothing. Redis 7.0's format and
// error texts, checked against redis-server in acl_test.go.

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
	a.install(perms)
	return nil
}

// install replaces the users with perms'; see loadFile.
func (a *aclState) install(perms map[string]*aclPerm) {
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
}

// errUsersAndFile is Redis's refusal of user directives beside aclfile.
const errUsersAndFile = "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. " +
	"This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."

// loadConfigUsers installs the users of redis.conf's user directives
// (Options.ACLUsers), checked as an ACL file's lines.
func (s *Server) loadConfigUsers() error {
	if len(s.opts.ACLUsers) == 0 {
		return nil
	}
	if s.opts.ACLFile != "" {
		return errors.New(errUsersAndFile)
	}
	var b strings.Builder
	for _, u := range s.opts.ACLUsers {
		if name, rules, _ := strings.Cut(u, " "); name == "default" {
			u = strings.TrimSuffix("default reset "+rules, " ") // Redis resets the existing default user first
		}
		b.WriteString("user " + u + "\n")
	}
	perms, err := parseACLFile("redis.conf", b.String())
	if err != nil {
		return err
	}
	s.acl.install(perms)
	return nil
}

// aclSettings is the user directive: ACL users in redis.conf, which
// CONFIG REWRITE writes back when there is no aclfile, as Redis does.
var aclSettings = []configParam{
	{Setting: config.Setting{Name: "user", Type: config.String{}, Flags: config.Multi | config.Immutable | config.FileOnly,
		Help: "an ACL user: NAME then ACL SETUSER rules (repeatable; not with aclfile)"},
		get: func(*Server) string { return "" },
		opt: func(o *Options, v config.Value) string {
			o.ACLUsers = nil
			if v.S != "" {
				o.ACLUsers = strings.Split(v.S, "\n")
			}
			return ""
		},
		rewrite: func(s *Server) []config.Line {
			if s.acl.aclFile() != "" || s.opts.ACLFile != "" {
				return nil
			}
			var lines []string
			for _, u := range s.acl.sortedUsers() {
				lines = append(lines, "user "+u.name+" "+u.perm.Load().describe())
			}
			return config.Lines(true, lines...)
		}},
}

func init() { registerSettings(aclSettings...) }

// parseACLFile parses the users file text, reporting every bad line in
// Redis 7.0's words. As in Redis, words are separated by single spaces
// (no quoting), and a bad rule is named only when it is an unknown command
// or category, so that no password reaches the error.
func parseACLFile(path, text string) (map[string]*aclPerm, error) {
	perms := make(map[string]*aclPerm)
	var errs strings.Builder
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" {
			continue
		}
		at := path + ":" + strconv.Itoa(i+1)
		args := strings.Split(line, " ")
		switch {
		case len(args) < 2 || args[0] != "user":
			errs.WriteString(at + " should start with user keyword followed by the username. ")
			continue
		case strings.ContainsAny(args[1], " \x00"):
			errs.WriteString("'" + at + ": username '" + args[1] + "' contains invalid characters. ")
			continue
		case perms[args[1]] != nil:
			errs.WriteString("WARNING: Duplicate user '" + args[1] + "' found on line " + strconv.Itoa(i+1) + ". ")
			continue
		}
		p := newUserPerm()
		bad := false
		for _, r := range args[2:] {
			r = strings.Trim(r, "\t\r\n")
			err := p.apply(r)
			switch {
			case err == nil:
			case err.Error() == aclErrUnknown:
				errs.WriteString(at + ": Error in applying operation '" + r + "': " + aclErrUnknown + ". ")
				bad = true
			case !bad:
				errs.WriteString(at + ": " + err.Error() + ". ")
				bad = true
			}
		}
		p.finish()
		perms[args[1]] = p
	}
	if errs.Len() > 0 {
		errs.WriteString("WARNING: ACL errors detected, no change to the previously active ACL rules was performed")
		return nil, errors.New(errs.String())
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

func errText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
