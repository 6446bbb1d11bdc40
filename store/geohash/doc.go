// Package geohash is the geohash arithmetic of Redis 7.0's geospatial
// commands: a point's longitude and latitude interleaved into a 52-bit
// integer (26 bits each), the cell a hash names, its neighbours, the
// haversine distance and the cells that cover a search shape. It knows
// nothing of sorted sets or RESP; the server stores a hash as a member's
// score.
//
// Every formula keeps Redis's order of floating-point operations, since
// the replies print the results to their last digits and a search must
// select exactly the members Redis selects.
//
// The search (search.go), as Redis 7.0's geohash_helper.c does it:
//
//	step         from the radius (a box's half diagonal): halve the 26-bit cells
//	             until one is about the radius, two steps coarser, coarser near the poles
//	centre cell  the centre's hash at that step, and its eight neighbours
//	one coarser  when a neighbour stops short of the shape's bounding box
//	drop         the neighbours wholly outside the bounding box
//	ranges       each cell's scores [hash<<s, (hash+1)<<s), in Redis's cell order
//	filter       the exact distance (haversine) or the box's two distances
package geohash
