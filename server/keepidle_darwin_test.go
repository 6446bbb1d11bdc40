package server

import "syscall"

// tcpKeepIdle is the TCP option holding keepalive's idle time; darwin
// names it TCP_KEEPALIVE.
const tcpKeepIdle = syscall.TCP_KEEPALIVE
