package listpack_test

import (
	"fmt"

	"github.com/loopkv/loopkv/store/listpack"
)

// A small hash as Redis keeps it: fields and values alternate, Find with
// skip 1 compares fields only, and the value is the entry after the field.
func Example() {
	lp := listpack.New(make([]byte, 0, 64)) // room for the edits below: no allocation
	for _, e := range []string{"name", "ada", "visits", "12"} {
		lp = listpack.AppendString(lp, []byte(e))
	}
	off := listpack.Find(lp, listpack.First(lp), []byte("visits"), 1)
	val := listpack.Next(lp, off)
	_, n, isInt := listpack.Get(lp, val)
	fmt.Println(n, isInt)

	lp = listpack.ReplaceInt(lp, val, n+1) // HINCRBY
	var scratch [20]byte
	fmt.Printf("%s %d entries, %d bytes, valid: %v\n",
		listpack.Value(lp, val, scratch[:0]), listpack.Len(lp), len(lp), listpack.ValidatePairs(lp) == nil)
	// Output:
	// 12 true
	// 13 4 entries, 28 bytes, valid: true
}
