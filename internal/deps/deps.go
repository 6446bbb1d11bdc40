//go:build tools

// Package deps pins the project's module dependencies before every package
// that uses them exists, so go mod tidy keeps them.
package deps

import (
	_ "github.com/cloudwego/netpoll"
	_ "github.com/panjf2000/gnet/v2"
	_ "github.com/redis/go-redis/v9"
	_ "go.uber.org/zap"
	_ "golang.org/x/crypto/chacha20poly1305"
	_ "golang.org/x/crypto/cryptobyte"
	_ "golang.org/x/sys/unix"
	_ "gonum.org/v1/plot"
)
