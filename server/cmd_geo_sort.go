package server

// Redis sorts a search's points with the C library's qsort when it
// returns them all, and with its own partial quicksort (pqsort.c) when
// COUNT keeps fewer: the engineered quicksort of Bentley and McIlroy
// ("Engineering a Sort Function", 1993), which recurses only into the
// parts that overlap the ranks kept. Neither is stable in general, but
// glibc's qsort of an array this small is a merge sort, which is; the
// partial sort moves points of equal distance as the quicksort's
// partitioning does, so that the points kept at a tie, and their order,
// are Redis's. geoPartialSort is that quicksort, written from the paper.

// geoPartialSort orders p by cmp so that its first keep entries are the
// keep smallest in the order Redis's pqsort(p, 0, keep-1) leaves them.
func geoPartialSort(p []geoPoint, cmp func(a, b *geoPoint) int, keep int) {
	qs := geoQuicksort{p: p, cmp: cmp, last: keep - 1}
	qs.sort(0, len(p))
}

type geoQuicksort struct {
	p    []geoPoint
	cmp  func(a, b *geoPoint) int
	last int // the last rank that must be in place
}

func (q *geoQuicksort) less(i, j int) int { return q.cmp(&q.p[i], &q.p[j]) }
func (q *geoQuicksort) swap(i, j int)     { q.p[i], q.p[j] = q.p[j], q.p[i] }

// vecswap swaps the n entries from i with the n from j.
func (q *geoQuicksort) vecswap(i, j, n int) {
	for k := 0; k < n; k++ {
		q.swap(i+k, j+k)
	}
}

// med3 returns the index of the median of three.
func (q *geoQuicksort) med3(a, b, c int) int {
	if q.less(a, b) < 0 {
		switch {
		case q.less(b, c) < 0:
			return b
		case q.less(a, c) < 0:
			return c
		}
		return a
	}
	switch {
	case q.less(b, c) > 0:
		return b
	case q.less(a, c) < 0:
		return a
	}
	return c
}

// insertion sorts the n entries from a by insertion.
func (q *geoQuicksort) insertion(a, n int) {
	for m := a + 1; m < a+n; m++ {
		for l := m; l > a && q.less(l-1, l) > 0; l-- {
			q.swap(l, l-1)
		}
	}
}

// sort sorts the n entries from a, as far as the kept ranks need.
func (q *geoQuicksort) sort(a, n int) {
	for {
		if n < 7 {
			q.insertion(a, n)
			return
		}
		m := a + n/2
		if n > 7 {
			l, h := a, a+n-1
			if n > 40 {
				d := n / 8
				l = q.med3(l, l+d, l+2*d)
				m = q.med3(m-d, m, m+d)
				h = q.med3(h-2*d, h-d, h)
			}
			m = q.med3(l, m, h)
		}
		q.swap(a, m)
		// three-way partition around the pivot at a: equal entries go to
		// the ends (a+1.. and ..d), then to the middle
		pa, pb, pc, pd := a+1, a+1, a+n-1, a+n-1
		swapped := false
		for {
			for pb <= pc {
				r := q.less(pb, a)
				if r > 0 {
					break
				}
				if r == 0 {
					swapped = true
					q.swap(pa, pb)
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := q.less(pc, a)
				if r < 0 {
					break
				}
				if r == 0 {
					swapped = true
					q.swap(pc, pd)
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			q.swap(pb, pc)
			swapped = true
			pb++
			pc--
		}
		if !swapped { // already partitioned: finish by insertion
			q.insertion(a, n)
			return
		}
		pn := a + n
		r := min(pa-a, pb-pa)
		q.vecswap(a, pb-r, r)
		r = min(pd-pc, pn-pd-1)
		q.vecswap(pb, pn-r, r)
		if r = pb - pa; r > 1 && a <= q.last {
			q.sort(a, r)
		}
		r = pd - pc
		if r <= 1 {
			return
		}
		a, n = pn-r, r
		if a > q.last {
			return
		}
	}
}
