// Package store implements loopkv's keyspace: 16 logical databases of typed
// values (strings, lists, hashes, sets, sorted sets and streams; a
// stream's layout is in stream.go), shared by every event loop, with
// Redis's expiry and eviction rules. It knows nothing of RESP or sockets.
//
// # Shards and hash slots
//
// Keys are placed by their Redis Cluster hash slot: CRC16 of the key, or of
// its {hash tag}, modulo 16384 (KeySlot). Each of the lock shards (64 by
// default) owns a contiguous range of slots and, per database, one table.
// Counting one slot's keys is a lookup in the table's per-slot counters
// (CountKeysInSlot), and the keys of one slot all sit in one shard, which
// is what cluster mode's slot migration will walk. An operation on one key
// locks exactly one shard. Operations on several keys (MSet, MGet, DelKeys,
// Rename, Copy, Move, the set algebra) lock every shard they need at once,
// in increasing index order, so two of them can never deadlock and each is
// atomic, as the single-threaded Redis makes them. Whole-keyspace walks
// (Keys, Scan, DBSize, Stats) lock one shard at a time; SwapDB locks all.
//
// # The keyed-operation primitive
//
// Every operation on a key starts with acquire (or find, under locks
// already held), which finds the key, deletes it first when its TTL has
// passed, stamps its LRU clock and counts the keyspace hit or miss. The
// resulting kv checks the type (WrongType) and reads or changes the value
// through methods (create, del, setVal, resize, room/setLen for compact
// values, setTTL) that keep the table, the TTL index, the slot counters and
// the memory accounting in step. No operation repeats that prologue.
//
// # Memory layout: nothing for the collector to scan
//
// A table's keys and values live in an arena (arena.go): pages of bytes
// (4 KiB doubling to 256 KiB, and a page of its own for a chunk over 32 KiB)
// cut into chunks of about sixty size classes, with a free list per class
// threaded through the freed chunks. Chunks are addressed by 32-bit refs
// (page index and 8-byte offset), never by Go pointers, so the garbage
// collector sees one pointer per page and one per bucket array: its work
// does not grow with the number of keys (TestGCScanWorkDoesNotGrowWithKeys
// checks the scannable heap; at 10 million keys a full collection takes a
// few milliseconds of CPU, where a heap of one object per key took 645 ms).
//
// A key record is a 32-byte header (chain link, 24 bits of hash with the
// type and encoding in the top byte, key and value lengths, expiry, LRU
// clock with the chunk's class, TTL-index slot), then the key, then the
// value. Strings and compact aggregates (listpacks and intsets, in Redis's
// own byte formats, see packages listpack and intset) are stored in the
// record and edited in place in the chunk's spare room; a record that
// outgrows its chunk moves to a bigger one (relocate), re-linking its chain
// and TTL-index slot. An aggregate past its Limits (hash-max-listpack-
// entries and the others) converts once to a hash table of field records
// in the same arena, named by an index into the table's objs: one bucket
// array per big aggregate, no pointer per field.
//
// Huge pages (hugepage.go). At millions of keys a lookup is two dependent
// random reads, the bucket word and the record, and on the Go heap's 4 KiB
// pages each also misses the TLB. So the arenas' full-size (256 KiB) pages
// and the key dicts' bucket arrays of 256 KiB or more are cut from 64 MiB
// regions mapped outside the heap and advised MADV_HUGEPAGE on Linux, where
// transparent huge pages ("madvise" or "always") back them with 2 MiB
// pages; elsewhere, or if mapping fails, they come from the heap. The
// collector does not see them, so they are released explicitly: with the
// table (FlushDB, FlushAll), when a rehash finishes with the old array or
// the last key goes, and by a cleanup when an arena becomes unreachable;
// each release is zeroed and returned on a goroutine of its own, and a
// region with nothing in use is unmapped. Snapshot copies clone into the
// heap. BenchmarkScaleHugePages compares the two layouts in one process.
//
// Batched prefetch (prefetch.go). Those two misses serialize within one
// lookup, but the lookups of a pipelined batch are independent: Prefetch
// takes the first keys of a batch's commands and reads each one's bucket
// word, then the first line of the record heading its chain, then that of
// the next record where the head holds another hash, in three passes of
// independent loads, so the CPU overlaps the batch's misses (up to its
// ten or so outstanding line fills) and the commands then find their
// buckets and records in the cache. In a table being rehashed (a server
// just filled spends its first tens of seconds so) it reads what each
// lookup's rehash step will move too: the next old bucket's head record
// and the new bucket it goes to. In process at 10 million keys,
// batches of 16 take 0.35-0.45x the CPU per GET and SET without it, and
// 0.6x during a rehash (BenchmarkScalePrefetch).
// It reads under the shard locks, all the batch's shards locked at once in
// index order before the first read and unlocked after the last, for two
// reasons. A bucket array or huge-page slot may be released concurrently
// (a finished rehash, a flush: the slot is zeroed and its region maybe
// unmapped on another goroutine), so a read of a table not held locked
// could fault; atomic loads would not help, since the slice headers and
// pages lists themselves change under the lock. And a lock or unlock is a
// full barrier on x86 (LOCK CMPXCHG, LOCK XADD) that waits for the loads
// before it, so locking one shard at a time around its reads would
// serialize the misses again. The locks are held for about two memory
// latencies; nothing else is taken meanwhile, so the index order keeps
// every multi-shard lock deadlock-free. It changes nothing: no hit or
// miss, LRU stamp, expiry or rehash step.
//
// # Tables that grow by steps
//
// Each table is a chained hash table over the arena (dict.go) whose bucket
// array is a power of two. Growing (load factor 1) or shrinking (below 1/8)
// allocates the new array and rehashes incrementally, as Redis's dict.c:
// both arrays are live, every lookup or insert moves one bucket (visiting at
// most ten empty ones), and RehashCycle, run from the server's 100 ms
// ticker, moves more for 1 ms. No lock is held for a whole-table rehash.
// FlushDB detaches a shard's table in constant time; its heap pages are
// freed by the collector and its huge-page slots by a goroutine of their
// own, off the loops, so FLUSHDB and FLUSHALL are as cheap synchronous as
// ASYNC.
//
// # Expiry, eviction and memory accounting
//
// Expiry works as in Redis: every access deletes the key it finds expired
// (lazy expiry), and ActiveExpireCycle, called by the server every 100 ms,
// samples keys with a TTL from each table's index of them and deletes the
// expired ones. Times are Unix milliseconds passed in by the caller; the
// store never reads the wall clock (it only measures elapsed time to honour
// the cycles' budgets).
//
// UsedMemory counts the bytes of every chunk and bucket array, kept per
// table and summed in one atomic counter so that the server compares it with
// maxmemory before each command without locking. The server derives the Go
// runtime's soft memory limit from maxmemory. Evict deletes keys as Redis's
// maxmemory-policy says (noeviction, allkeys-lru, allkeys-lfu,
// allkeys-random, volatile-lru, volatile-lfu, volatile-random,
// volatile-ttl): the LRU, LFU and TTL policies sample maxmemory-samples keys
// per database into a 16-entry pool, named by copies of their keys, and
// evict its best candidate (see evict.go). A record's 24-bit access field
// is the LRU clock, or under SetLFU Redis's logarithmic access counter with
// its last decay time in minutes (see lfu.go); a lookup updates it under the
// shard lock it already holds.
//
// # The change journal
//
// The keys the store removes by itself (lazy and active expiry, eviction)
// are recorded, in order, in the Journal of the view the operation ran on
// (WithJournal; Lock views of a journaled view record into the same one),
// so that the server publishes their expired and evicted events and
// propagates their deletions before the command's own. Optionally the
// journal also records the keys operations create (for the "new" event),
// delete (a pop that empties a list) and miss on a read (keymiss). Its
// buffers are reused: recording allocates nothing in steady state.
//
// # Point-in-time snapshots
//
// Go cannot fork, so a background save (BGSAVE, an AOF rewrite's base) gets
// its point-in-time image by copy-on-write of the entries a write touches
// before the walk reaches them: the store's equivalent of fork's
// copy-on-write pages, at the grain of one key (snapshot.go).
//
// Every key record has a saved bit (bit 27 of its hash word, above the
// Type) and every table a parity; outside a walk each record's bit equals
// its table's parity. Snapshot locks every shard at once, as Lock(nil,
// true) does, so that its instant falls between two operations of every
// shard, multi-shard ones included. It counts each database's keys and keys
// with a TTL (for RESIZEDB), and flips the parity of every non-empty table,
// giving it a walk: now every record of it is unsaved, and a record created
// afterwards gets the new parity (saved: not in the image). Then it
// unlocks: O(shards × databases), nothing copied.
//
// Before a change to an unsaved record, the writer copies that record, and
// for a hash table, skiplist or list the whole value (proportional to it,
// as a page fault's copy is to the page), into the walk's side list, and
// sets the bit. The hooks are the lookups of writes (acquire, and find
// under locks held: one-key and multi-key writes, Lock views, the load
// functions) and unlinkRec, which every deletion passes (lazy and active
// expiry, eviction, DEL, RENAME's source). Without a walk that costs one
// predictable branch on a field read under the lock; with one, a copy at
// most once per key per snapshot, and nothing allocated once the side
// list's chunk has room. Reads save nothing: what they change (the LRU
// clock, lazy freeing of values deleted before) is not part of the image.
// FlushDB first copies the table's unsaved records to its walk's side list
// (the one whole-table copy left, for a rare command), so that the table's
// memory and huge-page slots go at once; SwapDB moves the walk with its
// table, in constant time.
//
// Each walks database 0 of every shard, then database 1, and so on, as an
// RDB file groups keys by SELECTDB. In each table it walks the key dict's
// bucket arrays in order (tab[0], then tab[1]) under the shard lock for a
// bounded step (256 records, 64 KiB or 1024 buckets), copying each unsaved
// record it meets into its batch and setting the bit, then unlocks and
// hands the batch's keys, and those writers saved since its last step, to
// the callback with no lock held. It steps through 8 tables of the
// database in turn, so that it never takes again at once the lock it just
// released: sync.Mutex would let it barge in ahead of the writer woken for
// that lock, for up to 1 ms. While a table is walked its dict is frozen:
// no rehash step moves records between its arrays (a rehash under way, or
// one a write starts, waits for the walk's end, as Redis avoids resizing
// while a child saves; lookups see both arrays meanwhile). So a record
// stays in its bucket until the walk passes it or a write saves it first
// (a record met twice is saved already and skipped), and the walk of a
// table is one pass over its buckets in memory order. A loop waits at most
// for the copy of the records it changes, or for one walk step; the
// callback may even write to the store; and the extra memory is the
// records written during the save before the walk reached them, plus one
// batch: proportional to the keys written, not to the tables. ClonedBytes
// and HeldBytes report it (INFO's rdb_last_cow_size and current_cow_size).
//
// Close of a snapshot not walked to its end (an aborted save) marks the
// rest of every table saved, in the same bounded steps, and drops the side
// lists, so the invariant holds again. A table has one walk at a time: a
// Snapshot taken while an earlier one still walks a table first copies the
// earlier one's unsaved records of that table to its side list, one table
// per lock hold (Redis likewise runs one child at a time).
//
// A Value is the walk's (or View's) read-only view of one key: its name,
// type, encoding, TTL and idle time; a string's bytes and a compact value's
// listpack or intset verbatim (Redis's byte formats, as RDB stores them);
// and for the big encodings Len, Each and, for lists, Nodes (each quicklist
// node's listpack, as RDB's quicklist 2 stores it).
//
// Loading is the other direction (load.go): LoadString, LoadCompact (a
// listpack or intset, validated as Redis's deep integrity check does and
// converted past the Limits in force, as rdbLoadObject converts) and
// LoadList store whole values under the key's lock; big values are built
// with the ordinary operations.
//
// # Reads and SCAN cursors
//
// Because another loop may change a value in place at any moment, reads
// never hand out a view of a stored value after the lock is released: they
// call an EncodeFunc (such as resp.AppendBulk) under the shard lock, which
// appends the value to the caller's buffer.
//
// Within a table, a SCAN cursor walks bucket indexes in reverse-binary
// order, as Redis's dictScan does, also while a rehash is under way (the
// smaller array's bucket, then every bucket of the larger one that expands
// it), so a key present during the whole iteration is returned at least
// once. The cursor value is the table cursor shifted left by the shard
// bits, with the shard index in the low bits; shards are visited in order,
// and cursor 0 starts and ends an iteration.
package store
