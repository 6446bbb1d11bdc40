//go:build !linux

package store

import "errors"

// Elsewhere arena pages stay in the Go heap.
const hugeSupported = false

func hugeMap(int) ([]byte, error) { return nil, errors.ErrUnsupported }

func hugeUnmap([]byte) {}
