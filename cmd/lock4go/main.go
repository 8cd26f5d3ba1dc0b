package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// stdio is where a command reads its confirmation and writes its output
// (out) and its messages, prompts and logs (err).
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand: it parses args itself and returns an error
// that [exitCode] maps to the process's exit code.
type command func(ctx context.Context, std *stdio, args []string) error

var commands = map[string]command{
	"inspect": runInspect,
	"watch":   runWatch,
	"release": runRelease,
	"bench":   runBench,
}

// run runs the subcommand named by args[0] and returns the exit code.
func run(ctx context.Context, args []string, std *stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.err, mainUsage)
		return exitUsage
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(std.out, mainUsage)
		return exitOK
	}
	name, rest := splitCommand(args)
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(std.err, "lock4go: unknown command %q\n\n%s", args[0], mainUsage)
		return exitUsage
	}
	err := cmd(ctx, std, rest)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if !quiet(err) {
		fmt.Fprintf(std.err, "lock4go %s: %v\n", name, err)
	}
	return exitCode(err)
}

// splitCommand finds the command name in args: the first argument, or the
// first that names a command after flags ("lock4go --redis URL inspect
// KEY"). It returns the name and the other arguments.
func splitCommand(args []string) (string, []string) {
	if _, ok := commands[args[0]]; ok || !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	for i, a := range args {
		if _, ok := commands[a]; ok {
			return a, append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return args[0], args[1:]
}

// quiet reports whether err needs no message: none, one the flag package
// printed, or inspect's "a key is not held", which its output shows.
func quiet(err error) bool {
	var ue *usageError
	return err == nil || errors.Is(err, errNotHeld) || (errors.As(err, &ue) && ue.printed)
}
