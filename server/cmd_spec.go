package server

import (
	"slices"
	"strings"
	"sync"
)

// The command spec: every command is one row of type command, declared by
// its family file (cmd_string.go, cmd_keys.go, ...) at the file's bottom
// and handed to register from the file's init function:
//
//	var stringCommands = []command{
//		{Name: "get", Arity: 2, Flags: flagReadOnly | flagFast, ACL: catString,
//			Keys: []keySpec{{Flags: keyRO | keyAccess, BS: bsIndex(1), FK: fkRange(0, 1, 0)}},
//			Doc: cmdDoc{Summary: "Get the value of a key", Since: "1.0.0", Group: "string",
//				Complexity: "O(1)",
//				Args: []cmdArg{{Name: "key", Type: argKey, KeySpec: 0}}},
//			Fn: cmdGet},
//	}
//
//	func init() { register(stringCommands...) }
//
// A row says everything about its command, as Redis 7.0's
// src/commands/*.json do, and everything else is derived from the rows:
//
//	dispatch, arity           lookupCommand, resolveCommand (dispatch.go)
//	COMMAND and subcommands   cmd_command.go: INFO and DOCS print the rows
//	ACL categories            ACL | the categories Flags imply (impliedCats)
//	ACL key permissions       the key specs' access flags (keyNeed in acl.go)
//	key positions             commandKeys: (row, args) -> positions and flags
//	the clock                 ClockFree (session.go, needsClock)
//
// A new family needs only its own file: its rows and one register call.
// register only collects; the table is built at first use (cmdTable), after
// every init function has run, so no init order matters. Rows are never
// modified by handlers; the table fills the derived, unexported fields once.
//
// Writing a row. The fields must say what redis-server 7.0's COMMAND INFO
// and COMMAND DOCS say for the command (ask it: COMMAND INFO name, COMMAND
// DOCS name); TestCommandInfoMatchesRedis and TestCommandDocsMatchRedis
// compare every registered row with it byte for byte, so a new family is
// checked as soon as it registers. A row Redis 7.0 does not have is listed
// in notInRedis70 (cmd_command_test.go) with its reason.
//   - Name is lower case. A subcommand row (in its container's Subs) has
//     its own name ("get"), and its full name is "config|get".
//   - Arity > 0 is exact, < 0 a minimum; both count the command name, and a
//     subcommand's count the container's name too (CONFIG GET: -3).
//   - A container (a row with Subs) is run as its subcommand's row when a
//     subcommand name follows. Its own Fn runs only when none does (COMMAND
//     alone), so a container without Fn has an arity of -2. Every other
//     row has an Fn. Subcommands do not nest further.
//   - Flags are Redis's command flags; flagMovableKeys is derived, never
//     written.
//   - ACL holds the categories Redis's JSON lists ("acl_categories"); the
//     ones the flags imply (@write @read @admin @dangerous @pubsub @fast
//     @blocking, and @slow for any command not @fast) are added by the table.
//   - Keys are Redis 7's key specs in their JSON order; an argument of type
//     key names its spec by index (cmdArg.KeySpec). A spec with
//     keyVariableFlags has its real flags computed by the row's KeyFlags.
//   - ClockFree marks a command whose handler never reads cmdCtx.now.
//   - Doc is what COMMAND DOCS prints.

// cmdFlags are Redis's command flags. The bits are in the order COMMAND
// INFO prints them (cmdFlagNames).
type cmdFlags uint32

const (
	flagWrite           cmdFlags = 1 << iota // may modify the keyspace
	flagReadOnly                             // reads the keyspace only
	flagDenyOOM                              // refused with -OOM when maxmemory is reached (maxmemory.go)
	flagAdmin                                // administrative (CONFIG, SHUTDOWN, CLIENT KILL)
	flagPubSub                               // publish/subscribe
	flagNoScript                             // not allowed in scripts
	flagBlocking                             // may block the client
	flagLoading                              // allowed while the dataset loads
	flagStale                                // allowed on a replica with stale data
	flagSkipMonitor                          // not shown by MONITOR
	flagSkipSlowlog                          // not logged by SLOWLOG
	flagAsking                               // cluster: accepted on an importing slot
	flagFast                                 // O(1) or O(log N)
	flagNoAuth                               // allowed before authentication (AUTH, HELLO, QUIT, RESET)
	flagMayReplicate                         // may be propagated to replicas
	flagNoMandatoryKeys                      // may take no key even though it has key specs
	flagNoAsyncLoading                       // refused during an async load
	flagNoMulti                              // not allowed inside MULTI
	flagMovableKeys                          // derived: the keys cannot be given by first/last/step alone
	flagAllowBusy                            // allowed while a script is busy
)

// cmdFlagNames are the flags' names, by bit.
var cmdFlagNames = [...]string{"write", "readonly", "denyoom", "admin", "pubsub", "noscript", "blocking",
	"loading", "stale", "skip_monitor", "skip_slowlog", "asking", "fast", "no_auth", "may_replicate",
	"no_mandatory_keys", "no_async_loading", "no_multi", "movablekeys", "allow_busy"}

// aclCats is a set of ACL categories, one bit each in aclCategoryNames'
// order, which is the order ACL CAT and COMMAND INFO list them in.
type aclCats uint32

const (
	catKeyspace aclCats = 1 << iota
	catRead
	catWrite
	catSet
	catSortedset
	catList
	catHash
	catString
	catBitmap
	catHyperloglog
	catGeo
	catStream
	catPubsub
	catAdmin
	catFast
	catSlow
	catBlocking
	catDangerous
	catConnection
	catTransaction
	catScripting
)

// aclCategoryNames are Redis 7.0's categories, by bit of aclCats.
var aclCategoryNames = [...]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
	"hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
	"dangerous", "connection", "transaction", "scripting",
}

// aclCategoryBit returns the bit of the category called name (no '@',
// lower case), or 0.
func aclCategoryBit(name string) aclCats {
	for i, n := range aclCategoryNames {
		if n == name {
			return 1 << i
		}
	}
	return 0
}

// impliedCats adds to explicit the categories Redis derives from a
// command's flags (server.c, setImplicitACLCategories).
func impliedCats(f cmdFlags, explicit aclCats) aclCats {
	c := explicit
	if f&flagWrite != 0 {
		c |= catWrite
	}
	if f&flagReadOnly != 0 && explicit&catScripting == 0 {
		c |= catRead
	}
	if f&flagAdmin != 0 {
		c |= catAdmin | catDangerous
	}
	if f&flagPubSub != 0 {
		c |= catPubsub
	}
	if f&flagFast != 0 {
		c |= catFast
	}
	if f&flagBlocking != 0 {
		c |= catBlocking
	}
	if c&catFast == 0 {
		c |= catSlow
	}
	return c
}

// keyFlags are a key spec's flags, in the order COMMAND INFO prints them
// (keyFlagNames). Exactly one of RO, RW, OW, RM says what happens to the
// value; ACCESS, UPDATE, INSERT and DELETE say how the data is used:
//
//	RO  read only                     ACCESS  returns, copies or uses the user data
//	RW  read and modified             UPDATE  overwrites part of the data
//	OW  overwritten, not read         INSERT  adds data, changes none
//	RM  deleted, not read             DELETE  removes data
//
// ACL key patterns follow them: ACCESS needs %R, UPDATE, INSERT and DELETE
// need %W, and a key with none of them (EXISTS, TYPE) needs neither.
type keyFlags uint16

const (
	keyRO keyFlags = 1 << iota
	keyRW
	keyOW
	keyRM
	keyAccess
	keyUpdate
	keyInsert
	keyDelete
	keyNotKey        // the argument is not a key, though a key-like name (a channel)
	keyIncomplete    // the spec may miss keys (a movable-keys command)
	keyVariableFlags // the row's KeyFlags gives the flags of each call
)

// keyFlagNames are the key flags' names, by bit.
var keyFlagNames = [...]string{"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags"}

// keySpec is one of a command's key specs (Redis 7): BS finds where the
// keys begin, FK finds them from there.
type keySpec struct {
	Notes string // printed by COMMAND INFO when set
	Flags keyFlags
	BS    beginSearch
	FK    findKeys
}

// bsKind is how a key spec's search begins.
type bsKind uint8

const (
	bsUnknown     bsKind = iota // the keys cannot be found by the spec
	bsIndexKind                 // at a fixed argument index
	bsKeywordKind               // after a keyword
)

// beginSearch is a spec's begin_search; build it with bsIndex or bsKeyword.
type beginSearch struct {
	Kind      bsKind
	Index     int    // bsIndexKind: the argument index (args[0] is the name)
	Keyword   string // bsKeywordKind: the keyword, upper case
	StartFrom int    // bsKeywordKind: where the search starts; < 0 counts from the end, backwards
}

// bsIndex begins at argument index i.
func bsIndex(i int) beginSearch { return beginSearch{Kind: bsIndexKind, Index: i} }

// bsKeyword begins after keyword, searched from startFrom.
func bsKeyword(keyword string, startFrom int) beginSearch {
	return beginSearch{Kind: bsKeywordKind, Keyword: keyword, StartFrom: startFrom}
}

// fkKind is how a key spec finds the keys after the beginning.
type fkKind uint8

const (
	fkUnknown    fkKind = iota
	fkRangeKind         // a range of arguments
	fkKeyNumKind        // a count argument, then the keys
)

// findKeys is a spec's find_keys; build it with fkRange or fkKeyNum.
type findKeys struct {
	Kind fkKind
	// fkRangeKind: the last key relative to the first; < 0 counts from
	// the end (-1 the last argument), and then Limit > 1 keeps only
	// 1/Limit of the remaining arguments.
	LastKey, Limit int
	// fkKeyNumKind: the count argument relative to the beginning, and the
	// first key relative to the beginning.
	KeyNumIdx, FirstKey int
	Step                int // both kinds: the distance between two keys
}

// fkRange finds the keys from the beginning to lastKey, step apart.
func fkRange(lastKey, step, limit int) findKeys {
	return findKeys{Kind: fkRangeKind, LastKey: lastKey, Step: step, Limit: limit}
}

// fkKeyNum finds a count at keyNumIdx and that many keys from firstKey.
func fkKeyNum(keyNumIdx, firstKey, step int) findKeys {
	return findKeys{Kind: fkKeyNumKind, KeyNumIdx: keyNumIdx, FirstKey: firstKey, Step: step}
}

// cmdDoc is what COMMAND DOCS prints for a row, field by field.
type cmdDoc struct {
	Summary    string
	Since      string
	Group      string // "generic", "string", "hash", "set", "connection", "server", ...
	Complexity string

	DocFlags        docFlags
	DeprecatedSince string
	ReplacedBy      string
	History         [][2]string // {version, what changed}
	Args            []cmdArg
}

// docFlags are COMMAND DOCS' doc_flags.
type docFlags uint8

const (
	docDeprecated docFlags = 1 << iota
	docSyscmd
)

var docFlagNames = [...]string{"deprecated", "syscmd"}

// cmdArg is one argument in COMMAND DOCS; oneof and block arguments hold
// their alternatives or parts in Args.
type cmdArg struct {
	Name            string
	Type            argType
	KeySpec         int // argKey, and argPattern when > 0: the index in the row's Keys of the spec that finds it
	Token           string
	Summary         string
	Since           string
	DeprecatedSince string
	Flags           argFlags
	Args            []cmdArg
}

// argType is an argument's type; argTypeNames are Redis's names.
type argType uint8

const (
	argString argType = iota
	argInteger
	argDouble
	argKey
	argPattern
	argUnixTime
	argPureToken
	argOneOf
	argBlock
)

var argTypeNames = [...]string{"string", "integer", "double", "key", "pattern", "unix-time", "pure-token", "oneof", "block"}

// argFlags are an argument's flags.
type argFlags uint8

const (
	argOptional argFlags = 1 << iota
	argMultiple
	argMultipleToken
)

var argFlagNames = [...]string{"optional", "multiple", "multiple_token"}

// command is one row of the command spec; see the top of this file.
type command struct {
	Name      string
	Arity     int
	Flags     cmdFlags
	ACL       aclCats
	Keys      []keySpec
	KeyFlags  func(args [][]byte, spec int) keyFlags // flags of spec's keys in this call, for keyVariableFlags
	Tips      []string                               // COMMAND INFO tips: "request_policy:all_shards", ...
	ClockFree bool                                   // the handler never reads cmdCtx.now
	Protected bool                                   // DEBUG: refused unless enable-debug-command allows the client (cmd_debug.go)
	Subs      []command
	Doc       cmdDoc
	Fn        func(*cmdCtx)

	// derived by newCmdTable; zero in a row literal
	full    string     // "config|get"; Name for a top-level command
	upper   string     // the full name upper case, for HELP and errors ("CONFIG")
	parent  *command   // the container of a subcommand
	subs    []*command // Subs by name
	id      int        // index in cmdTable.rows: the command's ACL bit
	cats    aclCats    // ACL and the categories Flags imply
	movable bool       // flagMovableKeys
	legacy  [3]int     // first, last and step of COMMAND INFO
	prop    propRule   // how a call is propagated (propagate.go)
}

// cmdTable is the index of every registered row, built once.
type cmdTable struct {
	top     []*command          // top-level rows by name
	rows    []*command          // every row by full name, a container before its subcommands; rows[i].id == i
	buckets [32][26][]*command  // top-level rows by name length and first letter, for lookupCommand
	byName  map[string]*command // every row by full name, for rules and COMMAND INFO (not the hot path)
}

var (
	cmdFamilies  [][]command // the register calls, in init order
	cmdTableOnce sync.Once
	cmdTab       *cmdTable
	cmdTableDone bool // set by the build; register after it is a bug
)

// register adds a family's rows to the command spec. Call it from the
// family file's init function; the rows must not change afterwards.
func register(rows ...command) {
	if cmdTableDone {
		panic("server: register after the command table was built")
	}
	cmdFamilies = append(cmdFamilies, rows)
}

// commands returns the command table, building it on first use.
func commands() *cmdTable {
	cmdTableOnce.Do(func() {
		cmdTableDone = true
		cmdTab = newCmdTable(cmdFamilies)
	})
	return cmdTab
}

// newCmdTable indexes the rows of fams and fills their derived fields. A
// malformed row (a duplicate name, a row without a handler, a container
// without handler or subcommand arity) panics: it is a bug the package's
// tests hit at once.
func newCmdTable(fams [][]command) *cmdTable {
	t := &cmdTable{byName: make(map[string]*command)}
	for _, fam := range fams {
		for i := range fam {
			t.top = append(t.top, &fam[i])
		}
	}
	slices.SortFunc(t.top, func(a, b *command) int { return strings.Compare(a.Name, b.Name) })
	for _, cmd := range t.top {
		t.add(cmd, nil)
		if n := len(cmd.Name); n < len(t.buckets) && 'a' <= cmd.Name[0] && cmd.Name[0] <= 'z' {
			t.buckets[n][cmd.Name[0]-'a'] = append(t.buckets[n][cmd.Name[0]-'a'], cmd)
		} else {
			panic("server: command name " + cmd.Name + " does not fit the lookup buckets")
		}
	}
	return t
}

// add indexes cmd (and its subcommands) with parent as its container.
func (t *cmdTable) add(cmd *command, parent *command) {
	cmd.parent, cmd.full = parent, cmd.Name
	if parent != nil {
		cmd.full = parent.Name + "|" + cmd.Name
	}
	cmd.upper = strings.ToUpper(cmd.Name)
	if _, dup := t.byName[cmd.full]; dup || cmd.Name != strings.ToLower(cmd.Name) || cmd.Name == "" {
		panic("server: bad or duplicate command name " + cmd.full)
	}
	if len(cmd.Subs) == 0 && cmd.Fn == nil || len(cmd.Subs) > 0 && (parent != nil || cmd.Fn == nil && cmd.Arity > -2) {
		panic("server: command " + cmd.full + ": needs a handler, or subcommands and an arity that requires one")
	}
	t.byName[cmd.full] = cmd
	cmd.id = len(t.rows)
	t.rows = append(t.rows, cmd)
	cmd.cats = impliedCats(cmd.Flags, cmd.ACL)
	cmd.legacy, cmd.movable = legacyKeyRange(cmd.Keys)
	cmd.prop = propRuleOf(cmd)
	cmd.subs = cmd.subs[:0]
	for i := range cmd.Subs {
		cmd.subs = append(cmd.subs, &cmd.Subs[i])
	}
	slices.SortFunc(cmd.subs, func(a, b *command) int { return strings.Compare(a.Name, b.Name) })
	for _, sub := range cmd.subs {
		t.add(sub, cmd)
	}
}

// flags are the row's flags with the derived ones.
func (cmd *command) flags() cmdFlags {
	if cmd.movable {
		return cmd.Flags | flagMovableKeys
	}
	return cmd.Flags
}

// sub returns cmd's subcommand called name (any case), or nil.
func (cmd *command) sub(name []byte) *command {
	for _, s := range cmd.subs {
		if equalFoldLower(name, s.Name) {
			return s
		}
	}
	return nil
}

// commandByName returns the row called name, "get" or "config|get", any
// case, or nil; COMMAND INFO and DOCS and ACL rules use it.
func commandByName(name string) *command {
	return commands().byName[strings.ToLower(name)]
}

// legacyKeyRange is the first, last and step COMMAND INFO prints before
// the key specs, and whether the keys are movable: the one range spec, or
// the union of the plain consecutive range specs; any other spec (keyword,
// keynum, a step other than 1, a gap, incomplete) makes the keys movable.
// Redis 7.0 derives the legacy range the same way (populateCommandLegacyRangeSpec).
func legacyKeyRange(specs []keySpec) (legacy [3]int, movable bool) {
	if len(specs) == 0 {
		return legacy, false
	}
	if len(specs) == 1 && specs[0].BS.Kind == bsIndexKind && specs[0].FK.Kind == fkRangeKind {
		s := specs[0]
		return [3]int{s.BS.Index, legacyLast(s.BS.Index, s.FK.LastKey), s.FK.Step}, s.Flags&keyIncomplete != 0
	}
	first, last, prevLast := -1, 0, 0
	for _, s := range specs {
		if s.BS.Kind != bsIndexKind || s.FK.Kind != fkRangeKind ||
			s.FK.Step != 1 || prevLast != 0 && prevLast != s.BS.Index-1 {
			movable = true
			continue
		}
		if s.Flags&keyIncomplete != 0 {
			movable = true
		}
		if first < 0 || s.BS.Index < first {
			first = s.BS.Index
		}
		abs := s.FK.LastKey
		if abs >= 0 {
			abs += s.BS.Index
		}
		// A negative last key (counted from the end) is past any positive one.
		if abs < 0 && last >= 0 || (abs < 0) == (last < 0) && abs > last {
			last = abs
		}
		prevLast = last
	}
	if first < 0 {
		return legacy, true
	}
	return [3]int{first, last, 1}, movable
}

// legacyLast is a range spec's last key as an absolute position, or
// negative from the end.
func legacyLast(first, lastKey int) int {
	if lastKey >= 0 {
		return first + lastKey
	}
	return lastKey
}

// keyRef is one key a command call names: its index in args and its key
// spec's flags for this call.
type keyRef struct {
	Pos   int
	Flags keyFlags
}

// keySearch options of commandKeys.
type keySearch uint8

const (
	keysNotKeys keySearch = 1 << iota // include the specs marked keyNotKey
	keysPartial                       // skip a spec that does not fit args instead of failing
)

// commandKeys appends to buf the keys cmd's key specs find in args (the
// whole call: args[0] is the command name, then a subcommand's name) and
// returns it, in spec order. It fails (nil, false) when a spec does not fit
// args, a keynum count that is no number or runs past the end, unless
// keysPartial is set. It allocates only when buf is too small. This is the
// one key extractor: ACL key checks, COMMAND GETKEYS and, later, cluster
// slot routing use it.
func commandKeys(cmd *command, args [][]byte, buf []keyRef, opts keySearch) ([]keyRef, bool) {
	out := buf[:0]
	for si := range cmd.Keys {
		s := &cmd.Keys[si]
		if s.Flags&keyNotKey != 0 && opts&keysNotKeys == 0 {
			continue
		}
		first, last, step, ok := specBounds(s, args)
		if !ok {
			if opts&keysPartial != 0 {
				continue
			}
			return nil, false
		}
		flags := s.Flags
		if flags&keyVariableFlags != 0 && cmd.KeyFlags != nil {
			flags = cmd.KeyFlags(args, si)
		}
		for i := first; i <= last; i += step {
			out = append(out, keyRef{Pos: i, Flags: flags})
		}
	}
	return out, true
}

// specBounds applies one spec to args: the first and last key positions
// and the step, all inside args, or ok false when the spec does not fit.
// A keyword search that finds nothing gives no keys (last < first, ok).
func specBounds(s *keySpec, args [][]byte) (first, last, step int, ok bool) {
	n := len(args)
	switch s.BS.Kind {
	case bsIndexKind:
		first = s.BS.Index
	case bsKeywordKind:
		first = keywordStart(s.BS, args)
		if first == 0 {
			return 1, 0, 1, true
		}
	default:
		// an unknown spec (SORT's BY, GET and STORE) gives no keys, and
		// the command's known specs still apply
		return 1, 0, 1, true
	}
	switch s.FK.Kind {
	case fkRangeKind:
		step = s.FK.Step
		switch {
		case s.FK.LastKey >= 0:
			last = first + s.FK.LastKey
		case s.FK.Limit <= 1:
			last = n + s.FK.LastKey
		default:
			last = first + (n-first)/s.FK.Limit + s.FK.LastKey
		}
	case fkKeyNumKind:
		step = s.FK.Step
		at := first + s.FK.KeyNumIdx
		if at < 1 || at >= n {
			return 0, 0, 0, false
		}
		num, isNum := parseInt(args[at])
		if !isNum || num < 0 || num > int64(n) {
			return 0, 0, 0, false
		}
		first += s.FK.FirstKey
		last = first + int(num) - 1
	default:
		return 0, 0, 0, false
	}
	if step < 1 || first < 1 || first >= n || last >= n || last < first {
		return 0, 0, 0, false
	}
	return first, last, step, true
}

// keywordStart returns the position after the keyword bs searches for, or
// 0 when args do not hold it.
func keywordStart(bs beginSearch, args [][]byte) int {
	n := len(args)
	start, end, dir := bs.StartFrom, n-1, 1 // end excluded: a key must follow
	if bs.StartFrom < 0 {
		start, end, dir = n+bs.StartFrom, 0, -1
	}
	for i := start; i != end; i += dir {
		if i < 1 || i >= n {
			break
		}
		if equalFoldASCII(args[i], bs.Keyword) {
			return i + 1
		}
	}
	return 0
}

// equalFoldASCII reports whether b equals s ignoring ASCII case.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if b[i]|0x20 != s[i]|0x20 || (b[i]|0x20 < 'a' || b[i]|0x20 > 'z') && b[i] != s[i] {
			return false
		}
	}
	return true
}
