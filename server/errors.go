package server

import "errors"

// Sentinel errors of package server.
var (
	// ErrServerClosed is returned by Serve on a Server that was served before.
	ErrServerClosed = errors.New("server: closed")

	// errLoadStopped ends a load that Stop interrupted: the server exits
	// without the rest of its data, as Redis exits from SHUTDOWN while it
	// loads.
	errLoadStopped = errors.New("server: load stopped by the shutdown")
)
