package aof

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// FuzzManifest parses arbitrary manifests: never a panic, and what parses
// is written back in a form that parses to the same manifest.
func FuzzManifest(f *testing.F) {
	seeds := []string{
		"file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n", // what Redis writes
		"file a seq 2 type b\nfile a.1 seq 1 type h\nfile a.2 seq 2 type i\nfile a.3 seq 3 type i\n", // after a failed rewrite
		"# comment\nfile \"sp ace\\x00\" seq 1 type i extra 1\n",                                     // quoting, unknown key
		"file 'q' seq -3 type i\r\n", // single quotes, CRLF, negative seq
		"file a seq 1 type b",        // no LF
	}
	for _, tt := range manifestTests {
		seeds = append(seeds, tt.in)
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest("m", data)
		if err != nil {
			if _, ok := err.(*ManifestError); !ok {
				t.Fatalf("error %T %v is not a ManifestError", err, err)
			}
			return
		}
		if m.base == nil && len(m.hist) == 0 && len(m.incr) == 0 {
			return // only comments: Redis takes it, and writes nothing back
		}
		out := appendManifest(nil, &m)
		for _, line := range bytes.SplitAfter(out, []byte("\n")) {
			if len(line) > maxManifestLine {
				return // quoting lengthened a name past what a line holds
			}
		}
		m2, err := parseManifest("m", out)
		if err != nil {
			t.Fatalf("%q wrote %q, which does not parse: %v", data, out, err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("%q: parsed %+v, rewritten %q parses as %+v", data, m, out, m2)
		}
	})
}

// FuzzLoadIncr loads arbitrary bytes as the only incr file, with and
// without LoadTruncated: never a panic; input that a strict decoder reads
// as whole commands loads as exactly those; a truncating load leaves a file
// that then loads cleanly to the same commands.
func FuzzLoadIncr(f *testing.F) {
	full, starts := fiveSets()
	f.Add([]byte(full))                                    // clean
	f.Add([]byte(full[:starts[4]+5]))                      // torn tail
	f.Add([]byte("*1\r\n$5\r\nMULTI\r\n" + full))          // open MULTI
	f.Add([]byte("#TS:1\r\n*1\r\n$4\r\nPING\r\n"))         // annotation
	f.Add([]byte("*2\r\n$-1\r\n"))                         // negative length
	f.Add([]byte("*1\r\n$99999999999999999999\r\n"))       // huge length
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb")) // missing CRLF
	f.Fuzz(func(t *testing.T, data []byte) {
		want, strict := strictDecode(data)
		path := filepath.Join(t.TempDir(), incr1)
		for _, truncate := range []bool{false, true} {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, st, err := loadOne(path, truncate)
			if strict && (err != nil || !reflect.DeepEqual(got, want)) {
				t.Fatalf("truncate %v: %q: loaded %q, %v; want %q", truncate, data, got, err, want)
			}
			if err != nil || !st.Truncated {
				continue
			}
			cut, _ := os.ReadFile(path)
			if !bytes.Equal(cut, data[:st.TruncatedAt]) {
				t.Fatalf("%q: truncated to %q, not a %d-byte prefix", data, cut, st.TruncatedAt)
			}
			again, _, err := loadOne(path, false)
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("%q: the truncated file loads as %q, %v; first load %q", data, again, err, got)
			}
		}
	})
}

// loadOne loads one file as the last incr file of a log, as Load does,
// without opening a Log (which fsyncs at Close: too slow for fuzzing).
func loadOne(path string, truncate bool) ([]string, LoadStats, error) {
	var st LoadStats
	var got []string
	ld := loader{st: &st, apply: func(args [][]byte) error {
		got = append(got, string(bytes.Join(args, []byte(" "))))
		return nil
	}}
	err := ld.file(path, incr1, false, true, truncate, nil)
	return got, st, err
}

// strictDecode reads data as a sequence of whole commands, each "*N\r\n"
// (1 <= N <= 64) then N of "$L\r\n" + L bytes + "\r\n", lengths plain
// digits, no MULTI; it reports false for anything else. Each command comes
// back joined by spaces, as replay gives it.
func strictDecode(data []byte) ([]string, bool) {
	var cmds []string
	line := func() (int, bool) {
		i := bytes.Index(data, []byte("\r\n"))
		if i < 2 {
			return 0, false
		}
		n, err := strconv.Atoi(string(data[1:i]))
		if err != nil || n < 0 || data[1] == '+' || data[1] == '-' || data[1] == '0' && i > 2 {
			return 0, false
		}
		data = data[i+2:]
		return n, true
	}
	for len(data) > 0 {
		if data[0] != '*' {
			return nil, false
		}
		n, ok := line()
		if !ok || n < 1 || n > 64 {
			return nil, false
		}
		var args [][]byte
		for range n {
			if len(data) == 0 || data[0] != '$' {
				return nil, false
			}
			l, ok := line()
			if !ok || len(data) < l+2 || data[l] != '\r' || data[l+1] != '\n' {
				return nil, false
			}
			args = append(args, data[:l])
			data = data[l+2:]
		}
		if bytes.EqualFold(args[0], []byte("multi")) || bytes.EqualFold(args[0], []byte("exec")) {
			return nil, false
		}
		cmds = append(cmds, string(bytes.Join(args, []byte(" "))))
	}
	return cmds, true
}
