package store

import "sync/atomic"

// ref addresses a chunk of an arena: the page index above refShift bits,
// the chunk's offset within the page in 8-byte units below. 0 is no chunk
// (page 0 is never used).
type ref uint32

const (
	refShift    = 15             // offset bits: pages hold at most 32768 units
	refUnit     = 8              // bytes per offset unit
	maxPage     = 1 << 18        // 256 KiB: the largest small-chunk page
	firstPage   = 4 << 10        // the first page of an arena; each next one doubles
	maxSmall    = 32 << 10       // larger chunks get a page of their own
	maxPages    = 1 << (32 - 15) // page indexes a ref can name
	classLarge  = 255            // class byte of a chunk with a page of its own
	noRef       = ref(0)
	refOffMask  = 1<<refShift - 1 //
	minChunk    = 16
	freeListEnd = ref(0)
)

// classSizes are the chunk sizes, multiples of 8 growing by about 1/8 from
// 16 bytes to maxSmall, as memcached's slab classes and jemalloc's size
// classes space them; classOf maps a size to the smallest class that holds
// it.
var (
	classSizes  []int32
	classBySize [maxSmall/refUnit + 1]uint8 // (size+7)/8 -> class
)

func init() {
	for sz := minChunk; sz <= maxSmall; {
		classSizes = append(classSizes, int32(sz))
		step := sz / 8 &^ (refUnit - 1)
		if step < refUnit {
			step = refUnit
		}
		sz += step
	}
	if classSizes[len(classSizes)-1] != maxSmall {
		classSizes = append(classSizes, maxSmall)
	}
	c := 0
	for u := range classBySize {
		for int(classSizes[c]) < u*refUnit {
			c++
		}
		classBySize[u] = uint8(c)
	}
}

// classOf returns the class of a chunk of n bytes, classLarge past maxSmall.
func classOf(n int) uint8 {
	if n > maxSmall {
		return classLarge
	}
	return classBySize[(n+refUnit-1)/refUnit]
}

// chunkSize returns the bytes of a chunk of class c holding n bytes.
func chunkSize(c uint8, n int) int {
	if c == classLarge {
		return (n + refUnit - 1) &^ (refUnit - 1)
	}
	return int(classSizes[c])
}

// memAcct is where an arena counts its bytes: the shard's total and the
// store's, guarded by the shard lock and atomic respectively.
type memAcct struct {
	used  int64
	total *atomic.Int64
}

func (m *memAcct) add(d int64) {
	m.used += d
	m.total.Add(d)
}

// arena is the pointer-free memory of one database of one shard: pages of
// bytes cut into chunks of size classes, with a free list per class
// threaded through the freed chunks. The garbage collector sees one
// pointer per page, never one per key, and its full-size pages live
// outside the heap on huge pages where the system has them (hugepage.go). Chunks are addressed by refs, which
// stay valid as pages are added; slices returned by at are valid until the
// chunk is freed. Guarded by the shard lock.
type arena struct {
	pages     [][]byte
	free      []ref // per class: head of the free list
	freePages []uint32
	cur       int // page being cut, -1 before the first
	bump      int // next free offset in pages[cur]
	next      int // size of the next small page
	acct      *memAcct
	huge      *hugeOwner // pages outside the heap (hugepage.go), nil for none
}

func (a *arena) init(acct *memAcct) {
	*a = arena{cur: -1, next: firstPage, acct: acct}
}

// at returns the bytes from chunk r to the end of its page.
func (a *arena) at(r ref) []byte {
	return a.pages[r>>refShift][int(r&refOffMask)*refUnit:]
}

// alloc returns a chunk of at least n bytes, its class and its bytes (len
// is the chunk's size). The chunk's content is not cleared.
func (a *arena) alloc(n int) (ref, uint8, []byte) {
	c := classOf(n)
	if c == classLarge {
		sz := chunkSize(c, n)
		p := a.newPage(sz, false)
		a.acct.add(int64(sz))
		return ref(p << refShift), c, a.pages[p]
	}
	if a.free == nil {
		a.free = make([]ref, len(classSizes))
	}
	sz := int(classSizes[c])
	a.acct.add(int64(sz))
	if r := a.free[c]; r != freeListEnd {
		b := a.at(r)[:sz]
		a.free[c] = ref(le.Uint32(b))
		return r, c, b
	}
	if a.cur < 0 || a.bump+sz > len(a.pages[a.cur]) {
		ps := a.next
		for ps < sz {
			ps *= 2
		}
		a.next = min(ps*2, maxPage)
		a.cur = a.newPage(ps, ps == maxPage)
		a.bump = 0
	}
	r := ref(a.cur<<refShift | a.bump/refUnit)
	b := a.pages[a.cur][a.bump : a.bump+sz]
	a.bump += sz
	return r, c, b
}

// newPage adds a page of sz bytes, reusing a freed page index. With huge
// (a full-size page of small chunks) it comes from a huge-page region where
// there is one: such pages are never released one by one (large pages
// are), only with the arena.
func (a *arena) newPage(sz int, huge bool) int {
	var b []byte
	if huge {
		b = a.hugePage()
	}
	if b == nil {
		b = make([]byte, sz)
	}
	if n := len(a.freePages); n > 0 {
		p := int(a.freePages[n-1])
		a.freePages = a.freePages[:n-1]
		a.pages[p] = b
		return p
	}
	if len(a.pages) >= maxPages {
		panic("store: arena out of page indexes")
	}
	if len(a.pages) == 0 {
		a.pages = append(a.pages, nil) // page 0 would make ref 0
	}
	a.pages = append(a.pages, b)
	return len(a.pages) - 1
}

// release returns chunk r of class c, which holds n bytes, to the arena.
func (a *arena) release(r ref, c uint8, n int) {
	if c == classLarge {
		p := uint32(r >> refShift)
		a.acct.add(-int64(len(a.pages[p])))
		a.pages[p] = nil
		a.freePages = append(a.freePages, p)
		return
	}
	a.acct.add(-int64(classSizes[c]))
	le.PutUint32(a.at(r), uint32(a.free[c]))
	a.free[c] = r
}

// bytes returns the bytes the arena holds, counted or free.
func (a *arena) bytes() int64 {
	var n int64
	for _, p := range a.pages {
		n += int64(cap(p))
	}
	return n
}
