package keybuilder

import "github.com/lock4go/lock4go/internal/keys"

// The shared functions under the names the package's tests know them by.
var (
	intPart         = keys.IntPart
	floatPart       = keys.FloatPart
	canonicalNumber = keys.CanonicalNumber
	escapedLen      = keys.EscapedLen
)

// maxExactNumber is keys.MaxExactNumber.
const maxExactNumber = keys.MaxExactNumber
