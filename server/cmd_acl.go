package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
)

// ACL and its subcommands: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI,
// CAT, LOG, DRYRUN, LOAD, SAVE, GENPASS, HELP. Rules and checks are in
// acl.go, the users file in acl_file.go.

// serverACL returns s's ACL state.
func serverACL(s *Server) *aclState {
	s.lazy()
	return s.acl
}

// clientUser returns the user cl is authenticated as; nil is the default
// user.
func clientUser(cl *client) *aclUser { return cl.user }

func cmdACLHelp(c *cmdCtx) { helpReply(c, aclHelp) }

// aclHelp is ACL HELP's text, as Redis 7.0 words it.
var aclHelp = []string{
	"ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CAT [<category>]",
	"    List all commands that belong to <category>, or all command categories",
	"    when no category is specified.",
	"DELUSER <username> [<username> ...]",
	"    Delete a list of users.",
	"DRYRUN <username> <command> [<arg> ...]",
	"    Returns whether the user can execute the given command without executing the command.",
	"GETUSER <username>",
	"    Get the user's details.",
	"GENPASS [<bits>]",
	"    Generate a secure 256-bit user password. The optional `bits` argument can",
	"    be used to specify a different size.",
	"LIST",
	"    Show users details in config file format.",
	"LOAD",
	"    Reload users from the ACL file.",
	"LOG [<count> | RESET]",
	"    Show the ACL log entries.",
	"SAVE",
	"    Save the current config to the ACL file.",
	"SETUSER <username> <attribute> [<attribute> ...]",
	"    Create or modify a user with the specified attributes.",
	"USERS",
	"    List all the registered usernames.",
	"WHOAMI",
	"    Return the current connection username.",
	"HELP",
	"    Prints this help.",
}

// cmdACLSetUser is ACL SETUSER name [rule ...]: all rules or none apply.
func cmdACLSetUser(c *cmdCtx) {
	name := string(c.args[2])
	if strings.ContainsAny(name, " \x00") {
		c.errReply("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules := make([]string, len(c.args)-3)
	for i, r := range c.args[3:] {
		rules[i] = string(r)
	}
	if err := serverACL(c.srv).setUser(name, rules); err != "" {
		c.errReply(err)
		return
	}
	c.ok()
}

// setUser creates or changes the user name with rules, all or nothing, and
// returns "" or the error reply.
func (a *aclState) setUser(name string, rules []string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	u := a.users[name]
	base := newUserPerm()
	if u != nil {
		base = u.perm.Load()
	}
	p, i, err := base.setRules(rules)
	if err != nil {
		return "ERR Error in ACL SETUSER modifier '" + rules[i] + "': " + err.Error()
	}
	if u == nil {
		u = &aclUser{name: name}
		a.users[name] = u
	}
	u.perm.Store(p)
	return ""
}

// cmdACLGetUser is ACL GETUSER name: Redis 7.0's map of flags, passwords,
// commands, keys, channels and selectors, or null.
func cmdACLGetUser(c *cmdCtx) {
	u := serverACL(c.srv).user(string(c.args[2]))
	if u == nil {
		c.null()
		return
	}
	p := u.perm.Load()
	c.mapLen(6)
	c.bulkString("flags")
	flags := p.flagNames()
	c.setLen(len(flags))
	for _, f := range flags {
		c.bulkString(f)
	}
	c.bulkString("passwords")
	pw := p.passwordHexes()
	c.arrayLen(len(pw))
	for _, h := range pw {
		c.bulkString(h)
	}
	c.bulkString("commands")
	c.bulkString(p.commandRules())
	c.bulkString("keys")
	c.bulkString(p.keyRules())
	c.bulkString("channels")
	c.bulkString(p.channelRules())
	c.bulkString("selectors")
	c.arrayLen(0)
}

// cmdACLDelUser is ACL DELUSER name [name ...]; it replies with how many
// users existed. Clients authenticated as a deleted user may afterwards
// run only the commands allowed before authentication.
func cmdACLDelUser(c *cmdCtx) {
	for _, n := range c.args[2:] {
		if string(n) == "default" {
			c.errReply("ERR The 'default' user cannot be removed")
			return
		}
	}
	a := serverACL(c.srv)
	a.mu.Lock()
	deleted := 0
	for _, n := range c.args[2:] {
		if u := a.users[string(n)]; u != nil {
			a.removeLocked(u)
			deleted++
		}
	}
	a.mu.Unlock()
	c.integer(int64(deleted))
}

// removeLocked removes u from the table and revokes everything it could
// do. a.mu held.
func (a *aclState) removeLocked(u *aclUser) {
	delete(a.users, u.name)
	p := newUserPerm()
	p.removed = true
	u.perm.Store(p)
}

// sortedUsers returns the users in name order, as Redis's radix tree
// lists them.
func (a *aclState) sortedUsers() []*aclUser {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]*aclUser, 0, len(a.users))
	for _, u := range a.users {
		out = append(out, u)
	}
	slices.SortFunc(out, func(x, y *aclUser) int { return strings.Compare(x.name, y.name) })
	return out
}

func cmdACLList(c *cmdCtx) {
	users := serverACL(c.srv).sortedUsers()
	c.arrayLen(len(users))
	for _, u := range users {
		c.bulkString("user " + u.name + " " + u.perm.Load().describe())
	}
}

func cmdACLUsers(c *cmdCtx) {
	users := serverACL(c.srv).sortedUsers()
	c.arrayLen(len(users))
	for _, u := range users {
		c.bulkString(u.name)
	}
}

func cmdACLWhoAmI(c *cmdCtx) {
	u := clientUser(c.cl)
	if u == nil {
		u = serverACL(c.srv).def
	}
	c.bulkString(u.name)
}

// cmdACLCat is ACL CAT [category]: every category, or the commands in one.
func cmdACLCat(c *cmdCtx) {
	switch len(c.args) {
	case 2:
		c.arrayLen(len(aclCategoryNames))
		for _, n := range aclCategoryNames {
			c.bulkString(n)
		}
	case 3:
		cat := strings.ToLower(string(c.args[2]))
		if !validCategory(cat) || cat == "all" {
			c.errReply("ERR Unknown category '" + clip(c.args[2]) + "'")
			return
		}
		var names []string
		for _, cmd := range commands().rows {
			if aclCategoryHas(cmd, cat) {
				names = append(names, cmd.full)
			}
		}
		c.arrayLen(len(names))
		for _, n := range names {
			c.bulkString(n)
		}
	default:
		c.errReply(errSubcommandSyntax(clip(c.args[1]), "ACL"))
	}
}

// errSubcommandSyntax is Redis's addReplySubcommandSyntaxError text; sub
// is the subcommand as sent.
func errSubcommandSyntax(sub, container string) string {
	return "ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try " + container + " HELP."
}

// cmdACLLog is ACL LOG [count | RESET]: the newest entries first.
func cmdACLLog(c *cmdCtx) {
	a := serverACL(c.srv)
	count := int64(10)
	switch {
	case len(c.args) > 3:
		c.errReply(errSubcommandSyntax(clip(c.args[1]), "ACL"))
		return
	case len(c.args) == 3 && bytes.EqualFold(c.args[2], []byte("reset")):
		a.mu.Lock()
		a.log = nil
		a.mu.Unlock()
		c.ok()
		return
	case len(c.args) == 3:
		n, ok := parseInt(c.args[2])
		if !ok {
			c.errReply(errNotInteger)
			return
		}
		count = max(n, 0)
	}
	a.mu.Lock()
	entries := slices.Clone(a.log[:min(int64(len(a.log)), count)])
	a.mu.Unlock()
	c.arrayLen(len(entries))
	for _, e := range entries {
		c.mapLen(7)
		c.bulkString("count")
		c.integer(e.count)
		c.bulkString("reason")
		c.bulkString(e.reason)
		c.bulkString("context")
		c.bulkString(e.context)
		c.bulkString("object")
		c.bulkString(e.object)
		c.bulkString("username")
		c.bulkString(e.username)
		c.bulkString("age-seconds")
		c.double(float64(c.now-e.ctime) / 1000)
		c.bulkString("client-info")
		c.bulkString(e.clientInfo)
	}
}

// cmdACLDryRun is ACL DRYRUN user command [arg ...]: +OK, or the reason
// the user may not run it as a bulk string. Nothing is logged.
func cmdACLDryRun(c *cmdCtx) {
	u := serverACL(c.srv).user(string(c.args[2]))
	if u == nil {
		c.errReply("ERR User '" + clip(c.args[2]) + "' not found")
		return
	}
	args := c.args[3:]
	cmd := lookupCommand(args[0])
	if cmd != nil && len(cmd.subs) > 0 && len(args) > 1 {
		cmd = cmd.sub(args[1])
	}
	if cmd == nil {
		c.errReply("ERR Command '" + clip(c.args[3]) + "' not found")
		return
	}
	if !arityOK(cmd.Arity, len(args)) {
		c.errReply(errArity(cmd.full))
		return
	}
	switch reason, pos := u.perm.Load().permits(cmd, args); reason {
	case "":
		c.ok()
	case "command":
		c.bulkString(errNoCommandPerm("This", cmd.full))
	case "channel":
		c.bulkString("This user has no permissions to access the '" + string(args[pos]) + "' channel")
	default:
		c.bulkString("This user has no permissions to access the '" + string(args[pos]) + "' key")
	}
}

// cmdACLGenPass is ACL GENPASS [bits]: a random password in hex, 256 bits
// unless asked otherwise.
func cmdACLGenPass(c *cmdCtx) {
	bits := int64(256)
	if len(c.args) > 3 {
		c.errReply(errSubcommandSyntax(clip(c.args[1]), "ACL"))
		return
	}
	if len(c.args) == 3 {
		n, ok := parseInt(c.args[2])
		if !ok || n <= 0 || n > 4096 {
			c.errReply("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		bits = n
	}
	chars := int(bits+3) / 4
	raw := make([]byte, (chars+1)/2)
	_, _ = rand.Read(raw)
	c.bulkString(hex.EncodeToString(raw)[:chars])
}

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

// cmdACLLoad is ACL LOAD: replace the users with the users file's, all or
// nothing.
func cmdACLLoad(c *cmdCtx) {
	a := serverACL(c.srv)
	if a.aclFile() == "" {
		c.errReply(errNoACLFile)
		return
	}
	if err := a.loadFile(); err != nil {
		c.errReply("ERR " + err.Error())
		return
	}
	c.ok()
}

// cmdACLSave is ACL SAVE: write every user to the users file.
func cmdACLSave(c *cmdCtx) {
	a := serverACL(c.srv)
	if a.aclFile() == "" {
		c.errReply(errNoACLFile)
		return
	}
	if err := a.saveFile(); err != nil {
		c.errReply("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	c.ok()
}

var aclCommands = []command{
	{Name: "acl", Arity: -2,
		Doc: cmdDoc{Summary: "A container for Access List Control commands ", Since: "6.0.0", Group: "server",
			Complexity: "Depends on subcommand."},
		Subs: []command{
			{Name: "cat", Arity: -2, Flags: flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "List the ACL categories or the commands inside a category", Since: "6.0.0", Group: "server",
					Complexity: "O(1) since the categories and commands are a fixed set.",
					Args: []cmdArg{
						{Name: "categoryname", Type: argString, Flags: argOptional},
					}},
				Fn: cmdACLCat},
			{Name: "deluser", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Remove the specified ACL users and the associated rules", Since: "6.0.0", Group: "server",
					Complexity: "O(1) amortized time considering the typical user.",
					Args: []cmdArg{
						{Name: "username", Type: argString, Flags: argMultiple},
					}},
				Fn: cmdACLDelUser},
			{Name: "dryrun", Arity: -4, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Returns whether the user can execute the given command without executing the command.", Since: "7.0.0", Group: "server",
					Complexity: "O(1).",
					Args: []cmdArg{
						{Name: "username", Type: argString},
						{Name: "command", Type: argString},
						{Name: "arg", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdACLDryRun},
			{Name: "genpass", Arity: -2, Flags: flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Generate a pseudorandom secure password to use for ACL users", Since: "6.0.0", Group: "server",
					Complexity: "O(1)",
					Args: []cmdArg{
						{Name: "bits", Type: argInteger, Flags: argOptional},
					}},
				Fn: cmdACLGenPass},
			{Name: "getuser", Arity: 3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Get the rules for a specific ACL user", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of password, command and pattern rules that the user has.",
					History:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation."}},
					Args: []cmdArg{
						{Name: "username", Type: argString},
					}},
				Fn: cmdACLGetUser},
			{Name: "help", Arity: 2, Flags: flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Show helpful text about the different subcommands", Since: "6.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdACLHelp},
			{Name: "list", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "List the current ACL rules in ACL config file format", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of configured users."},
				Fn: cmdACLList},
			{Name: "load", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Reload the ACLs from the configured ACL file", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of configured users."},
				Fn: cmdACLLoad},
			{Name: "log", Arity: -2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "List latest events denied because of ACLs in place", Since: "6.0.0", Group: "server",
					Complexity: "O(N) with N being the number of entries shown.",
					Args: []cmdArg{
						{Name: "operation", Type: argOneOf, Flags: argOptional, Args: []cmdArg{
							{Name: "count", Type: argInteger},
							{Name: "reset", Type: argPureToken, Token: "RESET"},
						}},
					}},
				Fn: cmdACLLog},
			{Name: "save", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Save the current ACL rules in the configured ACL file", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of configured users."},
				Fn: cmdACLSave},
			{Name: "setuser", Arity: -3, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Modify or create the rules for a specific ACL user", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of rules provided.",
					History:    [][2]string{{"6.2.0", "Added Pub/Sub channel patterns."}, {"7.0.0", "Added selectors and key based permissions."}},
					Args: []cmdArg{
						{Name: "username", Type: argString},
						{Name: "rule", Type: argString, Flags: argOptional | argMultiple},
					}},
				Fn: cmdACLSetUser},
			{Name: "users", Arity: 2, Flags: flagAdmin | flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "List the username of all the configured ACL rules", Since: "6.0.0", Group: "server",
					Complexity: "O(N). Where N is the number of configured users."},
				Fn: cmdACLUsers},
			{Name: "whoami", Arity: 2, Flags: flagNoScript | flagLoading | flagStale,
				Doc: cmdDoc{Summary: "Return the name of the user associated to the current connection", Since: "6.0.0", Group: "server",
					Complexity: "O(1)"},
				Fn: cmdACLWhoAmI},
		}},
}

func init() { register(aclCommands...) }
