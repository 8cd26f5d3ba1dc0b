// Command wire shows lock4go wired with google/wire: wire.go declares the
// injector (build tag wireinject), wire_gen.go is generated from it with
// `go tool wire gen ./wire` in the examples module, and `make test` fails if
// the generated file is stale.
package main
