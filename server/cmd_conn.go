package server

import (
	"bytes"

	"go.uber.org/zap"

	"github.com/loopkv/loopkv/store"
)

// Connection family: PING, ECHO, QUIT, RESET, HELLO, AUTH, SELECT, CLIENT.

func cmdPing(c *cmdCtx) {
	if c.cl.proto == 2 && c.cl.sub != nil && c.cl.subscribed() && len(c.args) <= 2 {
		// Redis's subscribed-mode PING: [pong, message]
		c.arrayLen(2)
		c.bulkString("pong")
		if len(c.args) == 2 {
			c.bulk(c.args[1])
		} else {
			c.bulkString("")
		}
		return
	}
	switch len(c.args) {
	case 1:
		c.simple("PONG")
	case 2:
		c.bulk(c.args[1])
	default:
		c.errReply(errWrongArity(c.args[0]))
	}
}

func cmdEcho(c *cmdCtx) { c.bulk(c.args[1]) }

// cmdQuit replies +OK and closes the connection once the reply is written.
func cmdQuit(c *cmdCtx) {
	c.ok()
	c.cl.quit = true
}

// cmdReset returns the connection to its state after connect: database 0,
// RESP2, no name, and unauthenticated when a password is set.
func cmdReset(c *cmdCtx) {
	cl := c.cl
	c.srv.endMulti(cl)
	c.srv.unsubscribeAll(cl)
	c.srv.trackingOff(cl)
	setDB(cl, 0)
	setProto(cl, 2)
	setName(cl, "")
	setUser(cl, nil)
	cl.authed = !c.srv.authRequired()
	if cl.conn != nil {
		c.srv.forgetMonitor(cl.conn) // RESET leaves MONITOR mode
	}
	c.clearReplyMode(replyOff | replySkipNext) // reply_mode.go: Redis leaves a running SKIP on, so RESET's own reply is skipped
	c.simple("RESET")
}

// cmdHello is HELLO [protover [AUTH user pass] [SETNAME name]].
func cmdHello(c *cmdCtx) {
	ver := 0
	if len(c.args) >= 2 {
		v, ok := parseInt(c.args[1])
		if !ok {
			c.errReply("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.errReply("NOPROTO unsupported protocol version")
			return
		}
		ver = int(v)
	}
	var user, pass, name []byte
	setname := false
	for j := 2; j < len(c.args); j++ {
		more := len(c.args) - 1 - j
		switch opt := c.args[j]; {
		case bytes.EqualFold(opt, []byte("auth")) && more >= 2:
			user, pass = c.args[j+1], c.args[j+2]
			j += 2
		case bytes.EqualFold(opt, []byte("setname")) && more >= 1:
			name, setname = c.args[j+1], true
			if !validClientName(name) {
				c.errReply(errClientName)
				return
			}
			j++
		default:
			c.errReply("ERR Syntax error in HELLO option '" + clip(opt) + "'")
			return
		}
	}
	if user != nil && !c.srv.authenticate(c, user, pass) {
		c.errReply(errWrongPass)
		return
	}
	if !c.cl.authed && c.srv.authRequired() {
		c.errReply("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if setname {
		setName(c.cl, string(name))
	}
	if ver != 0 {
		setProto(c.cl, ver)
	}
	c.mapLen(7)
	c.bulkString("server")
	c.bulkString("redis")
	c.bulkString("version")
	c.bulkString(redisVersion)
	c.bulkString("proto")
	c.integer(int64(c.cl.proto))
	c.bulkString("id")
	c.integer(int64(c.cl.id))
	c.bulkString("mode")
	c.bulkString("standalone")
	c.bulkString("role")
	c.bulkString("master")
	c.bulkString("modules")
	c.arrayLen(0)
}

// cmdAuth is AUTH [user] pass for the default user.
func cmdAuth(c *cmdCtx) {
	if len(c.args) > 3 {
		c.errReply(errSyntax)
		return
	}
	user, pass := []byte("default"), c.args[1]
	if len(c.args) == 3 {
		user, pass = c.args[1], c.args[2]
	} else if !c.srv.authRequired() {
		c.errReply(errAuthNoPass)
		return
	}
	if !c.srv.authenticate(c, user, pass) {
		c.errReply(errWrongPass)
		return
	}
	c.ok()
}

// authenticate checks user and pass against the ACL users and, on
// success, makes c's client that user. Failures are counted, logged to ACL
// LOG and, at most once a second, to the server log.
func (s *Server) authenticate(c *cmdCtx, user, pass []byte) bool {
	u, ok := s.acl.authenticate(user, pass, c)
	if !ok {
		if log, skipped := s.acl.authFailureLogAllowed(c.now); log && s.log != nil {
			s.log.Warn("authentication failed", zap.Uint64("client", c.cl.id), zap.Int64("suppressed", skipped))
		}
		return false
	}
	setUser(c.cl, u)
	c.cl.authed = true
	return true
}

func cmdSelect(c *cmdCtx) {
	id, ok := parseInt(c.args[1])
	if !ok {
		c.errReply(errNotInteger)
		return
	}
	if id < -1<<31 || id > 1<<31-1 {
		c.errReply("ERR value is out of range, value must between -2147483648 and 2147483647")
		return
	}
	if id < 0 || id >= int64(c.srv.databases()) {
		c.errReply(errDBIndex)
		return
	}
	setDB(c.cl, int(id))
	c.ok()
}

// databases is the number of logical databases.
func (s *Server) databases() int { return s.opts.Databases }

// The setters below keep a client's loop-owned field and the copy other
// loops read (CLIENT LIST) in step.

func setDB(cl *client, db int) {
	cl.db = db
	if cl.conn != nil {
		cl.conn.shared.db.Store(int32(db))
	}
}

func setProto(cl *client, proto int) {
	cl.proto = proto
	if cl.conn != nil {
		cl.conn.shared.proto.Store(int32(proto))
	}
}

func setName(cl *client, name string) {
	cl.name = name
	if cl.conn != nil {
		cl.conn.shared.setTags(func(t *clientTags) { t.name = name })
	}
}

// setUser makes cl authenticated as u (nil: the default user) and
// publishes the name for CLIENT LIST.
func setUser(cl *client, u *aclUser) {
	cl.user = u
	if cl.conn != nil {
		name := ""
		if u != nil {
			name = u.name
		}
		cl.conn.shared.setTags(func(t *clientTags) { t.user = name })
	}
}

const errClientName = "ERR Client names cannot contain spaces, newlines or special characters."

// validClientName reports whether every byte is printable ASCII other than
// space, as Redis requires.
func validClientName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	return true
}

// parseInt parses a base-10 int64 as Redis's string2ll does; the store's
// parser is the one the string commands use.
func parseInt(b []byte) (int64, bool) { return store.ParseInt(b) }

var connCommands = []command{
	{Name: "ping", Arity: -1, Flags: flagFast, ACL: catConnection, ClockFree: true,
		Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"},
		Doc: cmdDoc{Summary: "Ping the server", Since: "1.0.0", Group: "connection",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "message", Type: argString, Flags: argOptional},
			}},
		Fn: cmdPing},
	{Name: "echo", Arity: 2, Flags: flagLoading | flagStale | flagFast, ACL: catConnection, ClockFree: true,
		Doc: cmdDoc{Summary: "Echo the given string", Since: "1.0.0", Group: "connection",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "message", Type: argString},
			}},
		Fn: cmdEcho},
	{Name: "quit", Arity: -1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagNoAuth | flagAllowBusy, ACL: catConnection,
		Doc: cmdDoc{Summary: "Close the connection", Since: "1.0.0", Group: "connection",
			Complexity: "O(1)"},
		Fn: cmdQuit},
	{Name: "reset", Arity: 1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagNoAuth | flagAllowBusy, ACL: catConnection,
		Doc: cmdDoc{Summary: "Reset the connection", Since: "6.2.0", Group: "connection",
			Complexity: "O(1)"},
		Fn: cmdReset},
	{Name: "hello", Arity: -1, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagNoAuth | flagAllowBusy, ACL: catConnection,
		Doc: cmdDoc{Summary: "Handshake with Redis", Since: "6.0.0", Group: "connection",
			Complexity: "O(1)",
			History:    [][2]string{{"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context."}},
			Args: []cmdArg{
				{Name: "arguments", Type: argBlock, Flags: argOptional, Args: []cmdArg{
					{Name: "protover", Type: argInteger},
					{Name: "username_password", Type: argBlock, Token: "AUTH", Flags: argOptional, Args: []cmdArg{
						{Name: "username", Type: argString},
						{Name: "password", Type: argString},
					}},
					{Name: "clientname", Type: argString, Token: "SETNAME", Flags: argOptional},
				}},
			}},
		Fn: cmdHello},
	{Name: "auth", Arity: -2, Flags: flagNoScript | flagLoading | flagStale | flagFast | flagNoAuth | flagAllowBusy, ACL: catConnection,
		Doc: cmdDoc{Summary: "Authenticate to the server", Since: "1.0.0", Group: "connection",
			Complexity: "O(N) where N is the number of passwords defined for the user",
			History:    [][2]string{{"6.0.0", "Added ACL style (username and password)."}},
			Args: []cmdArg{
				{Name: "username", Type: argString, Since: "6.0.0", Flags: argOptional},
				{Name: "password", Type: argString},
			}},
		Fn: cmdAuth},
	{Name: "select", Arity: 2, Flags: flagLoading | flagStale | flagFast, ACL: catConnection,
		Doc: cmdDoc{Summary: "Change the selected database for the current connection", Since: "1.0.0", Group: "connection",
			Complexity: "O(1)",
			Args: []cmdArg{
				{Name: "index", Type: argInteger},
			}},
		Fn: cmdSelect},
}

func init() { register(connCommands...) }
