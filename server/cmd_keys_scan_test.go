package server

import (
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestKeysPatternsMatchRedis compares KEYS for random glob patterns over
// random keys drawn from the bytes that matter to Redis's stringmatchlen,
// so that escapes, classes, ranges and unclosed brackets are all exercised.
func TestKeysPatternsMatchRedis(t *testing.T) {
	const seed = 20261129
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const alphabet = `ab*?[]^-\`
	word := func(max int, from string) string {
		n := rng.Intn(max + 1)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(from[rng.Intn(len(from))])
		}
		return b.String()
	}
	ref := startDiffRedis(t)
	ours := newOurServer()
	mset := []string{"MSET"}
	for i := 0; i < 150; i++ {
		k := word(5, alphabet)
		mset = append(mset, k, "v")
	}
	ref.do(t, mset)
	ours.do(t, mset)
	for i := 0; i < 400; i++ {
		pat := word(6, alphabet+"ab")
		args := []string{"KEYS", pat}
		want := ref.do(t, args)
		got := ours.do(t, args)
		if !sameReply("S", got, want) {
			t.Errorf("KEYS %q:\n  got  %q\n  want %q", pat, got, want)
		}
	}
}

// TestScanIterationReturnsWhatKeysReturns walks a full SCAN with small
// counts, and with MATCH, and compares the keys with Redis's KEYS.
func TestScanIterationReturnsWhatKeysReturns(t *testing.T) {
	ref := startDiffRedis(t)
	ours := newOurServer()
	mset := []string{"MSET"}
	for i := 0; i < 500; i++ {
		mset = append(mset, "key:"+strconv.Itoa(i), "v")
	}
	ref.do(t, mset)
	ours.do(t, mset)
	for _, tt := range []struct{ count, match string }{{"1", "*"}, {"7", "*"}, {"100", "key:1*"}, {"3", "key:?"}} {
		want := keySet(t, ref.do(t, []string{"KEYS", tt.match}))
		got := map[string]int{}
		cursor := "0"
		for steps := 0; ; steps++ {
			if steps > 10000 {
				t.Fatalf("SCAN COUNT %s did not finish", tt.count)
			}
			nd, _ := diffParseNode(ours.do(t, []string{"SCAN", cursor, "COUNT", tt.count, "MATCH", tt.match}))
			if len(nd.kids) != 2 {
				t.Fatalf("SCAN reply %+v", nd)
			}
			for _, k := range nd.kids[1].kids {
				got[k.body]++
			}
			if cursor = nd.kids[0].body; cursor == "0" {
				break
			}
		}
		var gk []string
		for k := range got {
			gk = append(gk, k)
		}
		sort.Strings(gk)
		if strings.Join(gk, ",") != strings.Join(want, ",") {
			t.Errorf("SCAN COUNT %s MATCH %s returned %d keys, KEYS on redis %d", tt.count, tt.match, len(gk), len(want))
		}
	}
}

func keySet(t *testing.T, raw []byte) []string {
	nd, _ := diffParseNode(raw)
	var ks []string
	for _, k := range nd.kids {
		ks = append(ks, k.body)
	}
	sort.Strings(ks)
	return ks
}
