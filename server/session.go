package server

import (
	"github.com/loopkv/loopkv/resp"
	"github.com/loopkv/loopkv/store"
)

// client is one connection's protocol state. It holds no buffer while the
// connection is idle. owning loop only.
type client struct {
	id     uint64
	db     int
	proto  int // 2 or 3
	parser resp.Parser
	name   string
	authed bool
	quit   bool // close once the pending replies are written
}

// Server is the shared state of a running server.
type Server struct {
	store *store.Store
}

// execute runs every complete command at the front of in, appending the
// replies to out. It returns how many bytes of in it consumed, the extended
// out, and whether the connection must close once out is written (QUIT, a
// protocol error). owning loop only.
func (s *Server) execute(cl *client, in []byte, out []byte, now int64, scratch []byte) (int, []byte, bool) {
	ctx := cmdCtx{srv: s, cl: cl, store: s.store, out: out, now: now}
	consumed := 0
	for consumed < len(in) && !cl.quit {
		args, n, err := cl.parser.Next(in[consumed:])
		if err != nil {
			ctx.errReply("ERR " + err.Error())
			return consumed, ctx.out, true
		}
		if n == 0 {
			break
		}
		consumed += n
		if len(args) == 0 {
			continue
		}
		ctx.args = args
		s.call(&ctx, scratch)
	}
	return consumed, ctx.out, cl.quit
}

// call dispatches one command: lookup, arity, then the handler.
func (s *Server) call(c *cmdCtx, scratch []byte) {
	cmd := lookupCommand(c.args[0], scratch)
	if cmd == nil {
		c.errReply(errUnknownCommand(c.args))
		return
	}
	if !arityOK(cmd.Arity, len(c.args)) {
		c.errReply(errWrongArity(c.args[0]))
		return
	}
	cmd.Fn(c)
}
