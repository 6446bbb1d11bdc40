// Package redisref starts a reference redis-server for tests and talks to it
// over one binary-safe RESP2 connection, so that encoders can compare their
// bytes with what Redis itself writes (DUMP payloads). It is for tests only.
package redisref

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// Conn is one connection to a reference redis-server started by Start.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

// Start runs redis-server on a free loopback port, with persistence off and
// the extra config arguments (e.g. "--rdbcompression", "no"), until the test
// ends, and returns a connection to it. It skips the test when redis-server
// is not installed. When redis-server exits because the port picked here was
// taken before it bound it, it runs again on a new one, up to three times.
func Start(t TB, extra ...string) *Conn {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skipf("redis-server not installed (make deps)")
	}
	dir := t.TempDir()
	logFile := filepath.Join(dir, "redis.log")
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "no", "--dir", dir, "--logfile", logFile}, extra...)
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
		if c := dialUntilUp(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exited); c != nil {
			t.Cleanup(func() { c.c.Close() })
			return c
		}
		select {
		case <-exited:
		default:
			t.Fatal("redis-server did not start")
		}
		log, _ := os.ReadFile(logFile)
		if !bytes.Contains(log, []byte("Address already in use")) || attempt == 3 {
			t.Fatalf("redis-server exited:\n%s", log)
		}
		_ = os.Remove(logFile)
	}
}

// TB is the part of testing.TB that Start uses.
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// dialUntilUp dials addr for up to five seconds until it answers PING, and
// returns nil when it does not or the server meant to listen there exits.
func dialUntilUp(addr string, exited <-chan struct{}) *Conn {
	for i := 0; i < 250; i++ {
		select {
		case <-exited:
			return nil
		default:
		}
		if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c := &Conn{c: nc, r: bufio.NewReader(nc)}
			if r, err := c.Do("PING"); err == nil && string(r) == "PONG" {
				return c
			}
			nc.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// Do sends one command and returns its reply: the payload of a simple
// string, bulk string or integer, or nil for a null bulk. An error reply
// comes back as an error; arrays are not supported.
func (c *Conn) Do(args ...string) ([]byte, error) {
	_ = c.c.SetDeadline(time.Now().Add(10 * time.Second))
	b := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.c.Write(b); err != nil {
		return nil, err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, fmt.Errorf("redisref: short reply %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+', ':':
		return body, nil
	case '-':
		return nil, errors.New(string(body))
	case '$':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < 0 {
			return nil, err
		}
		data := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, data); err != nil {
			return nil, err
		}
		return data[:n], nil
	}
	return nil, fmt.Errorf("redisref: unsupported reply %q", line)
}

// Dump returns DUMP key's object: its RDB type byte and the serialized value
// that follows it, after checking the 10-byte trailer's length (2-byte RDB
// version, 8-byte CRC64).
func (c *Conn) Dump(key string) (typ byte, body []byte, err error) {
	p, err := c.Do("DUMP", key)
	if err != nil {
		return 0, nil, err
	}
	if len(p) < 11 {
		return 0, nil, fmt.Errorf("redisref: DUMP %s: %d-byte payload", key, len(p))
	}
	return p[0], p[1 : len(p)-10], nil
}

// RDB object types of Redis 7.0 that hold compact encodings.
const (
	TypeSetIntset     = 11
	TypeHashListpack  = 16
	TypeZsetListpack  = 17
	TypeListQuicklist = 18 // RDB_TYPE_LIST_QUICKLIST_2
)

// ReadLen reads an RDB length (rdbLoadLen) from the start of b.
func ReadLen(b []byte) (n uint64, rest []byte, err error) {
	if len(b) == 0 {
		return 0, nil, errors.New("redisref: missing length")
	}
	switch b[0] >> 6 {
	case 0:
		return uint64(b[0] & 0x3F), b[1:], nil
	case 1:
		if len(b) < 2 {
			return 0, nil, errors.New("redisref: short 14-bit length")
		}
		return uint64(b[0]&0x3F)<<8 | uint64(b[1]), b[2:], nil
	}
	switch {
	case b[0] == 0x80 && len(b) >= 5:
		return uint64(binary.BigEndian.Uint32(b[1:])), b[5:], nil
	case b[0] == 0x81 && len(b) >= 9:
		return binary.BigEndian.Uint64(b[1:]), b[9:], nil
	}
	return 0, nil, fmt.Errorf("redisref: length byte 0x%02x is an encoded string (LZF or integer)", b[0])
}

// ReadString reads a plain RDB string (a length, then the bytes) from the
// start of b. LZF-compressed and integer-encoded strings are errors: run the
// server with "--rdbcompression", "no".
func ReadString(b []byte) (s, rest []byte, err error) {
	n, b, err := ReadLen(b)
	if err != nil {
		return nil, nil, err
	}
	if uint64(len(b)) < n {
		return nil, nil, fmt.Errorf("redisref: string of %d bytes, %d left", n, len(b))
	}
	return b[:n], b[n:], nil
}

// Restore runs RESTORE key 0 <payload> REPLACE with the object typ+body, an
// RDB version of 10 and a zero CRC64: start the server with
// "--enable-debug-command", "yes" and call SkipChecksums first. It returns
// Redis's refusal as an error.
func (c *Conn) Restore(key string, typ byte, body []byte) error {
	p := append([]byte{typ}, body...)
	p = append(p, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	_, err := c.Do("RESTORE", key, "0", string(p), "REPLACE")
	return err
}

// SkipChecksums makes the server accept any CRC64 in RESTORE payloads and
// check every payload deeply (sanitize-dump-payload yes), so that Restore
// tells whether Redis accepts an encoding.
func (c *Conn) SkipChecksums() error {
	if _, err := c.Do("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1"); err != nil {
		return err
	}
	_, err := c.Do("CONFIG", "SET", "sanitize-dump-payload", "yes")
	return err
}

// AppendLen appends n as an RDB length (rdbSaveLen).
func AppendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, 0x40|byte(n>>8), byte(n))
	case n <= 1<<32-1:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

// AppendString appends s as a plain RDB string: its length, then its bytes.
func AppendString(dst, s []byte) []byte {
	return append(AppendLen(dst, uint64(len(s))), s...)
}
