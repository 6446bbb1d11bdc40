package server

import "errors"

// Sentinel errors of package server.
var (
	// ErrServerClosed is returned by Serve on a Server that was served before.
	ErrServerClosed = errors.New("server: closed")
)
