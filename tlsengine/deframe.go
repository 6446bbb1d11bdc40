package tlsengine

import "encoding/binary"

// nextRecord finds the first record at the start of buf. It returns the whole
// record (header included, aliasing buf) when it is complete; rec == nil and
// err == nil mean more bytes are needed. Headers are checked as soon as the
// five bytes are present, so garbage fails without waiting for a body.
//
// RFC 8446, Section 5.1: unknown content types are unexpected_message;
// ciphertext longer than 2^14+256 bytes is record_overflow.
func nextRecord(buf []byte) (rec []byte, err error) {
	if len(buf) < recordHeaderLen {
		return nil, nil
	}
	switch buf[0] {
	case recordTypeChangeCipherSpec, recordTypeAlert, recordTypeHandshake, recordTypeApplicationData:
	default:
		return nil, errBadRecordType
	}
	if buf[1] != 3 {
		return nil, errBadRecordVersion
	}
	n := int(binary.BigEndian.Uint16(buf[3:5]))
	if n > maxCiphertext13 {
		return nil, errRecordOverflow
	}
	if len(buf) < recordHeaderLen+n {
		return nil, nil
	}
	return buf[:recordHeaderLen+n], nil
}

var (
	errBadRecordType    = alertErr(AlertUnexpectedMessage, ErrUnexpectedMessage)
	errBadRecordVersion = alertErr(AlertProtocolVersion, ErrProtocolVersion)
)
