// Package testlog has a slog handler for tests that assert what a component
// logged: which messages, how often, and waiting for one that follows the
// event a test observed.
package testlog
