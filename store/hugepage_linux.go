package store

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const hugeSupported = true

// hugeMap maps n bytes (a multiple of hugeAlign) of anonymous memory
// aligned to hugeAlign, advised MADV_HUGEPAGE. It maps hugeAlign more and
// unmaps the unaligned head and tail, since mmap aligns to 4 KiB only.
func hugeMap(n int) ([]byte, error) {
	total := uintptr(n + hugeAlign)
	p, err := unix.MmapPtr(-1, 0, nil, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	head := (hugeAlign - uintptr(p)%hugeAlign) % hugeAlign
	if head > 0 {
		_ = unix.MunmapPtr(p, head)
	}
	start := unsafe.Add(p, head)
	if tail := total - head - uintptr(n); tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(start, n), tail)
	}
	b := unsafe.Slice((*byte)(start), n)
	// Without transparent huge pages (or with them "never") the advice
	// fails or is ignored, and the region is plain 4 KiB pages: still
	// correct, and still outside the collector's heap.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, nil
}

func hugeUnmap(b []byte) {
	_ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b)))
}
