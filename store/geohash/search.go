package geohash

import "math"

// Shape is a search area: a circle of Radius, or a box of Width by
// Height, both in units of Conversion meters, around the point X, Y.
type Shape struct {
	X, Y          float64
	Box           bool
	Radius        float64
	Width, Height float64
	Conversion    float64 // meters per unit
}

// ScoreRange is the scores [Min, Max) of the stored hashes inside a cell.
type ScoreRange struct{ Min, Max float64 }

// boundingBox returns the longitude and latitude limits of s. A box is
// wider at its edge nearer the pole, so the edge nearer the pole sets the
// longitude limits (the northern one in the northern hemisphere).
func (s *Shape) boundingBox() (minLon, minLat, maxLon, maxLat float64) {
	h, w := s.Radius, s.Radius
	if s.Box {
		h, w = s.Height/2, s.Width/2
	}
	h *= s.Conversion
	w *= s.Conversion
	latDelta := (h / EarthRadius) / degToRad
	topDelta := (w / EarthRadius / cos((s.Y+latDelta)*degToRad)) / degToRad
	bottomDelta := (w / EarthRadius / cos((s.Y-latDelta)*degToRad)) / degToRad
	d := topDelta
	if s.Y < 0 {
		d = bottomDelta
	}
	return s.X - d, s.Y - latDelta, s.X + d, s.Y + latDelta
}

// stepsForRadius estimates the precision at which the centre cell and
// its eight neighbours cover a radius of r meters around latitude lat:
// halve the cells until one is about the radius, two steps coarser, and
// coarser still near the poles, where meridians converge.
func stepsForRadius(r, lat float64) uint8 {
	if r == 0 {
		return 26
	}
	step := 1
	for r < mercatorMax {
		r *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	return uint8(min(max(step, 1), 26))
}

// moveX moves h one cell east (d > 0) or west, wrapping around.
func moveX(h Bits, d int) Bits { return move(h, d, 0xaaaaaaaaaaaaaaaa, 0x5555555555555555) }

// moveY moves h one cell north (d > 0) or south, wrapping around.
func moveY(h Bits, d int) Bits { return move(h, d, 0x5555555555555555, 0xaaaaaaaaaaaaaaaa) }

// move steps the coordinate whose bits mask selects (longitude: the odd
// bits, latitude: the even ones) by one cell. The other coordinate's bits
// of v, set, carry an increment through to the next bit of this one, and
// are cleared afterwards by the mask.
func move(h Bits, d int, mask, other uint64) Bits {
	shift := 64 - 2*uint(h.Step)
	v := h.Bits & mask
	fill := other >> shift
	if d > 0 {
		v += fill + 1
	} else {
		v = (v | fill) - (fill + 1)
	}
	v &= mask >> shift
	h.Bits = v | h.Bits&other
	return h
}

// The cells a search visits, in Redis's order.
const (
	cellCentre = iota
	cellN
	cellS
	cellE
	cellW
	cellNE
	cellNW
	cellSE
	cellSW
)

// neighbours returns h and its eight neighbours, in cell order.
func neighbours(h Bits) [9]Bits {
	return [9]Bits{
		cellCentre: h,
		cellN:      moveY(h, 1),
		cellS:      moveY(h, -1),
		cellE:      moveX(h, 1),
		cellW:      moveX(h, -1),
		cellNE:     moveY(moveX(h, 1), 1),
		cellNW:     moveY(moveX(h, -1), 1),
		cellSE:     moveY(moveX(h, 1), -1),
		cellSW:     moveY(moveX(h, -1), -1),
	}
}

// Ranges appends to dst the score ranges a search of s must read, in the
// order Redis reads them: the centre cell and its neighbours at a step
// estimated from the shape's radius (its half diagonal for a box), one
// step coarser when a neighbour does not reach the shape's bounding box,
// less the neighbours wholly outside it, and less a cell equal to the
// one read before it (with huge radii neighbours coincide).
func (s *Shape) Ranges(dst []ScoreRange) []ScoreRange {
	minLon, minLat, maxLon, maxLat := s.boundingBox()
	r := s.Radius
	if s.Box {
		r = math.Sqrt(float64((s.Width/2)*(s.Width/2)) + float64((s.Height/2)*(s.Height/2)))
	}
	r *= s.Conversion
	steps := stepsForRadius(r, s.Y)
	h, _ := Encode(lonRange, latRange, s.X, s.Y, steps)
	cells := neighbours(h)
	area, _ := Decode(lonRange, latRange, h)

	n, _ := Decode(lonRange, latRange, cells[cellN])
	so, _ := Decode(lonRange, latRange, cells[cellS])
	e, _ := Decode(lonRange, latRange, cells[cellE])
	w, _ := Decode(lonRange, latRange, cells[cellW])
	if steps > 1 && (n.Lat.Max < maxLat || so.Lat.Min > minLat || e.Lon.Max < maxLon || w.Lon.Min > minLon) {
		steps--
		h, _ = Encode(lonRange, latRange, s.X, s.Y, steps)
		cells = neighbours(h)
		area, _ = Decode(lonRange, latRange, h)
	}
	if steps >= 2 {
		if area.Lat.Min < minLat {
			cells[cellS], cells[cellSW], cells[cellSE] = Bits{}, Bits{}, Bits{}
		}
		if area.Lat.Max > maxLat {
			cells[cellN], cells[cellNE], cells[cellNW] = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Min < minLon {
			cells[cellW], cells[cellSW], cells[cellNW] = Bits{}, Bits{}, Bits{}
		}
		if area.Lon.Max > maxLon {
			cells[cellE], cells[cellSE], cells[cellNE] = Bits{}, Bits{}, Bits{}
		}
	}
	last := 0
	for i, c := range cells {
		if c.IsZero() {
			continue
		}
		// Redis compares with the cell read last only once that is not
		// the centre (its index 0 doubles as "none yet")
		if last != 0 && c == cells[last] {
			continue
		}
		lo := align52(c)
		c.Bits++
		dst = append(dst, ScoreRange{Min: float64(lo), Max: float64(align52(c))})
		last = i
	}
	return dst
}

// Within reports whether the point x, y lies in s, and its distance in
// meters from the centre. A box is aligned with the meridians: the point
// is in it when its distances along the parallel and along the meridian
// from the centre are within half the width and half the height.
func (s *Shape) Within(x, y float64) (dist float64, ok bool) {
	if !s.Box {
		d := Distance(s.X, s.Y, x, y)
		return d, !(d > s.Radius*s.Conversion)
	}
	w, h := s.Width*s.Conversion, s.Height*s.Conversion
	lonDist := Distance(x, y, s.X, y)
	latDist := Distance(x, y, x, s.Y)
	if lonDist > w/2 || latDist > h/2 {
		return 0, false
	}
	return Distance(s.X, s.Y, x, y), true
}
