// Package doclinks checks that the doc links of the module's packages
// resolve: a bracketed name, type.method or pkg.name in a doc comment must
// name something that exists, so that comments cannot keep citing identifiers
// that were renamed or removed. The check is its test, run by make test.
package doclinks
