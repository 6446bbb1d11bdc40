//go:build race

package server

// raceEnabled: the race detector is on. Its sync.Pool drops a quarter of
// the values put back, so pooled objects allocate again.
const raceEnabled = true

const (
	// connMemConns is smaller under the race detector, which makes a
	// handshake about ten times slower on both sides.
	connMemConns = 300
	// connMemSlack is what the server's fixed costs (the registry's maps,
	// gnet's connection matrix, the loop's tables) add per connection when
	// spread over connMemConns: 1,723–1,775 bytes per idle connection at 300
	// under the race detector against 1,550–1,565 at 1,000 without it.
	connMemSlack = 250
)
