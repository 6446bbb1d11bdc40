package server

func cmdPing(c *cmdCtx) {
	if len(c.args) == 2 {
		c.bulk(c.args[1])
		return
	}
	c.simple("PONG")
}

var connCommands = []command{
	{Name: "ping", Arity: -1, Flags: flagFast, Group: "connection", Since: "1.0.0", Summary: "Returns the server's liveliness response.", Fn: cmdPing},
}
