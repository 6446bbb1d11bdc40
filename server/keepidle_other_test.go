//go:build !darwin

package server

import "syscall"

// tcpKeepIdle is the TCP option holding keepalive's idle time.
const tcpKeepIdle = syscall.TCP_KEEPIDLE
