package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The demo's main job on the embedded etcd, with a small load: it must end
// without an overlap, an unexpected failure, or a lost lock going
// unnoticed, and its report must say what each section shows.
func TestRun_embeddedEtcd(t *testing.T) {
	var out strings.Builder
	cfg := config{clients: 8, requests: 120, orders: 3, work: time.Millisecond, acquireTimeout: 5 * time.Second, out: &out}
	if err := run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, want := range []string{
		"It shows that the payments of one order never run at once",                    // the intro
		"is told so within a third of its lease (6s here) and a round trip",            // what the lost lock shows
		"Instance 1's /debug/locks: http://",                                           // the URL...
		"(up only while the demo runs; `make demo DEMOFLAGS=--linger` keeps it up 10s", // ...and how long it lives
		"Load: 8 clients sent 120 payments for 3 orders",                               // the load phase
		"revoked its lease in etcd",                                                    // the lost lock: what was done
		"behind the holder's back",
		"cancelled with ErrLockLost",
		"The demo has ended, and its /debug/locks with it. `make demo DEMOFLAGS=--linger`", // the end
		"go run ./cmd/lock4go inspect --etcd ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// While the demo lingers, instance 1's /debug/locks shows the lock it holds
// and the payments queued behind it.
func TestRun_linger(t *testing.T) {
	cfg := config{clients: 4, requests: 20, orders: 2, work: time.Millisecond, acquireTimeout: 5 * time.Second,
		linger: 10 * time.Millisecond}
	var saw string
	cfg.whileLingering = func(url string) error {
		deadline := time.Now().Add(time.Minute)
		for {
			held, waiting, err := debugState(url)
			if err != nil {
				return err
			}
			saw = fmt.Sprintf("held %v, waiting %d", held, waiting)
			if len(held) == 1 && held[0] == lingerKey && waiting == 2 {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("/debug/locks shows %s; want %s held and 2 waiting", saw, lingerKey)
			}
			time.Sleep(20 * time.Millisecond) // waiters joining a queue raise no event
		}
	}
	if err := run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if saw == "" {
		t.Fatal("the demo did not linger")
	}
}

// debugState reads the held keys and the number of goroutines waiting from
// the /debug/locks JSON at url.
func debugState(url string) (held []string, waiting int, err error) {
	resp, err := http.Get(url + "?format=json")
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	var page struct {
		Templates []struct {
			Held []struct {
				Key string `json:"key"`
			} `json:"held"`
			Queues []struct {
				Waiting int `json:"waiting"`
			} `json:"queues"`
		} `json:"templates"`
	}
	if err := json.Unmarshal(b, &page); err != nil || len(page.Templates) != 1 {
		return nil, 0, fmt.Errorf("/debug/locks JSON: %v: %s", err, b)
	}
	for _, h := range page.Templates[0].Held {
		held = append(held, h.Key)
	}
	for _, q := range page.Templates[0].Queues {
		waiting += q.Waiting
	}
	return held, waiting, nil
}

func TestLingerFlag(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
		err  bool
	}{
		{nil, 0, false},
		{[]string{"--linger"}, defaultLinger, false},
		{[]string{"--linger=3s"}, 3 * time.Second, false},
		{[]string{"--linger=false"}, 0, false},
		{[]string{"--linger=soon"}, 0, true},
		{[]string{"--linger=-1s"}, 0, true},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var d time.Duration
			fs := flag.NewFlagSet("demo", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			fs.Var(lingerFlag{&d}, "linger", "")
			err := fs.Parse(tc.args)
			if (err != nil) != tc.err || err == nil && d != tc.want {
				t.Fatalf("linger = %v, %v; want %v (error %v)", d, err, tc.want, tc.err)
			}
		})
	}
}
