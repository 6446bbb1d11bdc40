package intset_test

import (
	"fmt"

	"github.com/loopkv/loopkv/store/intset"
)

// Adding a value too wide for the set's encoding rewrites every value at
// the new width; removing it does not narrow them again.
func Example() {
	is := intset.New(nil)
	for _, v := range []int64{3, -1, 7} {
		is, _ = intset.Add(is, v)
	}
	fmt.Println(intset.Encoding(is), len(is))
	is, _ = intset.Add(is, 1<<40)
	fmt.Println(intset.Encoding(is), len(is), intset.Min(is), intset.Max(is))
	is, _ = intset.Remove(is, 1<<40)
	pos, found := intset.Find(is, 7)
	fmt.Println(intset.Encoding(is), intset.Len(is), pos, found)
	// Output:
	// 2 14
	// 8 40 -1 1099511627776
	// 8 3 2 true
}
