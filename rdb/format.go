package rdb

// Version is the RDB version written (Redis 7.0's RDB_VERSION).
const Version = 10

// maxReadVersion is the newest RDB version read: Redis 7.2's 11, whose only
// addition is SET_LISTPACK.
const maxReadVersion = 11

// Value types (rdb.h RDB_TYPE_*).
const (
	typeString         = 0
	typeList           = 1
	typeSet            = 2
	typeZSet           = 3
	typeHash           = 4
	typeZSet2          = 5
	typeModulePreGA    = 6
	typeModule2        = 7
	typeHashZipmap     = 9
	typeListZiplist    = 10
	typeSetIntset      = 11
	typeZSetZiplist    = 12
	typeHashZiplist    = 13
	typeListQuicklist  = 14
	typeStreamLP       = 15
	typeHashListpack   = 16
	typeZSetListpack   = 17
	typeListQuicklist2 = 18
	typeStreamLP2      = 19
	typeSetListpack    = 20
	typeStreamLP3      = 21
)

// Opcodes (rdb.h RDB_OPCODE_*).
const (
	opSlotInfo     = 244
	opFunction2    = 245
	opFunctionPre  = 246
	opModuleAux    = 247
	opIdle         = 248
	opFreq         = 249
	opAux          = 250
	opResizeDB     = 251
	opExpireTimeMs = 252
	opExpireTime   = 253
	opSelectDB     = 254
	opEOF          = 255
)

// Length encodings: the top two bits of the first byte.
const (
	len6Bit  = 0
	len14Bit = 1
	len32Bit = 0x80
	len64Bit = 0x81
	lenEnc   = 3 // 11xxxxxx: a special string encoding follows in the low bits
)

// Special string encodings (RDB_ENC_*).
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// Quicklist 2 node containers (QUICKLIST_NODE_CONTAINER_*).
const (
	containerPlain  = 1
	containerPacked = 2
)

// Limits on what a reader accepts.
const (
	maxStringLen = 512 << 20 // proto-max-bulk-len's default: the longest string or blob
	lzfMaxRatio  = 90        // an LZF stream cannot expand more than ~88x; a longer claim is damage
)

var typeNames = map[byte]string{
	typeModulePreGA: "module (pre-GA)", typeModule2: "module", typeStreamLP: "stream",
	typeStreamLP2: "stream", typeStreamLP3: "stream",
}

// typeName names an RDB type number for error messages.
func typeName(t byte) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return "unknown"
}
