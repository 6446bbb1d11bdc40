//go:build !race

package server

const (
	connMemConns = 1000
	connMemSlack = 0
)
