// Package store implements loopkv's keyspace: 16 logical databases of string
// values, shared by every event loop, with Redis's expiry rules.
//
// The keyspace is split into shards by a hash of the key; each shard has its
// own mutex and, per database, its own chained hash table. An operation on one
// key locks exactly one shard. Operations on several keys (MSet, MSetNX,
// MGet, DelKeys, CountExisting, Rename, Copy) lock every shard they need at
// once, in increasing index order, so two of them can never deadlock and
// each is atomic, as the single-threaded Redis makes them. Whole-keyspace
// walks (Keys, Scan, DBSize, Stats, FlushDB) lock one shard at a time.
//
// Values are copied in once and updated in place when the new value fits the
// old capacity, so SET of an existing key, INCR and friends do not allocate.
// Because another loop may overwrite a value in place at any moment, reads
// never hand out a view of a stored value: they call an EncodeFunc (such as
// resp.AppendBulk) under the shard lock, which appends the value to the
// caller's buffer.
//
// Expiry works as in Redis: every access deletes the key it finds expired
// (lazy expiry), and ActiveExpireCycle, called by the server every 100 ms,
// samples keys with a TTL and deletes the expired ones. Times are Unix
// milliseconds passed in by the caller; the store never reads the wall clock
// (it only measures elapsed time to honour ActiveExpireCycle's budget).
//
// Memory. Every entry counts its key, its value's capacity and a fixed
// overhead towards UsedMemory, which the store keeps in one atomic counter
// so that the server can compare it with maxmemory before each command
// without locking. Evict deletes keys as Redis's maxmemory-policy says
// (noeviction, allkeys-lru, allkeys-random, volatile-lru, volatile-random,
// volatile-ttl): each access stamps the entry with a 24-bit clock in
// seconds under the shard lock, as Redis's LRU_CLOCK, and the LRU and TTL
// policies sample maxmemory-samples keys per database into a 16-entry
// eviction pool and evict its best candidate (see evict.go).
//
// SCAN cursors. Each shard's table is a power-of-two array of bucket chains
// that grows and shrinks by rehashing at once (under the shard lock). Within a
// table, the cursor walks bucket indexes in reverse-binary order, as Redis's
// dictScan does: incrementing the reversed index means that every bucket of
// a larger or smaller table that holds the keys of an unvisited bucket is
// still ahead of the cursor, so a key present during the whole iteration is
// returned at least once (perhaps more than once after a shrink). The cursor
// value is the table cursor shifted left by the shard bits, with the shard
// index in the low bits; shards are visited in order, and cursor 0 starts and
// ends an iteration.
package store
