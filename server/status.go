package server

import "github.com/loopkv/loopkv/store"

// statusError maps a store.Status that ends a command with an error to
// Redis's error text. OK, NotFound and NotSet are ordinary replies for most
// commands; where NotFound is an error (RENAME) it is "ERR no such key".
func statusError(st store.Status) string {
	switch st {
	case store.NotFound:
		return errNoSuchKey
	case store.WrongType:
		return errWrongType
	case store.NotInteger:
		return errNotInteger
	case store.Overflow:
		return errOverflow
	case store.NotFloat:
		return errNotFloat
	case store.NaNOrInf:
		return errNaNOrInf
	case store.TooLarge:
		return errStringTooLong
	case store.SameObject:
		return errSameObject
	case store.HashNotInteger:
		return errHashNotInteger
	case store.HashNotFloat:
		return errHashNotFloat
	case store.NaNOrInfValue:
		return errNaNOrInfValue
	case store.OutOfRange:
		return "ERR index out of range"
	case store.NotHLL:
		return errNotHLL
	case store.CorruptHLL:
		return errCorruptHLL
	}
	return errSyntax
}
