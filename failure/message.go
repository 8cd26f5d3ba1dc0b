package failure

import (
	"errors"

	"github.com/lock4go/lock4go/keybuilder"
)

// PublicMessage returns the answer to a client whose request did not
// yield a key ([ClassInvalidKey]), safe to send: the key part err names,
// `missing key part "query.id"` or `invalid key part "json.id"` (see
// [keybuilder.PartError]), never the request data err may quote; or
// [InvalidKeyMessage] when err names no part.
func PublicMessage(err error) string {
	if pe, ok := errors.AsType[*keybuilder.PartError](err); ok {
		return pe.Message()
	}
	return InvalidKeyMessage
}
