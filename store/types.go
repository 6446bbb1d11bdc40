package store

// Type is a value's type, numbered as Redis's OBJ_* types (and RDB) number them.
type Type uint8

const (
	TypeString Type = 0
	TypeList   Type = 1
	TypeSet    Type = 2
	TypeZSet   Type = 3
	TypeHash   Type = 4
	TypeStream Type = 6
	TypeNone   Type = 15 // no key: what a lookup of a missing key reports
)

var typeNames = [...]string{TypeString: "string", TypeList: "list", TypeSet: "set", TypeZSet: "zset",
	TypeHash: "hash", 5: "", TypeStream: "stream"}

// String returns the name TYPE prints: "string", "hash", ..., "none".
func (t Type) String() string {
	if int(t) < len(typeNames) && typeNames[t] != "" {
		return typeNames[t]
	}
	return "none"
}

// ParseType returns the type named name as TYPE prints it, in any case.
func ParseType(name []byte) (Type, bool) {
	for t, n := range typeNames {
		if n != "" && len(n) == len(name) && equalFold(name, n) {
			return Type(t), true
		}
	}
	return TypeNone, false
}

func equalFold(b []byte, lower string) bool {
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Encoding is how a value is stored, numbered as Redis's OBJ_ENCODING_*.
type Encoding uint8

const (
	EncRaw       Encoding = 0
	EncInt       Encoding = 1
	EncHashtable Encoding = 2
	EncIntset    Encoding = 6
	EncSkiplist  Encoding = 7
	EncEmbstr    Encoding = 8
	EncQuicklist Encoding = 9
	EncStream    Encoding = 10
	EncListpack  Encoding = 11
)

var encodingNames = [...]string{EncRaw: "raw", EncInt: "int", EncHashtable: "hashtable", 3: "zipmap",
	4: "linkedlist", 5: "ziplist", EncIntset: "intset", EncSkiplist: "skiplist", EncEmbstr: "embstr",
	EncQuicklist: "quicklist", EncStream: "stream", EncListpack: "listpack"}

// String returns the name OBJECT ENCODING prints.
func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return "unknown"
}

// embstrMax is the longest string Redis stores as embstr.
const embstrMax = 44

// stringEncoding is the encoding Redis's tryObjectEncoding gives a string
// value written by SET and its relatives.
func stringEncoding(v []byte) Encoding {
	if len(v) <= 20 {
		if _, ok := ParseInt(v); ok {
			return EncInt
		}
	}
	if len(v) <= embstrMax {
		return EncEmbstr
	}
	return EncRaw
}
