package server

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal pair: the terminal side a daemon's stderr
// would be, and the master side that reads what it prints.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("ptsname: %v", err)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pts: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

func TestLogsOnATerminalAreConsoleLines(t *testing.T) {
	master, tty := openPty(t)
	log, err := newLogger(LogConfig{Level: zap.NewAtomicLevel()}, tty)
	if err != nil {
		t.Fatal(err)
	}
	log.Warn("maxmemory is low", zap.Int64("maxmemory", 1<<20))
	line, err := bufio.NewReader(master).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	// The level is coloured: yellow WARN between ANSI escapes.
	if len(f) != 5 || f[1] != "\x1b[33mWARN\x1b[0m" || f[3] != "maxmemory is low" || f[4] != `{"maxmemory": 1048576}` {
		t.Errorf("terminal line %q, want a console line with a coloured level", line)
	}
}
