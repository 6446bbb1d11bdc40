package server

import "github.com/loopkv/loopkv/resp"

// Reply helpers: each appends one RESP value to the command's output in the
// connection's protocol version. owning loop only.

func (c *cmdCtx) ok()                 { c.out = resp.AppendOK(c.out) }
func (c *cmdCtx) simple(s string)     { c.out = resp.AppendSimple(c.out, s) }
func (c *cmdCtx) errReply(msg string) { c.out = resp.AppendError(c.out, msg) }
func (c *cmdCtx) integer(n int64)     { c.out = resp.AppendInt(c.out, n) }
func (c *cmdCtx) bulk(v []byte)       { c.out = resp.AppendBulk(c.out, v) }
func (c *cmdCtx) bulkString(v string) { c.out = resp.AppendBulkString(c.out, v) }
func (c *cmdCtx) null()               { c.out = resp.AppendNull(c.out, c.cl.proto) }
func (c *cmdCtx) nullArray()          { c.out = resp.AppendNullArray(c.out, c.cl.proto) }
func (c *cmdCtx) arrayLen(n int)      { c.out = resp.AppendArrayLen(c.out, n) }
func (c *cmdCtx) mapLen(n int)        { c.out = resp.AppendMapLen(c.out, n, c.cl.proto) }
func (c *cmdCtx) setLen(n int)        { c.out = resp.AppendSetLen(c.out, n, c.cl.proto) }
func (c *cmdCtx) double(f float64)    { c.out = resp.AppendDouble(c.out, f, c.cl.proto) }
func (c *cmdCtx) boolean(b bool)      { c.out = resp.AppendBool(c.out, b, c.cl.proto) }
func (c *cmdCtx) verbatim(v []byte)   { c.out = resp.AppendVerbatim(c.out, "txt", v, c.cl.proto) }
