package main

import (
	"os"
	"strings"
	"testing"
)

// TestUsage covers command lines the tool must refuse, and help.
func TestUsage(t *testing.T) {
	redis := []string{"--redis", "redis://127.0.0.1:1"}
	tests := []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"no command", nil, nil, exitUsage},
		{"unknown command", nil, []string{"lock", "k"}, exitUsage},
		{"help", nil, []string{"help"}, exitOK},
		{"command help", nil, []string{"inspect", "-h"}, exitOK},
		{"unknown flag", nil, []string{"inspect", "--nope", "k"}, exitUsage},
		{"inspect without key", nil, append([]string{"inspect"}, redis...), exitUsage},
		{"inspect without backend", nil, []string{"inspect", "k"}, exitUsage},
		{"bad Redis URL", nil, []string{"inspect", "--redis", "http://x", "k"}, exitUsage},
		{"watch with two keys", nil, append([]string{"watch", "a", "b"}, redis...), exitUsage},
		{"watch with zero interval", nil, append([]string{"watch", "--interval", "0s", "a"}, redis...), exitUsage},
		{"bad timeout in env", []string{"LOCK4GO_TIMEOUT=soon"}, append([]string{"inspect", "k"}, redis...), exitUsage},
		{"zero timeout", nil, append([]string{"inspect", "--timeout", "0s", "k"}, redis...), exitUsage},
		{"client cert without key", nil, append([]string{"inspect", "--tls-cert", "c.pem", "k"}, redis...), exitUsage},
		{"missing CA file", nil, append([]string{"inspect", "--tls-ca", "/nonexistent.pem", "k"}, redis...), exitUsage},
		{"digest without password", nil, []string{"inspect", "--zookeeper", "127.0.0.1:1", "--zk-digest", "user", "k"}, exitUsage},
		{"several backends for release", []string{"LOCK4GO_ETCD=http://127.0.0.1:1"}, append([]string{"release", "--force", "--yes", "k"}, redis...), exitUsage},
		{"--backend not configured", nil, append([]string{"inspect", "--backend", "etcd", "k"}, redis...), exitUsage},
		{"bench with arguments", nil, append([]string{"bench", "k"}, redis...), exitUsage},
		{"bench with bad waiters", nil, append([]string{"bench", "--waiters", "2,x"}, redis...), exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", tc.env, tc.args...)
			wantCode(t, r, tc.code)
			if tc.code == exitUsage && r.stderr == "" {
				t.Error("a usage error with no message")
			}
		})
	}
}

// TestHelp_exitCodes: the help lists the exit codes, exactly as doc.go does.
func TestHelp_exitCodes(t *testing.T) {
	r := runCLI(t, "", nil, "help")
	wantCode(t, r, exitOK)
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(strings.TrimSpace(exitCodesUsage)) {
		line = strings.TrimSpace(line)
		if !strings.Contains(r.stdout, line) {
			t.Errorf("help lacks %q", line)
		}
		if !strings.Contains(string(doc), "//\t"+line) && line != "Exit codes:" {
			t.Errorf("doc.go lacks %q", line)
		}
	}
}
