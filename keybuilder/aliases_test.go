package keybuilder

import "github.com/lock4go/lock4go/internal/keyexpr"

// The shared functions under the names the package's tests know them by.
var (
	intPart         = keyexpr.IntPart
	floatPart       = keyexpr.FloatPart
	canonicalNumber = keyexpr.CanonicalNumber
	escapedLen      = keyexpr.EscapedLen
)

// maxExactNumber is keyexpr.MaxExactNumber.
const maxExactNumber = keyexpr.MaxExactNumber
