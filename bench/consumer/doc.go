// Package consumer checks what a service that uses lock4go with one
// backend pays for it in its module: a module that imports the root
// package and one executor, tidied outside this repository, must not list
// the modules of the other backends in its go.sum. Its test runs in make
// test (the bench module's tests).
package consumer
