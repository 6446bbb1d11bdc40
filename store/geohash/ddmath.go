package geohash

import "math"

// Correctly rounded sine, cosine and arcsine for the distances. Redis
// computes them with the C library's functions, which round correctly in
// all but about one case in a thousand; Go's math package is off by one
// unit in the last place in a fifth to a third of the cases, and a
// distance printed to 17 digits (STOREDIST) shows it. These compute the
// functions in double-double arithmetic (about 106 bits) and round once,
// which gives the correctly rounded double save where the exact value lies
// within 2^-100 of a rounding boundary.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// twoSum returns a + b exactly as a double-double.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	e := (a - (s - bb)) + (b - bb)
	return dd{s, e}
}

// quickTwoSum is twoSum for |a| >= |b|.
func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd returns a * b exactly as a double-double.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

// ddDivInt returns a / n.
func ddDivInt(a dd, n float64) dd {
	q1 := a.hi / n
	r := ddAdd(a, ddNeg(twoProd(q1, n)))
	q2 := r.hi / n
	r = ddAdd(r, ddNeg(twoProd(q2, n)))
	q3 := r.hi / n
	q := quickTwoSum(q1, q2)
	return ddAdd(q, dd{q3, 0})
}

// π/2 in three parts (each the rounding of what the previous leave).
const (
	pio2a = 1.5707963267948966192313216916397514
	pio2b = 6.123233995736766035868820147291818e-17
	pio2c = -1.4973849048591698329435e-33
)

// invFact[n] is 1/n! as a double-double, n <= 31.
var invFact = func() [32]dd {
	var f [32]dd
	f[0] = dd{1, 0}
	for n := 1; n < len(f); n++ {
		f[n] = ddDivInt(f[n-1], float64(n))
	}
	return f
}()

// reduce returns x - k·π/2 as a double-double and k, for |x| < 8.
func reduce(x float64) (dd, int) {
	k := math.Round(x / pio2a)
	// k·pio2a rounded, then the part the rounding lost, exactly
	p := k * pio2a
	r := twoSum(x, -p)
	r.lo -= math.FMA(k, pio2a, -p)
	r = ddAdd(r, ddNeg(twoProd(k, pio2b)))
	r = ddAdd(r, dd{-k * pio2c, 0})
	return r, int(k)
}

// sinPoly and cosPoly are the Taylor series of sin and cos at r, |r| <= π/4
// (to the terms below 2^-110), by Horner's rule in r².
func sinPoly(r dd) dd {
	r2 := ddMul(r, r)
	s := invFact[29]
	for j := 13; j >= 0; j-- {
		c := invFact[2*j+1]
		if j%2 == 1 {
			c = ddNeg(c)
		}
		s = ddAdd(ddMul(s, r2), c)
	}
	return ddMul(s, r)
}

func cosPoly(r dd) dd {
	r2 := ddMul(r, r)
	s := invFact[30]
	for j := 14; j >= 0; j-- {
		c := invFact[2*j]
		if j%2 == 1 {
			c = ddNeg(c)
		}
		s = ddAdd(ddMul(s, r2), c)
	}
	return s
}

// ddSin returns sin(x) as a double-double, for |x| < 8.
func ddSin(x float64) dd {
	r, k := reduce(x)
	switch k & 3 {
	case 0:
		return sinPoly(r)
	case 1:
		return cosPoly(r)
	case 2:
		return ddNeg(sinPoly(r))
	}
	return ddNeg(cosPoly(r))
}

// ddCos returns cos(x) as a double-double, for |x| < 8.
func ddCos(x float64) dd {
	r, k := reduce(x)
	switch k & 3 {
	case 0:
		return cosPoly(r)
	case 1:
		return ddNeg(sinPoly(r))
	case 2:
		return ddNeg(cosPoly(r))
	}
	return sinPoly(r)
}

// sin is the correctly rounded sine (math.Sin beyond |x| >= 8, which no
// distance needs).
func sin(x float64) float64 {
	if x == 0 || !(math.Abs(x) < 8) {
		return math.Sin(x)
	}
	s := ddSin(x)
	return s.hi + s.lo
}

// cos is the correctly rounded cosine (math.Cos beyond |x| >= 8: a
// bounding box of a huge radius).
func cos(x float64) float64 {
	if !(math.Abs(x) < 8) {
		return math.Cos(x)
	}
	c := ddCos(x)
	return c.hi + c.lo
}

// asin is the correctly rounded arcsine: Go's, refined by a Newton step
// on the double-double sine.
func asin(t float64) float64 {
	y := math.Asin(t)
	if t == 0 || !(math.Abs(t) < 1) {
		return y
	}
	c := math.Cos(y)
	e := ddAdd(dd{t, 0}, ddNeg(ddSin(y)))
	d := ddAdd(dd{y, 0}, dd{(e.hi + e.lo) / c, 0})
	return d.hi + d.lo
}
