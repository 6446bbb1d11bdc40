package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Access control as Redis 7.0's ACL has it, for the common case: users
// with passwords, command, subcommand and category rules, and key patterns.
// One root selector per user; no (selectors), no first-arg rules.
//
// Concurrency: a user is a stable handle (*aclUser) that clients keep; its
// permissions are an immutable aclPerm swapped in atomically by ACL SETUSER
// and ACL LOAD, so every loop checks commands with one atomic load and no
// lock. The user table, the log and the file are under aclState.mu.
//
// Commands, categories and key permissions come from the command spec
// (cmd_spec.go): every row, subcommands included, has its own bit in a
// user's command bitset (its id), its categories (ACL and those its flags
// imply), and key specs whose flags say what each key needs: ACCESS needs
// read permission, INSERT, UPDATE and DELETE write permission, as Redis
// 7.0's ACLSelectorCheckKey has it.

// Key permissions of a pattern: ~ is both, %R~ read, %W~ write.
const (
	aclRead  uint8 = 1 << iota
	aclWrite       //
	aclRW    = aclRead | aclWrite
)

// ACL LOG limits and grouping, as Redis's acllog-max-len default and
// ACL_LOG_GROUPING_MAX_TIME_DELTA.
const (
	aclLogMax      = 128
	aclLogGroupDur = 60000 // ms
)

// Error texts of ACL SETUSER rules (Redis's ACLSetUserStringError).
const (
	aclErrUnknown    = "Unknown command or category name in ACL"
	aclErrSyntax     = "Syntax error"
	aclErrAllKeys    = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns"
	aclErrAllChans   = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels"
	aclErrNoPass     = "The password you are trying to remove from the user does not exist"
	aclErrBadHash    = "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters"
	aclErrNoKeyPerm  = "NOPERM this user has no permissions to access one of the keys used as arguments"
	aclErrNoChanPerm = "NOPERM this user has no permissions to access one of the channels used as arguments"
)

// aclUser is one user. Clients hold the pointer for as long as they are
// authenticated as it; name never changes.
type aclUser struct {
	name string
	perm atomic.Pointer[aclPerm] // immutable once stored
}

// aclPerm is a user's flags, passwords and root selector. Never modified
// after it is stored in an aclUser: rules apply to a clone.
type aclPerm struct {
	on, nopass bool
	sanitize   int8 // 0 unset, 1 sanitize-payload, -1 skip-sanitize-payload
	removed    bool // the user was deleted: nothing is allowed
	passwords  [][sha256.Size]byte

	allowAll    bool     // every command on every key: the fast path
	futureCmds  bool     // +@all or allcommands is in effect
	cmds        []uint64 // bitset by aclCommandID
	allKeys     bool
	keys        []aclKeyPattern
	allChannels bool
	channels    []string
}

type aclKeyPattern struct {
	pat   string
	flags uint8 // aclRead, aclWrite
}

// aclLogEntry is one ACL LOG entry; entries that match within
// aclLogGroupDur are counted in one.
type aclLogEntry struct {
	count                             int64
	reason, context, object, username string
	ctime                             int64 // ms, of the latest occurrence
	clientInfo                        string
}

// aclState holds the users, the ACL log and the denial counters of one
// Server. Safe for use by every loop.
type aclState struct {
	def *aclUser // the default user; never removed

	mu    sync.Mutex
	users map[string]*aclUser
	log   []aclLogEntry // newest first, len <= aclLogMax
	file  string        // --aclfile, "" when none

	// counters for INFO's acl_access_denied_*
	deniedAuth, deniedCmd, deniedKey, deniedChannel atomic.Int64

	// the rate limit of failed-AUTH log lines: the time of the last line
	// (ms) and the failures not logged since
	authLogAt, authLogSkipped atomic.Int64
}

// aclAuthLogEvery is the least interval between two log lines about
// failed AUTH.
const aclAuthLogEvery = 1000 // ms

// authFailureLogAllowed reports whether a failed AUTH at now (ms) may be
// logged, at most one line a second, and how many failures went unlogged
// before it. Safe for use by every loop.
func (a *aclState) authFailureLogAllowed(now int64) (bool, int64) {
	last := a.authLogAt.Load()
	if now-last < aclAuthLogEvery || !a.authLogAt.CompareAndSwap(last, now) {
		a.authLogSkipped.Add(1)
		return false, 0
	}
	return true, a.authLogSkipped.Swap(0)
}

// revoked reports whether u was deleted (ACL DELUSER, or absent from a
// reloaded users file) since a client authenticated as it; Redis closes
// such clients.
func (u *aclUser) revoked() bool { return u != nil && u.perm.Load().removed }

// newACLState returns the ACL state with only the default user: on,
// nopass, ~* &* +@all, or with requirepass as its password when set.
func newACLState(requirepass string) *aclState {
	a := &aclState{users: make(map[string]*aclUser)}
	a.def = &aclUser{name: "default"}
	a.def.perm.Store(defaultPerm(requirepass))
	a.users["default"] = a.def
	return a
}

func defaultPerm(requirepass string) *aclPerm {
	p := &aclPerm{}
	for _, r := range []string{"on", "nopass", "~*", "&*", "+@all"} {
		_ = p.apply(r)
	}
	if requirepass != "" {
		_ = p.apply("resetpass")
		_ = p.apply(">" + requirepass)
	}
	p.finish()
	return p
}

// setRequirePass makes pass the only password of the default user, or
// makes it nopass when pass is empty, as CONFIG SET requirepass does.
func (a *aclState) setRequirePass(pass string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.def.perm.Load().clone()
	_ = p.apply("resetpass")
	if pass == "" {
		_ = p.apply("nopass")
	} else {
		_ = p.apply(">" + pass)
	}
	p.finish()
	a.def.perm.Store(p)
}

// authRequired reports whether a new connection must authenticate: the
// default user has a password or is off.
func (a *aclState) authRequired() bool {
	p := a.def.perm.Load()
	return !p.nopass || !p.on
}

// user returns the user called name, or nil.
func (a *aclState) user(name string) *aclUser {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.users[name]
}

// keyNeed is the permission a key with spec flags f needs.
func keyNeed(f keyFlags) uint8 {
	var need uint8
	if f&keyAccess != 0 {
		need |= aclRead
	}
	if f&(keyInsert|keyUpdate|keyDelete) != 0 {
		need |= aclWrite
	}
	return need
}

// aclCategoryHas reports whether cmd belongs to category cat (no '@').
func aclCategoryHas(cmd *command, cat string) bool {
	return cat == "all" || cmd.cats&aclCategoryBit(cat) != 0
}

func validCategory(cat string) bool { return cat == "all" || aclCategoryBit(cat) != 0 }

// allowsAll reports whether u (nil: the default user) may run every
// command on every key and channel: then check has nothing to refuse.
func (a *aclState) allowsAll(u *aclUser) bool {
	if u == nil {
		u = a.def
	}
	return u.perm.Load().allowAll
}

// check reports why u may not run cmd with c.args: "" when it may, else
// the NOPERM error text to reply. A nil u is the default user. When the
// user may run everything it is one atomic load and a bool test, with no
// allocation. Denials are counted and logged to ACL LOG.
func (a *aclState) check(u *aclUser, cmd *command, c *cmdCtx) string {
	if u == nil {
		u = a.def
	}
	p := u.perm.Load()
	if p.allowAll {
		return ""
	}
	reason, keyPos := p.permits(cmd, c.args)
	switch reason {
	case "":
		return ""
	case "command":
		a.deniedCmd.Add(1)
		name := cmd.full
		a.addLog(c, "command", name, u.name)
		return "NOPERM " + errNoCommandPerm("this", name)
	case "channel":
		a.deniedChannel.Add(1)
		a.addLog(c, "channel", string(c.args[keyPos]), u.name)
		return aclErrNoChanPerm
	default:
		a.deniedKey.Add(1)
		a.addLog(c, "key", string(c.args[keyPos]), u.name)
		return aclErrNoKeyPerm
	}
}

// errNoCommandPerm is Redis 7.0's text, after "NOPERM " in replies: who
// is "this" there and "This" in ACL DRYRUN.
func errNoCommandPerm(who, cmd string) string {
	return who + " user has no permissions to run the '" + cmd + "' command"
}

// permits checks cmd with args (args[0] the name) against p. It returns ""
// when allowed, "command" when the command is denied, or "key" and the
// index in args of the first key no pattern allows. It allocates only for
// a call with more than 16 keys and a user without allkeys.
func (p *aclPerm) permits(cmd *command, args [][]byte) (reason string, keyPos int) {
	if cmd.Flags&flagNoAuth == 0 && (p.removed || !p.allowAll) {
		if p.removed || p.cmds[cmd.id/64]&(1<<(cmd.id%64)) == 0 {
			return "command", 0
		}
	}
	if !p.allChannels && cmd.Flags&flagPubSub != 0 {
		if pos := p.channelDenied(cmd, args); pos > 0 {
			return "channel", pos
		}
	}
	if p.allKeys || len(cmd.Keys) == 0 {
		return "", 0
	}
	// A call whose keys the specs cannot find is let through, as Redis
	// does: the handler answers it with a syntax error.
	var buf [16]keyRef
	keys, _ := commandKeys(cmd, args, buf[:0], 0)
	for _, k := range keys {
		if !p.keyAllowed(args[k.Pos], keyNeed(k.Flags)) {
			return "key", k.Pos
		}
	}
	return "", 0
}

// channelDenied returns the index in args of the first channel the
// user's &patterns do not allow, or 0: PUBLISH's and SUBSCRIBE's channels
// must match a pattern, PSUBSCRIBE's patterns must be one, as in Redis.
func (p *aclPerm) channelDenied(cmd *command, args [][]byte) int {
	from, to, literal := 1, len(args), true
	switch cmd.full {
	case "publish", "spublish":
		to = 2
	case "subscribe", "ssubscribe":
	case "psubscribe":
		literal = false
	default:
		return 0
	}
	for i := from; i < to; i++ {
		ok := false
		for _, pat := range p.channels {
			if (literal && globMatch(pat, args[i])) || (!literal && pat == string(args[i])) {
				ok = true
				break
			}
		}
		if !ok {
			return i
		}
	}
	return 0
}

// keyAllowed reports whether some pattern with the needed permissions
// matches key.
func (p *aclPerm) keyAllowed(key []byte, need uint8) bool {
	if p.allKeys {
		return true
	}
	for _, kp := range p.keys {
		if kp.flags&need == need && globMatch(kp.pat, key) {
			return true
		}
	}
	return false
}

// authenticate checks name and pass and returns the user on success. The
// password's SHA-256 is compared with every stored hash in constant time.
// A failure is counted and logged to ACL LOG with c's client (c may be
// nil). Safe for use by every loop.
func (a *aclState) authenticate(name, pass []byte, c *cmdCtx) (*aclUser, bool) {
	a.mu.Lock()
	u := a.users[string(name)]
	a.mu.Unlock()
	if u != nil {
		if p := u.perm.Load(); p.on && !p.removed && p.passwordMatches(pass) {
			return u, true
		}
	}
	a.deniedAuth.Add(1)
	object := "AUTH"
	if c != nil && len(c.args) > 0 {
		object = string(c.args[0])
	}
	a.addLog(c, "auth", object, string(name))
	return nil, false
}

// passwordMatches reports whether pass is one of p's passwords, or p is
// nopass. It looks at every hash whatever matches, in constant time.
func (p *aclPerm) passwordMatches(pass []byte) bool {
	if p.nopass {
		return true
	}
	sum := sha256.Sum256(pass)
	ok := 0
	for i := range p.passwords {
		ok |= subtle.ConstantTimeCompare(sum[:], p.passwords[i][:])
	}
	return ok == 1
}

// addLog records a denial in the ACL log, grouping it with a like entry
// among the 10 newest from the last minute, as Redis does.
func (a *aclState) addLog(c *cmdCtx, reason, object, username string) {
	var now int64
	info := ""
	if c != nil {
		now = c.now
		info = aclClientInfo(c)
	}
	e := aclLogEntry{count: 1, reason: reason, context: "toplevel", object: object,
		username: username, ctime: now, clientInfo: info}
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range min(len(a.log), 10) {
		o := &a.log[i]
		if o.reason == e.reason && o.context == e.context && o.object == e.object &&
			o.username == e.username && now-o.ctime <= aclLogGroupDur {
			e.count = o.count + 1
			a.log = slices.Delete(a.log, i, i+1)
			break
		}
	}
	if len(a.log) >= aclLogMax {
		a.log = a.log[:aclLogMax-1]
	}
	a.log = slices.Insert(a.log, 0, e)
}

// aclClientInfo is the CLIENT LIST line of c's client, without its newline.
func aclClientInfo(c *cmdCtx) string {
	if c.cl.conn != nil {
		return strings.TrimSuffix(string(appendClientLine(nil, c.cl.conn, c.now)), "\n")
	}
	return "id=" + aclItoa(int64(c.cl.id)) + " addr= laddr= fd=-1 name=" + c.cl.name +
		" db=" + aclItoa(int64(c.cl.db)) + " resp=" + aclItoa(int64(c.cl.proto))
}

// --- rules ---

// clone returns a deep copy of p that rules may change.
func (p *aclPerm) clone() *aclPerm {
	q := *p
	q.passwords = slices.Clone(p.passwords)
	q.cmds = slices.Clone(p.cmds)
	q.keys = slices.Clone(p.keys)
	q.channels = slices.Clone(p.channels)
	return &q
}

// newUserPerm is a new user's state: off, no passwords, no keys, no
// channels, -@all (Redis 7.0 with acl-pubsub-default resetchannels).
func newUserPerm() *aclPerm {
	p := &aclPerm{}
	p.finish()
	return p
}

// finish sizes the command bitset and computes the fast-path flag.
func (p *aclPerm) finish() {
	p.ensureBits()
	p.allowAll = false
	if !p.allKeys || !p.allChannels || p.removed {
		return
	}
	for id := range commands().rows {
		if p.cmds[id/64]&(1<<(id%64)) == 0 {
			return
		}
	}
	p.allowAll = true
}

func (p *aclPerm) ensureBits() {
	if n := (len(commands().rows) + 63) / 64; len(p.cmds) < n {
		p.cmds = append(p.cmds, make([]uint64, n-len(p.cmds))...)
	}
}

// aclRuleError is a rule that ACL SETUSER or the users file rejects.
type aclRuleError string

func (e aclRuleError) Error() string { return string(e) }

// setRules applies rules to a clone of p and returns it finished, or the
// first rule's error and its index.
func (p *aclPerm) setRules(rules []string) (*aclPerm, int, error) {
	q := p.clone()
	for i, r := range rules {
		if err := q.apply(r); err != nil {
			return nil, i, err
		}
	}
	q.finish()
	return q, 0, nil
}

// apply applies one rule, Redis's ACLSetUser and ACLSetSelector.
func (p *aclPerm) apply(op string) error {
	p.ensureBits()
	switch lo := strings.ToLower(op); {
	case lo == "on":
		p.on = true
	case lo == "off":
		p.on = false
	case lo == "skip-sanitize-payload":
		p.sanitize = -1
	case lo == "sanitize-payload":
		p.sanitize = 1
	case lo == "nopass":
		p.nopass, p.passwords = true, nil
	case lo == "resetpass":
		p.nopass, p.passwords = false, nil
	case lo == "reset":
		for _, r := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "-@all"} {
			_ = p.apply(r)
		}
	case lo == "allkeys":
		return p.apply("~*")
	case lo == "resetkeys":
		p.allKeys, p.keys = false, nil
	case lo == "allchannels":
		return p.apply("&*")
	case lo == "resetchannels":
		p.allChannels, p.channels = false, nil
	case lo == "allcommands" || lo == "+@all":
		p.setAllCommands(true)
	case lo == "nocommands" || lo == "-@all":
		p.setAllCommands(false)
	case lo == "clearselectors":
	case op == "":
		return aclRuleError(aclErrSyntax)
	case op[0] == '>' || op[0] == '#':
		return p.addPassword(op)
	case op[0] == '<' || op[0] == '!':
		return p.removePassword(op)
	case op[0] == '~' || op[0] == '%':
		return p.addKeyPattern(op)
	case op[0] == '&':
		return p.addChannel(op[1:])
	case len(op) > 1 && (op[0] == '+' || op[0] == '-'):
		return p.commandRule(op[0] == '+', lo[1:])
	default:
		return aclRuleError(aclErrSyntax)
	}
	return nil
}

func (p *aclPerm) setAllCommands(on bool) {
	var v uint64
	if on {
		v = ^uint64(0)
	}
	for i := range p.cmds {
		p.cmds[i] = v
	}
	p.futureCmds = on
}

// passwordHash parses a ">pass", "<pass", "#hash" or "!hash" rule.
func passwordHash(op string) ([sha256.Size]byte, error) {
	var h [sha256.Size]byte
	if op[0] == '>' || op[0] == '<' {
		return sha256.Sum256([]byte(op[1:])), nil
	}
	s := op[1:]
	if len(s) != 2*sha256.Size || strings.ContainsFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') }) {
		return h, aclRuleError(aclErrBadHash)
	}
	_, _ = hex.Decode(h[:], []byte(s))
	return h, nil
}

func (p *aclPerm) addPassword(op string) error {
	h, err := passwordHash(op)
	if err != nil {
		return err
	}
	if !slices.Contains(p.passwords, h) {
		p.passwords = append(p.passwords, h)
	}
	p.nopass = false
	return nil
}

func (p *aclPerm) removePassword(op string) error {
	h, err := passwordHash(op)
	if err != nil {
		return err
	}
	i := slices.Index(p.passwords, h)
	if i < 0 {
		return aclRuleError(aclErrNoPass)
	}
	p.passwords = slices.Delete(p.passwords, i, i+1)
	return nil
}

// addKeyPattern parses "~pat", "%R~pat", "%W~pat" or "%RW~pat".
func (p *aclPerm) addKeyPattern(op string) error {
	if p.allKeys {
		return aclRuleError(aclErrAllKeys)
	}
	flags, off := aclRW, 1
	if op[0] == '%' {
		flags = 0
		tilde := false
		for ; off < len(op); off++ {
			switch ch := op[off] | 0x20; {
			case ch == 'r' && flags&aclRead == 0:
				flags |= aclRead
			case ch == 'w' && flags&aclWrite == 0:
				flags |= aclWrite
			case op[off] == '~':
				tilde = true
			default:
				return aclRuleError(aclErrSyntax)
			}
			if tilde {
				off++
				break
			}
		}
		if !tilde || flags == 0 || off == len(op) {
			return aclRuleError(aclErrSyntax)
		}
	}
	pat := op[off:]
	if pat == "*" && flags == aclRW {
		p.allKeys, p.keys = true, nil
		return nil
	}
	for i := range p.keys {
		if p.keys[i].pat == pat {
			p.keys[i].flags |= flags
			return nil
		}
	}
	p.keys = append(p.keys, aclKeyPattern{pat: pat, flags: flags})
	return nil
}

func (p *aclPerm) addChannel(pat string) error {
	if p.allChannels {
		return aclRuleError(aclErrAllChans)
	}
	if pat == "*" {
		p.allChannels, p.channels = true, nil
		return nil
	}
	if !slices.Contains(p.channels, pat) {
		p.channels = append(p.channels, pat)
	}
	return nil
}

// commandRule applies +name, -name, +@cat or -@cat (name lower case). A
// name is a command, which takes its subcommands along, or one subcommand
// ("config|get").
func (p *aclPerm) commandRule(allow bool, name string) error {
	if strings.HasPrefix(name, "@") {
		cat := name[1:]
		if !validCategory(cat) {
			return aclRuleError(aclErrUnknown)
		}
		for id, cmd := range commands().rows {
			if aclCategoryHas(cmd, cat) {
				p.setBit(id, allow)
			}
		}
		return nil
	}
	cmd := commandByName(name)
	if cmd == nil {
		return aclRuleError(aclErrUnknown)
	}
	setCommandBits(p.cmds, cmd, allow)
	return nil
}

// setCommandBits sets or clears the bits of cmd and its subcommands.
func setCommandBits(bits []uint64, cmd *command, on bool) {
	setBitIn(bits, cmd.id, on)
	for _, sub := range cmd.subs {
		setBitIn(bits, sub.id, on)
	}
}

func (p *aclPerm) setBit(id int, on bool) { setBitIn(p.cmds, id, on) }

func setBitIn(bits []uint64, id int, on bool) {
	if on {
		bits[id/64] |= 1 << (id % 64)
	} else {
		bits[id/64] &^= 1 << (id % 64)
	}
}

// --- descriptions ---

// flagNames are the user's flags as ACL GETUSER and ACL LIST print them.
func (p *aclPerm) flagNames() []string {
	var f []string
	if p.on {
		f = append(f, "on")
	} else {
		f = append(f, "off")
	}
	if p.nopass {
		f = append(f, "nopass")
	}
	switch p.sanitize {
	case -1:
		f = append(f, "skip-sanitize-payload")
	case 1:
		f = append(f, "sanitize-payload")
	}
	return f
}

func (p *aclPerm) passwordHexes() []string {
	out := make([]string, len(p.passwords))
	for i := range p.passwords {
		out[i] = hex.EncodeToString(p.passwords[i][:])
	}
	return out
}

// commandRules is the command part of the description, rebuilt from the
// bits as Redis 7.0's ACLDescribeSelectorCommandRules does: "+@all" (with
// future commands) or "-@all"; then, while some category has more
// commands on the right side than on the wrong one, the one with the
// fewest wrong (the most right on a tie) is applied; then the single
// commands still different. The commands come in table order where Redis
// uses its hash order, and a subcommand follows its container.
func (p *aclPerm) commandRules() string {
	p.ensureBits()
	rows := commands().rows
	fake := make([]uint64, len(p.cmds)) // what the rules so far allow
	temp := slices.Clone(p.cmds)        // the user's bits, each applied category turned to the start's side
	additive := !p.futureCmds
	b := []string{"-@all"}
	if !additive {
		b[0] = "+@all"
		for i := range fake {
			fake[i] = ^uint64(0)
		}
	}
	var applied aclCats
	for {
		best, minDiff, maxSame := aclCats(0), len(rows)+1, 0
		for i := range aclCategoryNames {
			cat := aclCats(1) << i
			if applied&cat != 0 {
				continue
			}
			on, off := 0, 0
			for id, cmd := range rows {
				if cmd.cats&cat != 0 {
					if temp[id/64]&(1<<(id%64)) != 0 {
						on++
					} else {
						off++
					}
				}
			}
			diff, same := on, off
			if additive {
				diff, same = off, on
			}
			if same > diff && (diff < minDiff || diff == minDiff && same > maxSame) {
				best, minDiff, maxSame = cat, diff, same
			}
		}
		if best == 0 {
			break
		}
		applied |= best
		sign := "-@"
		if additive {
			sign = "+@"
		}
		b = append(b, sign+aclCategoryNames[bits.TrailingZeros32(uint32(best))])
		for id, cmd := range rows {
			if cmd.cats&best != 0 {
				setBitIn(fake, id, additive)
				setBitIn(temp, id, !additive)
			}
		}
	}
	for id, cmd := range rows { // a container comes before its subcommands
		user, f := p.cmds[id/64]&(1<<(id%64)) != 0, fake[id/64]&(1<<(id%64)) != 0
		if user == f {
			continue
		}
		sign := "-"
		if user {
			sign = "+"
		}
		b = append(b, sign+cmd.full)
		setCommandBits(fake, cmd, user)
	}
	return strings.Join(b, " ")
}

// keyRules is the key part: "~*", or each pattern as "~p", "%R~p", "%W~p".
func (p *aclPerm) keyRules() string {
	if p.allKeys {
		return "~*"
	}
	parts := make([]string, len(p.keys))
	for i, k := range p.keys {
		switch k.flags {
		case aclRW:
			parts[i] = "~" + k.pat
		case aclRead:
			parts[i] = "%R~" + k.pat
		default:
			parts[i] = "%W~" + k.pat
		}
	}
	return strings.Join(parts, " ")
}

// channelRules is the channel part as ACL GETUSER prints it.
func (p *aclPerm) channelRules() string {
	if p.allChannels {
		return "&*"
	}
	parts := make([]string, len(p.channels))
	for i, c := range p.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

// describe is the user's rules as ACL LIST and ACL SAVE write them after
// "user <name> ", Redis's ACLDescribeUser.
func (p *aclPerm) describe() string {
	var b strings.Builder
	for _, f := range p.flagNames() {
		b.WriteString(f + " ")
	}
	for _, h := range p.passwordHexes() {
		b.WriteString("#" + h + " ")
	}
	if k := p.keyRules(); k != "" {
		b.WriteString(k + " ")
	}
	if p.allChannels {
		b.WriteString("&* ")
	} else {
		b.WriteString("resetchannels ")
		if c := p.channelRules(); c != "" {
			b.WriteString(c + " ")
		}
	}
	b.WriteString(p.commandRules())
	return b.String()
}

// --- glob ---

// globMatch reports whether s matches the Redis glob pattern pat: *, ?,
// [abc], [^a-z] and \ escapes, case-sensitive, as Redis's stringmatchlen.
// It backtracks only to the last *, so it runs in O(len(pat)*len(s)).
// An empty key matches only the empty pattern, as in Redis.
func globMatch(pat string, s []byte) bool {
	if len(s) == 0 {
		return len(pat) == 0
	}
	return globMatchFold(pat, s, false)
}

// globMatchFold is globMatch of a non-empty s; with fold, letters match
// in either case (stringmatchlen's nocase, as CONFIG GET matches names).
func globMatchFold(pat string, s []byte, fold bool) bool {
	p, i := 0, 0
	starP, starI := -1, 0
	for i < len(s) {
		if p < len(pat) && pat[p] == '*' {
			for p < len(pat) && pat[p] == '*' {
				p++
			}
			if p == len(pat) {
				return true
			}
			starP, starI = p, i
			continue
		}
		if p < len(pat) {
			if next, ok := globOne(pat, p, s[i], fold); ok {
				p, i = next, i+1
				continue
			}
		}
		if starP < 0 {
			return false
		}
		starI++
		p, i = starP, starI
	}
	for p < len(pat) && pat[p] == '*' {
		p++
	}
	return p == len(pat)
}

// globOne matches the single-character token of pat at p (not '*')
// against ch and returns the position after the token.
func globOne(pat string, p int, ch byte, fold bool) (int, bool) {
	if fold {
		ch = lower(ch)
	}
	switch pat[p] {
	case '?':
		return p + 1, true
	case '\\':
		if p+1 < len(pat) {
			p++
		}
		return p + 1, foldIf(pat[p], fold) == ch
	case '[':
		return globClass(pat, p+1, ch, fold)
	}
	return p + 1, foldIf(pat[p], fold) == ch
}

func foldIf(c byte, fold bool) byte {
	if fold {
		return lower(c)
	}
	return c
}

// globClass matches a [...] class whose body starts at p; an unclosed
// class runs to the end of pat, as in Redis.
func globClass(pat string, p int, ch byte, fold bool) (int, bool) {
	not := p < len(pat) && pat[p] == '^'
	if not {
		p++
	}
	match := false
	for p < len(pat) && pat[p] != ']' {
		switch {
		case pat[p] == '\\' && p+1 < len(pat):
			p++
			match = match || foldIf(pat[p], fold) == ch
		case p+2 < len(pat) && pat[p+1] == '-':
			lo, hi := foldIf(pat[p], fold), foldIf(pat[p+2], fold)
			if lo > hi {
				lo, hi = hi, lo
			}
			match = match || (lo <= ch && ch <= hi)
			p += 2
		default:
			match = match || foldIf(pat[p], fold) == ch
		}
		p++
	}
	if p < len(pat) {
		p++ // the ']'
	}
	return p, match != not
}

func aclItoa(n int64) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = uint64(-n)
	}
	for {
		i--
		b[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// appendInfoStats appends INFO's four acl_access_denied_* lines (Redis
// 7.0's Stats section) to b.
func (a *aclState) appendInfoStats(b []byte) []byte {
	b = infoInt(b, "acl_access_denied_auth", a.deniedAuth.Load())
	b = infoInt(b, "acl_access_denied_cmd", a.deniedCmd.Load())
	b = infoInt(b, "acl_access_denied_key", a.deniedKey.Load())
	return infoInt(b, "acl_access_denied_channel", a.deniedChannel.Load())
}

// userForCertName maps a name from a verified client certificate (its
// common name or a URI SAN, Valkey's tls-auth-clients-user) to the user of
// that name: the user when it exists and is on, else nil and the client
// stays unauthenticated. No password is checked: the certificate is the
// proof.
func (a *aclState) userForCertName(cn string) *aclUser {
	if cn == "" {
		return nil
	}
	u := a.user(cn)
	if u == nil {
		return nil
	}
	if p := u.perm.Load(); !p.on || p.removed {
		return nil
	}
	return u
}
