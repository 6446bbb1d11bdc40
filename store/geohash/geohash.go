package geohash

import "math"

// The coordinate limits of a stored point (EPSG:900913): the poles cannot
// be indexed, so latitude stops where the Web Mercator square does.
const (
	LonMin = -180.0
	LonMax = 180.0
	LatMin = -85.05112878
	LatMax = 85.05112878

	// StepMax is the precision of a stored hash: 26 bits per coordinate.
	StepMax = 26
)

// EarthRadius is the radius, in meters, every distance is computed with
// (the quadratic mean radius of WGS-84 Redis uses).
const EarthRadius = 6372797.560856

// mercatorMax is half the equator, the largest radius a step estimate
// considers.
const mercatorMax = 20037726.37

// degToRad is the factor from degrees to radians, computed in float64
// from a float64 pi as C computes it (the exact constant rounds
// differently).
var degToRad = float64(pi64) / 180.0

var pi64 float64 = math.Pi

// Range is an interval of one coordinate.
type Range struct{ Min, Max float64 }

// Bits is a hash of Step bits per coordinate. The zero value (Step 0)
// names no cell: a neighbour dropped from a search.
type Bits struct {
	Bits uint64
	Step uint8
}

// IsZero reports whether h names no cell.
func (h Bits) IsZero() bool { return h.Bits == 0 && h.Step == 0 }

// Area is the cell a hash names.
type Area struct {
	Hash     Bits
	Lon, Lat Range
}

// The ranges a stored hash is relative to, and the standard ones the
// GEOHASH strings use.
var (
	lonRange    = Range{LonMin, LonMax}
	latRange    = Range{LatMin, LatMax}
	stdLatRange = Range{-90, 90}
)

// spread moves bit i of v to bit 2i.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// gather is the inverse of spread: bit 2i of x to bit i.
func gather(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	x = (x | x>>16) & 0x00000000ffffffff
	return uint32(x)
}

// Encode hashes a point relative to the ranges lon and lat, with step
// bits per coordinate: latitude in the even bits, longitude in the odd
// ones, so the bits read from the top alternate longitude, latitude as a
// standard geohash does. It fails outside the stored limits or ranges.
func Encode(lon, lat Range, x, y float64, step uint8) (Bits, bool) {
	if step > 32 || step == 0 || lat.Min == 0 && lat.Max == 0 || lon.Min == 0 && lon.Max == 0 {
		return Bits{}, false
	}
	if !ValidPoint(x, y) { // NaN too, which no argument parses to
		return Bits{}, false
	}
	if y < lat.Min || y > lat.Max || x < lon.Min || x > lon.Max {
		return Bits{Step: step}, false
	}
	latOff := (y - lat.Min) / (lat.Max - lat.Min)
	lonOff := (x - lon.Min) / (lon.Max - lon.Min)
	latOff *= float64(uint64(1) << step)
	lonOff *= float64(uint64(1) << step)
	// an offset of exactly 1<<step (the upper limit) keeps its carry bit,
	// as Redis's does
	return Bits{Bits: spread(uint32(latOff)) | spread(uint32(lonOff))<<1, Step: step}, true
}

// Decode returns the cell h names relative to the ranges.
func Decode(lon, lat Range, h Bits) (Area, bool) {
	if h.IsZero() || lat.Min == 0 && lat.Max == 0 || lon.Min == 0 && lon.Max == 0 {
		return Area{}, false
	}
	ilat, ilon := gather(h.Bits), gather(h.Bits>>1)
	cells := float64(uint64(1) << h.Step)
	latScale, lonScale := lat.Max-lat.Min, lon.Max-lon.Min
	a := Area{Hash: h}
	// ilat+1 wraps in 32 bits, as Redis's does
	a.Lat.Min = lat.Min + float64((float64(ilat)/cells)*latScale)
	a.Lat.Max = lat.Min + float64((float64(ilat+1)/cells)*latScale)
	a.Lon.Min = lon.Min + float64((float64(ilon)/cells)*lonScale)
	a.Lon.Max = lon.Min + float64((float64(ilon+1)/cells)*lonScale)
	return a, true
}

// Centre returns the middle of a cell, clamped to the stored limits.
func (a *Area) Centre() (x, y float64) {
	x = (a.Lon.Min + a.Lon.Max) / 2
	x = min(max(x, LonMin), LonMax)
	y = (a.Lat.Min + a.Lat.Max) / 2
	y = min(max(y, LatMin), LatMax)
	return x, y
}

// EncodeScore returns the 52-bit hash of a point, as a member's score;
// ok is false outside the limits.
func EncodeScore(x, y float64) (uint64, bool) {
	h, ok := Encode(lonRange, latRange, x, y, StepMax)
	return align52(h), ok
}

// ValidPoint reports whether a point lies within the stored limits.
func ValidPoint(x, y float64) bool {
	return x >= LonMin && x <= LonMax && y >= LatMin && y <= LatMax
}

// align52 shifts a hash of fewer steps to the stored precision.
func align52(h Bits) uint64 { return h.Bits << (52 - 2*uint(h.Step)) }

// scoreBits is a sorted-set score as the unsigned 64-bit integer a C
// compiler for x86-64 makes of it ((uint64_t)score): truncation below
// 2^63, negative values wrap, and what the instruction cannot represent
// becomes 1<<63 (0 once 2^63 is subtracted and added back).
func scoreBits(f float64) uint64 {
	const two63 = 9223372036854775808.0
	if f < two63 {
		return uint64(cvtt(f))
	}
	return uint64(cvtt(f-two63)) ^ 1<<63
}

// cvtt is x86's truncating conversion to int64: 1<<63 for NaN and values
// out of range.
func cvtt(f float64) int64 {
	if !(f > -9223372036854775808.0-1025 && f < 9223372036854775808.0) {
		return math.MinInt64
	}
	return int64(f)
}

// DecodeScore returns the point a member's score stands for: the centre
// of its cell.
func DecodeScore(score float64) (x, y float64) {
	a, _ := Decode(lonRange, latRange, Bits{Bits: scoreBits(score), Step: StepMax})
	return a.Centre()
}

// alphabet is the geohash base32 alphabet.
const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// AppendString appends the 11-character standard geohash (latitude over
// -90..90) of the point a score stands for. A hash has 52 bits, ten
// characters' worth; the eleventh is always '0', as Redis prints it.
func AppendString(dst []byte, score float64) []byte {
	x, y := DecodeScore(score)
	h, _ := Encode(lonRange, stdLatRange, x, y, StepMax)
	for i := 0; i < 10; i++ {
		dst = append(dst, alphabet[(h.Bits>>(52-uint(i+1)*5))&0x1f])
	}
	return append(dst, alphabet[0])
}

// Distance is the haversine great-circle distance in meters between two
// points given in degrees.
func Distance(x1, y1, x2, y2 float64) float64 {
	lat1, lon1 := y1*degToRad, x1*degToRad
	lat2, lon2 := y2*degToRad, x2*degToRad
	u := sin((lat2 - lat1) / 2)
	v := sin((lon2 - lon1) / 2)
	// float64() rounds each product, as C does without fused multiply-adds
	a := float64(u*u) + float64(float64(float64(cos(lat1)*cos(lat2))*v)*v)
	return 2.0 * EarthRadius * asin(math.Sqrt(a))
}
