package resp

// ScanArgs is how many leading arguments ScanCommand returns.
const ScanArgs = 4

// ScanCommand looks at the multibulk command at the front of buf without a
// Parser: it returns the command's length in bytes and its argument count,
// and puts its first min(argc, ScanArgs) arguments (aliasing buf) in first.
// n is 0 when buf does not start with a complete multibulk command in the
// common form the Parser's fast path reads (a count and bulk lengths of 1
// to 18 digits without leading zeros): an inline command, a partial one, a
// malformed one or an unusual one, which only a Parser can judge. Where n
// is not 0 a Parser with the default limits reads the same command, or
// refuses it (FuzzScanCommand). It keeps no state and allocates nothing: a
// server looks ahead at a pipelined batch with it before parsing and
// running its commands one by one.
func ScanCommand(buf []byte, first *[ScanArgs][]byte) (n, argc int) {
	if len(buf) == 0 || buf[0] != '*' {
		return 0, 0
	}
	count, cr, ok := fastLen(buf, 1)
	if !ok {
		return 0, 0
	}
	pos := cr + 2
	for i := int64(0); i < count; i++ {
		if pos >= len(buf) || buf[pos] != '$' {
			return 0, 0
		}
		bulk, cr, ok := fastLen(buf, pos+1)
		if !ok {
			return 0, 0
		}
		pos = cr + 2
		if int64(len(buf)-pos)-2 < bulk {
			return 0, 0
		}
		end := pos + int(bulk)
		if i < ScanArgs {
			first[i] = buf[pos:end:end]
		}
		pos = end + 2
	}
	return pos, int(count)
}
