package server

import (
	"slices"
	"strings"

	"github.com/loopkv/loopkv/store"
)

// cmdFlags describe a command as Redis's command table does.
type cmdFlags uint32

const (
	flagWrite    cmdFlags = 1 << iota // may modify the keyspace
	flagReadOnly                      // reads the keyspace only
	flagFast                          // O(1) or O(log N)
	flagAdmin                         // administrative (CONFIG, SHUTDOWN, CLIENT KILL)
	flagNoAuth                        // allowed before authentication (AUTH, HELLO, QUIT, RESET)
	flagNoScript
	flagLoading
	flagStale
	flagDenyOOM // refused with -OOM when maxmemory is reached (maxmemory.go)
	flagNoClock // never reads the clock: the batch need not read it (session.go call)
)

// clockFree names the commands whose handlers never read cmdCtx.now; init
// gives them flagNoClock.
var clockFree = []string{"ping", "echo"}

// command is one row of a command table. Arity > 0 is exact, < 0 a minimum
// (both count the name). First, Last and Step locate the key arguments as
// COMMAND INFO reports them; Last -1 means the last argument.
type command struct {
	Name    string // lower case
	Arity   int
	Flags   cmdFlags
	First   int
	Last    int
	Step    int
	Group   string // COMMAND DOCS group: "string", "generic", "connection", "server"
	Since   string // COMMAND DOCS since
	Summary string
	Fn      func(*cmdCtx)
}

// cmdCtx is what a command handler sees. owning loop only.
type cmdCtx struct {
	srv   *Server
	cl    *client
	store *store.Store
	// args[0] is the command name as sent. args alias the connection's
	// input: valid until the handler returns, never kept.
	args [][]byte
	out  []byte // replies are appended here
	now  int64  // Unix time in milliseconds, read at most once per batch; 0 until read (call)
}

// db is the client's selected database.
func (c *cmdCtx) db() int { return c.cl.db }

// commandTables lists every family's table; each family file declares its
// own at its bottom.
func commandTables() [][]command {
	return [][]command{connCommands, serverCommands, stringCommands, keyCommands, aclCommands}
}

// commandIndex maps a lower-case name to its row, and allCommands lists
// the rows in name order; both built once at init (not in their
// declarations, because COMMAND reads them and sits in a table itself).
var (
	commandIndex map[string]*command
	allCommands  []*command
)

func init() {
	commandIndex = make(map[string]*command)
	for _, t := range commandTables() {
		for i := range t {
			commandIndex[t[i].Name] = &t[i]
		}
	}
	for _, cmd := range commandIndex {
		allCommands = append(allCommands, cmd)
		if n := len(cmd.Name); n < len(commandBuckets) && 'a' <= cmd.Name[0] && cmd.Name[0] <= 'z' {
			commandBuckets[n][cmd.Name[0]-'a'] = append(commandBuckets[n][cmd.Name[0]-'a'], cmd)
		}
	}
	slices.SortFunc(allCommands, func(a, b *command) int { return strings.Compare(a.Name, b.Name) })
	for _, name := range clockFree {
		commandIndex[name].Flags |= flagNoClock
	}
	buildSubcommandRows()
}

// buildSubcommandRows fills subcommandRows from subcommandTables.
func buildSubcommandRows() {
	subcommandRows = make(map[*command][]command)
	for name, subs := range subcommandTables {
		parent := commandIndex[name]
		if parent == nil {
			continue
		}
		rows := make([]command, len(subs))
		for i, s := range subs {
			rows[i] = command{Name: name + "|" + s.Name, Arity: s.Arity, Flags: parent.Flags, Group: parent.Group,
				Since: parent.Since, Summary: s.Summary, Fn: s.Fn}
		}
		subcommandRows[parent] = rows
	}
}

// lookupCommand finds name case-insensitively without hashing or
// allocating: commands are bucketed by length and first letter, and the
// few candidates compared byte by byte. scratch is unused and kept for the
// callers' signature.
func lookupCommand(name []byte, scratch []byte) *command {
	if len(name) == 0 || len(name) >= len(commandBuckets) {
		return nil
	}
	f := name[0] | 0x20
	if f < 'a' || f > 'z' {
		return nil
	}
	for _, cmd := range commandBuckets[len(name)][f-'a'] {
		if equalFoldLower(name, cmd.Name) {
			return cmd
		}
	}
	return nil
}

// equalFoldLower reports whether b equals the lower-case ASCII s, ignoring
// the case of b.
func equalFoldLower(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// commandBuckets holds the commands by name length and first letter.
var commandBuckets [32][26][]*command

// arityOK reports whether n arguments (name included) fit arity.
func arityOK(arity, n int) bool {
	if arity >= 0 {
		return n == arity
	}
	return n >= -arity
}
