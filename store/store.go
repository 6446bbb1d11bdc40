package store

// TEMPORARY stub: the real keyspace replaces this file.

// Options configures a Store.
type Options struct {
	Databases int // number of logical databases, default 16
	Shards    int // number of lock shards, a power of two, default 64
}

// Store is the keyspace shared by all loops.
type Store struct{ opts Options }

// New returns an empty Store.
func New(opts Options) *Store { return &Store{opts: opts} }
