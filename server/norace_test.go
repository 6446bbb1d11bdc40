//go:build !race

package server

const raceEnabled = false

const (
	connMemConns = 1000
	connMemSlack = 0
)
