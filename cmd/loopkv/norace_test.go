//go:build !race

package main

const (
	raceThreads     = 0
	stormHandshakes = 10000
)
