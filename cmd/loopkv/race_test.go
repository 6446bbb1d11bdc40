//go:build race

package main

const (
	// raceThreads is the race detector's own background thread.
	raceThreads = 1
	// stormHandshakes is smaller under the race detector, which makes a
	// handshake about ten times slower on both sides.
	stormHandshakes = 1000
)
