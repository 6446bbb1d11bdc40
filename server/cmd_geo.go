package server

import (
	"math"
	"slices"
	"strconv"

	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
	"github.com/loopkv/loopkv/store/geohash"
)

// Geospatial commands (Redis geo.c) over sorted sets: a member's score is
// the 52-bit geohash of its point (store/geohash). GEOADD is a ZADD of
// the hashes (its event is "zadd" and it propagates as ZADD, as Redis
// rewrites it); the searches read the cells covering their shape, keep the
// members inside it, sort by distance and reply, or store the result as
// ZRANGESTORE does.

const (
	errGeoUnit      = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errGeoMember    = "ERR could not decode requested zset member"
	errGeoRadius    = "ERR need numeric radius"
	errGeoRadiusNeg = "ERR radius cannot be negative"
	errGeoWidth     = "ERR need numeric width"
	errGeoHeight    = "ERR need numeric height"
	errGeoBoxNeg    = "ERR height or width cannot be negative"
	errGeoCount     = "ERR COUNT must be > 0"
	errGeoAny       = "ERR the ANY argument requires COUNT argument"
)

// appendCFloat appends f as C's printf "%f" prints it.
func appendCFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'f', 6, 64)
}

// geoPointArgs parses a longitude and a latitude as Redis's
// extractLongLatOrReply, replying with its error when they are not a
// valid point.
func geoPointArgs(c *cmdCtx, lon, lat []byte) (x, y float64, ok bool) {
	if x, ok = store.ParseScore(lon); !ok {
		c.errReply(errNotFloat)
		return 0, 0, false
	}
	if y, ok = store.ParseScore(lat); !ok {
		c.errReply(errNotFloat)
		return 0, 0, false
	}
	if !geohash.ValidPoint(x, y) {
		msg := append([]byte("ERR invalid longitude,latitude pair "), appendCFloat(nil, x)...)
		msg = appendCFloat(append(msg, ','), y)
		c.errReply(string(msg))
		return 0, 0, false
	}
	return x, y, true
}

// geoUnit returns the meters in one unit, or replies with the error and
// returns a negative number.
func geoUnit(c *cmdCtx, u []byte) float64 {
	switch {
	case optIs(u, "m"):
		return 1
	case optIs(u, "km"):
		return 1000
	case optIs(u, "ft"):
		return 0.3048
	case optIs(u, "mi"):
		return 1609.34
	}
	c.errReply(errGeoUnit)
	return -1
}

// geoRadiusArgs parses a radius and its unit into s (extractDistanceOrReply).
func geoRadiusArgs(c *cmdCtx, r, unit []byte, s *geohash.Shape) bool {
	d, ok := store.ParseScore(r)
	switch {
	case !ok:
		c.errReply(errGeoRadius)
		return false
	case d < 0:
		c.errReply(errGeoRadiusNeg)
		return false
	}
	s.Radius = d
	conv := geoUnit(c, unit)
	if conv < 0 {
		return false
	}
	s.Conversion = conv
	return true
}

// geoBoxArgs parses a box's width, height and unit into s (extractBoxOrReply).
func geoBoxArgs(c *cmdCtx, w, h, unit []byte, s *geohash.Shape) bool {
	wf, ok := store.ParseScore(w)
	if !ok {
		c.errReply(errGeoWidth)
		return false
	}
	hf, ok := store.ParseScore(h)
	if !ok {
		c.errReply(errGeoHeight)
		return false
	}
	if hf < 0 || wf < 0 {
		c.errReply(errGeoBoxNeg)
		return false
	}
	s.Width, s.Height = wf, hf
	conv := geoUnit(c, unit)
	if conv < 0 {
		return false
	}
	s.Conversion = conv
	return true
}

// cmdGeoAdd is GEOADD key [NX|XX] [CH] longitude latitude member ...:
// every point is checked first, then the hashes are added as ZADD adds
// scores (Redis calls zaddCommand with them).
func cmdGeoAdd(c *cmdCtx) {
	sm, f, ch, ok := geoAddArgs(c)
	if !ok {
		return
	}
	res, st := c.store.ZAdd(c.db(), c.args[1], f, sm, c.now)
	clear(sm) // c.pairs keeps no pointer into the connection's input
	if res.Added+res.Updated > 0 {
		c.notifyN(notifyZSet, zaddEvent(f), c.args[1], res.Added+res.Updated)
	}
	switch {
	case st != store.OK:
		c.errReply(zstatusError(st))
	case ch:
		c.integer(int64(res.Added + res.Updated))
	default:
		c.integer(int64(res.Added))
	}
}

// geoAddArgs parses GEOADD's arguments into ZADD's score, member pairs
// (the scores as decimal integers), replying with the error when they are
// bad. The pairs and digits are c's reused pairs and digits, valid until
// the next call. The propagation of GEOADD (as ZADD) reads them again.
func geoAddArgs(c *cmdCtx) (sm [][]byte, f store.ZAddFlags, ch, ok bool) {
	i := 2
options:
	for ; i < len(c.args); i++ {
		a := c.args[i]
		switch {
		case optIs(a, "nx"):
			f |= store.ZAddNX
		case optIs(a, "xx"):
			f |= store.ZAddXX
		case optIs(a, "ch"):
			ch = true
		default:
			break options
		}
	}
	rest := c.args[i:]
	if len(rest)%3 != 0 || len(rest) == 0 || f&store.ZAddNX != 0 && f&store.ZAddXX != 0 {
		c.errReply(errSyntax)
		return nil, 0, false, false
	}
	sm, scores := c.pairs[:0], c.digits[:0]
	if n := len(rest) / 3 * 16; cap(scores) < n { // at most 16 digits a score
		// grown before the first: the pairs alias these digits, so they must not move
		scores = make([]byte, 0, n)
	}
	for j := 0; j < len(rest); j += 3 {
		x, y, valid := geoPointArgs(c, rest[j], rest[j+1])
		if !valid {
			return nil, 0, false, false
		}
		h, _ := geohash.EncodeScore(x, y)
		at := len(scores)
		scores = strconv.AppendUint(scores, h, 10)
		sm = append(sm, scores[at:len(scores):len(scores)], rest[j+2])
	}
	c.pairs, c.digits = sm[:0], scores[:0] // kept for the next call; the caller clears sm after use
	return sm, f, ch, true
}

// geoadd propagates GEOADD as the ZADD Redis rewrites it to:
// zadd key [NX|XX] [CH] score member ..., the options as given and the
// name in lower case, as geoaddCommand spells it.
func (p *propagator) geoadd(c *cmdCtx) bool {
	sm, _, _, ok := geoAddArgsQuiet(c)
	if !ok {
		return false
	}
	opts := len(c.args) - 2 - len(sm)/2*3
	p.begin(c.db(), 2+opts+len(sm))
	p.str("zadd")
	p.begin1(c.args[1 : 2+opts])
	p.begin1(sm)
	clear(sm)
	return true
}

// geoAddArgsQuiet is geoAddArgs without a reply: the command succeeded,
// so the arguments are good.
func geoAddArgsQuiet(c *cmdCtx) (sm [][]byte, f store.ZAddFlags, ch, ok bool) {
	mark := len(c.out)
	sm, f, ch, ok = geoAddArgs(c)
	c.out = c.out[:mark]
	return sm, f, ch, ok
}

// Human doubles (Redis's addReplyHumanLongDouble): 17 decimals, trailing
// zeros and point dropped; a bulk string in RESP2, a double in RESP3.
func appendHuman(dst []byte, f float64) []byte {
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	i := len(dst)
	for i > n && dst[i-1] == '0' {
		i--
	}
	if i > n && dst[i-1] == '.' {
		i--
	}
	return dst[:i]
}

func appendHuman2(dst []byte, f float64) []byte {
	var tmp [48]byte
	return resp.AppendBulk(dst, appendHuman(tmp[:0], f))
}

func appendHuman3(dst []byte, f float64) []byte {
	dst = append(dst, ',')
	return append(appendHuman(dst, f), '\r', '\n')
}

// GEOPOS entries: a member's decoded point, or a null array.
func appendGeoPos2(dst []byte, score float64) []byte {
	x, y := geohash.DecodeScore(score)
	dst = resp.AppendArrayLen(dst, 2)
	return appendHuman2(appendHuman2(dst, x), y)
}

func appendGeoPos3(dst []byte, score float64) []byte {
	x, y := geohash.DecodeScore(score)
	dst = resp.AppendArrayLen(dst, 2)
	return appendHuman3(appendHuman3(dst, x), y)
}

func appendNullArray2(dst []byte) []byte { return resp.AppendNullArray(dst, 2) }
func appendNullArray3(dst []byte) []byte { return resp.AppendNullArray(dst, 3) }

// appendGeoHash is a GEOHASH entry: the 11-character standard geohash.
func appendGeoHash(dst []byte, score float64) []byte {
	var tmp [16]byte
	return resp.AppendBulk(dst, geohash.AppendString(tmp[:0], score))
}

// geoScores replies an array with an entry per member: each present
// member's score through fn, null for the others (GEOPOS, GEOHASH).
func geoScores(c *cmdCtx, fn func([]byte, float64) []byte, null func([]byte) []byte) {
	mark := len(c.out)
	c.arrayLen(len(c.args) - 2)
	var st store.Status
	c.out, st = c.store.ZMScore(c.db(), c.args[1], c.args[2:], c.now, c.out, fn, null)
	if st != store.OK {
		c.out = c.out[:mark]
		c.errReply(statusError(st))
	}
}

func cmdGeoPos(c *cmdCtx) {
	if c.cl.proto >= 3 {
		geoScores(c, appendGeoPos3, appendNullArray3)
		return
	}
	geoScores(c, appendGeoPos2, appendNullArray2)
}

func cmdGeoHash(c *cmdCtx) {
	if c.cl.proto >= 3 {
		geoScores(c, appendGeoHash, appendNull3)
		return
	}
	geoScores(c, appendGeoHash, appendNull2)
}

// appendDistance is a distance as Redis replies it: "%.4f", a bulk string
// in both protocols.
func appendDistance(dst []byte, d float64) []byte {
	var tmp [48]byte
	return resp.AppendBulk(dst, strconv.AppendFloat(tmp[:0], d, 'f', 4, 64))
}

// cmdGeoDist is GEODIST key member1 member2 [M|KM|FT|MI]: the unit is
// checked before the key.
func cmdGeoDist(c *cmdCtx) {
	conv := 1.0
	switch {
	case len(c.args) == 5:
		if conv = geoUnit(c, c.args[4]); conv < 0 {
			return
		}
	case len(c.args) > 5:
		c.errReply(errSyntax)
		return
	}
	s1, s2, ok1, ok2, st := c.store.ZScorePair(c.db(), c.args[1], c.args[2], c.args[3], c.now)
	switch {
	case st == store.NotFound || st == store.OK && !(ok1 && ok2):
		c.null()
	case st != store.OK:
		c.errReply(statusError(st))
	default:
		x1, y1 := geohash.DecodeScore(s1)
		x2, y2 := geohash.DecodeScore(s2)
		c.out = appendDistance(c.out, geohash.Distance(x1, y1, x2, y2)/conv)
	}
}

// geoFlags say which search command runs (Redis's georadiusGeneric flags).
type geoFlags uint8

const (
	geoCoords      geoFlags = 1 << iota // GEORADIUS: longitude and latitude after the key
	geoMember                           // GEORADIUSBYMEMBER: a member after the key
	geoNoStore                          // the _RO forms: no STORE or STOREDIST
	geoSearch                           // GEOSEARCH: FROM... and BY... options
	geoSearchStore                      // GEOSEARCHSTORE: a destination first, STOREDIST a flag
)

func cmdGeoRadius(c *cmdCtx)           { geoSearchGeneric(c, 1, geoCoords) }
func cmdGeoRadiusRO(c *cmdCtx)         { geoSearchGeneric(c, 1, geoCoords|geoNoStore) }
func cmdGeoRadiusByMember(c *cmdCtx)   { geoSearchGeneric(c, 1, geoMember) }
func cmdGeoRadiusByMemberRO(c *cmdCtx) { geoSearchGeneric(c, 1, geoMember|geoNoStore) }
func cmdGeoSearch(c *cmdCtx)           { geoSearchGeneric(c, 1, geoSearch) }
func cmdGeoSearchStore(c *cmdCtx)      { geoSearchGeneric(c, 2, geoSearch|geoSearchStore) }

// geoQuery is a parsed search.
type geoQuery struct {
	shape                      geohash.Shape
	storeKey                   []byte
	storeDist                  bool
	withDist, withHash, withXY bool
	fromMember, fromLoc        bool
	byRadius, byBox            bool
	sort                       int // 0 none, 1 ascending, 2 descending
	any                        bool
	count                      int64 // 0: all
}

// geoPoint is a member inside a search's shape.
type geoPoint struct {
	m           []byte
	score, dist float64
	x, y        float64
}

// geoMemberPoint reads member's point into s, replying with Redis's
// error when it is not in key.
func geoMemberPoint(c *cmdCtx, key, member []byte, s *geohash.Shape) bool {
	score, ok, st := c.store.ZScoreUncounted(c.db(), key, member, c.now)
	if st != store.OK || !ok {
		c.errReply(errGeoMember)
		return false
	}
	s.X, s.Y = geohash.DecodeScore(score)
	return true
}

// geoParse parses a search's arguments in Redis's order, replying with
// the first error; exists says whether the source key exists.
func geoParse(c *cmdCtx, src int, fl geoFlags, exists bool, q *geoQuery) bool {
	a := c.args
	base := 0
	switch {
	case fl&geoCoords != 0:
		base = 6
		x, y, ok := geoPointArgs(c, a[2], a[3])
		if !ok {
			return false
		}
		q.shape.X, q.shape.Y = x, y
		if !geoRadiusArgs(c, a[4], a[5], &q.shape) {
			return false
		}
	case fl&geoMember != 0 && !exists:
		base = 5 // no source: the options are still parsed, for the reply's kind
	case fl&geoMember != 0:
		base = 5
		if !geoMemberPoint(c, a[src], a[2], &q.shape) || !geoRadiusArgs(c, a[3], a[4], &q.shape) {
			return false
		}
	default:
		base = 2
		if fl&geoSearchStore != 0 {
			base, q.storeKey = 3, a[1]
		}
	}
	search := fl&geoSearch != 0
	for i := base; i < len(a); i++ {
		arg, left := a[i], len(a)-i-1
		switch {
		case optIs(arg, "withdist"):
			q.withDist = true
		case optIs(arg, "withhash"):
			q.withHash = true
		case optIs(arg, "withcoord"):
			q.withXY = true
		case optIs(arg, "any"):
			q.any = true
		case optIs(arg, "asc"):
			q.sort = 1
		case optIs(arg, "desc"):
			q.sort = 2
		case optIs(arg, "count") && left >= 1:
			n, ok := intArg(c, a[i+1])
			if !ok {
				return false
			}
			if n <= 0 {
				c.errReply(errGeoCount)
				return false
			}
			q.count = n
			i++
		case (optIs(arg, "store") || optIs(arg, "storedist")) && left >= 1 && fl&(geoNoStore|geoSearch) == 0:
			q.storeKey, q.storeDist = a[i+1], len(arg) == len("storedist")
			i++
		case optIs(arg, "storedist") && fl&geoSearchStore != 0:
			q.storeDist = true
		case optIs(arg, "frommember") && left >= 1 && search && !q.fromLoc:
			if exists && !geoMemberPoint(c, a[src], a[i+1], &q.shape) {
				return false
			}
			q.fromMember = true
			i++
		case optIs(arg, "fromlonlat") && left >= 2 && search && !q.fromMember:
			x, y, ok := geoPointArgs(c, a[i+1], a[i+2])
			if !ok {
				return false
			}
			q.shape.X, q.shape.Y = x, y
			q.fromLoc = true
			i += 2
		case optIs(arg, "byradius") && left >= 2 && search && !q.byBox:
			if !geoRadiusArgs(c, a[i+1], a[i+2], &q.shape) {
				return false
			}
			q.shape.Box, q.byRadius = false, true
			i += 2
		case optIs(arg, "bybox") && left >= 3 && search && !q.byRadius:
			if !geoBoxArgs(c, a[i+1], a[i+2], a[i+3], &q.shape) {
				return false
			}
			q.shape.Box, q.byBox = true, true
			i += 3
		default:
			c.errReply(errSyntax)
			return false
		}
	}
	return geoCheck(c, fl, q)
}

// geoCheck rejects the combinations of options Redis rejects once all
// are parsed.
func geoCheck(c *cmdCtx, fl geoFlags, q *geoQuery) bool {
	switch {
	case q.storeKey != nil && (q.withDist || q.withHash || q.withXY):
		what := "STORE option in GEORADIUS"
		if fl&geoSearchStore != 0 {
			what = "GEOSEARCHSTORE"
		}
		c.errReply("ERR " + what + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
	case fl&geoSearch != 0 && !(q.fromMember || q.fromLoc):
		c.errReply("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(c.args[0]))
	case fl&geoSearch != 0 && !(q.byRadius || q.byBox):
		c.errReply("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(c.args[0]))
	case q.any && q.count == 0:
		c.errReply(errGeoAny)
	default:
		return true
	}
	return false
}

// geoSearchGeneric is Redis's georadiusGeneric: every search command,
// its source key at args[src].
func geoSearchGeneric(c *cmdCtx, src int, fl geoFlags) {
	key := c.args[src]
	_, st := c.store.ZCard(c.db(), key, c.now)
	if st != store.OK && st != store.NotFound {
		c.errReply(statusError(st))
		return
	}
	var q geoQuery
	if !geoParse(c, src, fl, st == store.OK, &q) {
		return
	}
	if st == store.NotFound {
		if q.storeKey != nil {
			c.delKeys([][]byte{q.storeKey})
			c.integer(0)
		} else {
			c.arrayLen(0)
		}
		return
	}
	if q.count != 0 && q.sort == 0 && !q.any {
		q.sort = 1
	}
	var ranges [9]geohash.ScoreRange
	cells := q.shape.Ranges(ranges[:0])
	zr := make([]store.ZScoreRange, len(cells))
	for i, r := range cells {
		zr[i] = store.ZScoreRange{Min: r.Min, Max: r.Max}
	}
	var pts []geoPoint
	visit := func(m []byte, score float64) bool {
		x, y := geohash.DecodeScore(score)
		d, in := q.shape.Within(x, y)
		if !in {
			return true
		}
		pts = append(pts, geoPoint{m: append([]byte(nil), m...), score: score, dist: d, x: x, y: y})
		return !(q.any && int64(len(pts)) >= q.count)
	}
	if q.storeKey != nil {
		geoStore(c, fl, key, &q, zr, visit, &pts)
		return
	}
	if st = c.store.ZWalkRanges(c.db(), key, zr, c.now, visit); st != store.OK && st != store.NotFound {
		c.errReply(statusError(st))
		return
	}
	pts = geoSelect(&q, pts)
	geoReply(c, &q, pts)
}

// geoSelect sorts the points as asked and keeps COUNT of them, their
// distances in the query's unit: all of them sorted stably (glibc's qsort
// merges), fewer by Redis's partial quicksort (cmd_geo_sort.go).
func geoSelect(q *geoQuery, pts []geoPoint) []geoPoint {
	cmp := func(a, b *geoPoint) int { return cmpDist(a.dist, b.dist) }
	if q.sort == 2 {
		cmp = func(a, b *geoPoint) int { return -cmpDist(a.dist, b.dist) }
	}
	partial := q.count != 0 && int64(len(pts)) > q.count
	switch {
	case q.sort == 0:
	case partial:
		geoPartialSort(pts, cmp, int(q.count))
	default:
		slices.SortStableFunc(pts, func(a, b geoPoint) int { return cmp(&a, &b) })
	}
	if partial {
		pts = pts[:q.count]
	}
	for i := range pts {
		pts[i].dist /= q.shape.Conversion
	}
	return pts
}

// cmpDist orders distances as Redis's sort_gp_asc.
func cmpDist(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return -1
}

// geoReply replies the points, each a member or, with options, an array
// of the member, distance, hash and point.
func geoReply(c *cmdCtx, q *geoQuery, pts []geoPoint) {
	opts := int(b2i(q.withDist) + b2i(q.withHash) + b2i(q.withXY))
	human := appendHuman2
	if c.cl.proto >= 3 {
		human = appendHuman3
	}
	c.arrayLen(len(pts))
	for _, p := range pts {
		if opts > 0 {
			c.arrayLen(opts + 1)
		}
		c.bulk(p.m)
		if q.withDist {
			c.out = appendDistance(c.out, p.dist)
		}
		if q.withHash {
			c.integer(int64(p.score))
		}
		if q.withXY {
			c.arrayLen(2)
			c.out = human(human(c.out, p.x), p.y)
		}
	}
}

// geoStore runs a search with STORE, STOREDIST or GEOSEARCHSTORE: the
// points replace the destination, scored by hash or by distance.
func geoStore(c *cmdCtx, fl geoFlags, src []byte, q *geoQuery, zr []store.ZScoreRange, visit func([]byte, float64) bool, pts *[]geoPoint) {
	result := func() ([][]byte, []float64) {
		sel := geoSelect(q, *pts)
		ms, ss := make([][]byte, len(sel)), make([]float64, len(sel))
		for i, p := range sel {
			ms[i], ss[i] = p.m, p.score
			if q.storeDist {
				ss[i] = p.dist
			}
		}
		return ms, ss
	}
	n, deleted, st := c.store.ZWalkStore(c.db(), q.storeKey, src, zr, c.now, visit, result)
	if st != store.OK {
		c.errReply(statusError(st))
		return
	}
	switch {
	case n > 0:
		event := "georadiusstore"
		if fl&geoSearch != 0 {
			event = "geosearchstore"
		}
		c.notifyN(notifyZSet, event, q.storeKey, n)
	case deleted:
		c.notify(notifyGeneric, "del", q.storeKey)
	}
	c.integer(int64(n))
}

var geoCommands = []command{
	{Name: "geoadd", Arity: -5, Flags: flagWrite | flagDenyOOM, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Add one or more geospatial items in the geospatial index represented using a sorted set", Since: "3.2.0", Group: "geo",
			Complexity: "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
			History:    [][2]string{{"6.2.0", "Added the `CH`, `NX` and `XX` options."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "condition", Type: argOneOf, Since: "6.2.0", Flags: argOptional, Args: []cmdArg{
					{Name: "nx", Type: argPureToken, Token: "NX"},
					{Name: "xx", Type: argPureToken, Token: "XX"},
				}},
				{Name: "change", Type: argPureToken, Token: "CH", Since: "6.2.0", Flags: argOptional},
				{Name: "longitude_latitude_member", Type: argBlock, Flags: argMultiple, Args: []cmdArg{
					{Name: "longitude", Type: argDouble},
					{Name: "latitude", Type: argDouble},
					{Name: "member", Type: argString},
				}},
			}},
		Fn: cmdGeoAdd},
	{Name: "geodist", Arity: -4, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Returns the distance between two members of a geospatial index", Since: "3.2.0", Group: "geo",
			Complexity: "O(log(N))",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member1", Type: argString},
				{Name: "member2", Type: argString},
				{Name: "unit", Type: argOneOf, Flags: argOptional, Args: geoUnits},
			}},
		Fn: cmdGeoDist},
	{Name: "geohash", Arity: -2, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Returns members of a geospatial index as standard geohash strings", Since: "3.2.0", Group: "geo",
			Complexity: "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdGeoHash},
	{Name: "geopos", Arity: -2, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Returns longitude and latitude of members of a geospatial index", Since: "3.2.0", Group: "geo",
			Complexity: "O(N) where N is the number of members requested.",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString, Flags: argMultiple},
			}},
		Fn: cmdGeoPos},
	{Name: "georadius", Arity: -6, Flags: flagWrite | flagDenyOOM, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsKeyword("STORE", 6), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsKeyword("STOREDIST", 6), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point", Since: "3.2.0", Group: "geo",
			Complexity:      "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument",
			History:         [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}, {"7.0.0", "Added support for uppercase unit names."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "longitude", Type: argDouble},
				{Name: "latitude", Type: argDouble},
				{Name: "radius", Type: argDouble},
				{Name: "unit", Type: argOneOf, Args: geoUnits},
				{Name: "withcoord", Type: argPureToken, Token: "WITHCOORD", Flags: argOptional},
				{Name: "withdist", Type: argPureToken, Token: "WITHDIST", Flags: argOptional},
				{Name: "withhash", Type: argPureToken, Token: "WITHHASH", Flags: argOptional},
				geoRadiusCountArg,
				geoOrderArg,
				{Name: "key", Type: argKey, KeySpec: 1, Token: "STORE", Flags: argOptional},
				{Name: "key", Type: argKey, KeySpec: 2, Token: "STOREDIST", Flags: argOptional},
			}},
		Fn: cmdGeoRadius},
	{Name: "georadius_ro", Arity: -6, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "A read-only variant for GEORADIUS", Since: "3.2.10", Group: "geo",
			Complexity:      "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`GEOSEARCH` with the `BYRADIUS` argument",
			History:         [][2]string{{"6.2.0", "Added the `ANY` option for `COUNT`."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "longitude", Type: argDouble},
				{Name: "latitude", Type: argDouble},
				{Name: "radius", Type: argDouble},
				{Name: "unit", Type: argOneOf, Args: geoUnits},
				{Name: "withcoord", Type: argPureToken, Token: "WITHCOORD", Flags: argOptional},
				{Name: "withdist", Type: argPureToken, Token: "WITHDIST", Flags: argOptional},
				{Name: "withhash", Type: argPureToken, Token: "WITHHASH", Flags: argOptional},
				geoRadiusCountArg,
				geoOrderArg,
			}},
		Fn: cmdGeoRadiusRO},
	{Name: "georadiusbymember", Arity: -5, Flags: flagWrite | flagDenyOOM, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsKeyword("STORE", 5), FK: fkRange(0, 1, 0)}, {Flags: keyOW | keyUpdate, BS: bsKeyword("STOREDIST", 5), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member", Since: "3.2.0", Group: "geo",
			Complexity:      "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments",
			History:         [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
				{Name: "radius", Type: argDouble},
				{Name: "unit", Type: argOneOf, Args: geoUnits},
				{Name: "withcoord", Type: argPureToken, Token: "WITHCOORD", Flags: argOptional},
				{Name: "withdist", Type: argPureToken, Token: "WITHDIST", Flags: argOptional},
				{Name: "withhash", Type: argPureToken, Token: "WITHHASH", Flags: argOptional},
				geoSearchCountArg,
				geoOrderArg,
				{Name: "key", Type: argKey, KeySpec: 1, Token: "STORE", Flags: argOptional},
				{Name: "key", Type: argKey, KeySpec: 2, Token: "STOREDIST", Flags: argOptional},
			}},
		Fn: cmdGeoRadiusByMember},
	{Name: "georadiusbymember_ro", Arity: -5, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "A read-only variant for GEORADIUSBYMEMBER", Since: "3.2.10", Group: "geo",
			Complexity:      "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
			DocFlags:        docDeprecated,
			DeprecatedSince: "6.2.0",
			ReplacedBy:      "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				{Name: "member", Type: argString},
				{Name: "radius", Type: argDouble},
				{Name: "unit", Type: argOneOf, Args: geoUnits},
				{Name: "withcoord", Type: argPureToken, Token: "WITHCOORD", Flags: argOptional},
				{Name: "withdist", Type: argPureToken, Token: "WITHDIST", Flags: argOptional},
				{Name: "withhash", Type: argPureToken, Token: "WITHHASH", Flags: argOptional},
				geoSearchCountArg,
				geoOrderArg,
			}},
		Fn: cmdGeoRadiusByMemberRO},
	{Name: "geosearch", Arity: -7, Flags: flagReadOnly, ACL: catGeo,
		Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.", Since: "6.2.0", Group: "geo",
			Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
			History:    [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
			Args: []cmdArg{
				{Name: "key", Type: argKey, KeySpec: 0},
				geoFromArg,
				geoByArg,
				geoOrderArg,
				geoSearchCountArg,
				{Name: "withcoord", Type: argPureToken, Token: "WITHCOORD", Flags: argOptional},
				{Name: "withdist", Type: argPureToken, Token: "WITHDIST", Flags: argOptional},
				{Name: "withhash", Type: argPureToken, Token: "WITHHASH", Flags: argOptional},
			}},
		Fn: cmdGeoSearch},
	{Name: "geosearchstore", Arity: -8, Flags: flagWrite | flagDenyOOM, ACL: catGeo,
		Keys: []keySpec{{Flags: keyOW | keyUpdate, BS: bsIndex(1), FK: fkRange(0, 1, 0)}, {Flags: keyRO | keyAccess, BS: bsIndex(2), FK: fkRange(0, 1, 0)}},
		Doc: cmdDoc{Summary: "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.", Since: "6.2.0", Group: "geo",
			Complexity: "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
			History:    [][2]string{{"7.0.0", "Added support for uppercase unit names."}},
			Args: []cmdArg{
				{Name: "destination", Type: argKey, KeySpec: 0},
				{Name: "source", Type: argKey, KeySpec: 1},
				geoFromArg,
				geoByArg,
				geoOrderArg,
				geoSearchCountArg,
				{Name: "storedist", Type: argPureToken, Token: "STOREDIST", Flags: argOptional},
			}},
		Fn: cmdGeoSearchStore},
}

func init() { register(geoCommands...) }

// Argument docs several GEO rows share, as Redis's JSON files repeat them.
var (
	geoUnits = []cmdArg{
		{Name: "m", Type: argPureToken, Token: "M"},
		{Name: "km", Type: argPureToken, Token: "KM"},
		{Name: "ft", Type: argPureToken, Token: "FT"},
		{Name: "mi", Type: argPureToken, Token: "MI"},
	}
	geoOrderArg = cmdArg{Name: "order", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
		{Name: "asc", Type: argPureToken, Token: "ASC"},
		{Name: "desc", Type: argPureToken, Token: "DESC"},
	}}
	// GEORADIUS's COUNT names ANY's version; GEOSEARCH's, newer, does not
	geoRadiusCountArg = cmdArg{Name: "count", Type: argBlock, Flags: argOptional, Args: []cmdArg{
		{Name: "count", Type: argInteger, Token: "COUNT"},
		{Name: "any", Type: argPureToken, Token: "ANY", Since: "6.2.0", Flags: argOptional},
	}}
	geoSearchCountArg = cmdArg{Name: "count", Type: argBlock, Flags: argOptional, Args: []cmdArg{
		{Name: "count", Type: argInteger, Token: "COUNT"},
		{Name: "any", Type: argPureToken, Token: "ANY", Flags: argOptional},
	}}
	geoFromArg = cmdArg{Name: "from", Type: argOneOf, Args: []cmdArg{
		{Name: "member", Type: argString, Token: "FROMMEMBER"},
		{Name: "longitude_latitude", Type: argBlock, Token: "FROMLONLAT", Args: []cmdArg{
			{Name: "longitude", Type: argDouble},
			{Name: "latitude", Type: argDouble},
		}},
	}}
	geoByArg = cmdArg{Name: "by", Type: argOneOf, Args: []cmdArg{
		{Name: "circle", Type: argBlock, Args: []cmdArg{
			{Name: "radius", Type: argDouble, Token: "BYRADIUS"},
			{Name: "unit", Type: argOneOf, Args: geoUnits},
		}},
		{Name: "box", Type: argBlock, Args: []cmdArg{
			{Name: "width", Type: argDouble, Token: "BYBOX"},
			{Name: "height", Type: argDouble},
			{Name: "unit", Type: argOneOf, Args: geoUnits},
		}},
	}}
)
